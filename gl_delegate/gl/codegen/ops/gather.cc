// GATHER (gather.comp): rows of the params tensor (an activation or a
// constant, e.g. an embedding table) picked along any axis, with batch_dims,
// by an int32 index tensor on the GPU (or an int32 / int64 constant).
// EMBEDDING_LOOKUP is GATHER along axis 0 with its operands swapped
// (gather.comp); GATHER_ND picks params' slices by rows of coordinates
// (gather_nd.comp); DYNAMIC_UPDATE_SLICE writes an update at start indices
// read from data (dynamic_update_slice.comp); STABLEHLO_SCATTER writes
// updates at the positions indices give (scatter.comp).
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

// The cache writes' one dispatch over the output (DYNAMIC_UPDATE_SLICE,
// STABLEHLO_SCATTER): output 0 at binding 0, inputs 0..2 at bindings 1..3.
Dispatch CacheWriteDispatch(OpBuildContext& ctx, const char* template_name, const Bhwc& o) {
  Dispatch d;
  d.shader.template_name = template_name;
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)});
  for (uint32_t i = 0; i < 3; ++i) d.Bind(i + 1, {DispatchBufferRef::kTensor, ctx.input_index(i)});
  d.GridOver(o);
  return d;
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
  if (ctx.input(0) == nullptr) return ctx.Invalid("ids missing");
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
  Dispatch d = CacheWriteDispatch(ctx, "dynamic_update_slice.comp", o);
  d.IVec4("u_out", o).IVec4("u_update", update).IVec4("u_starts", starts);
  d.IVec4("u_dims", dims).IVec4("u_udims", udims).Int("u_rank", static_cast<int32_t>(rank));
  out->push_back(std::move(d));
  return OkStatus();
}

namespace {

// One invocation of scatter.comp loops over every scatter position for each
// of its four lanes (llvmpipe ends an invocation's loops after 65535
// iterations; ops/reduce.cc); 1024 positions stay well inside.
constexpr int64_t kMaxScatterPositions = 1024;

// A STABLEHLO_SCATTER's dimension numbers as scatter.comp reads them, every
// operand and updates dimension padded in front to four.
struct ScatterLayout {
  std::array<int32_t, 4> dims = {1, 1, 1, 1};         // the operand's shape
  std::array<int32_t, 4> component = {-1, -1, -1, -1};  // index vector component of each operand dimension's start
  std::array<int32_t, 4> window = {1, 1, 1, 1};       // the window's size along each operand dimension
  std::array<int32_t, 4> wstride = {0, 0, 0, 0};      // its stride in the updates
  std::array<int32_t, 4> sdims = {1, 1, 1, 1};        // the updates' scatter dimensions
  std::array<int32_t, 4> sstride = {0, 0, 0, 0};      // their strides in the updates
  int64_t positions = 1;
  int32_t depth = 1;
};

// The layout of `a` over operand, indices and updates of rank <= 4; an
// error for dimension numbers the CPU kernel would also refuse, and for the
// forms scatter.comp does not take (the index vector not the indices' last
// dimension, one operand dimension named twice).
StatusOr<ScatterLayout> MakeScatterLayout(const OpBuildContext& ctx, const ScatterAttributes& a, const Shape& os,
                                          const Shape& is, const Shape& us) {
  const size_t orank = os.size(), irank = is.size(), urank = us.size();
  const std::string shapes = "operand " + ShapeToString(os) + ", indices " + ShapeToString(is) + ", updates " +
                             ShapeToString(us);
  if (orank == 0 || orank > 4 || irank > 4 || urank > 4) return ctx.Unsupported(shapes + ": ranks 1..4 only");
  if (a.index_vector_dim + 1 != static_cast<int64_t>(irank) && a.index_vector_dim != static_cast<int64_t>(irank)) {
    return ctx.Unsupported("index_vector_dim " + std::to_string(a.index_vector_dim) + " of " + shapes +
                           " (scatter.comp takes the indices' last dimension, or an implicit one)");
  }
  ScatterLayout l;
  const bool explicit_vector = a.index_vector_dim < static_cast<int64_t>(irank);
  l.depth = explicit_vector ? is[irank - 1] : 1;
  if (static_cast<size_t>(l.depth) != a.scatter_dims_to_operand_dims.size() ||
      a.update_window_dims.size() + a.inserted_window_dims.size() != orank) {
    return ctx.Invalid("the dimension numbers do not match " + shapes);
  }
  std::array<bool, 4> inserted = {false, false, false, false}, window_of_update = {false, false, false, false};
  for (int64_t d : a.inserted_window_dims) {
    if (d < 0 || d >= static_cast<int64_t>(orank)) return ctx.Invalid("inserted_window_dims out of range: " + shapes);
    inserted[static_cast<size_t>(d)] = true;
  }
  for (int64_t d : a.update_window_dims) {
    if (d < 0 || d >= static_cast<int64_t>(urank)) return ctx.Invalid("update_window_dims out of range: " + shapes);
    window_of_update[static_cast<size_t>(d)] = true;
  }
  std::vector<int64_t> ustride(urank, 1);
  for (size_t d = urank; d-- > 1;) ustride[d - 1] = ustride[d] * us[d];
  const size_t opad = 4 - orank;
  for (size_t k = 0; k < a.scatter_dims_to_operand_dims.size(); ++k) {
    const int64_t d = a.scatter_dims_to_operand_dims[k];
    if (d < 0 || d >= static_cast<int64_t>(orank)) return ctx.Invalid("scatter_dims_to_operand_dims out of range");
    int32_t& c = l.component[opad + static_cast<size_t>(d)];
    if (c >= 0) return ctx.Unsupported("scatter_dims_to_operand_dims names operand dimension " + std::to_string(d) + " twice");
    c = static_cast<int32_t>(k);
  }
  for (size_t d = 0, w = 0; d < orank; ++d) {
    l.dims[opad + d] = os[d];
    if (inserted[d]) continue;
    const auto ud = static_cast<size_t>(a.update_window_dims[w++]);
    l.window[opad + d] = us[ud];
    l.wstride[opad + d] = static_cast<int32_t>(ustride[ud]);
  }
  // The updates' scatter dimensions, in order, are the indices' dimensions
  // but the index vector.
  std::vector<size_t> scatter;
  for (size_t d = 0; d < urank; ++d) {
    if (!window_of_update[d]) scatter.push_back(d);
  }
  if (scatter.size() != irank - (explicit_vector ? 1 : 0)) return ctx.Invalid("the dimension numbers do not match " + shapes);
  for (size_t k = 0; k < scatter.size(); ++k) {
    if (us[scatter[k]] != is[k]) return ctx.Invalid("the updates' scatter dimensions are not the indices': " + shapes);
    l.sdims[4 - scatter.size() + k] = us[scatter[k]];
    l.sstride[4 - scatter.size() + k] = static_cast<int32_t>(ustride[scatter[k]]);
    l.positions *= us[scatter[k]];
  }
  if (l.positions > kMaxScatterPositions) {
    return ctx.Unsupported(std::to_string(l.positions) + " scatter positions (" + shapes + "); one invocation loops " +
                           "over all of them, at most " + std::to_string(kMaxScatterPositions));
  }
  return l;
}

}  // namespace

// STABLEHLO_SCATTER (scatter.comp): (operand, indices, updates), the update
// computation the plain assignment (the reader refuses others); the indices
// an int32 tensor on the GPU (or a constant). Out-of-range positions are
// skipped, as the CPU kernel skips them.
Status BuildStablehloScatter(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  const auto* a = std::get_if<ScatterAttributes>(&ctx.node().attributes);
  if (a == nullptr) return ctx.Invalid("missing scatter attributes");
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc operand, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc updates, ctx.InputShape(2));
  if (ctx.input(1) == nullptr) return ctx.Invalid("indices missing");
  const Shape& os = ctx.input(0)->shape;
  if (operand.elements() != o.elements()) return ctx.Invalid("output " + o.ToString() + " is not the operand's shape");
  GLD_ASSIGN_OR_RETURN(ScatterLayout l, MakeScatterLayout(ctx, *a, os, ctx.input(1)->shape, ctx.input(2)->shape));
  int64_t largest = 1;
  for (int32_t d : os) largest = std::max<int64_t>(largest, d);
  GLD_ASSIGN_OR_RETURN(Bhwc indices, ctx.IndexShape(ctx.input_index(1), largest));
  Dispatch d = CacheWriteDispatch(ctx, "scatter.comp", o);
  d.IVec4("u_out", o).IVec4("u_indices", indices).IVec4("u_updates", updates).IVec4("u_dims", l.dims);
  d.IVec4("u_component", l.component).IVec4("u_window", l.window).IVec4("u_wstride", l.wstride);
  d.IVec4("u_sdims", l.sdims).IVec4("u_sstride", l.sstride);
  d.Int("u_positions", static_cast<int32_t>(l.positions)).Int("u_depth", l.depth);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
