// Activations: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LOGISTIC, TANH,
// HARD_SWISH, ELU, GELU, LEAKY_RELU, PRELU (alpha broadcast to the input).
#include <cmath>

#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/ops/elementwise_unary.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"
#include "cpu_kernels/micro/vector_ops/vector_ops.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {

using XnnUnaryCreate = xnn_status (*)(size_t, size_t, size_t, uint32_t, xnn_operator_t*);
using XnnUnarySetup = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);

// A float activation on XNNPACK (LOGISTIC, HARD_SWISH: measured faster than
// the loops below), over the tensor as one row of elements, when it has at
// least `min_elements`. Other types, smaller tensors and nodes XNNPACK does
// not take run the kernel's own code.
Status PrepareXnnUnary(KernelContext& ctx, XnnUnaryCreate create, XnnUnarySetup setup, int64_t min_elements) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& out = *ctx.outputs[0];
  if (in.type != DataType::kFloat32 || out.type != DataType::kFloat32 || in.num_elements() != out.num_elements() ||
      in.num_elements() == 0 || in.num_elements() < min_elements || !XnnMayTake(ctx)) {
    return OkStatus();
  }
  xnn_operator_t op = nullptr;
  const xnn_status s = create(1, 1, 1, 0, &op);
  KeepXnnOperator(ctx, s, op, Activation::kNone, [setup](const KernelContext& c, xnn_operator_t o, pthreadpool_t pool) {
    return setup(o, static_cast<size_t>(c.inputs[0]->num_elements()), c.inputs[0]->as<float>(),
                 c.outputs[0]->as<float>(), pool);
  });
  return OkStatus();
}

}  // namespace

// LOGISTIC: XNNPACK's sigmoid from 4096 elements (56x56x64: 49 us against 81
// on SigmoidRow); below, its per-run cost (setup check, thread pool, output
// check) outweighs the work: the gates of a recurrent cell, 32 values each,
// run on SigmoidRow.
Status PrepareLogistic(KernelContext& ctx) {
  return PrepareXnnUnary(ctx, xnn_create_sigmoid_nc_f32, xnn_setup_sigmoid_nc_f32, 4096);
}
Status PrepareHardSwish(KernelContext& ctx) {
  return PrepareXnnUnary(ctx, xnn_create_hardswish_nc_f32, xnn_setup_hardswish_nc_f32, 0);
}

Status RunRelu(KernelContext& ctx) {
  // std::max keeps a NaN (as the fused RELU and TFLite's kernel do).
  return UnaryFloat(ctx, [](float x) { return std::max(x, 0.f); });
}
Status RunRelu6(KernelContext& ctx) {
  return UnaryFloat(ctx, [](float x) { return std::min(std::max(x, 0.f), 6.f); });
}
Status RunReluN1To1(KernelContext& ctx) {
  return UnaryFloat(ctx, [](float x) { return std::min(std::max(x, -1.f), 1.f); });
}
Status RunRelu0To1(KernelContext& ctx) {
  return UnaryFloat(ctx, [](float x) { return std::min(std::max(x, 0.f), 1.f); });
}
Status RunLogistic(KernelContext& ctx) {
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  return UnaryFloatRows(ctx, 4096, SigmoidRow);
}
Status RunTanh(KernelContext& ctx) { return UnaryFloatRows(ctx, 4096, TanhRow); }
Status RunHardSwish(KernelContext& ctx) {
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  return UnaryFloat(ctx, [](float x) { return x * std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f; });
}
Status RunElu(KernelContext& ctx) {
  return UnaryFloat(ctx, [](float x) { return x < 0.f ? std::expm1(x) : x; });
}
// GELU on vector_math.h's rows (exact erf or the tanh approximation).
Status RunGelu(KernelContext& ctx) {
  bool approximate = false;
  if (const auto* a = std::get_if<GeluAttributes>(&ctx.node->attributes)) approximate = a->approximate;
  GLD_RETURN_IF_ERROR(CheckUnaryFloat(ctx));
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  ParallelForGrain(ctx, ctx.inputs[0]->num_elements(), 4096,
                   [&](int64_t b, int64_t e) { GeluRow(x + b, y + b, e - b, approximate); });
  return OkStatus();
}
Status RunLeakyRelu(KernelContext& ctx) {
  float alpha = 0.2f;
  if (const auto* a = std::get_if<LeakyReluAttributes>(&ctx.node->attributes)) alpha = a->alpha;
  return UnaryFloat(ctx, [alpha](float x) { return x > 0.f ? x : x * alpha; });
}

// PRELU: a slope per channel of the input's last dimension (every PRELU of
// the shared models: alpha [1, 1, C] or [C]) runs row by row on
// vector_ops.h; other broadcasts of alpha on BroadcastBinary.
Status RunPrelu(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  for (const TensorData* t : {ctx.inputs[0], ctx.inputs[1], static_cast<const TensorData*>(ctx.outputs[0])}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
  }
  const TensorData& in = *ctx.inputs[0];
  const TensorData& alpha = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (in.shape == out.shape && IsPerChannelSlope(alpha.shape, in.shape)) {
    const int64_t channels = in.shape.back();
    const float* x = in.as<float>();
    const float* a = alpha.as<float>();
    float* y = out.as<float>();
    ParallelForGrain(ctx, in.num_elements() / channels, std::max<int64_t>(1, 16384 / channels),
                     [&](int64_t begin, int64_t end) {
                       PreluRows(x + begin * channels, a, channels, end - begin, y + begin * channels);
                     });
    return OkStatus();
  }
  return BroadcastBinary<float, float, float>(ctx, *ctx.inputs[0], *ctx.inputs[1], *ctx.outputs[0],
                                              [](float x, float alpha) { return x >= 0.f ? x : x * alpha; });
}

}  // namespace gld::cpu
