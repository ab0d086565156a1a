// reshape.comp: RESHAPE (and any op that only reinterprets the row-major
// order, e.g. SQUEEZE / EXPAND_DIMS). Output element number n is input
// element number n, both counted in BHWC row-major order.
//
// Defines:
//   VEC4_PATH  1: input and output have the same channel count, so pixel n
//              of the output is pixel n of the input and slices copy whole;
//              0: lane by lane
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
  vec4 v;
#if VEC4_PATH
  ivec4 i = bhwc_coord(ivec4(u_in.xyz, 1), (b * u_out.y + gid.y) * u_out.z + gid.x);
  v = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, s)]);
#else
  int n = bhwc_linear(u_out, ivec4(b, gid.y, gid.x, 4 * s));
  for (int j = 0; j < 4; ++j) {
    // Lanes past the channels read element 0; they are masked below.
    ivec4 i = bhwc_coord(u_in, 4 * s + j < u_out.w ? n + j : 0);
    v[j] = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)])[i.w % 4];
  }
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
