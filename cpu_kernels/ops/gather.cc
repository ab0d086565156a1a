// Index-driven ops: GATHER (axis, batch_dims), GATHER_ND, ONE_HOT,
// EMBEDDING_LOOKUP, SCATTER_ND. Indices
// out of range are an error (GATHER, GATHER_ND) or give off_value (ONE_HOT),
// as in TFLite.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {
int64_t Product(const Shape& s, size_t b, size_t e) {
  int64_t n = 1;
  for (size_t i = b; i < e; ++i) n *= s[i];
  return n;
}

// GATHER_ND's and SCATTER_ND's index tuple i (the k values at idx[i * k])
// as a flat offset into `shape` (row-major `strides`); a value outside its
// dimension is an error, as in TFLite.
Status IndexOffset(const KernelContext& ctx, const std::vector<int64_t>& idx, int64_t i, int64_t k,
                   const Shape& shape, const std::vector<int64_t>& strides, int64_t* off) {
  *off = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t v = idx[static_cast<size_t>(i * k + j)];
    if (v < 0 || v >= shape[static_cast<size_t>(j)]) {
      return KernelError(ctx, "index " + std::to_string(v) + " out of range for dimension " + std::to_string(j) +
                                  " of " + ShapeToString(shape));
    }
    *off += v * strides[static_cast<size_t>(j)];
  }
  return OkStatus();
}
}  // namespace

Status RunGather(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  int32_t axis_attr = 0, bd_attr = 0;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node->attributes)) {
    axis_attr = a->axis;
    bd_attr = a->batch_dims;
  }
  const TensorData& params = *ctx.inputs[0];
  const TensorData& indices = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (params.type != out.type) return KernelError(ctx, "params and output types differ");
  std::vector<int64_t> idx;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &idx));
  int32_t axis = 0;
  if (!NormalizeAxis(axis_attr, static_cast<int64_t>(params.shape.size()), &axis)) {
    return KernelError(ctx, "axis " + std::to_string(axis_attr) + " out of range for " + ShapeToString(params.shape));
  }
  int32_t bd = bd_attr < 0 ? bd_attr + static_cast<int32_t>(indices.shape.size()) : bd_attr;
  if (bd < 0 || bd > axis || static_cast<size_t>(bd) > indices.shape.size()) {
    return KernelError(ctx, "invalid batch_dims " + std::to_string(bd_attr));
  }
  const size_t a = static_cast<size_t>(axis);
  const size_t b = static_cast<size_t>(bd);
  const int64_t batch = Product(params.shape, 0, b);
  const int64_t outer = Product(params.shape, b, a);
  const int64_t n = params.shape[a];
  const int64_t inner = Product(params.shape, a + 1, params.shape.size());
  const int64_t per_batch = Product(indices.shape, b, indices.shape.size());
  if (Product(indices.shape, 0, b) != batch || out.num_elements() != batch * outer * per_batch * inner) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not match params " +
                                ShapeToString(params.shape) + " and indices " + ShapeToString(indices.shape));
  }
  for (int64_t v : idx) {
    if (v < 0 || v >= n) {
      return KernelError(ctx, "index " + std::to_string(v) + " out of range [0, " + std::to_string(n) + ")");
    }
  }
  const size_t es = DataTypeSize(params.type);
  const size_t chunk = static_cast<size_t>(inner) * es;
  const uint8_t* src = static_cast<const uint8_t*>(params.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int64_t o_off = 0;
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t oi = 0; oi < outer; ++oi) {
      for (int64_t i = 0; i < per_batch; ++i) {
        const int64_t row = (bi * outer + oi) * n + idx[static_cast<size_t>(bi * per_batch + i)];
        if (chunk > 0) std::memcpy(dst + o_off * static_cast<int64_t>(es), src + row * inner * static_cast<int64_t>(es), chunk);
        o_off += inner;
      }
    }
  }
  return OkStatus();
}

Status RunGatherNd(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& params = *ctx.inputs[0];
  const TensorData& indices = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (params.type != out.type) return KernelError(ctx, "params and output types differ");
  if (indices.shape.empty()) return KernelError(ctx, "indices must have rank >= 1");
  std::vector<int64_t> idx;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &idx));
  const int64_t k = indices.shape.back();
  if (k < 0 || static_cast<size_t>(k) > params.shape.size()) {
    return KernelError(ctx, "index depth " + std::to_string(k) + " exceeds params rank");
  }
  const int64_t slice = Product(params.shape, static_cast<size_t>(k), params.shape.size());
  const int64_t count = k > 0 ? static_cast<int64_t>(idx.size()) / k : Product(indices.shape, 0, indices.shape.size() - 1);
  if (out.num_elements() != count * slice) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not match params " +
                                ShapeToString(params.shape) + " and indices " + ShapeToString(indices.shape));
  }
  const std::vector<int64_t> ps = Strides(params.shape);
  const size_t es = DataTypeSize(params.type);
  const uint8_t* src = static_cast<const uint8_t*>(params.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  for (int64_t i = 0; i < count; ++i) {
    int64_t off = 0;
    GLD_RETURN_IF_ERROR(IndexOffset(ctx, idx, i, k, params.shape, ps, &off));
    if (slice > 0) {
      std::memcpy(dst + i * slice * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es),
                  static_cast<size_t>(slice) * es);
    }
  }
  return OkStatus();
}

namespace {
// SCATTER_ND's accumulation: sums, or OR for bool (TFLite adds updates that
// share an index).
template <typename T>
void ScatterAdd(const T* updates, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = out[i] || updates[i];
    } else if constexpr (std::is_integral_v<T>) {
      out[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(out[i]) +
                              static_cast<std::make_unsigned_t<T>>(updates[i]));
    } else {
      out[i] += updates[i];
    }
  }
}
}  // namespace

// SCATTER_ND: inputs (indices, updates, shape); zeros of `shape` with each
// slice of updates added at its index. An index outside the shape is an
// error, as in TFLite.
Status RunScatterNd(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& indices = *ctx.inputs[0];
  const TensorData& updates = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (updates.type != out.type) return KernelError(ctx, "updates and output types differ");
  if (indices.shape.empty()) return KernelError(ctx, "indices must have rank >= 1");
  std::vector<int64_t> idx;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &idx));
  const int64_t k = indices.shape.back();
  if (k < 1 || static_cast<size_t>(k) > out.shape.size()) {
    return KernelError(ctx, "index depth " + std::to_string(k) + " does not fit output " + ShapeToString(out.shape));
  }
  const int64_t slice = Product(out.shape, static_cast<size_t>(k), out.shape.size());
  const int64_t count = static_cast<int64_t>(idx.size()) / k;
  if (updates.num_elements() != count * slice) {
    return KernelError(ctx, "updates " + ShapeToString(updates.shape) + " do not match indices " +
                                ShapeToString(indices.shape) + " and output " + ShapeToString(out.shape));
  }
  std::memset(out.data, 0, out.bytes);
  const std::vector<int64_t> os = Strides(out.shape);
  for (int64_t i = 0; i < count; ++i) {
    int64_t off = 0;
    GLD_RETURN_IF_ERROR(IndexOffset(ctx, idx, i, k, out.shape, os, &off));
    switch (out.type) {
      case DataType::kFloat32: ScatterAdd(updates.as<float>() + i * slice, slice, out.as<float>() + off); break;
      case DataType::kInt32: ScatterAdd(updates.as<int32_t>() + i * slice, slice, out.as<int32_t>() + off); break;
      case DataType::kInt64: ScatterAdd(updates.as<int64_t>() + i * slice, slice, out.as<int64_t>() + off); break;
      case DataType::kInt8: ScatterAdd(updates.as<int8_t>() + i * slice, slice, out.as<int8_t>() + off); break;
      case DataType::kUInt8: ScatterAdd(updates.as<uint8_t>() + i * slice, slice, out.as<uint8_t>() + off); break;
      case DataType::kBool: ScatterAdd(updates.as<bool>() + i * slice, slice, out.as<bool>() + off); break;
      default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(out.type) + " is not supported");
    }
  }
  return OkStatus();
}

// ONE_HOT: inputs (indices, depth, on_value, off_value).
Status RunOneHot(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 4, 4, 1));
  int32_t axis_attr = -1;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node->attributes)) axis_attr = a->axis;
  const TensorData& indices = *ctx.inputs[0];
  const TensorData& on = *ctx.inputs[2];
  const TensorData& off = *ctx.inputs[3];
  TensorData& out = *ctx.outputs[0];
  if (on.type != out.type || off.type != out.type || on.num_elements() != 1 || off.num_elements() != 1) {
    return KernelError(ctx, "on_value and off_value must be scalars of the output type");
  }
  std::vector<int64_t> idx, depth_v;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &idx));
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "depth", &depth_v));
  if (depth_v.size() != 1 || depth_v[0] < 0) return KernelError(ctx, "depth must be one non-negative value");
  const int64_t depth = depth_v[0];
  const int64_t rank = static_cast<int64_t>(indices.shape.size());
  const int64_t axis = axis_attr == -1 ? rank : axis_attr;
  if (axis < 0 || axis > rank) return KernelError(ctx, "axis " + std::to_string(axis_attr) + " out of range");
  const int64_t prefix = Product(indices.shape, 0, static_cast<size_t>(axis));
  const int64_t suffix = Product(indices.shape, static_cast<size_t>(axis), indices.shape.size());
  if (out.num_elements() != prefix * depth * suffix) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not match indices and depth");
  }
  const size_t es = DataTypeSize(out.type);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int64_t o = 0;
  for (int64_t p = 0; p < prefix; ++p) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t s = 0; s < suffix; ++s) {
        const bool hit = idx[static_cast<size_t>(p * suffix + s)] == d;
        std::memcpy(dst + o * static_cast<int64_t>(es), hit ? on.data : off.data, es);
        ++o;
      }
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu

namespace gld::cpu {

// EMBEDDING_LOOKUP: output row i is row ids[i] of the value table (any
// element type, rows copied as bytes); an id outside the table is an error,
// as in TFLite.
Status RunEmbeddingLookup(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& ids = *ctx.inputs[0];
  const TensorData& value = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, ids, DataType::kInt32, "ids"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, value.type, "output"));
  if (ids.shape.size() != 1 || value.shape.size() < 2) {
    return KernelError(ctx, "ids " + ShapeToString(ids.shape) + " must have rank 1 and value " +
                                ShapeToString(value.shape) + " rank 2 or more");
  }
  const int64_t n = ids.shape[0], rows = value.shape[0];
  const int64_t row = rows > 0 ? value.num_elements() / rows : 0;
  const size_t row_values_bytes = static_cast<size_t>(row) * DataTypeSize(value.type);
  if (out.num_elements() != n * row) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not hold " + std::to_string(n) + " rows of " +
                                ShapeToString(value.shape));
  }
  const int32_t* id = ids.as<int32_t>();
  auto* dst = static_cast<uint8_t*>(out.data);
  const auto* src = static_cast<const uint8_t*>(value.data);
  for (int64_t i = 0; i < n; ++i) {
    if (id[i] < 0 || id[i] >= rows) {
      return KernelError(ctx, "id " + std::to_string(id[i]) + " at " + std::to_string(i) +
                                  " is outside the table's " + std::to_string(rows) + " rows");
    }
    std::memcpy(dst + static_cast<size_t>(i) * row_values_bytes, src + static_cast<size_t>(id[i]) * row_values_bytes,
                row_values_bytes);
  }
  return OkStatus();
}

}  // namespace gld::cpu

// ---- Cache writes: DYNAMIC_UPDATE_SLICE and STABLEHLO_SCATTER ----
namespace gld::cpu {
namespace {

// The output starts as the operand (unless the runtime placed them in one
// buffer).
void CopyOperand(const TensorData& operand, TensorData& out) {
  if (out.data != operand.data && out.bytes > 0) std::memcpy(out.data, operand.data, out.bytes);
}

}  // namespace

// DYNAMIC_UPDATE_SLICE: inputs (operand, update, start indices); the
// operand with the update written at the starts, each clamped so that the
// update fits (as TFLite and XLA clamp).
Status RunDynamicUpdateSlice(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& operand = *ctx.inputs[0];
  const TensorData& update = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  const size_t rank = operand.shape.size();
  if (update.type != operand.type || out.type != operand.type || update.shape.size() != rank ||
      out.shape != operand.shape) {
    return KernelError(ctx, "update " + ShapeToString(update.shape) + " does not match operand " +
                                ShapeToString(operand.shape));
  }
  std::vector<int64_t> start;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[2], "start indices", &start));
  if (start.size() != rank) return KernelError(ctx, "start indices must hold one index per dimension");
  for (size_t d = 0; d < rank; ++d) {
    if (update.shape[d] > operand.shape[d]) return KernelError(ctx, "update does not fit in the operand");
    start[d] = std::clamp<int64_t>(start[d], 0, operand.shape[d] - update.shape[d]);
  }
  const size_t esize = DataTypeSize(operand.type);
  if (rank == 0) {  // a scalar: the update is the result
    std::memcpy(out.data, update.data, esize);
    return OkStatus();
  }
  CopyOperand(operand, out);
  if (update.num_elements() == 0) return OkStatus();
  const std::vector<int64_t> os = Strides(operand.shape);
  const int64_t inner = update.shape[rank - 1];
  const int64_t rows = update.num_elements() / inner;
  std::vector<int64_t> at(rank, 0);  // the update row's index (last dimension 0)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += (start[d] + at[d]) * os[d];
    std::memcpy(static_cast<uint8_t*>(out.data) + off * esize,
                static_cast<const uint8_t*>(update.data) + r * inner * esize, static_cast<size_t>(inner) * esize);
    for (size_t d = rank - 1; d-- > 0;) {  // next row: carry over the outer dimensions
      if (++at[d] < update.shape[d]) break;
      at[d] = 0;
    }
  }
  return OkStatus();
}

// STABLEHLO_SCATTER: inputs (operand, indices, updates). Each element of
// the updates goes to the operand index its scatter index and window
// position give (StableHLO's scatter, without batching dims); an index
// outside the operand is skipped. The update computation is the plain
// assignment (the reader refuses others).
Status RunStablehloScatter(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const auto* a = std::get_if<ScatterAttributes>(&ctx.node->attributes);
  if (a == nullptr) return KernelError(ctx, "missing scatter attributes");
  const TensorData& operand = *ctx.inputs[0];
  const TensorData& indices = *ctx.inputs[1];
  const TensorData& updates = *ctx.inputs[2];
  TensorData& out = *ctx.outputs[0];
  if (updates.type != operand.type || out.type != operand.type || out.shape != operand.shape) {
    return KernelError(ctx, "updates and output must have the operand's type and shape");
  }
  std::vector<int64_t> idx;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, indices, "indices", &idx));
  CopyOperand(operand, out);
  const size_t orank = operand.shape.size(), urank = updates.shape.size(), irank = indices.shape.size();
  std::vector<char> is_window(urank, 0), inserted(orank, 0);
  for (int64_t d : a->update_window_dims) is_window[static_cast<size_t>(d)] = 1;
  for (int64_t d : a->inserted_window_dims) inserted[static_cast<size_t>(d)] = 1;
  std::vector<size_t> window_operand_dims, scatter_update_dims;
  for (size_t d = 0; d < orank; ++d) {
    if (!inserted[d]) window_operand_dims.push_back(d);
  }
  for (size_t d = 0; d < urank; ++d) {
    if (!is_window[d]) scatter_update_dims.push_back(d);
  }
  const auto ivd = static_cast<size_t>(a->index_vector_dim);
  if (window_operand_dims.size() != a->update_window_dims.size() ||
      scatter_update_dims.size() + (ivd < irank ? 1 : 0) != irank) {
    return KernelError(ctx, "the dimension numbers do not match the operand, indices and updates");
  }
  const std::vector<int64_t> os = Strides(operand.shape), is = Strides(indices.shape);
  const size_t esize = DataTypeSize(operand.type);
  const size_t depth = a->scatter_dims_to_operand_dims.size();
  std::vector<int64_t> u(urank, 0), full(orank, 0);
  for (int64_t e = 0; e < updates.num_elements(); ++e) {
    std::fill(full.begin(), full.end(), 0);
    int64_t ibase = 0;  // the scatter index vector's first element in `idx`
    for (size_t k = 0, id = 0; k < scatter_update_dims.size(); ++k, ++id) {
      if (id == ivd) ++id;
      ibase += u[scatter_update_dims[k]] * is[id];
    }
    for (size_t k = 0; k < depth; ++k) {
      const int64_t step = ivd < irank ? is[ivd] : 0;
      full[static_cast<size_t>(a->scatter_dims_to_operand_dims[k])] += idx[static_cast<size_t>(ibase + k * step)];
    }
    for (size_t w = 0; w < a->update_window_dims.size(); ++w) {
      full[window_operand_dims[w]] += u[static_cast<size_t>(a->update_window_dims[w])];
    }
    bool inside = true;
    int64_t off = 0;
    for (size_t d = 0; d < orank; ++d) {
      inside = inside && full[d] >= 0 && full[d] < operand.shape[d];
      off += full[d] * os[d];
    }
    if (inside) {
      const uint8_t* src = static_cast<const uint8_t*>(updates.data) + e * static_cast<int64_t>(esize);
      uint8_t* dst = static_cast<uint8_t*>(out.data) + off * static_cast<int64_t>(esize);
      std::memcpy(dst, src, esize);
    }
    for (size_t d = urank; d-- > 0;) {  // the next update element
      if (++u[d] < updates.shape[d]) break;
      u[d] = 0;
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
