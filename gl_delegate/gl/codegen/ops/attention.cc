// GLD_SCALED_DOT_PRODUCT_ATTENTION (attention.comp): one dispatch, one
// invocation per query row (head n, position t, batch b), which walks the S
// keys once with a running maximum (the softmax rescaled as it goes) and
// sums v's rows. Heads of up to kMaxHeadSize values; the mask, when there is
// one, of rank 4.
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {
constexpr int32_t kMaxHeadSize = 256;  // MAX_SLICES vec4 accumulators in the template
}  // namespace

Status BuildAttention(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<AttentionAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing AttentionAttributes");
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  if (ctx.num_inputs() > 4) return ctx.Invalid("takes q, k, v and a mask");
  const bool has_mask = ctx.num_inputs() == 4 && ctx.input_index(3) != kNoTensor;
  GLD_ASSIGN_OR_RETURN(Bhwc q, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc k, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc v, ctx.InputShape(2));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.input(i)->shape.size() != 4) return ctx.Unsupported("q, k and v must have rank 4");
  }
  if (o != q || k != v || k.b != q.b || k.c != q.c || q.w % k.w != 0) {
    return ctx.Invalid("q " + q.ToString() + ", k " + k.ToString() + ", v " + v.ToString() + " and output " +
                       o.ToString() + " are not [B, T, N, H], [B, S, K, H] twice and q's shape");
  }
  if (q.c > kMaxHeadSize) return ctx.Unsupported("heads of " + std::to_string(q.c) + " values (at most 256)");
  Bhwc m = q;
  if (has_mask) {
    GLD_ASSIGN_OR_RETURN(m, ctx.InputShape(3));
    if (ctx.input(3)->shape.size() != 4) return ctx.Unsupported("a mask of rank other than 4");
    if ((m.b != 1 && m.b != q.b) || (m.h != 1 && m.h != q.w) || (m.w != 1 && m.w != q.h) || (m.c != 1 && m.c != k.h)) {
      return ctx.Invalid("mask " + m.ToString() + " does not broadcast to [B, N, T, S]");
    }
  }
  Dispatch d;
  d.shader.template_name = "attention.comp";
  d.shader.Define("MAX_SLICES", (q.c + 3) / 4);
  d.shader.Define("HAS_MASK", has_mask ? 1 : 0);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)})
      .Bind(3, {DispatchBufferRef::kTensor, ctx.input_index(2)});
  if (has_mask) d.Bind(4, {DispatchBufferRef::kTensor, ctx.input_index(3)});
  d.IVec4("u_q", q);
  d.IVec4("u_kv", k);
  d.IVec4("u_mask", m);
  d.Float("u_scale", attrs->scale);
  d.grid = {static_cast<uint32_t>(q.w), static_cast<uint32_t>(q.h), static_cast<uint32_t>(q.b)};
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
