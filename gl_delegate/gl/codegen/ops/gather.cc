// GATHER (gather.comp): rows of the params tensor (an activation or a
// constant, e.g. an embedding table) picked along any axis, with batch_dims,
// by an int32 index tensor on the GPU (or an int32 / int64 constant).
// EMBEDDING_LOOKUP is GATHER along axis 0 with its operands swapped
// (gather.comp); GATHER_ND picks params' slices by rows of coordinates
// (gather_nd.comp); DYNAMIC_UPDATE_SLICE writes an update at start indices
// read from data (dynamic_update_slice.comp).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

int64_t Product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

// The one gather.comp dispatch: output rows of input `params` picked by
// input `indices`; dims = (outer, rows along the axis, inner, indices per
// batch), as gather.comp reads u_dims.
Status GatherDispatch(OpBuildContext& ctx, size_t params, size_t indices, const Bhwc& o, const Bhwc& p,
                      const Bhwc& idx, const std::array<int32_t, 4>& dims, std::vector<Dispatch>* out) {
  Dispatch d;
  d.shader.template_name = "gather.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(params)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(indices)})
      .BindIndexFault(ctx.node_index());
  d.IVec4("u_out", o).IVec4("u_params", p).IVec4("u_indices", idx);
  d.IVec4("u_dims", dims[0], dims[1], dims[2], dims[3]);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace

Status BuildGather(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  int32_t axis_attr = 0, bd_attr = 0;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node().attributes)) {
    axis_attr = a->axis;
    bd_attr = a->batch_dims;
  }
  GLD_ASSIGN_OR_RETURN(Bhwc p, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ctx.input(1) == nullptr) return ctx.Invalid("indices missing");
  const Shape& params = ctx.input(0)->shape;
  const Shape& indices = ctx.input(1)->shape;
  const int64_t rank = static_cast<int64_t>(params.size());
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  const int64_t bd = bd_attr < 0 ? bd_attr + static_cast<int64_t>(indices.size()) : bd_attr;
  if (axis < 0 || axis >= rank) return ctx.Invalid("axis " + std::to_string(axis_attr) + " out of range");
  if (bd < 0 || bd > axis || bd > static_cast<int64_t>(indices.size())) {
    return ctx.Invalid("invalid batch_dims " + std::to_string(bd_attr));
  }
  const size_t a = static_cast<size_t>(axis), b = static_cast<size_t>(bd);
  const int64_t n = params[a];
  GLD_ASSIGN_OR_RETURN(Bhwc idx, ctx.IndexShape(ctx.input_index(1), n));
  const int64_t batch = Product(params, 0, b), outer = Product(params, b, a);
  const int64_t inner = Product(params, a + 1, params.size()), per_batch = Product(indices, b, indices.size());
  if (Product(indices, 0, b) != batch || o.elements() != batch * outer * per_batch * inner) {
    return ctx.Invalid("output " + o.ToString() + " does not match params " + ShapeToString(params) +
                       " and indices " + ShapeToString(indices));
  }
  return GatherDispatch(ctx, 0, 1, o, p, idx,
                        {static_cast<int32_t>(outer), static_cast<int32_t>(n), static_cast<int32_t>(inner),
                         static_cast<int32_t>(per_batch)},
                        out);
}

Status BuildEmbeddingLookup(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  // (ids, table): output row i is table row ids[i].
  GLD_ASSIGN_OR_RETURN(Bhwc table, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& params = ctx.input(1)->shape;
  const Shape& ids = ctx.input(0)->shape;
  if (params.empty() || ids.size() != 1) {
    return ctx.Invalid("ids " + ShapeToString(ids) + " must be 1-D and the table " + ShapeToString(params) +
                       " at least 1-D");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc idx, ctx.IndexShape(ctx.input_index(0), params[0]));
  const int64_t inner = Product(params, 1, params.size());
  if (o.elements() != ids[0] * inner) {
    return ctx.Invalid("output " + o.ToString() + " does not match table " + ShapeToString(params) + " and ids " +
                       ShapeToString(ids));
  }
  return GatherDispatch(ctx, 1, 0, o, table, idx, {1, params[0], static_cast<int32_t>(inner), ids[0]}, out);
}

Status BuildGatherNd(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc p, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ctx.input(1) == nullptr) return ctx.Invalid("indices missing");
  const Shape& params = ctx.input(0)->shape;
  const Shape& indices = ctx.input(1)->shape;
  if (indices.empty()) return ctx.Invalid("indices must have rank >= 1");
  const int64_t depth = indices.back();
  if (depth < 1 || depth > static_cast<int64_t>(params.size())) {
    return ctx.Unsupported("index depth " + std::to_string(depth) + " for params " + ShapeToString(params));
  }
  const size_t q = static_cast<size_t>(depth);
  int64_t largest = 1;
  for (size_t j = 0; j < q; ++j) largest = std::max<int64_t>(largest, params[j]);
  GLD_ASSIGN_OR_RETURN(Bhwc idx, ctx.IndexShape(ctx.input_index(1), largest));
  const int64_t inner = Product(params, q, params.size());
  if (o.elements() != Product(indices, 0, indices.size() - 1) * inner) {
    return ctx.Invalid("output " + o.ToString() + " does not match params " + ShapeToString(params) +
                       " and indices " + ShapeToString(indices));
  }
  std::array<int32_t, 4> limits = {1, 1, 1, 1}, strides = {0, 0, 0, 0};
  for (size_t j = 0; j < q; ++j) {
    limits[j] = params[j];
    strides[j] = static_cast<int32_t>(Product(params, j + 1, q));
  }
  Dispatch d;
  d.shader.template_name = "gather_nd.comp";
  d.shader.Define("DEPTH", depth);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)})
      .BindIndexFault(ctx.node_index());
  d.IVec4("u_out", o).IVec4("u_params", p).IVec4("u_indices", idx);
  d.IVec4("u_limits", limits).IVec4("u_strides", strides);
  d.Int("u_inner", static_cast<int32_t>(inner));
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

// DYNAMIC_UPDATE_SLICE (dynamic_update_slice.comp): (operand, update, start
// indices) of rank <= 4; the starts an int32 tensor on the GPU (or a
// constant), clamped in the shader as TFLite clamps them.
Status BuildDynamicUpdateSlice(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc operand, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc update, ctx.InputShape(1));
  const Shape& os = ctx.input(0)->shape;
  const Shape& us = ctx.input(1)->shape;
  if (ctx.input(2) == nullptr) return ctx.Invalid("start indices missing");
  const size_t rank = os.size();
  if (rank == 0 || us.size() != rank || operand.elements() != o.elements() ||
      ctx.input(2)->shape != Shape{static_cast<int32_t>(rank)}) {
    return ctx.Invalid("operand " + ShapeToString(os) + ", update " + ShapeToString(us) + " and starts " +
                       ShapeToString(ctx.input(2)->shape) + " do not match");
  }
  std::array<int32_t, 4> dims = {1, 1, 1, 1}, udims = {1, 1, 1, 1};
  int64_t largest = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (us[d] > os[d]) return ctx.Invalid("update " + ShapeToString(us) + " does not fit in " + ShapeToString(os));
    dims[4 - rank + d] = os[d];
    udims[4 - rank + d] = us[d];
    largest = std::max<int64_t>(largest, os[d]);
  }
  GLD_ASSIGN_OR_RETURN(Bhwc starts, ctx.IndexShape(ctx.input_index(2), largest));
  Dispatch d;
  d.shader.template_name = "dynamic_update_slice.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)})
      .Bind(3, {DispatchBufferRef::kTensor, ctx.input_index(2)});
  d.IVec4("u_out", o).IVec4("u_update", update).IVec4("u_starts", starts);
  d.IVec4("u_dims", dims).IVec4("u_udims", udims).Int("u_rank", static_cast<int32_t>(rank));
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
