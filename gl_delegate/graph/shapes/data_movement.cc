// Shape rules of the ops that move elements: TRANSPOSE, TILE, SLICE,
// STRIDED_SLICE, BROADCAST_TO; SHAPE, whose values it records
// (REVERSE_V2 keeps its shape: UnaryWithAxisInput); and ComputeStridedSlice
// (shape_inference.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

bool ComputeStridedSlice(const Shape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                         const std::vector<int64_t>& strides, const StridedSliceAttributes& attrs,
                         StridedSliceSpec* spec, std::string* error) {
  const size_t spec_len = begin.size();
  const size_t rank = input.size();
  if (end.size() != spec_len || strides.size() != spec_len) {
    *error = "begin, end and strides must have the same length, got " + std::to_string(begin.size()) + ", " +
             std::to_string(end.size()) + ", " + std::to_string(strides.size());
    return false;
  }
  if (spec_len > 31) {
    *error = "too many slice entries (" + std::to_string(spec_len) + ")";
    return false;
  }
  auto bit = [](int32_t mask, size_t i) { return ((static_cast<uint32_t>(mask) >> i) & 1u) != 0; };
  size_t ellipses = 0, new_axes = 0;
  for (size_t i = 0; i < spec_len; ++i) {
    if (bit(attrs.ellipsis_mask, i)) {
      ++ellipses;
    } else if (bit(attrs.new_axis_mask, i)) {
      ++new_axes;
    }
  }
  if (ellipses > 1) {
    *error = "more than one ellipsis in ellipsis_mask " + std::to_string(attrs.ellipsis_mask);
    return false;
  }
  // Entries other than the ellipsis each take one dimension of the input (or
  // a new axis); the ellipsis covers whatever input dimensions remain.
  const int64_t consumed =
      static_cast<int64_t>(spec_len) - static_cast<int64_t>(ellipses) - static_cast<int64_t>(new_axes);
  if (consumed > static_cast<int64_t>(rank)) {
    *error = "slice has " + std::to_string(consumed) + " entries for an input of rank " + std::to_string(rank);
    return false;
  }
  spec->start.assign(rank, 0);
  spec->stride.assign(rank, 1);
  spec->count.assign(rank, 0);
  spec->output_shape.clear();
  size_t dim = 0;
  auto full = [&](size_t d) {
    spec->start[d] = 0;
    spec->stride[d] = 1;
    spec->count[d] = input[d];
    spec->output_shape.push_back(input[d]);
  };
  for (size_t i = 0; i < spec_len; ++i) {
    if (bit(attrs.ellipsis_mask, i)) {
      const size_t cover = rank - static_cast<size_t>(consumed);
      for (size_t k = 0; k < cover; ++k) full(dim++);
      continue;
    }
    if (bit(attrs.new_axis_mask, i)) {
      spec->output_shape.push_back(1);
      continue;
    }
    const int64_t size = input[dim];
    const int64_t stride = strides[i];
    if (stride == 0) {
      *error = "stride " + std::to_string(i) + " is zero";
      return false;
    }
    int64_t start = begin[i];
    if (start < 0) start += size;
    start = stride > 0 ? std::clamp<int64_t>(start, 0, size) : std::clamp<int64_t>(start, -1, size - 1);
    if (bit(attrs.begin_mask, i)) start = stride > 0 ? 0 : size - 1;
    if (bit(attrs.shrink_axis_mask, i)) {
      if (start < 0 || start >= size) {
        *error = "index " + std::to_string(begin[i]) + " out of range for dimension " + std::to_string(dim) +
                 " of size " + std::to_string(size);
        return false;
      }
      spec->start[dim] = start;
      spec->stride[dim] = 1;
      spec->count[dim] = 1;
      ++dim;
      continue;
    }
    int64_t stop = end[i];
    if (attrs.offset) stop += start;
    if (stop < 0) stop += size;
    stop = stride > 0 ? std::clamp<int64_t>(stop, 0, size) : std::clamp<int64_t>(stop, -1, size - 1);
    if (bit(attrs.end_mask, i)) stop = stride > 0 ? size : -1;
    int64_t count = 0;
    if (stride > 0 && stop > start) count = (stop - start + stride - 1) / stride;
    if (stride < 0 && stop < start) count = (start - stop + (-stride) - 1) / (-stride);
    spec->start[dim] = start;
    spec->stride[dim] = stride;
    spec->count[dim] = count;
    spec->output_shape.push_back(static_cast<int32_t>(count));
    ++dim;
  }
  while (dim < rank) full(dim++);
  return true;
}

namespace shapes {

Status Transpose(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> perm;
  if (!ctx.Values(1, &perm)) return ctx.KeepStored(0, ctx.In(0).type, "perm (input 1)");
  const Shape& s = ctx.InShape(0);
  if (perm.size() != s.size()) return ctx.Err("perm " + Join(perm) + " does not match rank of " + ShapeToString(s));
  std::vector<bool> seen(s.size(), false);
  Shape out(s.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int32_t p = 0;
    if (!NormalizeAxis(perm[i], static_cast<int64_t>(s.size()), &p) || seen[static_cast<size_t>(p)]) {
      return ctx.Err("perm " + Join(perm) + " is not a permutation");
    }
    seen[static_cast<size_t>(p)] = true;
    out[i] = s[static_cast<size_t>(p)];
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status Tile(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> m;
  if (!ctx.Values(1, &m)) return ctx.KeepStored(0, ctx.In(0).type, "multiples (input 1)");
  const Shape& s = ctx.InShape(0);
  if (m.size() != s.size()) return ctx.Err("multiples " + Join(m) + " do not match rank of " + ShapeToString(s));
  Shape out(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    if (m[d] < 0 || s[d] * m[d] > kMaxDim) return ctx.Err("invalid multiples " + Join(m));
    out[d] = static_cast<int32_t>(s[d] * m[d]);
  }
  GLD_RETURN_IF_ERROR(ctx.CheckShape(out, "output"));
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status Slice(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> begin, size;
  if (!ctx.Values(1, &begin) || !ctx.Values(2, &size)) {
    return ctx.KeepStored(0, ctx.In(0).type, "begin/size (inputs 1, 2)");
  }
  const Shape& s = ctx.InShape(0);
  if (begin.size() != s.size() || size.size() != s.size()) {
    return ctx.Err("begin " + Join(begin) + " and size " + Join(size) + " must match rank of " + ShapeToString(s));
  }
  Shape out(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t b = begin[d];
    const int64_t n = size[d] == -1 ? s[d] - b : size[d];
    if (b < 0 || b > s[d] || n < 0 || b + n > s[d]) {
      return ctx.Err("begin " + Join(begin) + " / size " + Join(size) + " out of bounds for " + ShapeToString(s));
    }
    out[d] = static_cast<int32_t>(n);
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status StridedSlice(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(4, 4));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const StridedSliceAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  std::vector<int64_t> begin, end, strides;
  if (!ctx.Values(1, &begin) || !ctx.Values(2, &end) || !ctx.Values(3, &strides)) {
    return ctx.KeepStored(0, ctx.In(0).type, "begin/end/strides (inputs 1-3)");
  }
  StridedSliceSpec spec;
  std::string error;
  if (!ComputeStridedSlice(ctx.InShape(0), begin, end, strides, *a, &spec, &error)) return ctx.Err(error);
  ctx.Set(0, spec.output_shape, ctx.In(0).type);
  return OkStatus();
}

Status BroadcastTo(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> dims;
  if (!ctx.Values(1, &dims)) return ctx.KeepStored(0, ctx.In(0).type, "shape (input 1)");
  Shape target;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDim) return ctx.Err("invalid shape " + Join(dims));
    target.push_back(static_cast<int32_t>(d));
  }
  Shape out;
  if (!BroadcastShapes(ctx.InShape(0), target, &out) || out != target) {
    return ctx.Err("input " + ShapeToString(ctx.InShape(0)) + " does not broadcast to " + ShapeToString(target));
  }
  GLD_RETURN_IF_ERROR(ctx.CheckShape(out, "output"));
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status ShapeOp(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const DataType type = ctx.StoredType(0, DataType::kInt32);
  if (type != DataType::kInt32 && type != DataType::kInt64) {
    return ctx.Err(std::string("output type must be int32 or int64, got ") + DataTypeName(type));
  }
  ctx.Set(0, {static_cast<int32_t>(ctx.InShape(0).size())}, type);
  std::vector<uint8_t> bytes;
  for (int32_t d : ctx.InShape(0)) {
    if (type == DataType::kInt32) {
      const int32_t v = d;
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 4);
    } else {
      const int64_t v = d;
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
    }
  }
  ctx.SetValues(0, std::move(bytes));
  return OkStatus();
}

namespace {

// A scalar input's value: an integer's known value, or a float32 constant's
// or (a node run alone) the float32 it holds now.
bool ScalarValue(const RuleContext& ctx, size_t i, double* v) {
  std::vector<int64_t> ints;
  if (ctx.Values(i, &ints)) {
    if (ints.size() != 1) return false;
    *v = static_cast<double>(ints[0]);
    return true;
  }
  float f = 0;
  if (!ctx.FloatScalar(i, &f)) return false;
  *v = f;
  return true;
}

}  // namespace

// RANGE (start, limit, delta): ceil(|limit - start| / |delta|) values, as
// TFLite counts them (integers exactly, float32 through floats).
Status Range(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const DataType type = ctx.In(0).type;
  if (type != DataType::kInt32 && type != DataType::kInt64 && type != DataType::kFloat32) {
    return ctx.Err(std::string("start must be int32, int64 or float32, got ") + DataTypeName(type));
  }
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.In(i).type != type) return ctx.Err(ctx.Name(i) + " is " + DataTypeName(ctx.In(i).type) + ", start " + DataTypeName(type));
    if (ctx.In(i).num_elements() != 1) return ctx.Err(ctx.Name(i) + " must be a scalar, got " + ShapeToString(ctx.InShape(i)));
  }
  double start = 0, limit = 0, delta = 0;
  if (!ScalarValue(ctx, 0, &start) || !ScalarValue(ctx, 1, &limit) || !ScalarValue(ctx, 2, &delta)) {
    return ctx.KeepStored(0, type, "start, limit and delta (inputs 0..2)");
  }
  if (delta == 0) return ctx.Err("delta is 0");
  if ((start > limit && delta > 0) || (start < limit && delta < 0)) {
    return ctx.Err("delta " + std::to_string(delta) + " moves away from limit " + std::to_string(limit) +
                   " (start " + std::to_string(start) + ")");
  }
  double n = 0;
  if (type == DataType::kFloat32) {
    n = std::ceil(std::fabs((static_cast<float>(limit) - static_cast<float>(start)) / static_cast<float>(delta)));
  } else {
    const double span = std::fabs(limit - start), step = std::fabs(delta);
    n = std::floor((span + step - 1) / step);
  }
  if (!(n <= kMaxDim)) return ctx.Err("range of " + std::to_string(n) + " values is too long");
  ctx.Set(0, {static_cast<int32_t>(n)}, type);
  return OkStatus();
}

}  // namespace shapes

}  // namespace gld
