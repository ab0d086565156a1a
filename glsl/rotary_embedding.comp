// rotary_embedding.comp: GLD_ROTARY_EMBEDDING. x [..., D] (channels = D) and
// cos, sin broadcast to x's halves [..., D / 2]. Lane by lane, with h = D / 2
// and j = c mod h:
//   c <  h: out = x[c] * cos[j] - x[c + h] * sin[j]
//   c >= h: out = x[c] * cos[j] + x[c - h] * sin[j]
// (the decomposition's products, difference and sum), then the fused
// epilogue. Grid: (W, H, B * slices).
//
// Bindings: 0 output, 1 x, 2 cos, 3 sin (cos and sin of one shape).
// Uniforms: u_out (= x's shape), u_table (cos' and sin's stored shape),
//   u_table_map (for the tables' B, H, W axes, the output axis indexing
//   each, or -1: elementwise_ops.comp's broadcast_index).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer X { STORAGE data[]; } x_t;
layout(std430, binding = 2) readonly restrict buffer Cos { STORAGE data[]; } cos_t;
layout(std430, binding = 3) readonly restrict buffer Sin { STORAGE data[]; } sin_t;

uniform ivec4 u_out;
uniform ivec4 u_table;
uniform ivec4 u_table_map;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x);
  int h = u_out.w / 2;
  vec4 v = vec4(0.0);
  for (int k = 0; k < 4; ++k) {
    int c = 4 * s + k;
    if (c >= u_out.w) break;
    bool first = c < h;
    int j = first ? c : c - h;
    int partner = first ? c + h : c - h;
    int t = u_table.w == 1 ? 0 : j;
    int ti = broadcast_index(u_table, u_table_map, p, t / 4);
    float cv = LOAD(cos_t.data[ti])[t % 4];
    float sv = LOAD(sin_t.data[ti])[t % 4];
    float a = LOAD(x_t.data[phwc4_index(u_out, b, gid.y, gid.x, c / 4)])[c % 4];
    float o = LOAD(x_t.data[phwc4_index(u_out, b, gid.y, gid.x, partner / 4)])[partner % 4];
    v[k] = first ? a * cv - o * sv : a * cv + o * sv;
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
