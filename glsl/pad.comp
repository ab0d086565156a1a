// pad.comp: PAD, PADV2 (constant) and MIRROR_PAD (reflect / symmetric) over
// any BHWC axes. Output coordinate p reads input coordinate p - u_before.
//
// Defines:
//   MODE       PAD_CONSTANT, PAD_REFLECT or PAD_SYMMETRIC
//   VEC4_PATH  1: channel padding before is a multiple of 4 and (for the
//              mirror modes) channels are not padded, so output slice s reads
//              input slice s - before / 4 whole; 0: lane by lane
// Bindings: 0 output, 1 input.
// Uniforms: u_out, u_in shapes; u_before (B, H, W, C padding before);
//           u_value (the constant).

#define PAD_CONSTANT 0
#define PAD_REFLECT 1
#define PAD_SYMMETRIC 2

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_before;
uniform float u_value;

// Mirrors an out-of-range coordinate back into [0, n).
ivec4 mirror(ivec4 i, ivec4 n) {
#if MODE == PAD_REFLECT
  i = mix(i, -i, lessThan(i, ivec4(0)));
  i = mix(i, 2 * (n - 1) - i, greaterThanEqual(i, n));
#else
  i = mix(i, -i - 1, lessThan(i, ivec4(0)));
  i = mix(i, 2 * n - 1 - i, greaterThanEqual(i, n));
#endif
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
  ivec4 i = ivec4(b, gid.y, gid.x, 4 * s) - u_before;
#if MODE == PAD_CONSTANT
  if (any(lessThan(i.xyz, ivec3(0))) || any(greaterThanEqual(i.xyz, u_in.xyz)) ||
      i.w < 0 || i.w >= 4 * slices_of(u_in)) {
    v = vec4(u_value);
  } else {
    v = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)]);
    // Lanes past the input's channels are padding too.
    v = mix(vec4(u_value), v, lessThan(ivec4(i.w) + ivec4(0, 1, 2, 3), ivec4(u_in.w)));
  }
#else
  i = mirror(i, u_in);
  v = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)]);
#endif
#else
  for (int j = 0; j < 4; ++j) {
    ivec4 i = ivec4(b, gid.y, gid.x, 4 * s + j) - u_before;
#if MODE == PAD_CONSTANT
    if (any(lessThan(i, ivec4(0))) || any(greaterThanEqual(i, u_in))) {
      v[j] = u_value;
      continue;
    }
#else
    i = mirror(i, u_in);
#endif
    v[j] = LOAD(in_t.data[phwc4_index(u_in, i.x, i.y, i.z, i.w / 4)])[i.w % 4];
  }
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
