// pooling.comp: AVERAGE_POOL_2D, MAX_POOL_2D and MediaPipe's
// MaxPoolingWithArgmax2D. One invocation computes one output slice at one
// pixel. Windows are clipped to the input; the average divides by the number
// of input pixels inside the window, as TFLite does.
//
// Defines:
//   POOL_MAX      1: max pooling; 0: average
//   WITH_INDICES  1: also write each maximum's position inside its window,
//                 ky * KW + kx + 0.1 as a float (MediaPipe's encoding), to
//                 binding 2
//   ACTIVATION    fused activation (common.comp); not applied to indices
// Bindings: 0 output, 1 input, 2 indices (WITH_INDICES only).
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_padding (top, left).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
#if WITH_INDICES
layout(std430, binding = 2) writeonly restrict buffer Indices { STORAGE data[]; } indices_t;
#endif

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_padding;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int y0 = gid.y * u_stride.x - u_padding.x;
  int x0 = gid.x * u_stride.y - u_padding.y;
  int ky_begin = max(0, -y0), ky_end = min(u_kernel.x, u_in.y - y0);
  int kx_begin = max(0, -x0), kx_end = min(u_kernel.y, u_in.z - x0);
#if POOL_MAX
  vec4 acc = vec4(-3.402823466e38);
#if WITH_INDICES
  vec4 where = vec4(0.0);
#endif
#else
  highp vec4 acc = vec4(0.0);  // highp: sums stay fp32 under GLD_MEDIUMP
#endif
  for (int ky = ky_begin; ky < ky_end; ++ky) {
    for (int kx = kx_begin; kx < kx_end; ++kx) {
      vec4 v = LOAD(in_t.data[phwc4_index(u_in, b, y0 + ky, x0 + kx, s)]);
#if POOL_MAX
#if WITH_INDICES
      // Strictly greater: the first maximum in scan order wins.
      bvec4 greater = greaterThan(v, acc);
      where = mix(where, vec4(float(ky * u_kernel.y + kx)), greater);
#endif
      acc = mix(acc, v, greaterThan(v, acc));  // as the CPU: a NaN never wins
#else
      acc += v;
#endif
    }
  }
#if !POOL_MAX
  int count = max(ky_end - ky_begin, 0) * max(kx_end - kx_begin, 0);
  acc = count > 0 ? acc / float(count) : vec4(0.0);
#endif
  ivec4 pos = ivec4(b, gid.y, gid.x, s);
  int o = phwc4_index(u_out, b, gid.y, gid.x, s);
  out_t.data[o] = PACK(finish_output(acc, pos, u_out.w));
#if WITH_INDICES
  indices_t.data[o] = PACK(mask_lanes(where + 0.1, s, u_out.w));
#endif
}
