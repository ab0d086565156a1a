// Shape rules of the recurrent ops (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN, SVDF) with TFLite's input numbering. Each rule
// checks every weight and state tensor against the sizes the input and the
// weights give, so the kernels index them without further doubt.
#include <string>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

namespace {

std::string Dims(std::initializer_list<int64_t> d) {
  Shape s;
  for (int64_t v : d) s.push_back(static_cast<int32_t>(v));
  return ShapeToString(s);
}

// Input i is float32 with exactly `dims`.
Status Expect(const RuleContext& ctx, size_t i, std::initializer_list<int64_t> dims) {
  const Tensor& t = ctx.In(i);
  if (t.type != DataType::kFloat32) {
    return ctx.Unimpl(ctx.Name(i) + " is " + DataTypeName(t.type) + "; only float32 is supported");
  }
  bool same = t.shape.size() == dims.size();
  size_t k = 0;
  for (int64_t d : dims) same = same && t.shape[k++] == d;
  if (!same) return ctx.Err(ctx.Name(i) + " is " + ShapeToString(t.shape) + ", expected " + Dims(dims));
  return OkStatus();
}

// min..max inputs, the optional ones (the op table's) among them may be
// absent; the cell checks say which are required.
Status InputCount(const RuleContext& ctx, size_t min, size_t max) {
  if (ctx.NumInputs() < min || ctx.NumInputs() > max) {
    return ctx.Err("expected " + std::to_string(min) + (max != min ? ".." + std::to_string(max) : "") +
                   " inputs, got " + std::to_string(ctx.NumInputs()));
  }
  if (!ctx.Has(0)) return ctx.Err("required input 0 is missing");
  return OkStatus();
}

// A state input: float32 `dims`, and a variable tensor (the kernels update
// it in place; a constant or a graph input must not be written).
Status ExpectState(const RuleContext& ctx, size_t i, std::initializer_list<int64_t> dims) {
  GLD_RETURN_IF_ERROR(Expect(ctx, i, dims));
  if (!ctx.In(i).is_variable) return ctx.Err(ctx.Name(i) + " is a state but not a variable tensor");
  return OkStatus();
}

Status ExpectAbsent(const RuleContext& ctx, size_t i, const std::string& why) {
  if (ctx.Has(i)) return ctx.Err(ctx.Name(i) + " must be absent " + why);
  return OkStatus();
}

Status FloatInput(const RuleContext& ctx, size_t i, size_t rank) {
  if (ctx.In(i).type != DataType::kFloat32) {
    return ctx.Unimpl(ctx.Name(i) + " is " + DataTypeName(ctx.In(i).type) + "; only float32 is supported");
  }
  return ctx.Rank(i, rank);
}

// One LSTM cell's tensors: the 17 weights from `w` (TFLite's LSTM inputs 1..17
// shifted by w - 1), the two states and, when ln >= 0, the four layer
// normalisation coefficients from `ln`. Finds n_cell and n_output.
struct CellIo {
  size_t w, act_state, cell_state;
  int ln;
};

Status CheckLstmCell(const RuleContext& ctx, const CellIo& io, int64_t batch, int64_t n_input, int64_t* n_cell,
                     int64_t* n_output) {
  const size_t w = io.w;  // input_to_input_weights; the others follow
  for (size_t k : {w + 1, w + 2, w + 3, w + 5, w + 6, w + 7, w + 12, w + 13, w + 14}) {
    if (!ctx.Has(k)) return ctx.Err("required input " + std::to_string(k) + " is missing");
  }
  GLD_RETURN_IF_ERROR(FloatInput(ctx, w + 1, 2));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, w + 5, 2));
  const int64_t nc = ctx.InShape(w + 1)[0], no = ctx.InShape(w + 5)[1];
  if (nc <= 0 || no <= 0) return ctx.Err("the cell has " + std::to_string(nc) + " units and " + std::to_string(no) + " outputs");
  const bool cifg = !ctx.Has(w);
  for (size_t g = 0; g < 4; ++g) {
    if (g == 0 && cifg) {
      GLD_RETURN_IF_ERROR(ExpectAbsent(ctx, w + 4, "when input_to_input_weights is (coupled input and forget gates)"));
      GLD_RETURN_IF_ERROR(ExpectAbsent(ctx, w + 11, "when input_to_input_weights is (coupled input and forget gates)"));
      continue;
    }
    GLD_RETURN_IF_ERROR(Expect(ctx, w + g, {nc, n_input}));
    GLD_RETURN_IF_ERROR(Expect(ctx, w + 4 + g, {nc, no}));
    GLD_RETURN_IF_ERROR(Expect(ctx, w + 11 + g, {nc}));
  }
  // Peepholes: forget and output together, input with them unless coupled.
  const bool peephole = ctx.Has(w + 9);
  if (ctx.Has(w + 10) != peephole || (!cifg && ctx.Has(w + 8) != peephole) || (cifg && ctx.Has(w + 8))) {
    return ctx.Err("the peephole weights (inputs " + std::to_string(w + 8) + ".." + std::to_string(w + 10) +
                   ") are neither all present nor all absent");
  }
  for (size_t k = w + 8; k <= w + 10; ++k) {
    if (ctx.Has(k)) GLD_RETURN_IF_ERROR(Expect(ctx, k, {nc}));
  }
  if (ctx.Has(w + 15)) {
    GLD_RETURN_IF_ERROR(Expect(ctx, w + 15, {no, nc}));
    if (ctx.Has(w + 16)) GLD_RETURN_IF_ERROR(Expect(ctx, w + 16, {no}));
  } else {
    if (nc != no) return ctx.Err("without projection the cell's units (" + std::to_string(nc) + ") and outputs (" + std::to_string(no) + ") differ");
    GLD_RETURN_IF_ERROR(ExpectAbsent(ctx, w + 16, "without projection weights"));
  }
  GLD_RETURN_IF_ERROR(ExpectState(ctx, io.act_state, {batch, no}));
  GLD_RETURN_IF_ERROR(ExpectState(ctx, io.cell_state, {batch, nc}));
  if (io.ln >= 0) {
    const size_t ln = static_cast<size_t>(io.ln);
    const bool layer_norm = ctx.Has(ln + 1);
    for (size_t g = 0; g < 4; ++g) {
      const bool want = layer_norm && !(g == 0 && cifg);
      if (ctx.Has(ln + g) != want) {
        return ctx.Err("layer normalisation coefficient " + std::to_string(ln + g) + (want ? " is missing" : " must be absent"));
      }
      if (want) GLD_RETURN_IF_ERROR(Expect(ctx, ln + g, {nc}));
    }
  }
  *n_cell = nc;
  *n_output = no;
  return OkStatus();
}

// [batch, time, features] or, time major, [time, batch, features].
struct Sequence {
  int64_t batch, time, features;
};

Status ReadSequence(const RuleContext& ctx, bool time_major, Sequence* s) {
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 0, 3));
  const Shape& in = ctx.InShape(0);
  *s = {time_major ? in[1] : in[0], time_major ? in[0] : in[1], in[2]};
  return OkStatus();
}

Shape SequenceShape(const Sequence& s, bool time_major, int64_t features) {
  const int32_t b = static_cast<int32_t>(s.batch), t = static_cast<int32_t>(s.time);
  return time_major ? Shape{t, b, static_cast<int32_t>(features)} : Shape{b, t, static_cast<int32_t>(features)};
}

// The bidirectional ops' outputs: one of fw + bw features (merge_outputs),
// or the forward and the backward sequences.
void SetBidirectionalOutputs(RuleContext& ctx, const Sequence& s, const RecurrentAttributes& a, int64_t fw,
                             int64_t bw) {
  if (a.merge_outputs) {
    ctx.Set(0, SequenceShape(s, a.time_major, fw + bw), DataType::kFloat32);
  } else {
    ctx.Set(0, SequenceShape(s, a.time_major, fw), DataType::kFloat32);
    ctx.Set(1, SequenceShape(s, a.time_major, bw), DataType::kFloat32);
  }
}

// A basic RNN cell: weights, recurrent weights, bias and hidden state at
// inputs w..w+3. Finds the units.
Status CheckRnnCell(const RuleContext& ctx, size_t w, size_t state, int64_t batch, int64_t n_input, int64_t* units) {
  GLD_RETURN_IF_ERROR(FloatInput(ctx, w, 2));
  const int64_t u = ctx.InShape(w)[0];
  if (u <= 0) return ctx.Err(ctx.Name(w) + " has no units");
  GLD_RETURN_IF_ERROR(Expect(ctx, w, {u, n_input}));
  GLD_RETURN_IF_ERROR(Expect(ctx, w + 1, {u, u}));
  GLD_RETURN_IF_ERROR(Expect(ctx, w + 2, {u}));
  GLD_RETURN_IF_ERROR(ExpectState(ctx, state, {batch, u}));
  *units = u;
  return OkStatus();
}

Status NoAuxInput(const RuleContext& ctx, size_t first, size_t last) {
  for (size_t k = first; k <= last; ++k) {
    if (ctx.Has(k)) return ctx.Unimpl("the auxiliary input and its weights (inputs " + std::to_string(first) + ".." + std::to_string(last) + ") are not supported");
  }
  return OkStatus();
}

Status BasicLstm(RuleContext& ctx, const RecurrentAttributes& a) {
  // input [B, I], previous activation [B, O], weights [4O, I + O], bias [4O],
  // previous state [B, O] -> activation, state, concatenation, gates.
  if (a.activation != Activation::kTanh || a.cell_clip != 0.f || a.proj_clip != 0.f) {
    return ctx.Err("the basic LSTM kernel takes activation TANH and no clipping, as in TFLite");
  }
  GLD_RETURN_IF_ERROR(ctx.Inputs(5, 5));
  GLD_RETURN_IF_ERROR(ctx.Outputs(4));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 0, 2));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 1, 2));
  const int64_t b = ctx.InShape(0)[0], n_in = ctx.InShape(0)[1], o = ctx.InShape(1)[1];
  if (ctx.InShape(1)[0] != b) return ctx.Err("the previous activation's batch differs from the input's");
  GLD_RETURN_IF_ERROR(Expect(ctx, 2, {4 * o, n_in + o}));
  GLD_RETURN_IF_ERROR(Expect(ctx, 3, {4 * o}));
  GLD_RETURN_IF_ERROR(Expect(ctx, 4, {b, o}));
  const auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
  ctx.Set(0, {i32(b), i32(o)}, DataType::kFloat32);
  ctx.Set(1, {i32(b), i32(o)}, DataType::kFloat32);
  ctx.Set(2, {i32(b), i32(n_in + o)}, DataType::kFloat32);
  ctx.Set(3, {i32(b), i32(4 * o)}, DataType::kFloat32);
  return OkStatus();
}

}  // namespace

Status Lstm(RuleContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  if (a->basic_kernel) return BasicLstm(ctx, *a);
  GLD_RETURN_IF_ERROR(InputCount(ctx, 20, 24));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 0, 2));
  const int64_t batch = ctx.InShape(0)[0], n_input = ctx.InShape(0)[1];
  int64_t n_cell = 0, n_output = 0;
  GLD_RETURN_IF_ERROR(CheckLstmCell(ctx, {1, 18, 19, ctx.NumInputs() > 20 ? 20 : -1}, batch, n_input, &n_cell, &n_output));
  ctx.Set(0, {static_cast<int32_t>(batch), static_cast<int32_t>(n_output)}, DataType::kFloat32);
  return OkStatus();
}

Status SequenceLstm(RuleContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(InputCount(ctx, 20, 24));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  Sequence s;
  GLD_RETURN_IF_ERROR(ReadSequence(ctx, a->time_major, &s));
  int64_t n_cell = 0, n_output = 0;
  GLD_RETURN_IF_ERROR(CheckLstmCell(ctx, {1, 18, 19, ctx.NumInputs() > 20 ? 20 : -1}, s.batch, s.features, &n_cell, &n_output));
  ctx.Set(0, SequenceShape(s, a->time_major, n_output), DataType::kFloat32);
  return OkStatus();
}

Status BidirectionalSequenceLstm(RuleContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(InputCount(ctx, 48, 48));
  GLD_RETURN_IF_ERROR(ctx.Outputs(a->merge_outputs ? 1 : 2));
  GLD_RETURN_IF_ERROR(NoAuxInput(ctx, 39, 47));
  Sequence s;
  GLD_RETURN_IF_ERROR(ReadSequence(ctx, a->time_major, &s));
  int64_t fw_cell = 0, fw_out = 0, bw_cell = 0, bw_out = 0;
  GLD_RETURN_IF_ERROR(CheckLstmCell(ctx, {1, 35, 36, -1}, s.batch, s.features, &fw_cell, &fw_out));
  GLD_RETURN_IF_ERROR(CheckLstmCell(ctx, {18, 37, 38, -1}, s.batch, s.features, &bw_cell, &bw_out));
  SetBidirectionalOutputs(ctx, s, *a, fw_out, bw_out);
  return OkStatus();
}

Status Rnn(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(5, 5));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 0, 2));
  const int64_t batch = ctx.InShape(0)[0];
  int64_t units = 0;
  GLD_RETURN_IF_ERROR(CheckRnnCell(ctx, 1, 4, batch, ctx.InShape(0)[1], &units));
  ctx.Set(0, {static_cast<int32_t>(batch), static_cast<int32_t>(units)}, DataType::kFloat32);
  return OkStatus();
}

Status SequenceRnn(RuleContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Inputs(5, 5));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  Sequence s;
  GLD_RETURN_IF_ERROR(ReadSequence(ctx, a->time_major, &s));
  int64_t units = 0;
  GLD_RETURN_IF_ERROR(CheckRnnCell(ctx, 1, 4, s.batch, s.features, &units));
  ctx.Set(0, SequenceShape(s, a->time_major, units), DataType::kFloat32);
  return OkStatus();
}

Status BidirectionalSequenceRnn(RuleContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Inputs(9, 12));
  GLD_RETURN_IF_ERROR(ctx.Outputs(a->merge_outputs ? 1 : 2));
  GLD_RETURN_IF_ERROR(NoAuxInput(ctx, 9, ctx.NumInputs() - 1));
  Sequence s;
  GLD_RETURN_IF_ERROR(ReadSequence(ctx, a->time_major, &s));
  int64_t fw = 0, bw = 0;
  GLD_RETURN_IF_ERROR(CheckRnnCell(ctx, 1, 4, s.batch, s.features, &fw));
  GLD_RETURN_IF_ERROR(CheckRnnCell(ctx, 5, 8, s.batch, s.features, &bw));
  SetBidirectionalOutputs(ctx, s, *a, fw, bw);
  return OkStatus();
}

Status Svdf(RuleContext& ctx) {
  // input [B, I], weights_feature [F, I], weights_time [F, M], bias [F / rank],
  // state [B, F * M] -> [B, F / rank].
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(InputCount(ctx, 5, 5));
  if (!ctx.Has(1) || !ctx.Has(2) || !ctx.Has(4)) return ctx.Err("required inputs 1, 2 and 4 (weights and state) must be present");
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 0, 2));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 1, 2));
  GLD_RETURN_IF_ERROR(FloatInput(ctx, 2, 2));
  const int64_t batch = ctx.InShape(0)[0], n_input = ctx.InShape(0)[1];
  const int64_t filters = ctx.InShape(1)[0], memory = ctx.InShape(2)[1];
  if (filters <= 0 || memory <= 0 || filters % a->rank != 0) {
    return ctx.Err("weights_feature " + ShapeToString(ctx.InShape(1)) + " and weights_time " +
                   ShapeToString(ctx.InShape(2)) + " do not give whole units of rank " + std::to_string(a->rank));
  }
  const int64_t units = filters / a->rank;
  GLD_RETURN_IF_ERROR(Expect(ctx, 1, {filters, n_input}));
  GLD_RETURN_IF_ERROR(Expect(ctx, 2, {filters, memory}));
  if (ctx.Has(3)) GLD_RETURN_IF_ERROR(Expect(ctx, 3, {units}));
  GLD_RETURN_IF_ERROR(ExpectState(ctx, 4, {batch, memory * filters}));
  ctx.Set(0, {static_cast<int32_t>(batch), static_cast<int32_t>(units)}, DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes
