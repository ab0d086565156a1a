// reverse.comp: REVERSE_V2. Output coordinate p reads input coordinate p,
// with each flipped BHWC axis a read as dim(a) - 1 - p(a).
//
// Defines:
//   VEC4_PATH  1: channels are not flipped, so slices copy whole; 0: lane by
//              lane
// Bindings: 0 output, 1 input (same shape).
// Uniforms: u_out, u_in shapes; u_flip (1 per flipped B, H, W, C axis).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_flip;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 q = ivec3(b, gid.y, gid.x);
  ivec3 p = mix(q, u_in.xyz - 1 - q, notEqual(u_flip.xyz, ivec3(0)));
  vec4 v = vec4(0.0);
#if VEC4_PATH
  v = LOAD(in_t.data[phwc4_index(u_in, p.x, p.y, p.z, s)]);
#else
  for (int j = 0; j < 4; ++j) {
    int c = 4 * s + j;
    if (c >= u_out.w) break;
    c = u_out.w - 1 - c;
    v[j] = LOAD(in_t.data[phwc4_index(u_in, p.x, p.y, p.z, c / 4)])[c % 4];
  }
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
