// elementwise.comp: unary and binary elementwise ops; binary ones broadcast
// either operand numpy-style (scalar, per-channel vector, same shape, or any
// mix of size-1 axes).
//
// Defines:
//   OP      one of the OP_* codes below
//   BINARY  1 when the op reads a second operand (input1)
// Bindings: 0 output, 1 input0, 2 input1 (BINARY only).
// Uniforms:
//   u_out                output shape (B, H, W, C)
//   u_in0, u_in1         stored shapes of the operands
//   u_in0_map, u_in1_map for the operand's B, H, W axes (x, y, z): the output
//                        axis (0 = B, 1 = H, 2 = W) that indexes it, or -1 for
//                        an axis of size 1. An operand's channel count is the
//                        output's, or 1 (lane 0 then serves every channel).
//   u_params             op parameters: x = LEAKY_RELU alpha.

// Unary ops.
#define OP_ABS 1
#define OP_COS 2
#define OP_EXP 3
#define OP_FLOOR 4
#define OP_LOG 5
#define OP_NEG 6
#define OP_RSQRT 7
#define OP_SIN 8
#define OP_SQRT 9
#define OP_SQUARE 10
#define OP_TANH 11
#define OP_LOGISTIC 12
#define OP_ELU 13
#define OP_HARD_SWISH 14
#define OP_GELU 15
#define OP_GELU_APPROX 16
#define OP_RELU 17
#define OP_RELU6 18
#define OP_RELU_N1_TO_1 19
#define OP_RELU_0_TO_1 20
#define OP_LEAKY_RELU 21
// Binary ops.
#define OP_ADD 101
#define OP_SUB 102
#define OP_MUL 103
#define OP_DIV 104
#define OP_MAXIMUM 105
#define OP_MINIMUM 106
#define OP_POW 107
#define OP_SQUARED_DIFFERENCE 108
#define OP_PRELU 109

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input0 { STORAGE data[]; } in0;
#if BINARY
layout(std430, binding = 2) readonly restrict buffer Input1 { STORAGE data[]; } in1;
#endif

uniform ivec4 u_out;
uniform ivec4 u_in0;
uniform ivec4 u_in0_map;
uniform ivec4 u_in1;
uniform ivec4 u_in1_map;
uniform vec4 u_params;

int broadcast_index(ivec4 shape, ivec4 map, ivec3 p, int s) {
  int b = map.x < 0 ? 0 : p[map.x];
  int y = map.y < 0 ? 0 : p[map.y];
  int x = map.z < 0 ? 0 : p[map.z];
  return phwc4_index(shape, b, y, x, shape.w == 1 ? 0 : s);
}

vec4 read_in0(ivec3 p, int s) {
  vec4 v = LOAD(in0.data[broadcast_index(u_in0, u_in0_map, p, s)]);
  return u_in0.w == 1 ? vec4(v.x) : v;
}

#if BINARY
vec4 read_in1(ivec3 p, int s) {
  vec4 v = LOAD(in1.data[broadcast_index(u_in1, u_in1_map, p, s)]);
  return u_in1.w == 1 ? vec4(v.x) : v;
}
#endif

// erf with |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26); GLSL has none.
vec4 erf_approx(vec4 x) {
  vec4 t = 1.0 / (1.0 + 0.3275911 * abs(x));
  vec4 poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 +
              t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-x * x));
}

// pow() is undefined for a negative base in GLSL; C's pow is defined for
// integral exponents, so follow it.
vec4 safe_pow(vec4 a, vec4 b) {
  vec4 r = pow(abs(a), b);
  bvec4 neg = lessThan(a, vec4(0.0));
  bvec4 integral = equal(fract(b), vec4(0.0));
  bvec4 odd = equal(mod(b, 2.0), vec4(1.0));
  vec4 signed_r = mix(r, -r, odd);
  vec4 nan_v = vec4(uintBitsToFloat(0x7fc00000u));
  vec4 neg_r = mix(nan_v, signed_r, integral);
  r = mix(r, neg_r, neg);
  // 0^0 = 1 and x^0 = 1, as in C.
  return mix(r, vec4(1.0), equal(b, vec4(0.0)));
}

vec4 apply_op(vec4 a
#if BINARY
              , vec4 b
#endif
) {
#if OP == OP_ABS
  return abs(a);
#elif OP == OP_COS
  return cos(a);
#elif OP == OP_EXP
  return exp(a);
#elif OP == OP_FLOOR
  return floor(a);
#elif OP == OP_LOG
  return log(a);
#elif OP == OP_NEG
  return -a;
#elif OP == OP_RSQRT
  return inversesqrt(a);
#elif OP == OP_SIN
  return sin(a);
#elif OP == OP_SQRT
  return sqrt(a);
#elif OP == OP_SQUARE
  return a * a;
#elif OP == OP_TANH
  return safe_tanh(a);
#elif OP == OP_LOGISTIC
  return sigmoid(a);
#elif OP == OP_ELU
  return mix(exp(a) - 1.0, a, greaterThan(a, vec4(0.0)));
#elif OP == OP_HARD_SWISH
  return a * clamp(a + 3.0, 0.0, 6.0) * (1.0 / 6.0);
#elif OP == OP_GELU
  return 0.5 * a * (1.0 + erf_approx(a * 0.7071067811865476));
#elif OP == OP_GELU_APPROX
  return 0.5 * a * (1.0 + safe_tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)));
#elif OP == OP_RELU
  return max(a, 0.0);
#elif OP == OP_RELU6
  return clamp(a, 0.0, 6.0);
#elif OP == OP_RELU_N1_TO_1
  return clamp(a, -1.0, 1.0);
#elif OP == OP_RELU_0_TO_1
  return clamp(a, 0.0, 1.0);
#elif OP == OP_LEAKY_RELU
  return mix(a * u_params.x, a, greaterThanEqual(a, vec4(0.0)));
#elif OP == OP_ADD
  return a + b;
#elif OP == OP_SUB
  return a - b;
#elif OP == OP_MUL
  return a * b;
#elif OP == OP_DIV
  return a / b;
#elif OP == OP_MAXIMUM
  return max(a, b);
#elif OP == OP_MINIMUM
  return min(a, b);
#elif OP == OP_POW
  return safe_pow(a, b);
#elif OP == OP_SQUARED_DIFFERENCE
  return (a - b) * (a - b);
#elif OP == OP_PRELU
  return mix(a * b, a, greaterThanEqual(a, vec4(0.0)));
#else
#error "elementwise.comp: unknown OP"
#endif
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x);
  vec4 v = apply_op(read_in0(p, s)
#if BINARY
                    , read_in1(p, s)
#endif
  );
  v = finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(v);
}
