// transpose.comp: TRANSPOSE of up to 4 dimensions, as a permutation of BHWC
// axes: input axis a takes its coordinate from output axis u_src[a] (-1: an
// axis of size 1).
//
// Defines:
//   VEC4_PATH  1: channels stay the channel axis, so slices copy whole; 0:
//              lane by lane
// Bindings: 0 output, 1 input.
// Uniforms: u_out, u_in shapes; u_src.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_src;

ivec4 input_coord(ivec4 o) {
  ivec4 i;
  for (int a = 0; a < 4; ++a) i[a] = u_src[a] < 0 ? 0 : o[u_src[a]];
  return i;
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
  v = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, s)]);
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
