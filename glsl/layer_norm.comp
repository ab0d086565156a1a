// layer_norm.comp: GLD_LAYER_NORM over the channel (last) axis (RMS 1:
// GLD_RMS_NORM, out = x * rsqrt(mean(x * x) + epsilon) * gamma). One
// invocation per row: the mean and variance in one pass (sums of x - x0 and
// its squares, x0 the row's first value, in highp), then
//   s = rsqrt(variance + epsilon) * gamma,  out = x * s + (beta - mean * s),
// and the fused epilogue.
// Grid: (W, H, B).
//
// Bindings: 0 output, 1 input, 2 gamma, 3 beta (vec4 per slice; RMS: gamma).
// Uniforms: u_shape (input = output), u_epsilon.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Gamma { STORAGE data[]; } gamma_t;
layout(std430, binding = 3) readonly restrict buffer Beta { STORAGE data[]; } beta_t;

uniform ivec4 u_shape;
uniform float u_epsilon;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_shape);
  int b = gid.z;
#if RMS
  highp float sq = 0.0;  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int s = 0; s < slices; ++s) {
    highp vec4 d = mask_lanes(LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)]), s, u_shape.w);
    sq += dot(d, d);
  }
  highp float r = inversesqrt(sq / float(u_shape.w) + u_epsilon);
  for (int s = 0; s < slices; ++s) {
    int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
    highp vec4 v = LOAD(in_t.data[i]) * r * LOAD(gamma_t.data[s]);
    out_t.data[i] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_shape.w));
  }
#else
  highp float x0 = LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, 0)]).x;
  highp float sum = 0.0;  // highp: sums stay fp32 under GLD_MEDIUMP
  highp float sq = 0.0;
  for (int s = 0; s < slices; ++s) {
    highp vec4 d = mask_lanes(LOAD(in_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)]) - x0, s, u_shape.w);
    sum += d.x + d.y + d.z + d.w;
    sq += dot(d, d);
  }
  highp float n = float(u_shape.w);
  highp float shift = sum / n;
  highp float mean = x0 + shift;
  highp float variance = sq / n - shift * shift;
  // Rounding may leave it below 0; an infinity in the row makes it NaN
  // (inf - inf), as on the CPU, and NaN must stay (compilers may turn a
  // comparison into a max that drops it).
  variance = mix(max(variance, 0.0), variance, isnan(variance));
  highp float r = inversesqrt(variance + u_epsilon);
  for (int s = 0; s < slices; ++s) {
    int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
    highp vec4 scale = r * LOAD(gamma_t.data[s]);
    highp vec4 v = LOAD(in_t.data[i]) * scale + (LOAD(beta_t.data[s]) - mean * scale);
    out_t.data[i] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_shape.w));
  }
#endif
}
