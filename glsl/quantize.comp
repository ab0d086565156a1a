// quantize.comp: QUANTIZE and DEQUANTIZE (per-tensor parameters).
// Quantized tensors live on the GPU as floats holding their integer values
// (exact in fp16 for 8-bit types, in fp32 for 16-bit ones); the segment edges
// convert them from and to the host's integer bytes.
//
// Defines:
//   DEQUANTIZE_INPUT  1: the input holds integers: real = (q - zp) * scale
//   OUTPUT            OUT_REAL: the real value; OUT_INTEGER: the integer
//                     round(real / scale) + zp, clamped to [qmin, qmax];
//                     OUT_FAKE: that integer turned back into a real value
//                     (QUANTIZE to a float32 tensor with quantization)
// Bindings: 0 output, 1 input.
// Uniforms: u_shape; u_in_q (scale, zero point); u_out_q (scale, zero point,
//           qmin, qmax).

#define OUT_REAL 0
#define OUT_INTEGER 1
#define OUT_FAKE 2

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_shape;
uniform vec2 u_in_q;
uniform vec4 u_out_q;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_shape);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int i = phwc4_index(u_shape, b, gid.y, gid.x, s);
  vec4 v = LOAD(in_t.data[i]);
#if DEQUANTIZE_INPUT
  v = (v - u_in_q.y) * u_in_q.x;
#endif
#if OUTPUT != OUT_REAL
  v = clamp(round_away(v / u_out_q.x) + u_out_q.y, u_out_q.z, u_out_q.w);
#if OUTPUT == OUT_FAKE
  v = (v - u_out_q.y) * u_out_q.x;
#endif
#endif
  out_t.data[i] = PACK(mask_lanes(v, s, u_shape.w));
}
