// conv2d.comp: CONV_2D. One invocation computes BLOCK output slices (4 * BLOCK
// output channels) at one pixel, so that every input vec4 it loads serves
// BLOCK slices.
//
// Defines:
//   KERNEL_1X1  1: a 1x1 kernel (no padding, no dilation, no window loops)
//   BLOCK       output slices per invocation (1, 2 or 4)
//   ACTIVATION  fused activation (common.comp)
// Bindings: 0 output, 1 input, 2 weights, 3 bias.
//   weights: output slices in groups of BLOCK; for group g, kernel row ky,
//            column kx and input slice si, BLOCK * 4 vec4s from
//            ((((g * KH + ky) * KW + kx) * S_in + si) * BLOCK) * 4; vec4
//            k * 4 + j holds output channel 4 * (g * BLOCK + k) + j's weights
//            for input channels 4*si..4*si+3 (gl/ops/op_util.h,
//            RepackOhwiWeights).
//   bias:    one vec4 per output slice, padded to whole groups.
// Grid: (W, H, B * ceil(S_out / BLOCK)).
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_dilation (y, x); u_padding (top, left).

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

vec4 multiply(vec4 v, int w) {
  return vec4(dot(v, LOAD(weights.data[w])), dot(v, LOAD(weights.data[w + 1])),
              dot(v, LOAD(weights.data[w + 2])), dot(v, LOAD(weights.data[w + 3])));
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int out_slices = slices_of(u_out);
  int in_slices = slices_of(u_in);
  int groups = (out_slices + BLOCK - 1) / BLOCK;
  int b = gid.z / groups;
  int so0 = (gid.z % groups) * BLOCK;
  highp vec4 acc[BLOCK];  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int k = 0; k < BLOCK; ++k) acc[k] = LOAD(bias.data[so0 + k]);
  // Consecutive input slices of one pixel are a plane (H * W vec4s) apart.
  int plane = u_in.y * u_in.z;
#if KERNEL_1X1
  int i = phwc4_index(u_in, b, gid.y * u_stride.x, gid.x * u_stride.y, 0);
  int w = so0 * in_slices * 4;
  for (int si = 0; si < in_slices; ++si, i += plane) {
    vec4 v = LOAD(in_t.data[i]);
    for (int k = 0; k < BLOCK; ++k, w += 4) acc[k] += multiply(v, w);
  }
#else
  int y0 = gid.y * u_stride.x - u_padding.x;
  int x0 = gid.x * u_stride.y - u_padding.y;
  for (int ky = 0; ky < u_kernel.x; ++ky) {
    int iy = y0 + ky * u_dilation.x;
    if (iy < 0 || iy >= u_in.y) continue;
    for (int kx = 0; kx < u_kernel.y; ++kx) {
      int ix = x0 + kx * u_dilation.y;
      if (ix < 0 || ix >= u_in.z) continue;
      int i = phwc4_index(u_in, b, iy, ix, 0);
      int w = ((so0 * u_kernel.x + ky * BLOCK) * u_kernel.y + kx * BLOCK) * in_slices * 4;
      for (int si = 0; si < in_slices; ++si, i += plane) {
        vec4 v = LOAD(in_t.data[i]);
        for (int k = 0; k < BLOCK; ++k, w += 4) acc[k] += multiply(v, w);
      }
    }
  }
#endif
  for (int k = 0; k < BLOCK; ++k) {
    int so = so0 + k;
    if (so >= out_slices) break;
    vec4 v = finish_output(acc[k], ivec4(b, gid.y, gid.x, so), u_out.w);
    out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
  }
}
