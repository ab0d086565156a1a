// FULLY_CONNECTED: input [..., K] viewed as [batch, K], weights [U, K],
// optional bias [U]; output [batch, U] or, with keep_num_dims, [..., U]
// (a transformer's [B, T, C] input is one GEMM of B x T rows).
// Constant weights where the CPU has AVX-512F or AVX2 with FMA: pointwise_gemm.h's GEMM,
// weights packed at prepare, the step's epilogue run on each tile as it is
// finished (RunConvGemm: the GEMM of a 1x1 convolution over every pixel).
// Otherwise XNNPACK's operator; without one, the kernel's own code: few
// rows, one dot product per unit, units split across threads; many rows,
// the packed GEMM, row blocks split across threads.
#include <algorithm>
#include <memory>

#include "cpu_kernels/micro/gemm/gemm.h"
#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {

// One FULLY_CONNECTED node, checked.
struct FcArgs {
  const TensorData* in = nullptr;
  const TensorData* weights = nullptr;
  const TensorData* bias = nullptr;
  TensorData* out = nullptr;
  int64_t units = 0, depth = 0, rows = 0;
  Activation activation = Activation::kNone;
};

Status GetFcArgs(const KernelContext& ctx, FcArgs* a) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const FullyConnectedAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& weights = *ctx.inputs[1];
  const TensorData* bias = OptionalInput(ctx, 2);
  const TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, weights, DataType::kFloat32, "weights"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (bias) GLD_RETURN_IF_ERROR(CheckType(ctx, *bias, DataType::kFloat32, "bias"));
  if (weights.shape.size() != 2 || weights.shape[1] <= 0) {
    return KernelError(ctx, "weights must be [units, depth], got " + ShapeToString(weights.shape));
  }
  const int64_t units = weights.shape[0], depth = weights.shape[1];
  const int64_t rows = in.num_elements() / depth;
  if (in.num_elements() % depth != 0 || out.num_elements() != rows * units ||
      (bias && bias->num_elements() != units)) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", weights " +
                                ShapeToString(weights.shape) + ", output " + ShapeToString(out.shape) +
                                (bias ? ", bias " + ShapeToString(bias->shape) : std::string()));
  }
  *a = {&in, &weights, bias, ctx.outputs[0], units, depth, rows, attrs->activation};
  return OkStatus();
}

xnn_status SetupFullyConnected(const KernelContext& ctx, xnn_operator_t op, pthreadpool_t pool) {
  const int64_t depth = ctx.inputs[1]->shape[1];
  return xnn_setup_fully_connected_nc_f32(op, static_cast<size_t>(ctx.inputs[0]->num_elements() / depth),
                                          ctx.inputs[0]->as<float>(), ctx.outputs[0]->as<float>(), pool);
}

// Keeps the weights packed for pointwise_gemm.h's GEMM (true) when they
// and the bias are constant, the activation is a clamp and the CPU has
// AVX-512F or AVX2; *status set when the packing's memory cannot be had.
bool PreparePointwiseFc(KernelContext& ctx, const FcArgs& a, Status* status) {
  *status = OkStatus();
  if (ctx.state == nullptr || !PointwiseGemmAvailable() || !IsClampActivation(a.activation) ||
      !ctx.InputIsConstant(1) || (a.bias != nullptr && !ctx.InputIsConstant(2)) || a.rows == 0 || a.units == 0) {
    return false;
  }
  auto state = std::make_unique<ConvGemmState>();
  state->pointwise = true;
  state->range = GetActivationRange(a.activation);
  state->group_ic = a.depth;
  state->weights.resize(1);
  *status = PackPointwiseWeights(a.weights->as<float>(), a.bias != nullptr ? a.bias->as<float>() : nullptr, a.units,
                                 a.depth, KernelLabel(ctx) + " packed weights", &state->weights[0]);
  if (!status->ok()) return false;
  *ctx.state = std::move(state);
  return true;
}

}  // namespace

Status PrepareFullyConnected(KernelContext& ctx) {
  FcArgs a;
  GLD_RETURN_IF_ERROR(GetFcArgs(ctx, &a));
  Status packed;
  if (PreparePointwiseFc(ctx, a, &packed)) return OkStatus();
  GLD_RETURN_IF_ERROR(packed);
  if (!XnnMayTake(ctx) || !XnnWeightsAreConstant(ctx, 1, 2) || a.rows == 0 || a.units == 0) return OkStatus();
  const ActivationRange range = XnnOutputRange();
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_fully_connected_nc_f32(
      static_cast<size_t>(a.depth), static_cast<size_t>(a.units), static_cast<size_t>(a.depth),
      static_cast<size_t>(a.units), a.weights->as<float>(), a.bias != nullptr ? a.bias->as<float>() : nullptr,
      range.lo, range.hi, 0, &op);
  KeepXnnOperator(ctx, s, op, a.activation, SetupFullyConnected);
  return OkStatus();
}

Status RunFullyConnected(KernelContext& ctx) {
  if (RunConvGemm(ctx)) return OkStatus();
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  FcArgs a;
  GLD_RETURN_IF_ERROR(GetFcArgs(ctx, &a));
  const TensorData& in = *a.in;
  const TensorData& weights = *a.weights;
  const TensorData* bias = a.bias;
  TensorData& out = *a.out;
  const int64_t units = a.units, depth = a.depth, rows = a.rows;
  const float* x = in.as<float>();
  const float* w = weights.as<float>();
  const float* b = bias ? bias->as<float>() : nullptr;
  float* y = out.as<float>();
  const Activation act = a.activation;
  if (rows == 0 || units == 0) return OkStatus();
  if (rows < kGemmMr) {
    ParallelForGrain(ctx, units, std::max<int64_t>(1, 8192 / depth),
                     [&](int64_t u0, int64_t u1) { DotRows(x, rows, w, depth, u0, u1, b, y, units, act); });
    return OkStatus();
  }
  PackedWeights scratch;
  const PackedB& packed = PackWeightsOnce(ctx, 1, &scratch, [&](std::vector<PackedB>* p) {
    p->resize(1);
    PackGemmB(w, depth, units, 1, depth, &(*p)[0]);
  })[0];
  const bool clamp = IsClampActivation(act);
  const ActivationRange range = clamp ? GetActivationRange(act) : ActivationRange{};
  constexpr int64_t kRowsPerBlock = 32;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  ctx.ParallelFor(blocks, [&](int64_t bb, int64_t be) {
    for (int64_t blk = bb; blk < be; ++blk) {
      const int64_t r0 = blk * kRowsPerBlock;
      const int64_t n = std::min(kRowsPerBlock, rows - r0);
      GemmRows(x + r0 * depth, depth, n, packed, b, y + r0 * units, units, range);
      if (!clamp) ApplyActivationInPlace(act, y + r0 * units, n * units);
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
