// softmax.comp: SOFTMAX over the channel (last) axis:
// exp(beta * (x - max)) / sum. One invocation handles all slices of one pixel.
// Grid: (W, H, B).
//
// Bindings: 0 output, 1 input.
// Uniforms: u_shape (input = output), u_beta.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_shape;
uniform float u_beta;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_shape);
  int b = gid.z;
  const float lowest = -3.402823466e38;
  float m = lowest;
  for (int s = 0; s < slices; ++s) {
    vec4 v = LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)]);
    // Padded lanes must not win the maximum.
    v = mix(vec4(lowest), v, lessThan(ivec4(4 * s) + ivec4(0, 1, 2, 3), ivec4(u_shape.w)));
    m = max(m, max(max(v.x, v.y), max(v.z, v.w)));
  }
  highp float sum = 0.0;  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int s = 0; s < slices; ++s) {
    vec4 v = LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)]);
    vec4 e = mask_lanes(exp((v - m) * u_beta), s, u_shape.w);
    sum += e.x + e.y + e.z + e.w;
  }
  float inv = 1.0 / sum;
  for (int s = 0; s < slices; ++s) {
    int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
    vec4 e = exp((LOAD(in_t.data[i]) - m) * u_beta) * inv;
    out_t.data[i] = PACK(finish_output(e, ivec4(b, gid.y, gid.x, s), u_shape.w));
  }
}
