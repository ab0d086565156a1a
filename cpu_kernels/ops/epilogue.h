// CPU epilogues: a chain of elementwise nodes (ADD/SUB/MUL/DIV of one shape
// or by one value,
// PRELU with a slope per channel, GELU exact or tanh) run in one pass over the output of the node
// before them, block by block while the block is in cache, instead of one
// pass and one parallel loop per node. The runtime plans the chains
// (runtime/plan.h, PlanCpuEpilogues) and a CPU step runs its node, then the
// chain; an XNNPACK operator runs it inside the pass that checks its output
// (xnnpack_op.h), so the chain costs no pass of its own. Each step computes
// what the node's own kernel computes, element by element: results are
// identical, NaN and infinities included. Internal to the library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_kernels/kernel_interface.h"

namespace gld::cpu {

enum class EpilogueKind : uint8_t {
  kAdd,    // x + operand (or operand + x: the node's operand order is kept)
  kSub,
  kMul,
  kDiv,
  kPrelu,  // x >= 0 ? x : x * slope[channel]
  kGelu,      // GELU of x alone (no operand): exact
  kGeluTanh,  // its tanh approximation
};

// GELU's kinds read no operand.
inline bool EpilogueKindIsUnary(EpilogueKind k) { return k == EpilogueKind::kGelu || k == EpilogueKind::kGeluTanh; }

// How node `node` of `graph` runs as an epilogue step on its input tensor
// `x` (the chain's value), from the graph alone: shapes must be final.
struct EpilogueStepSpec {
  EpilogueKind kind = EpilogueKind::kAdd;
  int operand = -1;  // the other input tensor, or PRELU's slope; -1 for GELU
  bool x_first = true;  // x is the node's input 0
  bool scalar = false;  // the operand is one value, broadcast (ADD/SUB/MUL/DIV)
  Activation activation = Activation::kNone;  // a clamp activation
  // The operand is a zero PAD of tensor `operand` along the last dimension
  // only, `pad_before` channels ahead (AbsorbChannelPad); -1: not padded.
  int pad_node = -1;
  int64_t pad_before = 0;
};
// False when the node cannot (not one of the ops above, not float32, an
// operand of another shape than the output and more than one value, a slope that is not one per
// channel, an activation other than a clamp, or x on both sides).
// GELU's step (a matmul's or a fully connected layer's GELU) runs
// vector_math.h's GeluRow: the GELU kernel's own values.
bool EpilogueStepFor(const Graph& graph, size_t node, int x, EpilogueStepSpec* spec);

// When node `pad_node` is a PAD of a float32 tensor with zeros along the last
// dimension only (paddings a constant), makes spec read that tensor and pad
// it on the fly, so that the PAD needs no pass of its own (a channel padding
// before a residual ADD); false otherwise. spec is for an ADD/SUB/MUL/DIV.
bool AbsorbChannelPad(const Graph& graph, size_t pad_node, EpilogueStepSpec* spec);

// A chain bound to its run-time buffers.
struct EpilogueStep {
  EpilogueKind kind = EpilogueKind::kAdd;
  const float* operand = nullptr;  // of the output's size, `channels` slopes, or one value
  bool x_first = true;
  bool clamp = false;
  float lo = 0.f, hi = 0.f;
  bool scalar = false;  // operand[0] against every value
  // > 0: operand holds rows of operand_channels values, read zero-padded
  // to the output's rows with pad_before zeros ahead.
  int64_t operand_channels = 0;
  int64_t pad_before = 0;
};
struct Epilogue {
  std::vector<EpilogueStep> steps;
  float* out = nullptr;      // the last step's output
  int64_t channels = 1;      // the output's last dimension (PRELU's slope index)
  int64_t elements = 0;      // of the chain's input and of out
};

// Binds spec to the buffers; InvalidArgument naming `label` when a buffer's
// shape does not match (the plan saw other shapes). A GELU step reads no
// operand (any TensorData).
Status BindEpilogueStep(const EpilogueStepSpec& spec, const TensorData& operand, const TensorData& out,
                        const std::string& label, EpilogueStep* step);

// Elements of one block: the steps run over a block while it stays in L1.
constexpr int64_t kEpilogueBlock = 1024;

// Runs the chain on x[begin, end) (x holds the chain's input, `elements`
// values), writing e.out[begin, end); x is only read.
void RunEpilogue(const Epilogue& e, const float* x, int64_t begin, int64_t end);

}  // namespace gld::cpu
