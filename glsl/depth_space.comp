// depth_space.comp: DEPTH_TO_SPACE and SPACE_TO_DEPTH (TFLite's DCR order).
//   DEPTH_TO_SPACE: out(b, y, x, c) = in(b, y / n, x / n, ((y % n) * n + x % n) * C_out + c)
//   SPACE_TO_DEPTH: out(b, y, x, c) = in(b, y * n + k / n, x * n + k % n, c % C_in),
//                   k = c / C_in
//
// Defines:
//   TO_SPACE   1: DEPTH_TO_SPACE; 0: SPACE_TO_DEPTH
//   VEC4_PATH  1: the channel count of the smaller side is a multiple of 4,
//              so slices copy whole; 0: lane by lane
// Bindings: 0 output, 1 input.
// Uniforms: u_out, u_in shapes; u_block (n).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform int u_block;

ivec4 input_coord(ivec4 o) {
#if TO_SPACE
  int k = (o.y % u_block) * u_block + o.z % u_block;
  return ivec4(o.x, o.y / u_block, o.z / u_block, k * u_out.w + o.w);
#else
  int k = o.w / u_in.w;
  return ivec4(o.x, o.y * u_block + k / u_block, o.z * u_block + k % u_block, o.w % u_in.w);
#endif
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec4 v;
#if VEC4_PATH
  ivec4 i = input_coord(ivec4(b, gid.y, gid.x, 4 * s));
  v = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)]);
#else
  for (int j = 0; j < 4; ++j) {
    int c = 4 * s + j < u_out.w ? 4 * s + j : 0;
    ivec4 i = input_coord(ivec4(b, gid.y, gid.x, c));
    v[j] = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)])[i.w % 4];
  }
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
