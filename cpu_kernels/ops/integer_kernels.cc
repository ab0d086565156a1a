// The integer kernels' table and the facts the integer view plans from
// (integer_kernels.h); the kernels themselves are in xnnpack_quantized.cc.
#include "cpu_kernels/ops/integer_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_kernels/ops/integer_ops.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/ops/quantized.h"
#include "cpu_kernels/micro/x86_intrinsics.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"
#include "graph/quantized_ops.h"
#include "util/cpu_features.h"

#ifdef GLD_AVX512
#define GLD_STORED_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq")))
#endif

namespace gld::cpu {

namespace {

const Tensor* TensorAt(const Graph& graph, int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph.tensors.size()) return nullptr;
  return &graph.tensors[static_cast<size_t>(index)];
}

// An int8/uint8 activation with one scale and zero point (in its type's
// range), or a graph input: the integer kernels' operands.
bool IsIntegerActivation(const Tensor* t, DataType type) {
  return t != nullptr && !t->is_constant && t->type == type && QuantOf(*t).valid;
}

// A constant the reader decoded from `storage` integers, with `scales` scales
// (1, or one per slice of dimension `dim`) and every zero point 0 unless
// `any_zero_point`.
bool IsStoredConstant(const Tensor* t, DataType storage, int64_t channels, int32_t dim, bool any_zero_point) {
  if (t == nullptr || !t->is_constant || t->type != DataType::kFloat32 || t->quant.storage_type != storage) {
    return false;
  }
  const QuantizationParams& q = t->quant;
  if (q.scale.size() != 1 && (static_cast<int64_t>(q.scale.size()) != channels || q.quantized_dimension != dim)) {
    return false;
  }
  if (!q.zero_point.empty() && q.zero_point.size() != q.scale.size()) return false;
  for (float s : q.scale) {
    if (!(s > 0.f) || !std::isfinite(s)) return false;
  }
  if (!any_zero_point) {
    for (int64_t zp : q.zero_point) {
      if (zp != 0) return false;
    }
  }
  return true;
}

// lo <= v < hi.
bool InRange(float v, float lo, float hi) { return v >= lo && v < hi; }

template <typename Attrs>
bool ActivationFits(const Node& node, const Tensor& out) {
  const auto* a = std::get_if<Attrs>(&node.attributes);
  int32_t lo = 0, hi = 0;
  return a != nullptr && QuantizedActivationRange(a->activation, out, &lo, &hi);
}

// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: int8 with int8 weights
// per tensor or per output channel (QC8), or uint8 with uint8 weights per
// tensor (QU8); an int32 bias per output channel. The weights have
// `weight_rank` dimensions, the output channels along `channel_dim`.
template <typename Attrs>
bool TakesLinear(const Graph& graph, const Node& node, size_t weight_rank, int32_t channel_dim) {
  if (node.inputs.size() < 2 || node.inputs.size() > 3 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* w = TensorAt(graph, node.inputs[1]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  if (in == nullptr || w == nullptr || out == nullptr || w->shape.size() != weight_rank) return false;
  const DataType type = in->type;
  if (type != DataType::kInt8 && type != DataType::kUInt8) return false;
  if (!IsIntegerActivation(in, type) || !IsIntegerActivation(out, type)) return false;
  const int64_t oc = w->shape[static_cast<size_t>(channel_dim)];
  const bool int8 = type == DataType::kInt8;
  if (!IsStoredConstant(w, type, int8 ? oc : 1, channel_dim, !int8)) return false;
  if (node.inputs.size() == 3 && node.inputs[2] != kNoTensor &&
      !IsStoredConstant(TensorAt(graph, node.inputs[2]), DataType::kInt32, oc, 0, false)) {
    return false;
  }
  // The requantization scale of every channel below 1, as XNNPACK's
  // operators require (others keep the float view).
  const float in_scale = QuantOf(*in).scale, out_scale = QuantOf(*out).scale;
  for (float ws : w->quant.scale) {
    if (!(in_scale * ws / out_scale < 1.f)) return false;
  }
  return XnnAvailable() && ActivationFits<Attrs>(node, *out);
}

bool TakesConv2d(const Graph& g, const Node& n) { return TakesLinear<Conv2dAttributes>(g, n, 4, 0); }
bool TakesDepthwiseConv2d(const Graph& g, const Node& n) {
  return TakesLinear<DepthwiseConv2dAttributes>(g, n, 4, 3);
}
bool TakesFullyConnected(const Graph& g, const Node& n) { return TakesLinear<FullyConnectedAttributes>(g, n, 2, 0); }

// ADD, SUB, MUL of two integer activations of one type.
bool TakesBinary(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const Tensor* a = TensorAt(graph, node.inputs[0]);
  const Tensor* b = TensorAt(graph, node.inputs[1]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  if (a == nullptr || b == nullptr || out == nullptr) return false;
  const DataType type = a->type;
  if (type != DataType::kInt8 && type != DataType::kUInt8) return false;
  if (!IsIntegerActivation(a, type) || !IsIntegerActivation(b, type) || !IsIntegerActivation(out, type)) return false;
  if (a->shape.size() > XNN_MAX_TENSOR_DIMS || b->shape.size() > XNN_MAX_TENSOR_DIMS) return false;
  // XNNPACK's fixed-point multipliers take these ratios only.
  const float sa = QuantOf(*a).scale, sb = QuantOf(*b).scale, so = QuantOf(*out).scale;
  const bool fits = node.op == OpType::kMul ? InRange(sa * sb / so, 0x1.0p-16f, 0x1.0p+8f)
                                            : InRange(sa / so, 0x1.0p-10f, 0x1.0p+8f) &&
                                                  InRange(sb / so, 0x1.0p-10f, 0x1.0p+8f);
  return fits && XnnAvailable() && ActivationFits<BinaryAttributes>(node, *out);
}

// MEAN over the two spatial axes of a 4-D tensor.
bool TakesMean(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* axes = TensorAt(graph, node.inputs[1]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  if (in == nullptr || axes == nullptr || out == nullptr || in->shape.size() != 4) return false;
  const DataType type = in->type;
  if (type != DataType::kInt8 && type != DataType::kUInt8) return false;
  if (!IsIntegerActivation(in, type) || !IsIntegerActivation(out, type)) return false;
  const float ratio = QuantOf(*in).scale / QuantOf(*out).scale;
  return InRange(ratio, 0x1.0p-8f, 0x1.0p+8f) && XnnAvailable() && IsSpatialMean(*axes);
}

// MAX_POOL_2D: values keep their quantization (output's equal to the
// input's), clamped by the fused activation.
bool TakesMaxPool(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  if (in == nullptr || out == nullptr || in->shape.size() != 4) return false;
  const DataType type = in->type;
  if (type != DataType::kInt8 && type != DataType::kUInt8) return false;
  if (!IsIntegerActivation(in, type) || !IsIntegerActivation(out, type) || !SameQuantization(in->quant, out->quant)) {
    return false;
  }
  return XnnAvailable() && ActivationFits<Pool2dAttributes>(node, *out);
}

// LOGISTIC and TANH with TFLite's fixed output grids (XNNPACK's operators
// take only those): 1/256 from 0 (int8 zero point -128) and 1/128 around 0.
bool TakesSigmoidOrTanh(const Graph& graph, const Node& node, float out_scale, int int8_zero_point,
                        int uint8_zero_point) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  if (in == nullptr || out == nullptr) return false;
  const DataType type = in->type;
  if (type != DataType::kInt8 && type != DataType::kUInt8) return false;
  if (!IsIntegerActivation(in, type) || !IsIntegerActivation(out, type)) return false;
  const TensorQuant q = QuantOf(*out);
  return XnnAvailable() && q.scale == out_scale &&
         q.zero_point == (type == DataType::kInt8 ? int8_zero_point : uint8_zero_point);
}
bool TakesLogistic(const Graph& g, const Node& n) { return TakesSigmoidOrTanh(g, n, 1.f / 256, -128, 0); }
bool TakesTanh(const Graph& g, const Node& n) { return TakesSigmoidOrTanh(g, n, 1.f / 128, 0, 128); }

struct IntegerKernel {
  CpuKernel kernel;
  bool (*takes)(const Graph& graph, const Node& node);
};

const IntegerKernel kIntegerKernels[] = {
    {{OpType::kConv2d, RunIntegerKernel, PrepareIntegerConv2d}, TakesConv2d},
    {{OpType::kDepthwiseConv2d, RunIntegerKernel, PrepareIntegerDepthwiseConv2d}, TakesDepthwiseConv2d},
    {{OpType::kFullyConnected, RunIntegerKernel, PrepareIntegerFullyConnected}, TakesFullyConnected},
    {{OpType::kAdd, RunIntegerKernel, PrepareIntegerAdd}, TakesBinary},
    {{OpType::kSub, RunIntegerKernel, PrepareIntegerSub}, TakesBinary},
    // int8 MUL: integer_ops.cc's (XNNPACK's arithmetic, below); uint8 here.
    {{OpType::kMul, RunInt8Op, PrepareInt8Op}, TakesInt8Binary},
    {{OpType::kMul, RunIntegerKernel, PrepareIntegerMul}, TakesBinary},
    {{OpType::kMean, RunIntegerKernel, PrepareIntegerMean}, TakesMean},
    {{OpType::kMaxPool2d, RunIntegerKernel, PrepareIntegerMaxPool2d}, TakesMaxPool},
    {{OpType::kLogistic, RunIntegerKernel, PrepareIntegerLogistic}, TakesLogistic},
    {{OpType::kTanh, RunIntegerKernel, PrepareIntegerTanh}, TakesTanh},
    // integer_ops.cc: what LiteRT runs on its builtin int8 kernels, or on
    // XNNPACK operators in forms the ones above do not take.
    {{OpType::kAdd, RunInt8Op, PrepareInt8Op}, TakesInt8Binary},
    {{OpType::kSub, RunInt8Op, PrepareInt8Op}, TakesInt8Binary},
    {{OpType::kSquaredDifference, RunInt8Op, PrepareInt8Op}, TakesInt8Binary},
    {{OpType::kRsqrt, RunInt8Op, PrepareInt8Op}, TakesInt8Table},
    {{OpType::kGelu, RunInt8Op, PrepareInt8Op}, TakesInt8Table},
    {{OpType::kHardSwish, RunInt8Op, PrepareInt8Op}, TakesInt8Table},
    {{OpType::kSoftmax, RunInt8Op, PrepareInt8Op}, TakesInt8Softmax},
    {{OpType::kBatchMatMul, RunInt8Op, PrepareInt8Op}, TakesInt8BatchMatMul},
    {{OpType::kMean, RunInt8Op, PrepareInt8Op}, TakesInt8Mean},
    {{OpType::kAveragePool2d, RunInt8AveragePool}, TakesInt8AveragePool},
    {{OpType::kTransposeConv, RunInt8TransposeConv, PrepareInt8TransposeConv}, TakesInt8TransposeConv},
    {{OpType::kResizeBilinear, RunInt8ResizeBilinear}, TakesInt8ResizeBilinear},
};

// Ops that only move values (MovesValuesOnly) and whose own kernel moves
// int8/uint8 elements as they are (RESIZE_NEAREST_NEIGHBOR copies elements
// of any size; REDUCE_MAX / REDUCE_MIN pick the largest or smallest stored
// integer, which with one quantization is LiteRT's); the others of that
// list compute in float here (pooling, MAXIMUM / MINIMUM) or were not
// checked with 8-bit types, and keep the float view.
bool OwnKernelTakesIntegers(OpType op) {
  switch (op) {
    case OpType::kMaxPool2d:
    case OpType::kMaximum:
    case OpType::kMinimum:
    case OpType::kMirrorPad:
    case OpType::kBroadcastTo:
    case OpType::kReverseV2:
    case OpType::kGatherNd:
    case OpType::kSpaceToBatchNd:
    case OpType::kBatchToSpaceNd:
      return false;
    case OpType::kSelect:
    case OpType::kSelectV2:
      return true;  // picks x or y elements of any size (an attention mask's)
    default:
      return MovesValuesOnly(op);
  }
}

// Every int8/uint8 activation the node touches has `q`, and so has every
// decoded constant it reads (the integer view gives the node an 8-bit copy:
// IntegerCopyOf); other decoded constants keep it in the float view.
bool MovesOneQuantization(const Graph& graph, const Node& node) {
  const QuantizationParams* q = nullptr;
  auto check = [&](int index) {
    const Tensor* t = TensorAt(graph, index);
    if (t == nullptr) return true;
    if (t->is_constant && t->type == DataType::kFloat32 && !t->quant.empty()) {
      if (!IsDecodedByteConstant(*t)) return false;
      if (q == nullptr) q = &t->quant;
      return SameQuantization(*q, t->quant);
    }
    if (t->type != DataType::kInt8 && t->type != DataType::kUInt8) return true;
    if (t->quant.empty()) return false;
    if (q == nullptr) q = &t->quant;
    return SameQuantization(*q, t->quant);
  };
  for (int t : node.inputs) {
    if (!check(t)) return false;
  }
  for (int t : node.outputs) {
    if (!check(t)) return false;
  }
  return q != nullptr;
}

}  // namespace

const CpuKernel* FindIntegerKernel(const Graph& graph, const Node& node) {
  for (const IntegerKernel& k : kIntegerKernels) {
    if (k.kernel.op == node.op && k.takes(graph, node)) return &k.kernel;
  }
  return nullptr;
}

bool RunsOnIntegers(const Graph& graph, const Node& node) {
  if (node.op == OpType::kQuantize || node.op == OpType::kDequantize || node.op == OpType::kCast) return true;
  if (FindIntegerKernel(graph, node) != nullptr) return true;
  return OwnKernelTakesIntegers(node.op) && MovesOneQuantization(graph, node);
}

bool IsDecodedByteConstant(const Tensor& t) {
  const DataType storage = t.quant.storage_type;
  std::vector<int32_t> values;
  int64_t lo = 0, hi = 0;
  if (!t.is_constant || t.type != DataType::kFloat32 || t.quant.scale.size() != 1 || t.quant.zero_point.size() > 1 ||
      (storage != DataType::kInt8 && storage != DataType::kUInt8) || !IntegerTypeRange(storage, &lo, &hi) ||
      !StoredIntegers(t, &values)) {
    return false;
  }
  return std::all_of(values.begin(), values.end(), [&](int32_t v) { return v >= lo && v <= hi; });
}

Tensor IntegerCopyOf(const Tensor& t) {
  Tensor copy = t;
  std::vector<int32_t> values;
  StoredIntegers(t, &values);
  std::vector<uint8_t> bytes(values.size());
  for (size_t i = 0; i < values.size(); ++i) bytes[i] = static_cast<uint8_t>(values[i]);  // two's complement for int8
  copy.type = t.quant.storage_type;
  copy.data = std::move(bytes);
  copy.name = t.name + "/stored";
  return copy;
}

namespace {

// Values v[0, n) of a constant into their stored integers, cast to T:
// round(v / scale) + zp (std::nearbyint: ties to even), decoded again as
// DequantizeAffine does (the difference and the product in double, rounded
// to float once) and compared bit for bit. False where one leaves int32 or
// does not decode to its value. The scale and zero point: scale[0] and
// zp[0] for all (a run of one channel), or value i's at scale[i] and zp[i]
// where per_lane (a row of a tensor quantized along its last axis).
template <typename T>
bool StoredRun(const float* v, int64_t n, const double* scale, const double* zp, bool per_lane, T* out) {
  bool same = true;
  for (int64_t i = 0; i < n; ++i) {
    const double s = scale[per_lane ? i : 0], z = zp[per_lane ? i : 0];
    const double k = std::nearbyint(static_cast<double>(v[i]) / s) + z;
    if (!(k >= -2147483648.0 && k <= 2147483647.0)) return false;
    const int32_t stored = static_cast<int32_t>(k);
    const float again = static_cast<float>((static_cast<double>(stored) - z) * s);
    uint32_t a = 0, w = 0;
    std::memcpy(&a, &again, sizeof(a));
    std::memcpy(&w, v + i, sizeof(w));
    same &= a == w;
    out[i] = static_cast<T>(stored);
  }
  return same;
}

#ifdef GLD_STORED_AVX512
// Where the reciprocal's quotient may stand for the division's (see
// StoredRunAvx512): a normal scale, a zero point within 2^31.
bool ReciprocalFits(double scale, double zp) {
  return std::fabs(zp) <= 2147483648.0 && std::isfinite(scale) && std::fabs(scale) >= 1.1754943508222875e-38;
}

// StoredRun eight values at a time: the same operations in the same
// precision (VRNDSCALEPD to nearest even is std::nearbyint in the default
// rounding mode; the conversions to float round as the scalar ones do).
// kReciprocal: the quotient as v x (1 / scale) instead, *large set where
// one reaches 2^21 in magnitude (or is a NaN); see StoredRunAvx512.
template <typename T, bool kReciprocal, bool kPerLane>
GLD_STORED_AVX512 bool StoredVectors(const float* v, int64_t n, const double* scale, const double* zp, T* out,
                                     bool* large) {
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d lo = _mm512_set1_pd(-2147483648.0), hi = _mm512_set1_pd(2147483647.0);
  const __m512d limit = _mm512_set1_pd(2097152.0);  // 2^21
  __m512d s = _mm512_set1_pd(scale[0]), z = _mm512_set1_pd(zp[0]);
  __m512d r = _mm512_div_pd(one, s);
  __mmask8 bad = 0, big = 0;
  for (int64_t i = 0; i < n; i += 8) {
    const __mmask8 m = n - i >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << (n - i)) - 1);
    if (kPerLane) {  // lanes past n: scale 1, zero point 0
      s = _mm512_mask_loadu_pd(one, m, scale + i);
      z = _mm512_maskz_loadu_pd(m, zp + i);
      if (kReciprocal) r = _mm512_div_pd(one, s);
    }
    const __m256 f = _mm256_maskz_loadu_ps(m, v + i);
    const __m512d q = kReciprocal ? _mm512_mul_pd(_mm512_cvtps_pd(f), r) : _mm512_div_pd(_mm512_cvtps_pd(f), s);
    if (kReciprocal) big |= static_cast<__mmask8>(m & ~_mm512_cmp_pd_mask(_mm512_abs_pd(q), limit, _CMP_LT_OQ));
    const __m512d k = _mm512_add_pd(_mm512_roundscale_pd(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), z);
    const __mmask8 in = _mm512_cmp_pd_mask(k, lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(k, hi, _CMP_LE_OQ);
    const __m256i stored = _mm512_cvttpd_epi32(_mm512_mask_blend_pd(in, _mm512_setzero_pd(), k));
    const __m256 again = _mm512_cvtpd_ps(_mm512_mul_pd(_mm512_sub_pd(_mm512_cvtepi32_pd(stored), z), s));
    bad |= static_cast<__mmask8>(m & ~(in & _mm256_cmpeq_epi32_mask(_mm256_castps_si256(again),
                                                                       _mm256_castps_si256(f))));
    if constexpr (sizeof(T) == 1) {
      _mm256_mask_cvtepi32_storeu_epi8(out + i, m, stored);  // truncated: the cast to T
    } else {
      _mm256_mask_storeu_epi32(out + i, m, stored);
    }
  }
  *large = big != 0;
  return bad == 0;
}

// StoredRun on AVX-512. With a normal scale and a zero point within 2^31
// (ReciprocalFits), the quotients taken by the reciprocal give the same
// integers and the same answer wherever each is below 2^21 (else the
// division's way is taken): a value passes the check with m = k - zp only
// if v = m x scale rounded to float (m x scale is exact in double for |m| <
// 2^22), so v / scale lies within |m| 2^-24 <= 1/4 of m, and so does the
// product, off the quotient by a few units in the double's last place: both
// round to m, and neither passes where the other does not.
template <typename T>
GLD_STORED_AVX512 bool StoredRunAvx512(const float* v, int64_t n, const double* scale, const double* zp,
                                       bool per_lane, T* out) {
  bool fits = true;
  for (int64_t i = 0; i < (per_lane ? n : 1) && fits; ++i) fits = ReciprocalFits(scale[i], zp[i]);
  bool large = false;
  if (fits) {
    const bool same = per_lane ? StoredVectors<T, true, true>(v, n, scale, zp, out, &large)
                               : StoredVectors<T, true, false>(v, n, scale, zp, out, &large);
    if (!large) return same;
  }
  return per_lane ? StoredVectors<T, false, true>(v, n, scale, zp, out, &large)
                  : StoredVectors<T, false, false>(v, n, scale, zp, out, &large);
}
#endif

// StoredRun on the widest vectors the CPU has.
template <typename T>
auto StoredRunFor() -> bool (*)(const float*, int64_t, const double*, const double*, bool, T*) {
#ifdef GLD_STORED_AVX512
  if (HostCpuFeatures().avx512vnni) return StoredRunAvx512<T>;
#endif
  return StoredRun<T>;
}

// StoredIntegers into T (each integer cast to T), channel run by channel
// run: no division per value to find its channel, no second pass.
template <typename T>
bool StoredAs(const Tensor& t, std::vector<T>* out) {
  const QuantizationParams& q = t.quant;
  if (q.empty() || t.type != DataType::kFloat32 || !t.is_constant) return false;
  const int64_t n = t.num_elements();
  if (t.data.size() != static_cast<size_t>(n) * sizeof(float)) return false;
  // n = outer x channels x inner (per tensor: one channel of n values).
  int64_t channels = 1, inner = n;
  if (q.scale.size() > 1) {
    if (q.quantized_dimension < 0 || static_cast<size_t>(q.quantized_dimension) >= t.shape.size() ||
        t.shape[static_cast<size_t>(q.quantized_dimension)] != static_cast<int64_t>(q.scale.size())) {
      return false;
    }
    channels = static_cast<int64_t>(q.scale.size());
    inner = 1;
    for (size_t d = static_cast<size_t>(q.quantized_dimension) + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  }
  const int64_t outer = channels * inner == 0 ? 0 : n / (channels * inner);
  const float* v = t.DataAs<float>();
  out->resize(static_cast<size_t>(n));
  if (!q.zero_point.empty() && static_cast<int64_t>(q.zero_point.size()) < channels) return false;
  const auto run = StoredRunFor<T>();
  std::vector<double> scales(static_cast<size_t>(channels)), zps(static_cast<size_t>(channels), 0.0);
  for (size_t c = 0; c < scales.size(); ++c) {
    scales[c] = static_cast<double>(q.scale[c]);
    if (!q.zero_point.empty()) zps[c] = static_cast<double>(q.zero_point[c]);
  }
  if (inner == 1 && channels > 1) {  // the channels along the last axis: a row of them at a time
    for (int64_t b = 0; b < outer; ++b) {
      if (!run(v + b * channels, channels, scales.data(), zps.data(), true, out->data() + b * channels)) return false;
    }
    return true;
  }
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t at = (b * channels + c) * inner;
      if (!run(v + at, inner, &scales[static_cast<size_t>(c)], &zps[static_cast<size_t>(c)], false, out->data() + at)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool StoredIntegers(const Tensor& t, std::vector<int32_t>* out) { return StoredAs(t, out); }
bool StoredIntegers(const Tensor& t, std::vector<int8_t>* out) { return StoredAs(t, out); }
bool StoredIntegers(const Tensor& t, std::vector<uint8_t>* out) { return StoredAs(t, out); }

}  // namespace gld::cpu
