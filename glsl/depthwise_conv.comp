// depthwise_conv.comp: DEPTHWISE_CONV_2D. One invocation computes one output
// slice at one pixel. Output channel oc reads input channel oc / M (M: depth
// multiplier).
//
// Defines:
//   MULTIPLIER_ONE  1: M == 1, so output slice s reads input slice s whole
//   ACTIVATION      fused activation (common.comp)
// Bindings: 0 output, 1 input, 2 weights, 3 bias.
//   weights: vec4 ((ky * KW + kx) * S_out + so): the taps of output channels
//            4*so..4*so+3 at (ky, kx), zero-padded.
//   bias:    one vec4 per output slice.
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_dilation (y, x); u_padding (top, left); u_multiplier (M).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Weights { STORAGE data[]; } weights;
layout(std430, binding = 3) readonly restrict buffer Bias { STORAGE data[]; } bias;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_dilation;
uniform ivec2 u_padding;
uniform int u_multiplier;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int out_slices = slices_of(u_out);
  int b = gid.z / out_slices;
  int so = gid.z % out_slices;
#if !MULTIPLIER_ONE
  // The input channel of each lane; lanes past the output's channels read
  // channel 0 (their result is masked).
  ivec4 oc = ivec4(4 * so) + ivec4(0, 1, 2, 3);
  ivec4 ic = mix(ivec4(0), oc / u_multiplier, lessThan(oc, ivec4(u_out.w)));
#endif
  highp vec4 acc = LOAD(bias.data[so]);  // highp: sums stay fp32 under GLD_MEDIUMP
  int y0 = gid.y * u_stride.x - u_padding.x;
  int x0 = gid.x * u_stride.y - u_padding.y;
  for (int ky = 0; ky < u_kernel.x; ++ky) {
    int iy = y0 + ky * u_dilation.x;
    if (iy < 0 || iy >= u_in.y) continue;
    for (int kx = 0; kx < u_kernel.y; ++kx) {
      int ix = x0 + kx * u_dilation.y;
      if (ix < 0 || ix >= u_in.z) continue;
#if MULTIPLIER_ONE
      vec4 v = LOAD(in_t.data[phwc4_index(u_in, b, iy, ix, so)]);
#else
      vec4 v;
      for (int j = 0; j < 4; ++j) {
        v[j] = LOAD(in_t.data[phwc4_index(u_in, b, iy, ix, ic[j] / 4)])[ic[j] % 4];
      }
#endif
      acc += v * LOAD(weights.data[(ky * u_kernel.y + kx) * out_slices + so]);
    }
  }
  vec4 v = finish_output(acc, ivec4(b, gid.y, gid.x, so), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
}
