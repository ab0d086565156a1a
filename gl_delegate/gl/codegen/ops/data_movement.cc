// Data movement ops: concat.comp, reshape.comp, slice.comp,
// depth_space.comp, tile.comp, reverse.comp, transpose.comp. Axes named by the model are
// translated to BHWC axes with the rank rule of gl/phwc4.h.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"
#include "graph/shape_inference.h"

namespace gld::gl {

Status BuildConcatenation(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<ConcatenationAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing ConcatenationAttributes");
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 1, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  const Shape& out_shape = ShapeOf(ctx, ctx.output_index(0));
  int axis = 0;
  if (!BhwcAxisOf(out_shape, attrs->axis, &axis)) {
    return ctx.Invalid("axis " + std::to_string(attrs->axis) + " out of range for output " +
                       ShapeToString(out_shape));
  }
  // Two or three inputs off the channel axis: one dispatch over the output
  // (concat_axis.comp), checked by the same loop below.
  const bool single = axis != 3 && (ctx.num_inputs() == 2 || ctx.num_inputs() == 3);
  Dispatch whole;
  std::array<int32_t, 3> starts = {0, 0, 0};
  int32_t offset = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(i));
    const Shape& in_shape = ShapeOf(ctx, ctx.input_index(i));
    if (in_shape.size() != out_shape.size()) {
      return ctx.Invalid("input " + std::to_string(i) + " has rank " + std::to_string(in_shape.size()) +
                         ", output " + std::to_string(out_shape.size()));
    }
    for (int a = 0; a < 4; ++a) {
      if (a != axis && in.dim(a) != o.dim(a)) {
        return ctx.Invalid("input " + std::to_string(i) + " " + ShapeToString(in_shape) +
                           " does not match output " + ShapeToString(out_shape) + " off the axis");
      }
    }
    if (offset + in.dim(axis) > o.dim(axis)) return ctx.Invalid("inputs exceed the output along the axis");
    if (single) {
      starts[i] = offset;
      whole.Bind(static_cast<uint32_t>(1 + i), {DispatchBufferRef::kTensor, ctx.input_index(i)});
      whole.IVec4("u_in" + std::to_string(i + 1), in);
      offset += in.dim(axis);
      continue;
    }
    Dispatch d;
    d.shader.template_name = "concat.comp";
    d.shader.Define("CHANNELS", axis == 3 ? 1 : 0).Define("ACTIVATION", act);
    d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(i)});
    d.IVec4("u_out", o).IVec4("u_in", in);
    std::array<int32_t, 4> off = {0, 0, 0, 0};
    off[static_cast<size_t>(axis)] = offset;
    d.IVec4("u_offset", off);
    if (axis == 3) {
      const int32_t first = offset / 4, last = (offset + in.c - 1) / 4;
      d.IVec2("u_slices", first, last - first + 1);
      d.grid = {static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h),
                static_cast<uint32_t>(o.b * (last - first + 1))};
    } else {
      d.IVec2("u_slices", 0, 0);
      d.GridOver(in);
    }
    out->push_back(std::move(d));
    offset += in.dim(axis);
  }
  if (offset != o.dim(axis)) {
    return ctx.Invalid("inputs fill " + std::to_string(offset) + " of the output's " +
                       std::to_string(o.dim(axis)) + " along the axis");
  }
  if (single) {
    whole.shader.template_name = "concat_axis.comp";
    whole.shader.Define("INPUTS", static_cast<int>(ctx.num_inputs())).Define("AXIS", axis).Define("ACTIVATION", act);
    whole.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)});
    whole.IVec4("u_out", o);
    whole.IVec4("u_start", 0, starts[1], ctx.num_inputs() == 3 ? starts[2] : o.dim(axis), 0);
    whole.GridOver(o);
    out->push_back(std::move(whole));
  }
  return OkStatus();
}

// RESHAPE moves values: an int32 tensor (an attention mask on its way to a
// CAST, ids on their way to a GATHER) moves as the floats the GPU holds it
// in, exact as far as the readers of its output need (GpuShape).
Status BuildReshape(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 1, 1));
  const Tensor* x = ctx.input(0);
  const int y = ctx.output_index(0);
  if (x != nullptr && y >= 0 && (x->type == DataType::kInt32) != (ctx.graph().tensors[static_cast<size_t>(y)].type == DataType::kInt32)) {
    return ctx.Invalid("int32 and other types on either side of a RESHAPE");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (in.elements() != o.elements()) {
    return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " differ in size");
  }
  Dispatch d = SimpleDispatch(ctx, "reshape.comp", in, o);
  d.shader.Define("VEC4_PATH", in.c == o.c ? 1 : 0);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildSlice(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const bool strided = ctx.node().op == OpType::kStridedSlice;
  GLD_RETURN_IF_ERROR(NeedIo(ctx, strided ? 4 : 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& in_shape = ShapeOf(ctx, ctx.input_index(0));
  const Shape& out_shape = ShapeOf(ctx, ctx.output_index(0));
  const int rank = static_cast<int>(in_shape.size());
  GLD_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ctx.ConstantInts(1));
  if (begin.size() != static_cast<size_t>(rank)) {
    return ctx.Unsupported("begin has " + std::to_string(begin.size()) + " values for rank " +
                           std::to_string(rank));
  }
  std::vector<int64_t> start(static_cast<size_t>(rank)), step(static_cast<size_t>(rank), 1),
      size(static_cast<size_t>(rank));
  std::vector<bool> dropped(static_cast<size_t>(rank), false);
  if (strided) {
    const auto* attrs = std::get_if<StridedSliceAttributes>(&ctx.node().attributes);
    if (attrs == nullptr) return ctx.Invalid("missing StridedSliceAttributes");
    if (attrs->ellipsis_mask != 0 || attrs->new_axis_mask != 0) {
      return ctx.Unsupported("ellipsis_mask / new_axis_mask are not supported on the GPU");
    }
    GLD_ASSIGN_OR_RETURN(std::vector<int64_t> end, ctx.ConstantInts(2));
    GLD_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.ConstantInts(3));
    if (end.size() != begin.size() || strides.size() != begin.size()) {
      return ctx.Invalid("begin, end and strides differ in length");
    }
    for (int d = 0; d < rank; ++d) {
      const size_t i = static_cast<size_t>(d);
      const int64_t n = in_shape[i];
      const int64_t s = strides[i];
      if (s == 0) return ctx.Invalid("stride 0 on dimension " + std::to_string(d));
      const bool shrink = (attrs->shrink_axis_mask >> d) & 1;
      // TFLite's StartForAxis / StopForAxis.
      int64_t b = begin[i];
      if ((attrs->begin_mask >> d) & 1 && !shrink) {
        b = s > 0 ? 0 : n - 1;
      } else {
        if (b < 0) b += n;
        b = s > 0 ? std::clamp<int64_t>(b, 0, n) : std::clamp<int64_t>(b, -1, n - 1);
      }
      int64_t e;
      if (shrink) {
        e = b + 1;
        if (b < 0 || b >= n) return ctx.Invalid("shrunk index out of range on dimension " + std::to_string(d));
      } else if ((attrs->end_mask >> d) & 1) {
        e = s > 0 ? n : -1;
      } else {
        e = attrs->offset ? b + end[i] : end[i];
        if (!attrs->offset && e < 0) e += n;
        e = s > 0 ? std::clamp<int64_t>(e, 0, n) : std::clamp<int64_t>(e, -1, n - 1);
      }
      start[i] = b;
      step[i] = shrink ? 1 : s;
      dropped[i] = shrink;
      const int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
      size[i] = std::max<int64_t>(len, 0);
    }
  } else {
    GLD_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstantInts(2));
    if (sizes.size() != begin.size()) return ctx.Invalid("begin and size differ in length");
    for (int d = 0; d < rank; ++d) {
      const size_t i = static_cast<size_t>(d);
      const int64_t n = in_shape[i];
      if (begin[i] < 0 || begin[i] > n) return ctx.Invalid("begin out of range on dimension " + std::to_string(d));
      start[i] = begin[i];
      size[i] = sizes[i] < 0 ? n - begin[i] : sizes[i];
      if (start[i] + size[i] > n) return ctx.Invalid("slice exceeds dimension " + std::to_string(d));
    }
  }
  // The output dims are the kept input dims, in order.
  std::vector<int> kept;
  for (int d = 0; d < rank; ++d) {
    if (!dropped[static_cast<size_t>(d)]) kept.push_back(d);
  }
  if (kept.size() != out_shape.size()) {
    return ctx.Invalid("output " + ShapeToString(out_shape) + " does not have the kept dimensions");
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    if (size[static_cast<size_t>(kept[k])] != out_shape[k]) {
      return ctx.Invalid("output " + ShapeToString(out_shape) + " does not match the slice on dimension " +
                         std::to_string(kept[k]));
    }
  }
  std::array<int32_t, 4> u_begin = {0, 0, 0, 0}, u_stride = {1, 1, 1, 1}, u_src = {-1, -1, -1, -1};
  const int out_rank = static_cast<int>(out_shape.size());
  for (int d = 0; d < rank; ++d) {
    const size_t i = static_cast<size_t>(d);
    const size_t a = static_cast<size_t>(BhwcAxis(rank, d));
    u_begin[a] = static_cast<int32_t>(start[i]);
    u_stride[a] = static_cast<int32_t>(step[i]);
    if (!dropped[i]) {
      int k = 0;
      for (int e = 0; e < d; ++e) k += dropped[static_cast<size_t>(e)] ? 0 : 1;
      u_src[a] = BhwcAxis(out_rank, k);
    }
  }
  const bool vec4 = u_src[3] == 3 && u_stride[3] == 1 && u_begin[3] % 4 == 0;
  Dispatch d = SimpleDispatch(ctx, "slice.comp", in, o);
  d.shader.Define("VEC4_PATH", vec4 ? 1 : 0);
  d.IVec4("u_begin", u_begin).IVec4("u_stride", u_stride).IVec4("u_src", u_src);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildDepthSpace(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<BlockSizeAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing BlockSizeAttributes");
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 1, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ctx.input(0)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  const int32_t n = attrs->block_size;
  const bool to_space = ctx.node().op == OpType::kDepthToSpace;
  if (n <= 0) return ctx.Invalid("block size " + std::to_string(n));
  const Bhwc& small = to_space ? o : in;  // the side with fewer channels
  const Bhwc& big = to_space ? in : o;
  if (big.b != small.b || big.c != small.c * n * n || big.h * n != small.h || big.w * n != small.w) {
    return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " do not match block " +
                       std::to_string(n));
  }
  Dispatch d = SimpleDispatch(ctx, "depth_space.comp", in, o);
  d.shader.Define("TO_SPACE", to_space ? 1 : 0).Define("VEC4_PATH", small.c % 4 == 0 ? 1 : 0);
  d.Int("u_block", n);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildTile(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 1, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ShapeOf(ctx, ctx.input_index(0)).size() != ShapeOf(ctx, ctx.output_index(0)).size()) {
    return ctx.Invalid("input and output ranks differ");
  }
  for (int a = 0; a < 4; ++a) {
    if (o.dim(a) % in.dim(a) != 0) {
      return ctx.Invalid("output " + o.ToString() + " is not a tiling of input " + in.ToString());
    }
  }
  Dispatch d = SimpleDispatch(ctx, "tile.comp", in, o);
  d.shader.Define("VEC4_PATH", in.c == o.c ? 1 : 0);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildReverse(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& shape = ShapeOf(ctx, ctx.input_index(0));
  if (shape != ShapeOf(ctx, ctx.output_index(0))) return ctx.Invalid("output shape differs from input shape");
  GLD_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantInts(1));
  std::array<int32_t, 4> flip = {0, 0, 0, 0};
  for (int64_t a : axes) {
    int axis = 0;
    if (!BhwcAxisOf(shape, a, &axis)) {
      return ctx.Invalid("axis " + std::to_string(a) + " out of range for " + ShapeToString(shape));
    }
    flip[static_cast<size_t>(axis)] = 1;
  }
  Dispatch d = SimpleDispatch(ctx, "reverse.comp", in, o);
  d.shader.Define("VEC4_PATH", flip[3] == 0 ? 1 : 0);
  d.IVec4("u_flip", flip);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildTranspose(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& in_shape = ShapeOf(ctx, ctx.input_index(0));
  const Shape& out_shape = ShapeOf(ctx, ctx.output_index(0));
  const int rank = static_cast<int>(in_shape.size());
  GLD_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.ConstantInts(1));
  if (perm.size() != static_cast<size_t>(rank) || out_shape.size() != in_shape.size()) {
    return ctx.Invalid("perm has " + std::to_string(perm.size()) + " values for rank " + std::to_string(rank));
  }
  // Output dim k is input dim perm[k]: input axis of perm[k] reads output
  // axis of k.
  std::array<int32_t, 4> src = {-1, -1, -1, -1};
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int k = 0; k < rank; ++k) {
    int64_t p = perm[static_cast<size_t>(k)];
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return ctx.Invalid("perm is not a permutation");
    seen[static_cast<size_t>(p)] = true;
    if (out_shape[static_cast<size_t>(k)] != in_shape[static_cast<size_t>(p)]) {
      return ctx.Invalid("output " + ShapeToString(out_shape) + " is not the permuted input");
    }
    if (in_shape[static_cast<size_t>(p)] > 1) {
      src[static_cast<size_t>(BhwcAxis(rank, static_cast<int>(p)))] = BhwcAxis(rank, k);
    }
  }
  // Channels stay in place when the input's channel axis reads the output's
  // (or both are of size 1... then lanes are trivially aligned too).
  const bool vec4 = src[3] == 3 || (in.c == 1 && o.c == 1);
  Dispatch d = SimpleDispatch(ctx, "transpose.comp", in, o);
  d.shader.Define("VEC4_PATH", vec4 ? 1 : 0);
  d.IVec4("u_src", src);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
