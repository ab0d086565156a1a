// The LSTM cell on the GPU: LSTM's basic kernel (basic_lstm.comp around a
// fully_connected.comp of the gates), and LSTM's full kernel and
// UNIDIRECTIONAL_SEQUENCE_LSTM as one cell looped over time (lstm.comp,
// between two lstm_state.comp copies of the output state). The states of the
// full kernel are variable tensors the op updates in place: the segment
// keeps them in its arena across runs (gl/segment_plan.h, SegmentPlan::
// variables), so the node must be their only user.
#include <algorithm>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

// TFLite's LSTM inputs (graph/shapes/recurrent.cc checked their shapes).
constexpr size_t kInputToInput = 1, kRecurrentToInput = 5, kInputGateBias = 12;
constexpr size_t kPeepholeFirst = 9, kPeepholeLast = 11, kProjection = 16, kProjectionBias = 17;
constexpr size_t kOutputState = 18, kCellState = 19, kLayerNormFirst = 20;

// Workgroup width of lstm.comp: the unit slices, up to 64 (the GLES 3.1
// minimum is 128 invocations).
constexpr int32_t kMaxCellWorkgroup = 64;
// lstm.comp keeps the previous output in shared memory: 16 bytes a slice,
// within the GLES 3.1 minimum of 16384 bytes.
constexpr int32_t kMaxSharedSlices = 1024;

// A state the op updates in place: a variable tensor that no other node
// reads or writes and that is no graph input or output, so the segment may
// keep it.
Status CheckOwnedState(OpBuildContext& ctx, size_t input) {
  const int t = ctx.input_index(input);
  if (t < 0) return ctx.Invalid("state input " + std::to_string(input) + " is missing");
  const Graph& g = ctx.graph();
  const Tensor& tensor = g.tensors[static_cast<size_t>(t)];
  if (!tensor.is_variable) return ctx.Invalid("state '" + tensor.name + "' is not a variable tensor");
  if (g.IsGraphInput(t) || g.IsGraphOutput(t)) {
    return ctx.Unsupported("state '" + tensor.name +
                           "' is a graph input or output; the GL path keeps a state inside its segment");
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (n == ctx.node_index()) continue;
    const Node& other = g.nodes[n];
    const bool uses = std::count(other.inputs.begin(), other.inputs.end(), t) != 0 ||
                      std::count(other.outputs.begin(), other.outputs.end(), t) != 0;
    if (uses) {
      return ctx.Unsupported("state '" + tensor.name + "' is also used by " + g.NodeLabel(n) +
                             "; the GL path keeps a state in the segment of the one node that updates it");
    }
  }
  return OkStatus();
}

// The variants of the full kernel the GL cell does not compute, each with
// its reason.
Status CheckPlainCell(OpBuildContext& ctx) {
  for (size_t k = kPeepholeFirst; k <= kPeepholeLast; ++k) {
    if (ctx.input(k) != nullptr) return ctx.Unsupported("peephole weights (inputs 9..11) have no GL kernel yet");
  }
  if (ctx.input(kProjection) != nullptr || ctx.input(kProjectionBias) != nullptr) {
    return ctx.Unsupported("the projection (inputs 16, 17) has no GL kernel yet");
  }
  for (size_t k = kLayerNormFirst; k < ctx.num_inputs(); ++k) {
    if (ctx.input(k) != nullptr) {
      return ctx.Unsupported("layer normalisation (inputs 20..23) has no GL kernel yet");
    }
  }
  for (size_t k = kInputToInput; k <= 15; ++k) {
    const Tensor* t = ctx.input(k);
    if (t != nullptr && t->type != DataType::kFloat32 && t->type != DataType::kFloat16) {
      return ctx.Unsupported(std::string(DataTypeName(t->type)) + " weights '" + t->name +
                             "' (a hybrid LSTM) have no GL kernel; the GL cell takes float weights");
    }
    if (t != nullptr && !t->is_constant) return ctx.Unsupported("weights '" + t->name + "' are not constant");
  }
  return OkStatus();
}

// lstm.comp's weights: per unit slice the four gates' biases (a vec4 each),
// then per gate the input weights and the recurrent weights, 4 vec4s per
// slice of inputs (vec4 j: unit 4s + j over 4 inputs). A coupled cell's input
// gate stays zero.
std::vector<float> PackCellWeights(OpBuildContext& ctx, int32_t units, int32_t n_input) {
  const int32_t slices = (units + 3) / 4, x_slices = (n_input + 3) / 4;
  const size_t gate_stride = 4 * static_cast<size_t>(x_slices + slices);
  const size_t slice_stride = 4 + 4 * gate_stride;
  std::vector<float> r(static_cast<size_t>(slices) * slice_stride * 4, 0.0f);
  for (size_t q = 0; q < 4; ++q) {
    if (ctx.input(kInputToInput + q) == nullptr) continue;  // coupled input gate
    const std::vector<float> wx = *ctx.ConstantFloats(kInputToInput + q);
    const std::vector<float> wh = *ctx.ConstantFloats(kRecurrentToInput + q);
    std::vector<float> bias;
    if (ctx.input(kInputGateBias + q) != nullptr) bias = *ctx.ConstantFloats(kInputGateBias + q);
    for (int32_t u = 0; u < units; ++u) {
      const size_t s = static_cast<size_t>(u / 4), j = static_cast<size_t>(u % 4);
      const size_t base = s * slice_stride;
      if (!bias.empty()) r[(base + q) * 4 + j] = bias[static_cast<size_t>(u)];
      const size_t gate = base + 4 + q * gate_stride;
      for (int32_t c = 0; c < n_input; ++c) {
        r[(gate + 4 * static_cast<size_t>(c / 4) + j) * 4 + static_cast<size_t>(c % 4)] =
            wx[static_cast<size_t>(u) * static_cast<size_t>(n_input) + static_cast<size_t>(c)];
      }
      for (int32_t c = 0; c < units; ++c) {
        r[(gate + 4 * static_cast<size_t>(x_slices + c / 4) + j) * 4 + static_cast<size_t>(c % 4)] =
            wh[static_cast<size_t>(u) * static_cast<size_t>(units) + static_cast<size_t>(c)];
      }
    }
  }
  return r;
}

// The copy of the output state to (to_state) or from the output sequence's
// last time row.
Dispatch StateCopy(OpBuildContext& ctx, bool to_state, const Bhwc& state, const Bhwc& seq,
                   const std::array<int32_t, 4>& u_seq) {
  Dispatch d;
  d.shader.template_name = "lstm_state.comp";
  d.shader.Define("TO_STATE", to_state ? 1 : 0);
  const DispatchBufferRef state_ref{DispatchBufferRef::kTensor, ctx.input_index(kOutputState)};
  const DispatchBufferRef seq_ref{DispatchBufferRef::kTensor, ctx.output_index(0)};
  d.Bind(0, to_state ? state_ref : seq_ref).Bind(1, to_state ? seq_ref : state_ref);
  d.IVec4("u_state", state).IVec4("u_seq_shape", seq).IVec4("u_seq", u_seq);
  d.GridOver(state);
  return d;
}

// LSTM's full kernel (time = 1) and UNIDIRECTIONAL_SEQUENCE_LSTM.
Status BuildLstmCell(OpBuildContext& ctx, const RecurrentAttributes& a, bool sequence, std::vector<Dispatch>* out) {
  if (ctx.num_inputs() < 20 || ctx.num_outputs() != 1) return ctx.Invalid("expects 20..24 inputs and 1 output");
  GLD_RETURN_IF_ERROR(CheckPlainCell(ctx));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc h_state, ctx.GpuShape(ctx.input_index(kOutputState)));
  GLD_ASSIGN_OR_RETURN(Bhwc c_state, ctx.GpuShape(ctx.input_index(kCellState)));
  GLD_RETURN_IF_ERROR(CheckOwnedState(ctx, kOutputState));
  GLD_RETURN_IF_ERROR(CheckOwnedState(ctx, kCellState));
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(a.activation, ctx.op_name()));
  const Shape& x = ctx.input(0)->shape;
  const bool time_major = sequence && a.time_major;
  const int32_t batch = sequence ? (time_major ? x[1] : x[0]) : x[0];
  const int32_t time = sequence ? (time_major ? x[0] : x[1]) : 1;
  const int32_t n_input = x.back(), units = c_state.c;
  if (h_state.c != units || o.c != units) {
    return ctx.Invalid("output state, cell state and output differ in width");
  }
  const int32_t slices = (units + 3) / 4;
  if (slices > kMaxSharedSlices) {
    return ctx.Unsupported(std::to_string(units) + " units: the GL cell keeps at most " +
                           std::to_string(4 * kMaxSharedSlices) + " in shared memory (16 KiB, the GLES 3.1 minimum)");
  }
  for (size_t k = kInputToInput; k <= 15; ++k) {
    if (ctx.input(k) != nullptr) GLD_RETURN_IF_ERROR(ctx.ConstantFloats(k).status());
  }
  DispatchBufferRef weights = ctx.AddConstant("gates", [&ctx, units, n_input] {
    return PackCellWeights(ctx, units, n_input);
  });
  const int32_t wg = std::min(kMaxCellWorkgroup, slices);
  const std::array<int32_t, 4> u_seq = {batch, time, time_major ? 1 : 0, units};
  out->push_back(StateCopy(ctx, false, h_state, o, u_seq));
  Dispatch d;
  d.shader.template_name = "lstm.comp";
  d.shader.Define("SLICES", slices)
      .Define("X_SLICES", (n_input + 3) / 4)
      .Define("PER_INV", (slices + wg - 1) / wg)
      .Define("CIFG", ctx.input(kInputToInput) == nullptr ? 1 : 0)
      .Define("ACTIVATION", act);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, weights)
      .Bind(3, {DispatchBufferRef::kTensor, ctx.input_index(kCellState)});
  d.IVec4("u_out", o).IVec4("u_in", in).IVec4("u_seq", u_seq).Float("u_cell_clip", a.cell_clip);
  d.grid = {static_cast<uint32_t>(wg), static_cast<uint32_t>(batch), 1};
  d.workgroup = {static_cast<uint32_t>(wg), 1, 1};
  out->push_back(std::move(d));
  out->push_back(StateCopy(ctx, true, h_state, o, u_seq));
  return OkStatus();
}

// LSTM's basic kernel: concatenation, gates (fully_connected.comp), cell.
Status BuildBasicLstm(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  if (ctx.num_inputs() != 5 || ctx.num_outputs() != 4) return ctx.Invalid("the basic kernel has 5 inputs and 4 outputs");
  GLD_ASSIGN_OR_RETURN(Bhwc x, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc h, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc prev_state, ctx.InputShape(4));
  GLD_ASSIGN_OR_RETURN(Bhwc act, ctx.OutputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc state, ctx.OutputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc concat, ctx.OutputShape(2));
  GLD_ASSIGN_OR_RETURN(Bhwc gates, ctx.OutputShape(3));
  const int32_t units = h.c, depth = x.c + h.c;
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", concat.c, depth));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", gates.c, 4 * units));
  const Tensor* w = ctx.input(2);
  if (w == nullptr || !w->is_constant) return ctx.Unsupported("the weights are not constant");
  GLD_RETURN_IF_ERROR(ctx.ConstantFloats(2).status());

  Dispatch cat;
  cat.shader.template_name = "basic_lstm.comp";
  cat.shader.Define("STAGE", 0);
  cat.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(2)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)});
  cat.IVec4("u_out", concat).IVec4("u_a", x).IVec4("u_b", h);
  cat.GridOver(concat);
  out->push_back(std::move(cat));

  const Blocking k = BlockingFor(4 * units);
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, 3, 4 * units, k.padded_slices));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, units, depth, k] {
    return RepackOhwiWeights(*ctx.ConstantFloats(2), 4 * units, 1, 1, depth, k.block);
  });
  out->push_back(FullyConnectedDispatch(ctx.output_index(3), ctx.output_index(2), weights, bias, gates, concat, k,
                                        "ACT_NONE"));

  Dispatch cell;
  cell.shader.template_name = "basic_lstm.comp";
  cell.shader.Define("STAGE", 1);
  cell.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.output_index(1)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.output_index(3)})
      .Bind(3, {DispatchBufferRef::kTensor, ctx.input_index(4)});
  cell.IVec4("u_out", act).IVec4("u_a", gates).IVec4("u_b", prev_state);
  cell.GridOver(state);
  out->push_back(std::move(cell));
  return OkStatus();
}

}  // namespace

Status BuildLstm(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* a = std::get_if<RecurrentAttributes>(&ctx.node().attributes);
  if (a == nullptr) return ctx.Invalid("missing RecurrentAttributes");
  if (a->basic_kernel) return BuildBasicLstm(ctx, out);
  return BuildLstmCell(ctx, *a, /*sequence=*/false, out);
}

Status BuildUnidirectionalSequenceLstm(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* a = std::get_if<RecurrentAttributes>(&ctx.node().attributes);
  if (a == nullptr) return ctx.Invalid("missing RecurrentAttributes");
  return BuildLstmCell(ctx, *a, /*sequence=*/true, out);
}

}  // namespace gld::gl
