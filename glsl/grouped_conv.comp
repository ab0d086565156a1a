// grouped_conv.comp: CONV_2D whose weights see fewer input channels than the
// input has (groups = input channels / weights' input channels; PyTorch's
// Conv2d(groups=G) with 1 < G < channels). One invocation computes one
// output slice (4 output channels) at one pixel; output channel oc belongs to
// group oc / GROUP_OUT and reads input channels
// [group * GROUP_IN, (group + 1) * GROUP_IN).
//
// Defines:
//   ALIGNED     1: GROUP_IN and GROUP_OUT are multiples of 4, so a slice's 4
//               output channels share one group and its input channels are
//               whole input slices (vec4 loads); 0: channels are read one by
//               one, each output channel from its own group
//   ACTIVATION  fused activation (common.comp)
// Bindings: 0 output, 1 input, 2 weights, 3 bias.
//   weights: RepackOhwiWeights with in_c = GROUP_IN and block 1: for output
//            slice so, kernel row ky, column kx and group input slice si,
//            4 vec4s from (((so * KH + ky) * KW + kx) * S_group + si) * 4;
//            vec4 j holds output channel 4 * so + j's weights for its
//            group's input channels 4*si..4*si+3 (zero past GROUP_IN).
//   bias:    one vec4 per output slice.
// Grid: (W, H, B * S_out).
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_dilation (y, x); u_padding (top, left); u_group (GROUP_IN,
//           GROUP_OUT: input and output channels per group).

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
uniform ivec2 u_group;

#if !ALIGNED
// The group's input channels 4*si..4*si+3 from `first` on, at pixel (b, iy,
// ix); zero past the group's GROUP_IN channels.
vec4 group_channels(int b, int iy, int ix, int first, int si) {
  vec4 v = vec4(0.0);
  for (int lane = 0; lane < 4; ++lane) {
    int k = 4 * si + lane;
    if (k >= u_group.x) break;
    int c = first + k;
    v[lane] = LOAD(in_t.data[phwc4_index(u_in, b, iy, ix, c / 4)])[c % 4];
  }
  return v;
}
#endif

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int out_slices = slices_of(u_out);
  int b = gid.z / out_slices;
  int so = gid.z % out_slices;
  int group_slices = (u_group.x + 3) / 4;
  highp vec4 acc = LOAD(bias.data[so]);  // highp: sums stay fp32 under GLD_MEDIUMP
  int plane = u_in.y * u_in.z;
  int y0 = gid.y * u_stride.x - u_padding.x;
  int x0 = gid.x * u_stride.y - u_padding.y;
  for (int ky = 0; ky < u_kernel.x; ++ky) {
    int iy = y0 + ky * u_dilation.x;
    if (iy < 0 || iy >= u_in.y) continue;
    for (int kx = 0; kx < u_kernel.y; ++kx) {
      int ix = x0 + kx * u_dilation.y;
      if (ix < 0 || ix >= u_in.z) continue;
      int w = ((so * u_kernel.x + ky) * u_kernel.y + kx) * group_slices * 4;
#if ALIGNED
      int group = (4 * so) / u_group.y;
      int i = phwc4_index(u_in, b, iy, ix, group * u_group.x / 4);
      for (int si = 0; si < group_slices; ++si, i += plane, w += 4) {
        vec4 v = LOAD(in_t.data[i]);
        acc += vec4(dot(v, LOAD(weights.data[w])), dot(v, LOAD(weights.data[w + 1])),
                    dot(v, LOAD(weights.data[w + 2])), dot(v, LOAD(weights.data[w + 3])));
      }
#else
      for (int j = 0; j < 4; ++j) {
        int oc = 4 * so + j;
        if (oc >= u_out.w) break;
        int first = (oc / u_group.y) * u_group.x;
        for (int si = 0; si < group_slices; ++si) {
          acc[j] += dot(group_channels(b, iy, ix, first, si), LOAD(weights.data[w + si * 4 + j]));
        }
      }
#endif
    }
  }
  vec4 v = finish_output(acc, ivec4(b, gid.y, gid.x, so), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
}
