#include "gl/codegen/ops/op_util.h"

#include "gl/codegen/phwc4.h"

namespace gld::gl {

bool MakeBroadcastMap(const Shape& operand, const Shape& out, std::array<int, 3>* map,
                      std::string* why) {
  const int r = static_cast<int>(operand.size());
  const int R = static_cast<int>(out.size());
  if (r > R || R > 4) {
    *why = "shape " + ShapeToString(operand) + " does not broadcast to " + ShapeToString(out);
    return false;
  }
  for (int d = 0; d < r; ++d) {
    int32_t od = out[static_cast<size_t>(d + R - r)];
    int32_t id = operand[static_cast<size_t>(d)];
    if (id != od && id != 1) {
      *why = "shape " + ShapeToString(operand) + " does not broadcast to " + ShapeToString(out);
      return false;
    }
  }
  std::array<int, 4> dims = DimOfBhwcAxis(r);
  for (int a = 0; a < 3; ++a) {
    int d = dims[static_cast<size_t>(a)];
    if (d < 0 || operand[static_cast<size_t>(d)] == 1) {
      (*map)[static_cast<size_t>(a)] = -1;
      continue;
    }
    int out_axis = BhwcAxis(R, d + R - r);
    if (out_axis > 2) {  // cannot happen: only the last dimension is a channel
      *why = "internal: broadcast axis maps to channels";
      return false;
    }
    (*map)[static_cast<size_t>(a)] = out_axis;
  }
  return true;
}

bool BhwcAxisOf(const Shape& shape, int64_t dim, int* axis) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || rank > 4) return false;
  *axis = BhwcAxis(static_cast<int>(rank), static_cast<int>(dim));
  return true;
}

std::vector<float> RepackOhwiWeights(const std::vector<float>& w, int32_t out_c, int32_t kh,
                                     int32_t kw, int32_t in_c, int32_t block) {
  const int32_t so_n = (out_c + 3) / 4, si_n = (in_c + 3) / 4;
  const int32_t groups = (so_n + block - 1) / block;
  std::vector<float> r(static_cast<size_t>(groups) * block * kh * kw * si_n * 16, 0.0f);
  size_t o = 0;
  for (int32_t g = 0; g < groups; ++g)
    for (int32_t ky = 0; ky < kh; ++ky)
      for (int32_t kx = 0; kx < kw; ++kx)
        for (int32_t si = 0; si < si_n; ++si)
          for (int32_t k = 0; k < block; ++k)
            for (int32_t j = 0; j < 4; ++j)
              for (int32_t lane = 0; lane < 4; ++lane, ++o) {
                const int32_t oc = 4 * (g * block + k) + j, ic = 4 * si + lane;
                if (oc < out_c && ic < in_c) {
                  r[o] = w[((static_cast<size_t>(oc) * kh + ky) * kw + kx) * in_c + ic];
                }
              }
  return r;
}

std::vector<float> RepackVector(const std::vector<float>& v, int32_t channels, int32_t slices) {
  if (slices <= 0) slices = (channels + 3) / 4;
  std::vector<float> r(static_cast<size_t>(slices) * 4, 0.0f);
  for (size_t i = 0; i < v.size() && i < r.size() && i < static_cast<size_t>(channels); ++i) r[i] = v[i];
  return r;
}

int32_t OutputSliceBlock(int32_t out_slices) { return out_slices >= 4 ? 4 : out_slices >= 2 ? 2 : 1; }

Status NeedIo(OpBuildContext& ctx, size_t inputs, size_t outputs) {
  if (ctx.num_inputs() < inputs || ctx.num_outputs() < outputs) {
    return ctx.Invalid("expects at least " + std::to_string(inputs) + " input(s) and " +
                       std::to_string(outputs) + " output(s)");
  }
  return OkStatus();
}

Dispatch SimpleDispatch(OpBuildContext& ctx, const char* template_name, const Bhwc& in, const Bhwc& o) {
  Dispatch d;
  d.shader.template_name = template_name;
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)});
  d.IVec4("u_out", o).IVec4("u_in", in);
  d.GridOver(o);
  return d;
}

const Shape& ShapeOf(OpBuildContext& ctx, int tensor) {
  return ctx.graph().tensors[static_cast<size_t>(tensor)].shape;
}

Blocking BlockingFor(int32_t out_channels) {
  const int32_t slices = (out_channels + 3) / 4;
  const int32_t block = OutputSliceBlock(slices);
  return {block, (slices + block - 1) / block * block};
}

void GridOverGroups(Dispatch& d, const Bhwc& o, const Blocking& k) {
  d.grid = {static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h),
            static_cast<uint32_t>(o.b * (k.padded_slices / k.block))};
}

StatusOr<DispatchBufferRef> BiasBuffer(OpBuildContext& ctx, size_t input, int32_t channels, int32_t slices) {
  const Tensor* b = ctx.input(input);
  if (b != nullptr) {
    if (!b->is_constant) return ctx.Unsupported("bias '" + b->name + "' is not constant");
    if (b->num_elements() != channels) {
      return ctx.Invalid("bias '" + b->name + "' has " + std::to_string(b->num_elements()) +
                         " elements, expected " + std::to_string(channels));
    }
    // Validate the data now, so that a dry run reports what a real one would.
    GLD_RETURN_IF_ERROR(ctx.ConstantFloats(input).status());
  }
  return ctx.AddConstant("bias", [&ctx, input, channels, slices, present = b != nullptr] {
    std::vector<float> v;
    if (present) v = *ctx.ConstantFloats(input);
    return RepackVector(v, channels, slices);
  });
}

Status CheckOutputSize(OpBuildContext& ctx, const char* axis, int32_t got, int32_t expected) {
  if (got != expected) {
    return ctx.Invalid(std::string("output ") + axis + " is " + std::to_string(got) + ", the op gives " +
                       std::to_string(expected));
  }
  return OkStatus();
}

}  // namespace gld::gl
