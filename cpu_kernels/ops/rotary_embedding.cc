// GLD_ROTARY_EMBEDDING (transforms/fuse_rotary_embedding.cc, from the
// converter's SLICE / MUL / SUB / ADD / CONCATENATION chain): x [..., D],
// cos and sin broadcast to [..., D / 2]. Per row of x, with h = D / 2,
//   out[i]     = x[i] * cos[i] - x[i + h] * sin[i]
//   out[i + h] = x[i + h] * cos[i] + x[i] * sin[i]
// in the decomposition's order of operations (the same float results).
// Built for a decode step's few rows, where the step's fixed cost is what
// counts: no allocation, one pass, rows of the same table (cos and sin
// varying along the last axis only) without any index arithmetic.
#include <algorithm>
#include <string>

#include "cpu_kernels/ops/op_kernels.h"
#include "graph/shape_inference.h"

namespace gld::cpu {

namespace {

void RotateRow(const float* x, const float* c, const float* s, int64_t table_step, int64_t h, float* o) {
  for (int64_t i = 0; i < h; ++i) {
    const float a = x[i], b = x[i + h];
    const float ci = c[i * table_step], si = s[i * table_step];
    o[i] = a * ci - b * si;
    o[i + h] = b * ci + a * si;
  }
}

// The offset of row `row`'s table in cos / sin (aligned with x's leading
// dimensions at the innermost one; 0 along a broadcast dimension).
int64_t TableOffset(const Shape& x, const Shape& table, int64_t row) {
  int64_t offset = 0, stride = table.back();
  const size_t lead = x.size() - table.size();
  for (size_t d = x.size() - 1; d-- > 0;) {
    const int64_t index = row % x[d];
    row /= x[d];
    if (d < lead) continue;
    const int64_t n = table[d - lead];
    if (n != 1) offset += index * stride;
    stride *= n;
  }
  return offset;
}

}  // namespace

Status RunRotaryEmbedding(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& x = *ctx.inputs[0];
  const TensorData& cos = *ctx.inputs[1];
  const TensorData& sin = *ctx.inputs[2];
  TensorData& out = *ctx.outputs[0];
  if (!ctx.io_checked) {  // an earlier run of the same buffers passed (KernelContext::io_checked)
    for (const TensorData* t : {&x, &cos, &sin, static_cast<const TensorData*>(&out)}) {
      GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
    }
    if (const std::string why = RotaryOperandsMismatch(x.shape, cos.shape, sin.shape); !why.empty()) {
      return KernelError(ctx, why);
    }
    if (out.shape != x.shape) {
      return KernelError(ctx, "output " + ShapeToString(out.shape) + " is not x's shape " + ShapeToString(x.shape));
    }
  }
  const int64_t d = x.shape.back(), h = d / 2;
  const int64_t rows = x.num_elements() / d;
  const float* in = x.as<float>();
  const float* c = cos.as<float>();
  const float* s = sin.as<float>();
  float* o = out.as<float>();
  const int64_t table_step = cos.shape.empty() || cos.shape.back() == 1 ? 0 : 1;
  const bool one_table = cos.num_elements() == (cos.shape.empty() ? 1 : cos.shape.back());
  // A prefill's rows split across the threads; a decode step's stay on one.
  constexpr int64_t kRowChunkValues = 16384;
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, kRowChunkValues / d), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t t = one_table ? 0 : TableOffset(x.shape, cos.shape, r);
      RotateRow(in + r * d, c + t, s + t, table_step, h, o + r * d);
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
