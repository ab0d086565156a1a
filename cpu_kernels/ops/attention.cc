// GLD_SCALED_DOT_PRODUCT_ATTENTION (transforms/fuse_composites.cc, from
// odml.scaled_dot_product_attention): q [B, T, N, H], k and v [B, S, K, H],
// an optional additive mask that broadcasts to [B, N, T, S]. Per query row
// (b, t, n): the S scores scale * q . k[s] + mask, their softmax (the SOFTMAX
// kernel's row, vector_math.h), and the weighted sum of v's rows, read in
// place (the decomposition's transposes and reshapes are never made). Rows
// split across the threads.
#include <algorithm>
#include <string>
#include <vector>

#include "cpu_kernels/micro/vector_math/vector_math.h"
#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {

struct AttentionDims {
  int64_t b, t, n, h, s, k;
  int64_t mask_stride[4] = {0, 0, 0, 0};  // over [B, N, T, S]; 0 where broadcast
};

Status CheckAttention(KernelContext& ctx, AttentionDims* d) {
  const TensorData& q = *ctx.inputs[0];
  const TensorData& k = *ctx.inputs[1];
  const TensorData& v = *ctx.inputs[2];
  for (const TensorData* t : {&q, &k, &v, static_cast<const TensorData*>(ctx.outputs[0])}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
  }
  if (q.shape.size() != 4 || k.shape.size() != 4 || k.shape != v.shape || k.shape[0] != q.shape[0] ||
      k.shape[3] != q.shape[3] || k.shape[2] < 1 || q.shape[2] % k.shape[2] != 0 || ctx.outputs[0]->shape != q.shape) {
    return KernelError(ctx, "q " + ShapeToString(q.shape) + ", k " + ShapeToString(k.shape) + ", v " +
                                ShapeToString(v.shape) + " and output " + ShapeToString(ctx.outputs[0]->shape) +
                                " are not [B, T, N, H], [B, S, K, H] twice (K dividing N) and q's shape");
  }
  *d = {q.shape[0], q.shape[1], q.shape[2], q.shape[3], k.shape[1], k.shape[2]};
  if (ctx.inputs.size() < 4 || ctx.inputs[3] == nullptr) return OkStatus();
  const TensorData& m = *ctx.inputs[3];
  GLD_RETURN_IF_ERROR(CheckType(ctx, m, DataType::kFloat32, "mask"));
  const int64_t full[4] = {d->b, d->n, d->t, d->s};
  if (m.shape.size() > 4) return KernelError(ctx, "mask " + ShapeToString(m.shape) + " has rank above 4");
  int64_t stride = 1;
  for (size_t i = m.shape.size(); i-- > 0;) {
    const size_t axis = 4 - m.shape.size() + i;
    if (m.shape[i] != 1 && m.shape[i] != full[axis]) {
      return KernelError(ctx, "mask " + ShapeToString(m.shape) + " does not broadcast to [B, N, T, S]");
    }
    d->mask_stride[axis] = m.shape[i] == 1 ? 0 : stride;
    stride *= m.shape[i];
  }
  return OkStatus();
}

}  // namespace

Status RunScaledDotProductAttention(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 4, 1));
  const auto* attrs = std::get_if<AttentionAttributes>(&ctx.node->attributes);
  if (attrs == nullptr) return KernelError(ctx, "missing AttentionAttributes");
  AttentionDims d;
  GLD_RETURN_IF_ERROR(CheckAttention(ctx, &d));
  if (d.s == 0 || d.h == 0) {
    std::fill_n(ctx.outputs[0]->as<float>(), ctx.outputs[0]->num_elements(), 0.0f);
    return OkStatus();
  }
  const float* q = ctx.inputs[0]->as<float>();
  const float* k = ctx.inputs[1]->as<float>();
  const float* v = ctx.inputs[2]->as<float>();
  const bool has_mask = ctx.inputs.size() >= 4 && ctx.inputs[3] != nullptr;
  const float* mask = has_mask ? ctx.inputs[3]->as<float>() : nullptr;
  float* out = ctx.outputs[0]->as<float>();
  const float scale = attrs->scale;
  const int64_t group = d.n / d.k;
  const int64_t rows = d.b * d.t * d.n;
  // Rows of about 32K multiply-adds per chunk: a decode step's few heads
  // stay on one thread.
  const int64_t grain = std::max<int64_t>(1, 32768 / (2 * d.s * d.h));
  ParallelForGrain(ctx, rows, grain, [&](int64_t r0, int64_t r1) {
    std::vector<float> p(static_cast<size_t>(d.s));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r % d.n, t = (r / d.n) % d.t, b = r / (d.n * d.t);
      const int64_t kv = n / group;
      const float* qr = q + r * d.h;  // q is [B, T, N, H]: row r is (b, t, n)
      const float* mrow =
          has_mask ? mask + b * d.mask_stride[0] + n * d.mask_stride[1] + t * d.mask_stride[2] : nullptr;
      for (int64_t s = 0; s < d.s; ++s) {
        const float* kr = k + ((b * d.s + s) * d.k + kv) * d.h;
        float dot = 0.0f;
        for (int64_t i = 0; i < d.h; ++i) dot += qr[i] * kr[i];
        p[static_cast<size_t>(s)] = dot * scale + (has_mask ? mrow[s * d.mask_stride[3]] : 0.0f);
      }
      SoftmaxRow(p.data(), p.data(), d.s, 1.0f);
      float* o = out + r * d.h;
      std::fill_n(o, d.h, 0.0f);
      for (int64_t s = 0; s < d.s; ++s) {
        const float* vr = v + ((b * d.s + s) * d.k + kv) * d.h;
        const float w = p[static_cast<size_t>(s)];
        for (int64_t i = 0; i < d.h; ++i) o[i] += w * vr[i];
      }
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
