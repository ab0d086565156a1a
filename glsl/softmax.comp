// softmax.comp: the row normalisations over the channel (last) axis. One
// invocation handles all slices of one pixel.
//   MODE_SOFTMAX      SOFTMAX: exp(beta * (x - max)) / sum
//   MODE_LOG_SOFTMAX  LOG_SOFTMAX: x - max - log(sum of exp(x - max))
//   MODE_L2           L2_NORMALIZATION: x / max(sqrt(sum of x^2), 1e-6)
// Grid: (W, H, B).
//
// Defines: MODE (one of the above; MODE_SOFTMAX when not given).
// Bindings: 0 output, 1 input.
// Uniforms: u_shape (input = output), u_beta (SOFTMAX).

#define MODE_SOFTMAX 0
#define MODE_LOG_SOFTMAX 1
#define MODE_L2 2
#ifndef MODE
#define MODE MODE_SOFTMAX
#endif

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_shape;
uniform float u_beta;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_shape);
  int b = gid.z;
#if MODE == MODE_L2
  highp float sq = 0.0;  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int s = 0; s < slices; ++s) {
    highp vec4 v = mask_lanes(LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)]), s, u_shape.w);
    sq += dot(v, v);
  }
  // As the CPU's std::max(sqrt(sq), 1e-6): a NaN norm stays NaN (GLSL's max
  // may return the other operand).
  highp float norm = sqrt(sq);
  if (!isnan(norm)) norm = max(norm, 1e-6);
  for (int s = 0; s < slices; ++s) {
    int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
    vec4 e = LOAD(in_t.data[i]) / norm;
    out_t.data[i] = PACK(finish_output(e, ivec4(b, gid.y, gid.x, s), u_shape.w));
  }
#else
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
#if MODE == MODE_LOG_SOFTMAX
  highp float shift = m + log(sum);
#else
  float inv = 1.0 / sum;
#endif
  for (int s = 0; s < slices; ++s) {
    int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
#if MODE == MODE_LOG_SOFTMAX
    vec4 e = LOAD(in_t.data[i]) - shift;
#else
    vec4 e = exp((LOAD(in_t.data[i]) - m) * u_beta) * inv;
#endif
    out_t.data[i] = PACK(finish_output(e, ivec4(b, gid.y, gid.x, s), u_shape.w));
  }
#endif
}
