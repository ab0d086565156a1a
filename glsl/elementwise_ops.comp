// elementwise_ops.comp: a library, not a template: the elementwise ops shared
// by elementwise.comp and by fused epilogues (epilogue.comp). The generator
// puts it after common.comp when a program asks for it.

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
#define OP_LEAKY_RELU 21   // params.x = alpha
// Binary ops.
#define OP_ADD 101
#define OP_SUB 102
#define OP_MUL 103
#define OP_DIV 104
#define OP_MAXIMUM 105
#define OP_MINIMUM 106
#define OP_POW 107
#define OP_SQUARED_DIFFERENCE 108
#define OP_PRELU 109       // b = alpha

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
  // An infinite exponent counts as an even integer (C: (-2)^inf = inf,
  // (-0.5)^inf = 0), and (-inf)^y is +-inf or +-0 for any y, like inf^y.
  bvec4 integral = bvec4(uvec4(equal(fract(b), vec4(0.0))) | uvec4(isinf(b)) | uvec4(isinf(a)));
  bvec4 odd = equal(mod(b, 2.0), vec4(1.0));
  vec4 signed_r = mix(r, -r, odd);
  vec4 nan_v = vec4(uintBitsToFloat(0x7fc00000u));
  vec4 neg_r = mix(nan_v, signed_r, integral);
  r = mix(r, neg_r, neg);
  // As C: NaN when either is NaN, except x^0 = 1 (0^0 and NaN^0 too),
  // 1^y = 1 (1^NaN too) and (-1)^(+-inf) = 1.
  r = mix(r, nan_v, bvec4(uvec4(isnan(a)) | uvec4(isnan(b))));
  bvec4 one = bvec4(uvec4(equal(b, vec4(0.0))) | uvec4(equal(a, vec4(1.0))) |
                    (uvec4(equal(a, vec4(-1.0))) & uvec4(isinf(b))));
  return mix(r, vec4(1.0), one);
}

// `op` is a constant at every call site, so the compiler keeps one case.
// Unary ops ignore b.
vec4 elementwise_op(int op, vec4 a, vec4 b, vec4 params) {
  switch (op) {
    case OP_ABS: return abs(a);
    case OP_COS: return cos(a);
    case OP_EXP: return exp(a);
    case OP_FLOOR: return floor(a);
    case OP_LOG: return log(a);
    case OP_NEG: return -a;
    case OP_RSQRT: return inversesqrt(a);
    case OP_SIN: return sin(a);
    case OP_SQRT: return sqrt(a);
    case OP_SQUARE: return a * a;
    case OP_TANH: return safe_tanh(a);
    case OP_LOGISTIC: return sigmoid(a);
    case OP_ELU: return mix(exp(a) - 1.0, a, greaterThan(a, vec4(0.0)));
    case OP_HARD_SWISH: return a * clamp(a + 3.0, 0.0, 6.0) * (1.0 / 6.0);
    case OP_GELU: return 0.5 * a * (1.0 + erf_approx(a * 0.7071067811865476));
    case OP_GELU_APPROX:
      return 0.5 * a * (1.0 + safe_tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)));
    case OP_RELU: return max_keep_nan(a, 0.0);
    case OP_RELU6: return clamp_keep_nan(a, 0.0, 6.0);
    case OP_RELU_N1_TO_1: return clamp_keep_nan(a, -1.0, 1.0);
    case OP_RELU_0_TO_1: return clamp_keep_nan(a, 0.0, 1.0);
    case OP_LEAKY_RELU: return mix(a * params.x, a, greaterThanEqual(a, vec4(0.0)));
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_MAXIMUM: return maximum_as_cpu(a, b);
    case OP_MINIMUM: return minimum_as_cpu(a, b);
    case OP_POW: return safe_pow(a, b);
    case OP_SQUARED_DIFFERENCE: return (a - b) * (a - b);
    case OP_PRELU: return mix(a * b, a, greaterThanEqual(a, vec4(0.0)));
    default: return a;
  }
}

// Index of the vec4 an operand of stored shape `shape` contributes to output
// position p = (b, y, x) and slice s, broadcasting numpy-style. `map` gives,
// for the operand's B, H, W axes, the output axis (0..2) indexing it, or -1
// for an axis of size 1; an operand with one channel serves every lane from
// slice 0 (see broadcast_value).
int broadcast_index(ivec4 shape, ivec4 map, ivec3 p, int s) {
  int b = map.x < 0 ? 0 : p[map.x];
  int y = map.y < 0 ? 0 : p[map.y];
  int x = map.z < 0 ? 0 : p[map.z];
  return phwc4_index(shape, b, y, x, shape.w == 1 ? 0 : s);
}

vec4 broadcast_value(ivec4 shape, vec4 v) { return shape.w == 1 ? vec4(v.x) : v; }
