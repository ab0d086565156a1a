// Reductions over a set of axes (input 1, negative and repeated axes allowed):
// MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL; and ARG_MAX / ARG_MIN over
// one axis. float32 sums and products accumulate in double, maxima and minima
// in float (exact); integers in int64 (wrapping back
// to the output type).
#include <algorithm>
#include <limits>
#include <type_traits>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

template <typename T>
T AddWrap(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  } else {
    return a + b;
  }
}

enum class ReduceKind { kMean, kSum, kProd, kMax, kMin };

// One kind per instantiation, so that the inner loops carry no switch and
// vectorize (MEAN over H and W of [1, 7, 7, 672]: 17 -> 7 us).
template <ReduceKind kKind, typename T, typename Acc>
void ReduceT(const KernelContext& ctx, const TensorData& in, const std::vector<bool>& reduced, T* out,
             int64_t out_count) {
  const size_t rank = in.shape.size();
  // Output strides per input dimension (0 along reduced dims).
  std::vector<int64_t> ostride(rank, 0);
  int64_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    if (!reduced[d]) {
      ostride[d] = s;
      s *= in.shape[d];
    }
  }
  Acc init{};
  if constexpr (kKind == ReduceKind::kProd) init = Acc(1);
  // Floats start at an infinity: a maximum over -inf (or NaN) alone is -inf,
  // as the double accumulator's lowest value became once narrowed to float.
  if constexpr (kKind == ReduceKind::kMax) {
    init = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::lowest();
  }
  if constexpr (kKind == ReduceKind::kMin) {
    init = std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::max();
  }
  // Accumulated in the output itself where it has the accumulator's type
  // (float maxima and minima, int64): no array per run.
  std::vector<Acc> acc_store;
  Acc* acc = nullptr;
  if constexpr (std::is_same_v<T, Acc>) {
    std::fill_n(out, out_count, init);
    acc = out;
  } else {
    acc_store.assign(static_cast<size_t>(out_count), init);
    acc = acc_store.data();
  }
  const T* x = in.as<T>();
  const int64_t total = in.num_elements();
  const int64_t inner = rank > 0 ? in.shape[rank - 1] : 1;
  const int64_t inner_stride = rank > 0 ? ostride[rank - 1] : 0;
  const int64_t rows = inner > 0 ? total / inner : 0;
  auto combine = [](Acc a, Acc v) -> Acc {
    if constexpr (kKind == ReduceKind::kMean || kKind == ReduceKind::kSum) {
      if constexpr (std::is_integral_v<Acc>) {
        return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v));
      } else {
        return a + v;
      }
    } else if constexpr (kKind == ReduceKind::kProd) {
      if constexpr (std::is_integral_v<Acc>) {
        return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(v));
      } else {
        return a * v;
      }
    } else if constexpr (kKind == ReduceKind::kMax) {
      return v > a ? v : a;
    } else {
      return v < a ? v : a;
    }
  };
  (void)ctx;
  // The row's index over the dimensions before the last, counted up as an
  // odometer (its output offset `base` with it), not divided out per row:
  // MEAN over H and W of [1, 24, 24, 16] (a squeeze-and-excite block's
  // pooling) spent more in the divisions than in the sums.
  std::vector<int64_t> idx(rank > 0 ? rank - 1 : 0, 0);
  int64_t base = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (r > 0) {
      for (size_t d = idx.size(); d-- > 0;) {
        base += ostride[d];
        if (++idx[d] < in.shape[d]) break;
        base -= idx[d] * ostride[d];
        idx[d] = 0;
      }
    }
    const T* row = x + r * inner;
    if (inner_stride == 0) {
      Acc a = acc[base];
      for (int64_t i = 0; i < inner; ++i) a = combine(a, static_cast<Acc>(row[i]));
      acc[base] = a;
    } else {
      Acc* ap = acc + base;
      for (int64_t i = 0; i < inner; ++i) ap[i] = combine(ap[i], static_cast<Acc>(row[i]));
    }
  }
  const int64_t count = out_count > 0 ? total / out_count : 0;
  for (int64_t i = 0; i < out_count; ++i) {
    Acc v = acc[i];
    if constexpr (kKind == ReduceKind::kMean) {
      if constexpr (std::is_integral_v<Acc>) {
        v = count > 0 ? v / count : 0;
      } else {
        v = v / static_cast<Acc>(count);
      }
    }
    out[i] = static_cast<T>(v);
  }
}

// SUM and MEAN of float32 over the last axes only (KWS-style models sum
// pairs of channels): each output is one contiguous row of the input, added
// in the generic path's order and precision (double), without its per-row
// index arithmetic and accumulator array. False when the axes are not a
// suffix.
bool ReduceTrailingAxes(const TensorData& in, const std::vector<bool>& reduced, ReduceKind kind, float* out,
                        int64_t out_count) {
  if (kind != ReduceKind::kSum && kind != ReduceKind::kMean) return false;
  size_t first = reduced.size();
  while (first > 0 && reduced[first - 1]) --first;
  for (size_t d = 0; d < first; ++d) {
    if (reduced[d]) return false;
  }
  if (first == reduced.size() || out_count <= 0) return false;
  const int64_t inner = in.num_elements() / out_count;
  const float* x = in.as<float>();
  for (int64_t r = 0; r < out_count; ++r) {
    double a = 0;
    for (int64_t i = 0; i < inner; ++i) a += static_cast<double>(x[r * inner + i]);
    if (kind == ReduceKind::kMean) a = a / static_cast<double>(inner);
    out[r] = static_cast<float>(a);
  }
  return true;
}

// SUM and MEAN of float32 over one block of adjacent axes before a kept
// last axis (a pooling MEAN over H and W of NHWC: a squeeze-and-excite
// block's, a classifier head's): out[o, i] = the sum over m of x[o, m, i],
// in double, m in order: the generic path's values, bit for bit, without
// its per-row odometer and accumulator array. Channels go in blocks of
// kBlock accumulators on the stack. False for other axes.
bool ReduceMiddleAxes(const KernelContext& ctx, const TensorData& in, const std::vector<bool>& reduced,
                      ReduceKind kind, float* out, int64_t out_count) {
  if (kind != ReduceKind::kSum && kind != ReduceKind::kMean) return false;
  const size_t rank = reduced.size();
  if (rank < 2 || reduced[rank - 1] || out_count <= 0) return false;
  size_t first = 0;
  while (first < rank && !reduced[first]) ++first;
  size_t end = first;
  while (end < rank && reduced[end]) ++end;
  if (first == rank) return false;
  for (size_t d = end; d < rank; ++d) {
    if (reduced[d]) return false;  // a second block
  }
  int64_t outer = 1, middle = 1, inner = 1;
  for (size_t d = 0; d < first; ++d) outer *= in.shape[d];
  for (size_t d = first; d < end; ++d) middle *= in.shape[d];
  for (size_t d = end; d < rank; ++d) inner *= in.shape[d];
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  const float* x = in.as<float>();
  const double count = static_cast<double>(middle);
  ParallelForGrain(ctx, outer * blocks, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, middle * kBlock)),
                   [&](int64_t b, int64_t e) {
    double acc[kBlock];
    for (int64_t item = b; item < e; ++item) {
      const int64_t o = item / blocks;
      const int64_t i0 = (item % blocks) * kBlock;
      const int64_t n = std::min(kBlock, inner - i0);
      std::fill_n(acc, n, 0.0);
      const float* base = x + o * middle * inner + i0;
      for (int64_t m = 0; m < middle; ++m) {
        const float* row = base + m * inner;
        for (int64_t i = 0; i < n; ++i) acc[i] += static_cast<double>(row[i]);
      }
      float* y = out + o * inner + i0;
      for (int64_t i = 0; i < n; ++i) {
        y[i] = static_cast<float>(kind == ReduceKind::kMean ? acc[i] / count : acc[i]);
      }
    }
  });
  return true;
}

template <typename T, typename Acc>
void Reduce(const KernelContext& ctx, const TensorData& in, const std::vector<bool>& reduced, ReduceKind kind,
            T* out, int64_t out_count) {
  switch (kind) {
    case ReduceKind::kMean: ReduceT<ReduceKind::kMean, T, Acc>(ctx, in, reduced, out, out_count); break;
    case ReduceKind::kSum: ReduceT<ReduceKind::kSum, T, Acc>(ctx, in, reduced, out, out_count); break;
    case ReduceKind::kProd: ReduceT<ReduceKind::kProd, T, Acc>(ctx, in, reduced, out, out_count); break;
    case ReduceKind::kMax: ReduceT<ReduceKind::kMax, T, Acc>(ctx, in, reduced, out, out_count); break;
    case ReduceKind::kMin: ReduceT<ReduceKind::kMin, T, Acc>(ctx, in, reduced, out, out_count); break;
  }
}

// The sum of n floats in double, in eight interleaved partial sums (which
// vectorize).
GLD_MULTIVERSION
double SumRow(const float* __restrict__ x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += static_cast<double>(x[i + j]);
  }
  double s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

// float32 MEAN over trailing axes only (a layer norm's mean over the last
// axis): each output the mean of one contiguous row, rows split across
// threads (ReduceT walks every row on one thread, one double add after the
// other: [1, 128, 128] over the last axis 16 -> 3 us). False for other
// axes.
bool MeanOfTrailingAxes(const KernelContext& ctx, const TensorData& in, const std::vector<bool>& reduced,
                        float* out, int64_t out_count) {
  size_t first = reduced.size();
  while (first > 0 && reduced[first - 1]) --first;
  for (size_t d = 0; d < first; ++d) {
    if (reduced[d]) return false;
  }
  if (first == reduced.size() || out_count == 0) return false;
  const int64_t inner = in.num_elements() / out_count;
  if (inner <= 0) return false;
  const float* x = in.as<float>();
  ParallelForGrain(ctx, out_count, std::max<int64_t>(1, 8192 / inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      out[r] = static_cast<float>(SumRow(x + r * inner, inner) / static_cast<double>(inner));
    }
  });
  return true;
}

// The reduced axes of a node (KeptPlan: from its first run when its axes
// are a constant).
struct ReducedAxesState final : KernelState {
  std::vector<bool> reduced;
};

// reduced[d]: whether input axis d is reduced, from input 1.
Status ReducedAxes(const KernelContext& ctx, const TensorData& in, std::vector<bool>* reduced) {
  std::vector<int64_t> axes;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "axes", &axes));
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  reduced->assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int32_t axis = 0;
    if (!NormalizeAxis(a, rank, &axis)) {
      return KernelError(ctx, "axis " + std::to_string(a) + " out of range for input " + ShapeToString(in.shape));
    }
    (*reduced)[static_cast<size_t>(axis)] = true;
  }
  return OkStatus();
}

Status RunReduce(KernelContext& ctx, ReduceKind kind) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  ReducedAxesState own;
  GLD_ASSIGN_OR_RETURN(const ReducedAxesState* kept, KeptPlan(ctx, 1, &own, [&](ReducedAxesState* plan) {
                         return ReducedAxes(ctx, in, &plan->reduced);
                       }));
  const std::vector<bool>& reduced = kept->reduced;
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t out_count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) out_count *= in.shape[static_cast<size_t>(d)];
  }
  if (out.num_elements() != out_count || out.type != in.type) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " " + DataTypeName(out.type) +
                                " does not match the reduction of " + ShapeToString(in.shape) + " " +
                                DataTypeName(in.type));
  }
  if (kind == ReduceKind::kMean && in.type == DataType::kFloat32 &&
      MeanOfTrailingAxes(ctx, in, reduced, out.as<float>(), out_count)) {
    return OkStatus();
  }
  switch (in.type) {
    case DataType::kFloat32:
      // A maximum or minimum is one of the values: float holds it exactly
      // (no conversions to double and back; mnist.tflite's [1, 11, 11, 16]
      // over H and W).
      if (kind == ReduceKind::kMax || kind == ReduceKind::kMin) {
        Reduce<float, float>(ctx, in, reduced, kind, out.as<float>(), out_count);
      } else if (!ReduceTrailingAxes(in, reduced, kind, out.as<float>(), out_count) &&
                 !ReduceMiddleAxes(ctx, in, reduced, kind, out.as<float>(), out_count)) {
        Reduce<float, double>(ctx, in, reduced, kind, out.as<float>(), out_count);
      }
      break;
    case DataType::kInt32: Reduce<int32_t, int64_t>(ctx, in, reduced, kind, out.as<int32_t>(), out_count); break;
    case DataType::kInt64: Reduce<int64_t, int64_t>(ctx, in, reduced, kind, out.as<int64_t>(), out_count); break;
    case DataType::kInt8: Reduce<int8_t, int64_t>(ctx, in, reduced, kind, out.as<int8_t>(), out_count); break;
    case DataType::kUInt8: Reduce<uint8_t, int64_t>(ctx, in, reduced, kind, out.as<uint8_t>(), out_count); break;
    case DataType::kBool:
      if (kind == ReduceKind::kMax || kind == ReduceKind::kMin) {
        Reduce<bool, int64_t>(ctx, in, reduced, kind, out.as<bool>(), out_count);
        break;
      }
      [[fallthrough]];
    default:
      return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(in.type) + " is not supported");
  }
  return OkStatus();
}

template <typename T, typename I>
void ArgT(const TensorData& in, int64_t axis, bool is_max, I* out) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in.shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  const int64_t n = in.shape[static_cast<size_t>(axis)];
  const T* x = in.as<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = x + o * n * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T v = p[k * inner];
        if (is_max ? v > p[best * inner] : v < p[best * inner]) best = k;
      }
      out[o * inner + i] = static_cast<I>(best);
    }
  }
}

template <typename T>
Status ArgDispatchIndex(KernelContext& ctx, const TensorData& in, int64_t axis, bool is_max, TensorData& out) {
  if (out.type == DataType::kInt32) {
    ArgT<T, int32_t>(in, axis, is_max, out.as<int32_t>());
  } else if (out.type == DataType::kInt64) {
    ArgT<T, int64_t>(in, axis, is_max, out.as<int64_t>());
  } else {
    return KernelError(ctx, std::string("output must be int32 or int64, got ") + DataTypeName(out.type));
  }
  return OkStatus();
}

Status RunArg(KernelContext& ctx, bool is_max) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  std::vector<int64_t> axes;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "axis", &axes));
  int32_t axis = 0;
  if (axes.size() != 1 || !NormalizeAxis(axes[0], static_cast<int64_t>(in.shape.size()), &axis)) {
    return KernelError(ctx, "axis must be one value within the rank of " + ShapeToString(in.shape));
  }
  if (in.shape[static_cast<size_t>(axis)] == 0) return KernelError(ctx, "reducing an empty axis");
  if (out.num_elements() * in.shape[static_cast<size_t>(axis)] != in.num_elements()) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not match input " + ShapeToString(in.shape));
  }
  switch (in.type) {
    case DataType::kFloat32: return ArgDispatchIndex<float>(ctx, in, axis, is_max, out);
    case DataType::kInt32: return ArgDispatchIndex<int32_t>(ctx, in, axis, is_max, out);
    case DataType::kInt64: return ArgDispatchIndex<int64_t>(ctx, in, axis, is_max, out);
    case DataType::kInt8: return ArgDispatchIndex<int8_t>(ctx, in, axis, is_max, out);
    case DataType::kUInt8: return ArgDispatchIndex<uint8_t>(ctx, in, axis, is_max, out);
    case DataType::kBool: return ArgDispatchIndex<bool>(ctx, in, axis, is_max, out);
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(in.type) + " is not supported");
  }
}

template <typename T>
void CumsumT(const TensorData& in, int64_t axis, bool exclusive, bool reverse, T* out) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in.shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  const int64_t n = in.shape[static_cast<size_t>(axis)];
  const T* x = in.as<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      T acc = T(0);
      for (int64_t s = 0; s < n; ++s) {
        const int64_t k = reverse ? n - 1 - s : s;
        const int64_t at = (o * n + k) * inner + i;
        if (exclusive) {
          out[at] = acc;
          acc = AddWrap(acc, x[at]);
        } else {
          acc = AddWrap(acc, x[at]);
          out[at] = acc;
        }
      }
    }
  }
}

}  // namespace

Status RunCumsum(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  bool exclusive = false, reverse = false;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node->attributes)) {
    exclusive = a->exclusive;
    reverse = a->reverse;
  }
  std::vector<int64_t> axis_v;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "axis", &axis_v));
  int32_t axis = 0;
  if (axis_v.size() != 1 || !NormalizeAxis(axis_v[0], static_cast<int64_t>(in.shape.size()), &axis)) {
    return KernelError(ctx, "axis must be one value within the rank of " + ShapeToString(in.shape));
  }
  if (in.shape != out.shape || in.type != out.type) return KernelError(ctx, "output differs from input");
  switch (in.type) {
    case DataType::kFloat32: CumsumT<float>(in, axis, exclusive, reverse, out.as<float>()); return OkStatus();
    case DataType::kInt32: CumsumT<int32_t>(in, axis, exclusive, reverse, out.as<int32_t>()); return OkStatus();
    case DataType::kInt64: CumsumT<int64_t>(in, axis, exclusive, reverse, out.as<int64_t>()); return OkStatus();
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(in.type));
  }
}

Status RunMean(KernelContext& ctx) { return RunReduce(ctx, ReduceKind::kMean); }
Status RunSum(KernelContext& ctx) { return RunReduce(ctx, ReduceKind::kSum); }
Status RunReduceProd(KernelContext& ctx) { return RunReduce(ctx, ReduceKind::kProd); }
Status RunReduceMax(KernelContext& ctx) { return RunReduce(ctx, ReduceKind::kMax); }
Status RunReduceMin(KernelContext& ctx) { return RunReduce(ctx, ReduceKind::kMin); }
// REDUCE_ANY and REDUCE_ALL: bool maximum and minimum; over no elements
// ANY is false and ALL true.
Status RunReduceAny(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[0], DataType::kBool, "input"));
  GLD_RETURN_IF_ERROR(RunReduce(ctx, ReduceKind::kMax));
  if (ctx.inputs[0]->num_elements() == 0) {
    std::fill_n(ctx.outputs[0]->as<bool>(), ctx.outputs[0]->num_elements(), false);
  }
  return OkStatus();
}
Status RunReduceAll(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[0], DataType::kBool, "input"));
  return RunReduce(ctx, ReduceKind::kMin);
}
Status RunArgMax(KernelContext& ctx) { return RunArg(ctx, true); }
Status RunArgMin(KernelContext& ctx) { return RunArg(ctx, false); }

}  // namespace gld::cpu
