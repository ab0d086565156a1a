// elementwise_ops.comp: a library, not a template: the helpers the elementwise
// table's GLSL expressions use (graph/elementwise_ops.inc; the OP_* codes and
// elementwise_op() are the generated library elementwise_table.comp, which
// follows this one) and the broadcasting index rule shared by elementwise.comp
// and fused epilogues (epilogue.comp). The generator puts it after
// common.comp when a program asks for it.

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

// C's atan2(y, x) where GLSL's atan(y, x) is undefined (x = y = 0) or may
// divide y by x (infinities): the result's sign is y's, zero and infinite
// operands give the multiples of pi/4 C gives, NaN stays NaN.
vec4 atan2_as_cpu(vec4 y, vec4 x) {
  const float pi = 3.14159265358979;
  bvec4 x_neg = notEqual(floatBitsToUint(x) >> 31u, uvec4(0u));
  vec4 y_sign = mix(vec4(1.0), vec4(-1.0), notEqual(floatBitsToUint(y) >> 31u, uvec4(0u)));
  vec4 ay = abs(y);
  // atan(|y|, x) with the operands GLSL leaves undefined kept away from it.
  bvec4 special = bvec4(uvec4(equal(ay, vec4(0.0))) | uvec4(isinf(ay)) | uvec4(isinf(x)));
  vec4 r = atan(mix(ay, vec4(1.0), special), mix(x, vec4(1.0), special));
  // |y| = 0, or finite |y| against an infinite x: 0 or pi by x's sign.
  vec4 toward_x = mix(vec4(0.0), vec4(pi), x_neg);
  // Infinite |y|: pi/2, or pi/4 / 3pi/4 when x is infinite too.
  vec4 inf_y = mix(vec4(0.5 * pi), mix(vec4(0.25 * pi), vec4(0.75 * pi), x_neg), isinf(x));
  r = mix(r, toward_x, bvec4(uvec4(equal(ay, vec4(0.0))) | uvec4(isinf(x))));
  r = mix(r, inf_y, isinf(ay));
  r = y_sign * r;
  return mix(r, vec4(uintBitsToFloat(0x7fc00000u)), bvec4(uvec4(isnan(x)) | uvec4(isnan(y))));
}

// floor(a / b) as the CPU's std::floor(x / y): GLSL's division may be a few
// ulps off, which moves a quotient across an integer; the product q * b,
// exact for the small integers q it matters for, tells which side is right.
vec4 floor_div(vec4 a, vec4 b) {
  vec4 q = floor(a / b);
  bvec4 b_pos = greaterThan(b, vec4(0.0));
  // q one too large: q * b passes a (b > 0), or stays below it (b < 0).
  bvec4 over = bvec4((uvec4(b_pos) & uvec4(greaterThan(q * b, a))) |
                     (uvec4(not(b_pos)) & uvec4(lessThan(q * b, a))));
  q = mix(q, q - 1.0, over);
  // q one too small: (q + 1) * b is a itself.
  return mix(q, q + 1.0, equal((q + 1.0) * b, a));
}

// The CPU's FloatFloorMod: fmod(a, b), then + b where the remainder is non-zero
// and its sign is not b's. fmod is a - b * trunc(a / b) with the truncated
// quotient corrected by one where the division was a few ulps off (|r| >= |b|,
// or r's sign not a's); fmod(x, +-inf) is x, fmod(+-inf, y) and fmod(x, 0) NaN.
vec4 floor_mod(vec4 a, vec4 b) {
  vec4 r = a - b * trunc(a / b);
  r = mix(r, r - sign(r) * abs(b), greaterThanEqual(abs(r), abs(b)));
  bvec4 against_a = bvec4(uvec4(notEqual(r, vec4(0.0))) & uvec4(notEqual(sign(r), sign(a))));
  r = mix(r, r + sign(a) * abs(b), against_a);
  r = mix(r, a, bvec4(uvec4(isinf(b)) & ~uvec4(isinf(a))));
  bvec4 fix = bvec4(uvec4(notEqual(r, vec4(0.0))) &
                    uvec4(notEqual(lessThan(r, vec4(0.0)), lessThan(b, vec4(0.0)))));
  return mix(r, r + b, fix);
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
