#include "cpu_kernels/xnnpack/xnnpack_op.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>

#include "cpu_kernels/ops/epilogue.h"
#include "cpu_kernels/xnnpack/finite_check.h"

namespace gld::cpu {

bool XnnAvailable() {
  static const bool available = xnn_initialize(nullptr) == xnn_status_success;
  return available;
}

ActivationRange XnnOutputRange() { return ActivationRange{}; }

namespace {
// The output check and the input bound run on the pool from this many values.
constexpr int64_t kCheckParallelMin = 1 << 15;
}  // namespace

XnnOperatorState::~XnnOperatorState() { xnn_delete_operator(op_); }

namespace {
// Buffer i of the context in the order set_up_for_ keeps them: the inputs,
// then the outputs.
const void* ContextBuffer(const KernelContext& ctx, size_t i) {
  if (i < ctx.inputs.size()) return ctx.inputs[i] != nullptr ? ctx.inputs[i]->data : nullptr;
  return ctx.outputs[i - ctx.inputs.size()]->data;
}
}  // namespace

bool XnnOperatorState::IsSetUpFor(const KernelContext& ctx) const {
  // Compared without allocating: a run whose buffers have not moved skips
  // the setup.
  const size_t count = ctx.inputs.size() + ctx.outputs.size();
  if (set_up_for_.size() != count || ctx.threadpool != set_up_pool_) return false;
  for (size_t i = 0; i < count; ++i) {
    if (set_up_for_[i] != ContextBuffer(ctx, i)) return false;
  }
  return true;
}

Status XnnOperatorState::SetUp(const KernelContext& ctx) {
  if (IsSetUpFor(ctx)) return OkStatus();
  const size_t count = ctx.inputs.size() + ctx.outputs.size();
  std::vector<const void*> buffers(count);
  for (size_t i = 0; i < count; ++i) buffers[i] = ContextBuffer(ctx, i);
  const xnn_status s = setup_(ctx, op_, ctx.threadpool);
  if (s != xnn_status_success) {
    set_up_for_.clear();
    return InternalError(KernelLabel(ctx) + ": XNNPACK setup failed (status " + std::to_string(s) + ")");
  }
  set_up_for_ = std::move(buffers);
  set_up_pool_ = ctx.threadpool;
  return OkStatus();
}

Status XnnOperatorState::Run(KernelContext& ctx, bool* done) {
  *done = false;
  GLD_RETURN_IF_ERROR(SetUp(ctx));
  if (bound_.has_value() && !InputBoundsOutput(ctx)) {
    ctx.state = nullptr;
    return OkStatus();
  }
  const xnn_status s = xnn_run_operator(op_, ctx.threadpool);
  if (s != xnn_status_success) {
    return InternalError(KernelLabel(ctx) + ": XNNPACK run failed (status " + std::to_string(s) + ")");
  }
  if (bound_.has_value()) {
    *done = true;  // finite and clamped by XNNPACK; an epilogue gets the step's pass
    return OkStatus();
  }
  // One pass per output: the check for what only a NaN, an infinite input
  // or an overflow makes, the fused activation, and the step's epilogue on
  // output 0, block by block; split across the pool like the operator (a
  // node run on the calling thread alone has none).
  for (size_t o = 0; o < ctx.outputs.size(); ++o) {
    TensorData* out = ctx.outputs[o];
    if (out->type != DataType::kFloat32) continue;
    float* data = out->as<float>();
    const Epilogue* epilogue = o == 0 ? ctx.epilogue : nullptr;
    std::atomic<bool> finite{true};
    ParallelForElements(ctx, out->num_elements(), kCheckParallelMin, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; i += kEpilogueBlock) {
        const int64_t n = std::min(kEpilogueBlock, e - i);
        if (!ActivateCheckingFinite(after_, data + i, n)) finite.store(false, std::memory_order_relaxed);
        if (epilogue != nullptr) RunEpilogue(*epilogue, data, i, i + n);
      }
    });
    if (!finite.load()) {
      ctx.state = nullptr;
      return OkStatus();
    }
  }
  ctx.epilogue_done = ctx.epilogue != nullptr;  // bound only to a float32 output 0 (CpuNodeStep)
  *done = true;
  return OkStatus();
}

bool XnnOperatorState::InputBoundsOutput(const KernelContext& ctx) const {
  const TensorData* in = ctx.inputs[bound_->input];
  const float* x = in->as<float>();
  std::mutex mu;
  float largest = 0.f;
  ParallelForElements(ctx, in->num_elements(), kCheckParallelMin, [&](int64_t b, int64_t e) {
    const float m = MaxAbs(x + b, e - b);
    std::lock_guard<std::mutex> lock(mu);
    largest = MaxAbsOf(largest, m);
  });
  // NaN or infinity in the input make the bound NaN or infinite: false.
  const double bound = bound_->bias_max + static_cast<double>(largest) * bound_->weight_l1_max;
  return bound <= static_cast<double>(std::numeric_limits<float>::max()) / 2;
}

std::optional<XnnLinearBound> LinearBoundOf(const float* weights, int64_t channels, int64_t k, const float* bias) {
  // Rounding grows a sum of k terms by at most k units of 2^-24 of its
  // magnitude bound: under an eighth for k below 2^20.
  if (k >= (int64_t{1} << 20)) return std::nullopt;
  XnnLinearBound b;
  for (int64_t j = 0; j < channels; ++j) {
    double l1 = 0;
    const float* row = weights + j * k;
    for (int64_t i = 0; i < k; ++i) l1 += std::fabs(static_cast<double>(row[i]));
    const double bj = bias != nullptr ? std::fabs(static_cast<double>(bias[j])) : 0.0;
    if (!std::isfinite(l1) || !std::isfinite(bj)) return std::nullopt;  // a NaN or infinite weight or bias
    b.weight_l1_max = std::max(b.weight_l1_max, l1);
    b.bias_max = std::max(b.bias_max, bj);
  }
  return b;
}

StatusOr<bool> RunXnnOperator(KernelContext& ctx) {
  XnnOperatorState* xnn = FindXnnOperator(ctx);
  if (xnn == nullptr) return false;
  bool done = false;
  GLD_RETURN_IF_ERROR(xnn->Run(ctx, &done));
  return done;
}

void KeepXnnOperator(KernelContext& ctx, xnn_status status, xnn_operator_t op, Activation activation,
                     XnnOperatorState::SetupFn setup, std::optional<XnnLinearBound> bound) {
  if (status != xnn_status_success || op == nullptr || ctx.state == nullptr) {
    if (op != nullptr) xnn_delete_operator(op);
    return;
  }
  auto state = std::make_unique<XnnOperatorState>(op, bound.has_value() ? Activation::kNone : activation,
                                                  std::move(setup), bound);
  // Set up now, for the buffers the runtime planned (XNNPACK builds a
  // convolution's indirection buffer here), so that the first inference
  // does not; one that fails leaves the node to the kernel's own code.
  if (state->SetUp(ctx).ok()) *ctx.state = std::move(state);
}

XnnOperatorState* FindXnnOperator(const KernelContext& ctx) { return StateAs<XnnOperatorState>(ctx); }

bool XnnMayTake(const KernelContext& ctx) {
  return XnnAvailable() && ctx.state != nullptr && !ctx.InputIsConstant(0);
}

bool XnnWeightsAreConstant(const KernelContext& ctx, size_t weights, size_t bias) {
  return ctx.InputIsConstant(weights) && (OptionalInput(ctx, bias) == nullptr || ctx.InputIsConstant(bias));
}

namespace {
// The trailing padding that turns `in` positions into `out` ones for a window
// of `effective_kernel` at `stride` after `before` leading positions. A window
// that leaves fewer than `stride` trailing positions unread (VALID padding
// where the stride does not divide the extent) needs none: XNNPACK's output
// size rounds down as TFLite's does, so padding 0 gives `out` positions.
bool TrailingPadding(int64_t in, int64_t out, int64_t effective_kernel, int64_t stride, int64_t before,
                     int64_t* after) {
  *after = (out - 1) * stride + effective_kernel - in - before;
  if (*after < 0 && *after > -stride) *after = 0;
  return *after >= 0 && before >= 0;
}
}  // namespace

bool CompleteXnnWindow(const Shape& in, const Shape& out, XnnWindow* w) {
  return TrailingPadding(in[1], out[1], (w->kh - 1) * w->dh + 1, w->sh, w->pad_t, &w->pad_b) &&
         TrailingPadding(in[2], out[2], (w->kw - 1) * w->dw + 1, w->sw, w->pad_l, &w->pad_r);
}

}  // namespace gld::cpu
