// tile.comp: TILE. Output coordinate p reads input coordinate p % input dims.
//
// Defines:
//   VEC4_PATH  1: channels are not tiled, so slices copy whole; 0: lane by
//              lane
// Bindings: 0 output, 1 input.
// Uniforms: u_out, u_in shapes.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x) % u_in.xyz;
  vec4 v;
#if VEC4_PATH
  v = LOAD(in_t.data[phwc4_index(u_in, p.x, p.y, p.z, s)]);
#else
  for (int j = 0; j < 4; ++j) {
    int c = (4 * s + j) % u_in.w;
    v[j] = LOAD(in_t.data[phwc4_index(u_in, p.x, p.y, p.z, c / 4)])[c % 4];
  }
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
