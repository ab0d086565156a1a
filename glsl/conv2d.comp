// conv2d.comp: CONV_2D. One invocation computes the four output channels of
// one output slice at one pixel.
//
// Defines:
//   KERNEL_1X1  1: a 1x1 kernel (no padding, no dilation, no window loops)
//   ACTIVATION  fused activation (common.comp)
// Bindings: 0 output, 1 input, 2 weights, 3 bias.
//   weights: for output slice so, kernel row ky, column kx, input slice si,
//            four vec4s at ((((so * KH + ky) * KW + kx) * S_in + si) * 4 + j);
//            vec4 j holds output channel 4*so+j's weights for input channels
//            4*si..4*si+3 (gl/ops/op_util.h, RepackOhwiWeights).
//   bias:    one vec4 per output slice.
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
  int b = gid.z / out_slices;
  int so = gid.z % out_slices;
  vec4 acc = LOAD(bias.data[so]);
  // Consecutive input slices of one pixel are a plane (H * W vec4s) apart.
  int plane = u_in.y * u_in.z;
#if KERNEL_1X1
  int i = phwc4_index(u_in, b, gid.y * u_stride.x, gid.x * u_stride.y, 0);
  int w = so * in_slices * 4;
  for (int si = 0; si < in_slices; ++si, i += plane, w += 4) {
    acc += multiply(LOAD(in_t.data[i]), w);
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
      int w = ((so * u_kernel.x + ky) * u_kernel.y + kx) * in_slices * 4;
      for (int si = 0; si < in_slices; ++si, i += plane, w += 4) {
        acc += multiply(LOAD(in_t.data[i]), w);
      }
    }
  }
#endif
  vec4 v = finish_output(acc, ivec4(b, gid.y, gid.x, so), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
}
