// CONCATENATION (any axis, negative axes, fused activation on float32), PACK,
// UNPACK, SPLIT, SPLIT_V. All copy contiguous chunks: for concatenation along
// `axis`, each input contributes dim(axis) * inner elements per outer index.
#include <cstring>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/activation.h"

namespace gld::cpu {

namespace {

// Copies `rows` rows of `bytes` bytes from src (rows `src_stride` bytes
// apart) to dst (`dst_stride` apart). Rows of 1-64 bytes (a few channels of
// a pixel: a DenseNet's concatenations) are copied with a size the compiler
// knows, a move or two each, instead of a library call per row.
template <size_t kBytes>
void CopyFixedRows(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dst_stride, src + r * src_stride, kBytes);
}

void CopyRows(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride, int64_t rows, size_t bytes) {
  switch (bytes) {
    case 0: return;
    case 1: return CopyFixedRows<1>(src, src_stride, dst, dst_stride, rows);
    case 2: return CopyFixedRows<2>(src, src_stride, dst, dst_stride, rows);
    case 4: return CopyFixedRows<4>(src, src_stride, dst, dst_stride, rows);
    case 8: return CopyFixedRows<8>(src, src_stride, dst, dst_stride, rows);
    case 12: return CopyFixedRows<12>(src, src_stride, dst, dst_stride, rows);
    case 16: return CopyFixedRows<16>(src, src_stride, dst, dst_stride, rows);
    case 24: return CopyFixedRows<24>(src, src_stride, dst, dst_stride, rows);
    case 32: return CopyFixedRows<32>(src, src_stride, dst, dst_stride, rows);
    case 48: return CopyFixedRows<48>(src, src_stride, dst, dst_stride, rows);
    case 64: return CopyFixedRows<64>(src, src_stride, dst, dst_stride, rows);
    default:
      for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dst_stride, src + r * src_stride, bytes);
  }
}

// Copies `parts` (each outer x part_inner[i] elements) interleaved into `dst`
// (outer x sum(part_inner)), or the reverse when `split` is true; each
// chunk of outer indices part by part.
void Interleave(const KernelContext& ctx, int64_t outer, const std::vector<int64_t>& part_inner,
                const std::vector<uint8_t*>& parts, uint8_t* whole, size_t es, bool split) {
  int64_t total_inner = 0;
  for (int64_t n : part_inner) total_inner += n;
  const int64_t ses = static_cast<int64_t>(es);
  ParallelForGrain(ctx, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(total_inner, 1)),
                   [&](int64_t b, int64_t e) {
                     int64_t off = 0;
                     for (size_t i = 0; i < parts.size(); ++i) {
                       const int64_t part_bytes = part_inner[i] * ses;
                       uint8_t* part = parts[i] + b * part_bytes;
                       uint8_t* w = whole + (b * total_inner + off) * ses;
                       if (split) {
                         CopyRows(w, total_inner * ses, part, part_bytes, e - b, static_cast<size_t>(part_bytes));
                       } else {
                         CopyRows(part, part_bytes, w, total_inner * ses, e - b, static_cast<size_t>(part_bytes));
                       }
                       off += part_inner[i];
                     }
                   });
}

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= s[i];
  return n;
}

}  // namespace

Status RunConcatenation(KernelContext& ctx) {
  if (ctx.inputs.empty()) return KernelError(ctx, "no inputs");
  GLD_RETURN_IF_ERROR(CheckIo(ctx, ctx.inputs.size(), ctx.inputs.size(), 1));
  const ConcatenationAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  TensorData& out = *ctx.outputs[0];
  const int64_t rank = static_cast<int64_t>(out.shape.size());
  int32_t axis = 0;
  if (!NormalizeAxis(attrs->axis, rank, &axis)) {
    return KernelError(ctx, "axis " + std::to_string(attrs->axis) + " out of range for rank " + std::to_string(rank));
  }
  const size_t a = static_cast<size_t>(axis);
  int64_t axis_total = 0;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const TensorData& t = *ctx.inputs[i];
    bool ok = t.type == out.type && t.shape.size() == out.shape.size();
    for (size_t d = 0; ok && d < t.shape.size(); ++d) ok = d == a || t.shape[d] == out.shape[d];
    if (!ok) {
      return KernelError(ctx, "input " + std::to_string(i) + " " + ShapeToString(t.shape) + " " +
                                  DataTypeName(t.type) + " does not fit output " + ShapeToString(out.shape) +
                                  " along axis " + std::to_string(axis));
    }
    axis_total += t.shape[a];
  }
  if (axis_total != out.shape[a]) {
    return KernelError(ctx, "inputs sum to " + std::to_string(axis_total) + " along axis " + std::to_string(axis) +
                                ", output has " + std::to_string(out.shape[a]));
  }
  const int64_t outer = Product(out.shape, 0, a);
  const int64_t inner = Product(out.shape, a + 1, out.shape.size());
  std::vector<int64_t> part_inner;
  std::vector<uint8_t*> parts;
  for (const TensorData* t : ctx.inputs) {
    part_inner.push_back(t->shape[a] * inner);
    parts.push_back(static_cast<uint8_t*>(const_cast<void*>(t->data)));
  }
  if (out.num_elements() > 0) {
    Interleave(ctx, outer, part_inner, parts, static_cast<uint8_t*>(out.data), DataTypeSize(out.type), false);
  }
  if (attrs->activation != Activation::kNone) {
    if (out.type != DataType::kFloat32) return KernelUnimplemented(ctx, "fused activation on non-float output");
    ApplyActivationInPlace(attrs->activation, out.as<float>(), out.num_elements());
  }
  return OkStatus();
}

// PACK: N inputs of shape S -> output with a new dimension N at `axis`.
Status RunPack(KernelContext& ctx) {
  if (ctx.inputs.empty()) return KernelError(ctx, "no inputs");
  GLD_RETURN_IF_ERROR(CheckIo(ctx, ctx.inputs.size(), ctx.inputs.size(), 1));
  const AxisAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  TensorData& out = *ctx.outputs[0];
  const Shape& s = ctx.inputs[0]->shape;
  int32_t axis = 0;
  if (!NormalizeAxis(attrs->axis, static_cast<int64_t>(s.size()) + 1, &axis)) {
    return KernelError(ctx, "axis " + std::to_string(attrs->axis) + " out of range");
  }
  Shape expected = s;
  expected.insert(expected.begin() + axis, static_cast<int32_t>(ctx.inputs.size()));
  if (expected != out.shape) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " should be " + ShapeToString(expected));
  }
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i]->shape != s || ctx.inputs[i]->type != out.type) {
      return KernelError(ctx, "input " + std::to_string(i) + " " + ShapeToString(ctx.inputs[i]->shape) +
                                  " differs from input 0 " + ShapeToString(s));
    }
  }
  const int64_t outer = Product(s, 0, static_cast<size_t>(axis));
  const int64_t inner = Product(s, static_cast<size_t>(axis), s.size());
  std::vector<int64_t> part_inner(ctx.inputs.size(), inner);
  std::vector<uint8_t*> parts;
  for (const TensorData* t : ctx.inputs) parts.push_back(static_cast<uint8_t*>(const_cast<void*>(t->data)));
  if (out.num_elements() > 0) {
    Interleave(ctx, outer, part_inner, parts, static_cast<uint8_t*>(out.data), DataTypeSize(out.type), false);
  }
  return OkStatus();
}

namespace {
// Splits input along `axis` into the outputs (their shapes are final).
Status SplitInto(KernelContext& ctx, const TensorData& in, int64_t axis_value, bool drop_axis) {
  int32_t axis = 0;
  if (!NormalizeAxis(axis_value, static_cast<int64_t>(in.shape.size()), &axis)) {
    return KernelError(ctx, "axis " + std::to_string(axis_value) + " out of range for input " + ShapeToString(in.shape));
  }
  const size_t a = static_cast<size_t>(axis);
  const int64_t outer = Product(in.shape, 0, a);
  const int64_t inner = Product(in.shape, a + 1, in.shape.size());
  std::vector<int64_t> part_inner;
  std::vector<uint8_t*> parts;
  part_inner.reserve(ctx.outputs.size());
  parts.reserve(ctx.outputs.size());
  int64_t total = 0;
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    TensorData& o = *ctx.outputs[i];
    int64_t len = 1;
    if (drop_axis) {
      Shape expected_rest = in.shape;
      expected_rest.erase(expected_rest.begin() + axis);
      if (o.shape != expected_rest) {
        return KernelError(ctx, "output " + std::to_string(i) + " " + ShapeToString(o.shape) + " should be " +
                                    ShapeToString(expected_rest));
      }
    } else {
      bool ok = o.shape.size() == in.shape.size();
      for (size_t d = 0; ok && d < in.shape.size(); ++d) ok = d == a || o.shape[d] == in.shape[d];
      if (!ok) {
        return KernelError(ctx, "output " + std::to_string(i) + " " + ShapeToString(o.shape) +
                                    " does not fit input " + ShapeToString(in.shape));
      }
      len = o.shape[a];
    }
    if (o.type != in.type) return KernelError(ctx, "output type differs from input type");
    part_inner.push_back(len * inner);
    parts.push_back(static_cast<uint8_t*>(o.data));
    total += len;
  }
  if (total != in.shape[a]) {
    return KernelError(ctx, "outputs cover " + std::to_string(total) + " of " + std::to_string(in.shape[a]) +
                                " along axis " + std::to_string(axis));
  }
  if (in.num_elements() > 0) {
    Interleave(ctx, outer, part_inner, parts, static_cast<uint8_t*>(const_cast<void*>(in.data)),
               DataTypeSize(in.type), true);
  }
  return OkStatus();
}
}  // namespace

Status RunUnpack(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const AxisAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  return SplitInto(ctx, *ctx.inputs[0], attrs->axis, true);
}

// SPLIT: inputs (axis scalar, input).
Status RunSplit(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  std::vector<int64_t> axis;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[0], "axis", &axis));
  if (axis.size() != 1) return KernelError(ctx, "axis must hold one value");
  return SplitInto(ctx, *ctx.inputs[1], axis[0], false);
}

// SPLIT_V: inputs (input, size_splits, axis).
Status RunSplitV(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  std::vector<int64_t> axis;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[2], "axis", &axis));
  if (axis.size() != 1) return KernelError(ctx, "axis must hold one value");
  return SplitInto(ctx, *ctx.inputs[0], axis[0], false);
}

}  // namespace gld::cpu
