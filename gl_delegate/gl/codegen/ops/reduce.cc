// Reductions (reduce.comp): MEAN, SUM, REDUCE_MAX/MIN/PROD, and REDUCE_ALL/ANY
// (bools, held as 0.0 / 1.0: their minimum and maximum; a reduction on the
// GPU is never over no values, where the CPU gives true and false).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

// llvmpipe ends an invocation's loops after 65535 iterations in all (its
// loop limiter counts every loop's iterations), leaving the rest of the sum
// out: MEAN over (2, 3) of [1, 1, 64, 3136] (PoolFormer's GroupNorm) came out
// 75% off. One invocation of reduce.comp loops over every value of its
// output, so a reduction past that stays on the CPU.
constexpr int64_t kMaxLoopIterations = 65535;

Status CheckLoopIterations(const OpBuildContext& ctx, const Bhwc& in, const std::array<int32_t, 4>& reduce, bool vec4,
                           int32_t out_channels) {
  const int64_t extent[4] = {reduce[0] ? in.b : 1, reduce[1] ? in.h : 1, reduce[2] ? in.w : 1,
                             reduce[3] && !vec4 ? in.c : 1};
  // Nested loops over B, H, W (and C on the lane path): each level runs
  // once per iteration of the level around it.
  int64_t per_lane = 0, product = 1;
  for (int a = 0; a < (vec4 ? 3 : 4); ++a) {
    product *= extent[a];
    per_lane += product;
  }
  const int64_t lanes = vec4 ? 1 : std::min<int64_t>(4, out_channels);
  const int64_t total = lanes * (per_lane + 1);
  if (total > kMaxLoopIterations) {
    return ctx.Unsupported("one invocation would loop " + std::to_string(total) + " times over the reduced values (" +
                           in.ToString() + "); llvmpipe ends shader loops after " +
                           std::to_string(kMaxLoopIterations) + " iterations");
  }
  return OkStatus();
}

}  // namespace

Status BuildReduce(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<ReduceAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing ReduceAttributes");
  if (ctx.num_inputs() < 2 || ctx.num_outputs() < 1) return ctx.Invalid("expects input, axes and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& in_shape = ctx.input(0)->shape;
  const Shape& out_shape = ctx.graph().tensors[static_cast<size_t>(ctx.output_index(0))].shape;
  const int rank = static_cast<int>(in_shape.size());
  GLD_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantInts(1));
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank) return ctx.Invalid("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    reduced[static_cast<size_t>(d)] = true;
  }
  // Output dims: kept dims in order, reduced ones as 1 with keep_dims.
  std::vector<int> out_dim_of(static_cast<size_t>(rank), -1);
  int k = 0;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      count *= in_shape[static_cast<size_t>(d)];
      if (attrs->keep_dims) ++k;
      continue;
    }
    out_dim_of[static_cast<size_t>(d)] = k++;
  }
  if (k != static_cast<int>(out_shape.size())) {
    return ctx.Invalid("output " + ShapeToString(out_shape) + " does not match the reduction of " +
                       ShapeToString(in_shape));
  }
  std::array<int32_t, 4> reduce = {0, 0, 0, 0}, src = {-1, -1, -1, -1};
  const int out_rank = static_cast<int>(out_shape.size());
  for (int d = 0; d < rank; ++d) {
    const size_t a = static_cast<size_t>(BhwcAxis(rank, d));
    const int od = out_dim_of[static_cast<size_t>(d)];
    if (reduced[static_cast<size_t>(d)]) {
      reduce[a] = 1;
    } else {
      if (out_shape[static_cast<size_t>(od)] != in_shape[static_cast<size_t>(d)]) {
        return ctx.Invalid("output " + ShapeToString(out_shape) + " does not keep dimension " + std::to_string(d));
      }
      if (in_shape[static_cast<size_t>(d)] > 1) src[a] = BhwcAxis(out_rank, od);
    }
  }
  const char* op = nullptr;
  switch (ctx.node().op) {
    case OpType::kMean: case OpType::kSum: op = "REDUCE_SUM"; break;
    case OpType::kReduceMax: op = "REDUCE_MAX"; break;
    case OpType::kReduceMin: op = "REDUCE_MIN"; break;
    case OpType::kReduceProd: op = "REDUCE_PROD"; break;
    case OpType::kReduceAll: op = "REDUCE_MIN"; break;  // bools held as 0.0 / 1.0
    case OpType::kReduceAny: op = "REDUCE_MAX"; break;
    default: return UnimplementedError(std::string("op ") + ctx.op_name() + " has no GL kernel");
  }
  const bool logical = ctx.node().op == OpType::kReduceAll || ctx.node().op == OpType::kReduceAny;
  const DataType out_type = ctx.graph().tensors[static_cast<size_t>(ctx.output_index(0))].type;
  if (logical && (ctx.input(0)->type != DataType::kBool || out_type != DataType::kBool)) {
    return ctx.Invalid("input and output must be bool");
  }
  const bool vec4 = reduce[3] == 0 && (src[3] == 3 || (in.c == 1 && o.c == 1));
  GLD_RETURN_IF_ERROR(CheckLoopIterations(ctx, in, reduce, vec4, o.c));
  Dispatch d;
  d.shader.template_name = "reduce.comp";
  d.shader.Define("REDUCE", op).Define("VEC4_PATH", vec4 ? 1 : 0);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)});
  d.IVec4("u_out", o).IVec4("u_in", in).IVec4("u_reduce", reduce).IVec4("u_src", src);
  d.Float("u_scale", ctx.node().op == OpType::kMean ? static_cast<float>(1.0 / static_cast<double>(count)) : 1.0f);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
