// batch_matmul.comp: BATCH_MATMUL, out[..., m, n] = sum_k x[..., m, k] * y[..., k, n]
// (x read as [..., K, M] with ADJ_X, y as [..., N, K] with ADJ_Y), batch
// dimensions broadcast. One invocation computes one output vec4: four
// columns n of one row m, k taken four at a time.
//
// Defines: ADJ_X, ADJ_Y (0 or 1).
// Bindings: 0 output, 1 x, 2 y.
// Uniforms: u_out, u_x, u_y (BHWC shapes); u_x_map, u_y_map: for each of the
//           operand's B, H, W axes the output axis (0..2) indexing it, -1 for
//           index 0, 3 for the operand's matrix row; u_nk: (N, K, the
//           output's row axis, 0).
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer InputX { STORAGE data[]; } x_t;
layout(std430, binding = 2) readonly restrict buffer InputY { STORAGE data[]; } y_t;

uniform ivec4 u_out;
uniform ivec4 u_x;
uniform ivec4 u_y;
uniform ivec4 u_x_map;
uniform ivec4 u_y_map;
uniform ivec4 u_nk;

// The operand's (b, y, x) at output position p, its matrix row `row`.
ivec3 operand_coord(ivec4 map, ivec3 p, int row) {
  ivec3 c = ivec3(0);
  for (int i = 0; i < 3; ++i) c[i] = map[i] == 3 ? row : map[i] < 0 ? 0 : p[map[i]];
  return c;
}

vec4 load_x(ivec3 p, int row, int s) {
  ivec3 c = operand_coord(u_x_map, p, row);
  return LOAD(x_t.data[phwc4_index(u_x, c.x, c.y, c.z, s)]);
}

vec4 load_y(ivec3 p, int row, int s) {
  ivec3 c = operand_coord(u_y_map, p, row);
  return LOAD(y_t.data[phwc4_index(u_y, c.x, c.y, c.z, s)]);
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x);
  int m = p[u_nk.z];
  int n_cols = u_nk.x;
  int k_depth = u_nk.y;
  highp vec4 acc = vec4(0.0);  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int k = 0; k < k_depth; k += 4) {
    // xk: x[m, k..k+3] (lanes past K are 0).
#if ADJ_X
    vec4 xk = vec4(0.0);
    for (int j = 0; j < 4; ++j) {
      if (k + j < k_depth) xk[j] = load_x(p, k + j, m / 4)[m % 4];
    }
#else
    vec4 xk = load_x(p, m, k / 4);
#endif
#if ADJ_Y
    // Rows n..n+3 of y, each over k..k+3: acc[j] += dot(xk, row j).
    mat4 yt = mat4(0.0);
    for (int j = 0; j < 4; ++j) {
      if (4 * s + j < n_cols) yt[j] = load_y(p, 4 * s + j, k / 4);
    }
    acc += xk * yt;
#else
    // Rows k..k+3 of y, each over n..n+3: acc += sum_j xk[j] * row j.
    mat4 yk = mat4(0.0);
    for (int j = 0; j < 4; ++j) {
      if (k + j < k_depth) yk[j] = load_y(p, k + j, s);
    }
    acc += yk * xk;
#endif
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(acc, ivec4(b, gid.y, gid.x, s), u_out.w));
}
