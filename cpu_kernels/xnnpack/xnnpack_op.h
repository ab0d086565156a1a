// XNNPACK operators behind the CPU kernels of the heavy float ops (CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV, pooling). A kernel's
// prepare creates the operator once (XNNPACK packs the weights then) and keeps
// it in the node's state slot; each run sets it up for the node's buffers when
// they moved and runs it on the context's thread pool. A node XNNPACK cannot
// take (a filter that is not a constant, an unsupported geometry, an XNNPACK
// that does not initialize on this CPU) keeps no operator and runs on the
// kernel's own code. Internal to cpu_kernels/.
#pragma once

#include <xnnpack.h>

#include <functional>
#include <optional>

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

// True once XNNPACK initialized for this process (checked once).
bool XnnAvailable();

// The output range operators are created with: always +-infinity. XNNPACK
// clamps with max(acc, min), which turns a NaN into `min`: a fused activation
// is applied after the operator instead, keeping NaN as the CPU kernels and
// LiteRT do (see XnnOperatorState::Run).
ActivationRange XnnOutputRange();

// What bounds a linear operator's output (a convolution's, a fully connected
// layer's) by its input x: every output channel j has
//   |y_j| <= |b_j| + max|x| * sum_k |w_jk| <= bias_max + max|x| * weight_l1_max,
// whatever order the sums run in, up to rounding (k is limited so that
// rounding adds less than an eighth).
//
// An operator kept with a bound is created with the node's clamp, so XNNPACK
// applies the activation in its own output stage, and the output pass is
// dropped: one read-only pass over the input decides each run instead. An
// input with a NaN or an infinity, or large enough that an output might
// overflow, runs the kernel's own code, as an output check would have;
// otherwise every output is finite, which the check would have found, and
// for finite values XNNPACK's clamp is the activation. Worth it where the
// input is the smaller tensor (the expanding 1x1 convolutions of MobileNet
// blocks: their output pass was a quarter of their time).
struct XnnLinearBound {
  size_t input = 0;  // the operand x
  double bias_max = 0;
  double weight_l1_max = 0;
};
// The bound of `channels` rows of `k` weights and an optional bias (nullptr:
// none); nullopt when a weight or bias is not finite, or k is too long.
std::optional<XnnLinearBound> LinearBoundOf(const float* weights, int64_t channels, int64_t k, const float* bias);

// The operator of one node, with what its last setup was made for.
// final: FindXnnOperator tells it by its exact type, not a dynamic_cast.
class XnnOperatorState final : public KernelState {
 public:
  // Sets the operator up for the node's current buffers (when it has not
  // been yet for these pointers) and runs it.
  using SetupFn = std::function<xnn_status(const KernelContext&, xnn_operator_t, pthreadpool_t)>;
  XnnOperatorState(xnn_operator_t op, Activation after, SetupFn setup,
                   std::optional<XnnLinearBound> bound = std::nullopt)
      : op_(op), after_(after), setup_(std::move(setup)), bound_(bound) {}
  ~XnnOperatorState() override;
  XnnOperatorState(const XnnOperatorState&) = delete;
  XnnOperatorState& operator=(const XnnOperatorState&) = delete;

  // Runs the operator, then, in one pass over each output, the fused
  // activation and (output 0) the step's epilogue, setting
  // ctx.epilogue_done (epilogue.h). Even unclamped, XNNPACK's
  // output stage turns a NaN into an infinity (-inf for convolutions and
  // elementwise ops, +inf for the deconvolution); so when an output holds an
  // infinity (which only a NaN, an infinite input or an overflow makes),
  // *done is false and the kernel runs its own code for this run, with exact
  // NaN and infinity semantics (ctx.state is then cleared so that the own
  // code leaves the operator in its slot alone). An operator with a bound
  // decides from its input before it runs instead (XnnLinearBound), and
  // leaves an epilogue to the step.
  Status Run(KernelContext& ctx, bool* done);
  // Sets the operator up for the node's current buffers unless its last
  // setup was for these (Run does it first; KeepXnnOperator at prepare, so
  // the first inference finds it done).
  Status SetUp(const KernelContext& ctx);
  // Whether the last setup was for the context's buffers and pool.
  bool IsSetUpFor(const KernelContext& ctx) const;
  // Whether runs are decided from the input (kept with an XnnLinearBound).
  bool decides_from_input() const { return bound_.has_value(); }

 private:
  // Whether this run's input keeps every output finite (bound_ set).
  bool InputBoundsOutput(const KernelContext& ctx) const;

  xnn_operator_t op_;
  Activation after_;  // the fused activation, applied after the run (none with a bound)
  SetupFn setup_;
  std::optional<XnnLinearBound> bound_;
  std::vector<const void*> set_up_for_;  // input and output pointers of the last setup
  pthreadpool_t set_up_pool_ = nullptr;
};

// Keeps `op` (created by an xnn_create_* call that returned `status`) in the
// node's state slot, set up for the context's buffers, or nothing when the
// creation or the setup failed (the kernel then runs its own code). `setup`
// binds the context's buffers. With a bound, `op` was created with the
// activation's range (XnnLinearBound).
void KeepXnnOperator(KernelContext& ctx, xnn_status status, xnn_operator_t op, Activation activation,
                     XnnOperatorState::SetupFn setup, std::optional<XnnLinearBound> bound = std::nullopt);

// The node's XNNPACK operator, or nullptr when it has none.
XnnOperatorState* FindXnnOperator(const KernelContext& ctx);

// Runs the node's XNNPACK operator when it has one; true when its output
// stands, false when the kernel must run its own code (no operator, or an
// output that needs the exact NaN/infinity path).
StatusOr<bool> RunXnnOperator(KernelContext& ctx);

// Whether prepare may create an operator for the node: XNNPACK initialized,
// the node has a state slot, and input 0 is not a constant (XNNPACK keeps
// pointers to its input from setup and may read up to 16 bytes past it,
// which the runtime's buffers allow and a constant's may not).
bool XnnMayTake(const KernelContext& ctx);
// Weights input and optional bias input are constants (packed at creation).
bool XnnWeightsAreConstant(const KernelContext& ctx, size_t weights, size_t bias);

// Window geometry of a 2-D convolution or pooling over NHWC tensors.
struct XnnWindow {
  int64_t kh, kw, sh, sw, dh, dw;
  int64_t pad_t, pad_l, pad_b = 0, pad_r = 0;
};
// The window of a node's geometry (graph/conv_geometry.h), its trailing
// padding not yet filled (CompleteXnnWindow).
inline XnnWindow XnnWindowOf(const ConvGeometry& g) {
  return {g.h().filter, g.w().filter, g.h().stride, g.w().stride, g.h().dilation, g.w().dilation,
          g.h().pad_before, g.w().pad_before};
}
// Fills the trailing padding that makes in [N, H, W, C] give out's H and W;
// false when XNNPACK cannot express the window (negative padding).
bool CompleteXnnWindow(const Shape& in, const Shape& out, XnnWindow* w);

}  // namespace gld::cpu
