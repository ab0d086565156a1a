// fully_connected.comp: FULLY_CONNECTED over rows. The input's last
// dimension is the weights' K, so row n of the input is the pixel with
// row-major position n of its BHWC view, and row n of the output likewise.
// One invocation computes BLOCK output slices of one row.
//
// Defines: BLOCK (output slices per invocation), ACTIVATION (common.comp).
// Bindings: 0 output, 1 input, 2 weights (the conv2d.comp layout of a 1x1
//           kernel), 3 bias (vec4 per slice, padded to whole groups).
// Grid: (W, H, B * ceil(S_out / BLOCK)) of the output.
// Uniforms: u_out, u_in shapes.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Weights { STORAGE data[]; } weights;
layout(std430, binding = 3) readonly restrict buffer Bias { STORAGE data[]; } bias;

uniform ivec4 u_out;
uniform ivec4 u_in;

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
  int row = (b * u_out.y + gid.y) * u_out.z + gid.x;
  int ix = row % u_in.z;
  int iy = (row / u_in.z) % u_in.y;
  int ib = row / (u_in.z * u_in.y);
  int plane = u_in.y * u_in.z;
  int i = phwc4_index(u_in, ib, iy, ix, 0);
  int w = so0 * in_slices * 4;
  highp vec4 acc[BLOCK];  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int k = 0; k < BLOCK; ++k) acc[k] = LOAD(bias.data[so0 + k]);
  for (int si = 0; si < in_slices; ++si, i += plane) {
    vec4 v = LOAD(in_t.data[i]);
    for (int k = 0; k < BLOCK; ++k, w += 4) acc[k] += multiply(v, w);
  }
  for (int k = 0; k < BLOCK; ++k) {
    int so = so0 + k;
    if (so >= out_slices) break;
    vec4 v = finish_output(acc[k], ivec4(b, gid.y, gid.x, so), u_out.w);
    out_t.data[phwc4_index(u_out, b, gid.y, gid.x, so)] = PACK(v);
  }
}
