// Unary elementwise ops: the unary rows of the elementwise table
// (graph/elementwise_ops.inc: ABS, NEG, SQRT, ...; float32, and int32 and
// int64 where the row has an integer column), LOGICAL_NOT (bool), CAST,
// ZEROS_LIKE; plus the n-ary elementwise ops ADD_N, SELECT, SELECT_V2 and
// FILL.
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/ops/elementwise_math.h"
#include "cpu_kernels/ops/elementwise_unary.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

template <typename T, typename Op>
Status UnaryTyped(KernelContext& ctx, Op op) {
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const T* x = in.as<T>();
  T* y = out.as<T>();
  ParallelForGrain(ctx, in.num_elements(), 16384, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = op(x[i]);
  });
  return OkStatus();
}

Status CheckSameShapeType(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& out = *ctx.outputs[0];
  if (in.type != out.type || in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " " + DataTypeName(in.type) + " and output " +
                                ShapeToString(out.shape) + " " + DataTypeName(out.type) + " differ");
  }
  return OkStatus();
}

// An elementwise table row: float_fn for float32 (UnaryFloat's checks when
// the op takes float32 only), int_fn (unless it is GLD_EW_NONE) for int32 and
// int64.
template <typename FloatFn, typename IntFn>
Status RunUnaryRow(KernelContext& ctx, FloatFn float_fn, IntFn int_fn) {
  if constexpr (std::is_same_v<decltype(int_fn(int32_t{})), NoInteger>) {
    return UnaryFloat(ctx, [&float_fn](float x) { return static_cast<float>(float_fn(x)); });
  } else {
    GLD_RETURN_IF_ERROR(CheckSameShapeType(ctx));
    switch (ctx.inputs[0]->type) {
      case DataType::kFloat32: return UnaryTyped<float>(ctx, [&float_fn](float x) { return static_cast<float>(float_fn(x)); });
      case DataType::kInt32: return UnaryTyped<int32_t>(ctx, [&int_fn](int32_t x) { return static_cast<int32_t>(int_fn(x)); });
      case DataType::kInt64: return UnaryTyped<int64_t>(ctx, [&int_fn](int64_t x) { return static_cast<int64_t>(int_fn(x)); });
      default:
        return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(ctx.inputs[0]->type) + " is not supported");
    }
  }
}

// Element conversion for CAST. Floats to integers truncate toward zero and
// saturate (NaN -> 0), so out-of-range values never hit undefined behaviour.
template <typename To, typename From>
To Convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return To(0);
    const double d = std::trunc(static_cast<double>(v));
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else {
    return static_cast<To>(v);
  }
}

template <typename From>
Status CastFrom(KernelContext& ctx, const From* x, int64_t n, TensorData& out) {
  switch (out.type) {
#define GLD_CAST_CASE(dt, T)                                                \
  case dt: {                                                                \
    T* y = out.as<T>();                                                     \
    for (int64_t i = 0; i < n; ++i) y[i] = Convert<T, From>(x[i]);          \
    return OkStatus();                                                      \
  }
    GLD_CAST_CASE(DataType::kFloat32, float)
    GLD_CAST_CASE(DataType::kFloat64, double)
    GLD_CAST_CASE(DataType::kInt8, int8_t)
    GLD_CAST_CASE(DataType::kUInt8, uint8_t)
    GLD_CAST_CASE(DataType::kInt16, int16_t)
    GLD_CAST_CASE(DataType::kInt32, int32_t)
    GLD_CAST_CASE(DataType::kInt64, int64_t)
    GLD_CAST_CASE(DataType::kBool, bool)
#undef GLD_CAST_CASE
    case DataType::kFloat16: {
      uint16_t* y = out.as<uint16_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = FloatToHalf(static_cast<float>(x[i]));
      return OkStatus();
    }
    default:
      return KernelUnimplemented(ctx, std::string("cast to ") + DataTypeName(out.type));
  }
}

}  // namespace

// The kernels of the elementwise table's unary rows.
#define GLD_EW_NONE NoInteger{}
#define GLD_EW_BINARY(...)
#define GLD_EW_GL(...)
#define GLD_EW_UNARY(Name, tflite_name, known_values, cpu_float, cpu_int, glsl)                             \
  Status Run##Name(KernelContext& ctx) {                                                                     \
    return RunUnaryRow(                                                                                      \
        ctx, []([[maybe_unused]] auto x) { return cpu_float; }, []([[maybe_unused]] auto x) { return cpu_int; }); \
  }
#include "graph/elementwise_ops.inc"
#undef GLD_EW_UNARY
#undef GLD_EW_GL
#undef GLD_EW_BINARY
#undef GLD_EW_NONE

Status RunLogicalNot(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckSameShapeType(ctx));
  GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[0], DataType::kBool, "input"));
  return UnaryTyped<bool>(ctx, [](bool v) { return !v; });
}

Status RunCast(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) +
                                " differ in size");
  }
  const int64_t n = in.num_elements();
  switch (in.type) {
    case DataType::kFloat32: return CastFrom(ctx, in.as<float>(), n, out);
    case DataType::kFloat64: return CastFrom(ctx, in.as<double>(), n, out);
    case DataType::kInt8: return CastFrom(ctx, in.as<int8_t>(), n, out);
    case DataType::kUInt8: return CastFrom(ctx, in.as<uint8_t>(), n, out);
    case DataType::kInt16: return CastFrom(ctx, in.as<int16_t>(), n, out);
    case DataType::kInt32: return CastFrom(ctx, in.as<int32_t>(), n, out);
    case DataType::kInt64: return CastFrom(ctx, in.as<int64_t>(), n, out);
    case DataType::kBool: return CastFrom(ctx, in.as<bool>(), n, out);
    case DataType::kFloat16: {
      std::vector<float> f(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) f[static_cast<size_t>(i)] = HalfToFloat(in.as<uint16_t>()[i]);
      return CastFrom(ctx, f.data(), n, out);
    }
    default:
      return KernelUnimplemented(ctx, std::string("cast from ") + DataTypeName(in.type));
  }
}

Status RunZerosLike(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckSameShapeType(ctx));
  TensorData& out = *ctx.outputs[0];
  const size_t bytes = static_cast<size_t>(out.num_elements()) * DataTypeSize(out.type);
  if (bytes > 0) std::memset(out.data, 0, bytes);
  return OkStatus();
}

Status RunAddN(KernelContext& ctx) {
  if (ctx.inputs.empty()) return KernelError(ctx, "no inputs");
  GLD_RETURN_IF_ERROR(CheckIo(ctx, ctx.inputs.size(), ctx.inputs.size(), 1));
  TensorData& out = *ctx.outputs[0];
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i]->num_elements() != out.num_elements() || ctx.inputs[i]->type != out.type) {
      return KernelError(ctx, "input " + std::to_string(i) + " " + ShapeToString(ctx.inputs[i]->shape) +
                                  " does not match output " + ShapeToString(out.shape));
    }
  }
  const int64_t n = out.num_elements();
  auto sum = [&](auto* y, auto tag) {
    using T = decltype(tag);
    for (int64_t j = 0; j < n; ++j) y[j] = ctx.inputs[0]->as<T>()[j];
    for (size_t i = 1; i < ctx.inputs.size(); ++i) {
      const T* x = ctx.inputs[i]->as<T>();
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_integral_v<T>) {
          y[j] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(y[j]) + static_cast<std::make_unsigned_t<T>>(x[j]));
        } else {
          y[j] += x[j];
        }
      }
    }
  };
  switch (out.type) {
    case DataType::kFloat32: sum(out.as<float>(), float{}); return OkStatus();
    case DataType::kInt32: sum(out.as<int32_t>(), int32_t{}); return OkStatus();
    case DataType::kInt64: sum(out.as<int64_t>(), int64_t{}); return OkStatus();
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(out.type));
  }
}

namespace {
// out = cond ? x : y over the plan's broadcast, elements of kSize bytes
// moved as one unsigned integer each and picked through a mask, not a
// branch (BERT's attention mask, [1, 2, 32, 32] of random keys: a branch
// mispredicted on about half of the elements, 2.3 us a node).
// One run of n elements with the condition's step 1 and x's and y's steps
// fixed at 0 or 1: a loop the compiler turns into vector blends.
template <typename U, int kSx, int kSy>
void SelectRun(const bool* c, const uint8_t* x, const uint8_t* y, uint8_t* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    U a, b;
    std::memcpy(&a, x + i * kSx * static_cast<int64_t>(sizeof(U)), sizeof(U));
    std::memcpy(&b, y + i * kSy * static_cast<int64_t>(sizeof(U)), sizeof(U));
    const U mask = static_cast<U>(static_cast<U>(0) - static_cast<U>(c[i]));
    const U v = static_cast<U>((a & mask) | (b & static_cast<U>(~mask)));
    std::memcpy(o + i * static_cast<int64_t>(sizeof(U)), &v, sizeof(U));
  }
}

typedef uint8_t Bool8 __attribute__((vector_size(8)));
typedef uint32_t Uint32x8 __attribute__((vector_size(32)));

// SelectRun for 4-byte elements, 8 at a time: the condition's bytes widened
// to lane masks (the scalar loop above stays scalar: about 2.5 cycles an
// element, BERT's attention mask 2.7 us a node). sx, sy: 1 steps through x
// / y, 0 repeats its one element. Not a template: clang does not clone
// function templates for target_clones.
GLD_MULTIVERSION void SelectRun4(const bool* c, const uint8_t* x, const uint8_t* y, uint8_t* o, int64_t n, int sx,
                                 int sy) {
  int64_t i = 0;
  Uint32x8 a = {}, b = {};
  if (sx == 0) {
    uint32_t v;
    std::memcpy(&v, x, sizeof(v));
    a += v;
  }
  if (sy == 0) {
    uint32_t v;
    std::memcpy(&v, y, sizeof(v));
    b += v;
  }
  for (; i + 8 <= n; i += 8) {
    Bool8 cb;
    std::memcpy(&cb, c + i, sizeof(cb));
    const Uint32x8 mask = Uint32x8{} - __builtin_convertvector(cb, Uint32x8);
    if (sx == 1) std::memcpy(&a, x + i * 4, sizeof(a));
    if (sy == 1) std::memcpy(&b, y + i * 4, sizeof(b));
    const Uint32x8 v = (a & mask) | (b & ~mask);
    std::memcpy(o + i * 4, &v, sizeof(v));
  }
  const bool* ct = c + i;
  const uint8_t* xt = x + i * sx * 4;
  const uint8_t* yt = y + i * sy * 4;
  if (sx == 1 && sy == 1) {
    SelectRun<uint32_t, 1, 1>(ct, xt, yt, o + i * 4, n - i);
  } else if (sx == 1) {
    SelectRun<uint32_t, 1, 0>(ct, xt, yt, o + i * 4, n - i);
  } else {
    SelectRun<uint32_t, 0, 1>(ct, xt, yt, o + i * 4, n - i);
  }
}

template <typename U>
void SelectElements(const BroadcastPlan& plan, const TensorData& cond, const TensorData& x, const TensorData& y,
                    TensorData& out) {
  const bool* c = cond.as<bool>();
  const uint8_t* px = static_cast<const uint8_t*>(x.data);
  const uint8_t* py = static_cast<const uint8_t*>(y.data);
  uint8_t* po = static_cast<uint8_t*>(out.data);
  constexpr int64_t es = static_cast<int64_t>(sizeof(U));
  const int64_t inner = plan.inner();
  const int64_t sc = plan.strides[0].back(), sx = plan.strides[1].back(), sy = plan.strides[2].back();
  BroadcastCursor at(plan, 0);
  for (int64_t o = 0; o < plan.outer(); ++o, at.Next()) {
    const int64_t* offs = at.offs;
    const bool* co = c + offs[0];
    const uint8_t* xo = px + offs[1] * es;
    const uint8_t* yo = py + offs[2] * es;
    uint8_t* oo = po + o * inner * es;
    if (sc == 1 && (sx | sy) >= 0 && (sx | sy) <= 1) {
      constexpr bool k4 = sizeof(U) == 4;
      if (sx == 1 && sy == 1) {
        k4 ? SelectRun4(co, xo, yo, oo, inner, 1, 1) : SelectRun<U, 1, 1>(co, xo, yo, oo, inner);
      } else if (sx == 1) {
        k4 ? SelectRun4(co, xo, yo, oo, inner, 1, 0) : SelectRun<U, 1, 0>(co, xo, yo, oo, inner);
      } else if (sy == 1) {
        k4 ? SelectRun4(co, xo, yo, oo, inner, 0, 1) : SelectRun<U, 0, 1>(co, xo, yo, oo, inner);
      } else {
        SelectRun<U, 0, 0>(co, xo, yo, oo, inner);
      }
      continue;
    }
    for (int64_t i = 0; i < inner; ++i) {
      U a, b;
      std::memcpy(&a, xo + i * sx * es, sizeof(U));
      std::memcpy(&b, yo + i * sy * es, sizeof(U));
      const U mask = static_cast<U>(static_cast<U>(0) - static_cast<U>(co[i * sc]));
      const U v = static_cast<U>((a & mask) | (b & static_cast<U>(~mask)));
      std::memcpy(oo + i * es, &v, sizeof(U));
    }
  }
}

Status RunSelectImpl(KernelContext& ctx, bool v2) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& cond = *ctx.inputs[0];
  const TensorData& x = *ctx.inputs[1];
  const TensorData& y = *ctx.inputs[2];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, cond, DataType::kBool, "condition"));
  if (x.type != y.type || x.type != out.type) return KernelError(ctx, "x, y and output types differ");
  const Shape* cond_shape = &cond.shape;
  Shape row_cond;
  if (!v2 && cond.shape != x.shape) {
    // SELECT with a rank-1 condition picks whole rows of x / y.
    if (cond.shape.size() != 1 || x.shape.empty() || cond.shape[0] != x.shape[0]) {
      return KernelError(ctx, "condition " + ShapeToString(cond.shape) + " does not match x " + ShapeToString(x.shape));
    }
    row_cond = cond.shape;
    row_cond.resize(x.shape.size(), 1);
    cond_shape = &row_cond;
  }
  // The output's shape was checked by an earlier run of the same buffers
  // (KernelContext::io_checked): the check builds two shapes.
  Shape xy, expected;
  if (!ctx.io_checked && (!BroadcastShapes(x.shape, y.shape, &xy) || !BroadcastShapes(*cond_shape, xy, &expected) ||
                          expected != out.shape)) {
    return KernelError(ctx, "condition " + ShapeToString(cond.shape) + ", x " + ShapeToString(x.shape) + ", y " +
                                ShapeToString(y.shape) + " do not broadcast to output " + ShapeToString(out.shape));
  }
  if (out.num_elements() == 0) return OkStatus();
  BroadcastPlan plan;
  if (!plan.Build({cond_shape, &x.shape, &y.shape}, out.shape)) return KernelError(ctx, "cannot broadcast");
  switch (DataTypeSize(out.type)) {
    case 1: SelectElements<uint8_t>(plan, cond, x, y, out); break;
    case 2: SelectElements<uint16_t>(plan, cond, x, y, out); break;
    case 4: SelectElements<uint32_t>(plan, cond, x, y, out); break;
    case 8: SelectElements<uint64_t>(plan, cond, x, y, out); break;
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(out.type) + " is not supported");
  }
  return OkStatus();
}
}  // namespace

Status RunSelect(KernelContext& ctx) { return RunSelectImpl(ctx, false); }
Status RunSelectV2(KernelContext& ctx) { return RunSelectImpl(ctx, true); }

// FILL: inputs (dims, value); the output shape is final.
Status RunFill(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& value = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (value.num_elements() != 1 || value.type != out.type) {
    return KernelError(ctx, "value must be one element of the output type " + std::string(DataTypeName(out.type)));
  }
  const size_t es = DataTypeSize(out.type);
  uint8_t* po = static_cast<uint8_t*>(out.data);
  for (int64_t i = 0; i < out.num_elements(); ++i) std::memcpy(po + i * static_cast<int64_t>(es), value.data, es);
  return OkStatus();
}

}  // namespace gld::cpu
