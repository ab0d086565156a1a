// transpose_conv.comp: TRANSPOSE_CONV and MediaPipe's
// Convolution2DTransposeBias, as a gather: output pixel (y, x) sums the
// input pixels (iy, ix) with iy * stride + ky - pad_top == y for some kernel
// row ky (and likewise for x). One invocation computes BLOCK output slices at
// one pixel.
//
// Defines: BLOCK (output slices per invocation), ACTIVATION (common.comp).
// Bindings: 0 output, 1 input, 2 weights (the conv2d.comp layout, from the
//           OHWI weights), 3 bias (one vec4 per output slice, padded to
//           whole groups).
// Grid: (W, H, B * ceil(S_out / BLOCK)).
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_padding (top, left).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Weights { STORAGE data[]; } weights;
layout(std430, binding = 3) readonly restrict buffer Bias { STORAGE data[]; } bias;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
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
  int plane = u_in.y * u_in.z;
  highp vec4 acc[BLOCK];  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int k = 0; k < BLOCK; ++k) acc[k] = LOAD(bias.data[so0 + k]);
  for (int ky = 0; ky < u_kernel.x; ++ky) {
    int ty = gid.y + u_padding.x - ky;
    if (ty < 0 || ty % u_stride.x != 0) continue;
    int iy = ty / u_stride.x;
    if (iy >= u_in.y) continue;
    for (int kx = 0; kx < u_kernel.y; ++kx) {
      int tx = gid.x + u_padding.y - kx;
      if (tx < 0 || tx % u_stride.y != 0) continue;
      int ix = tx / u_stride.y;
      if (ix >= u_in.z) continue;
      int i = phwc4_index(u_in, b, iy, ix, 0);
      int w = ((so0 * u_kernel.x + ky * BLOCK) * u_kernel.y + kx * BLOCK) * in_slices * 4;
      for (int si = 0; si < in_slices; ++si, i += plane) {
        vec4 v = LOAD(in_t.data[i]);
        for (int k = 0; k < BLOCK; ++k, w += 4) acc[k] += multiply(v, w);
      }
    }
  }
  for (int k = 0; k < BLOCK; ++k) {
    int so = so0 + k;
    if (so >= out_slices) break;
    vec4 v = finish_output(acc[k], ivec4(b, gid.y, gid.x, so), u_out.w);
    out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
  }
}
