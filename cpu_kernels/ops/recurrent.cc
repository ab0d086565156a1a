// The recurrent ops with TFLite's semantics (float32): LSTM (full kernel:
// coupled input and forget gates, peepholes, projection, layer
// normalisation; and the basic kernel), UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN and SVDF.
//
// The state inputs are variable tensors (the runtime gives them dedicated,
// zeroed buffers that persist across runs); the kernels update them in
// place, as TFLite does, so a streaming model reads the state its previous
// run left.
//
// Prepare gathers each cell's gate weights into one matrix (gates i, f, c, o;
// without i when the input and forget gates are coupled), packs the input
// weights for the GEMM FULLY_CONNECTED uses (gemm.h) and sizes every scratch
// buffer, so a run allocates nothing. A run computes the input projection of
// every time step as one GEMM (row blocks across threads), then the
// recurrence step by step: one dot product per gate unit over the previous
// output (DotRows, starting from the projection), the cell update, the
// optional projection.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_kernels/micro/gemm/gemm.h"
#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"
#include "cpu_kernels/micro/vector_ops/vector_ops.h"

namespace gld::cpu {

namespace {

float Sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// w [rows, cols] row-major -> [cols, rows].
std::vector<float> Transposed(const std::vector<float>& w, int64_t rows, int64_t cols) {
  std::vector<float> t(w.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = w[static_cast<size_t>(r * cols + c)];
  }
  return t;
}

Status CheckLstmActivation(const KernelContext& ctx, Activation a) {
  if (a == Activation::kSignBit) return KernelUnimplemented(ctx, "activation SIGN_BIT is not supported");
  return OkStatus();
}

// The tensor at input i, float32 with `count` elements, or an error.
StatusOr<const float*> FloatIn(const KernelContext& ctx, size_t i, int64_t count) {
  const TensorData* t = OptionalInput(ctx, i);
  if (t == nullptr || t->data == nullptr) return KernelError(ctx, "input " + std::to_string(i) + " is missing");
  if (t->type != DataType::kFloat32 || t->num_elements() != count ||
      t->bytes < static_cast<size_t>(count) * sizeof(float)) {
    return KernelError(ctx, "input " + std::to_string(i) + " " + ShapeToString(t->shape) + " " +
                                DataTypeName(t->type) + " is not float32 with " + std::to_string(count) + " values");
  }
  return t->as<float>();
}

// A state input the kernel updates in place: a variable tensor (never a
// constant or a graph input, whose buffers are not ours to write).
StatusOr<float*> StateIn(const KernelContext& ctx, size_t i, int64_t count) {
  GLD_ASSIGN_OR_RETURN(const float* p, FloatIn(ctx, i, count));
  const Tensor* t = InputTensor(ctx, i);
  if (t != nullptr && !t->is_variable) {
    return KernelError(ctx, "input " + std::to_string(i) + " '" + t->name + "' is a state but not a variable tensor");
  }
  return const_cast<float*>(p);
}

StatusOr<float*> FloatOut(const KernelContext& ctx, size_t i, int64_t count) {
  if (i >= ctx.outputs.size() || ctx.outputs[i] == nullptr) return KernelError(ctx, "output " + std::to_string(i) + " is missing");
  TensorData* t = ctx.outputs[i];
  if (t->type != DataType::kFloat32 || t->num_elements() != count ||
      t->bytes < static_cast<size_t>(count) * sizeof(float)) {
    return KernelError(ctx, "output " + std::to_string(i) + " " + ShapeToString(t->shape) + " is not float32 with " +
                                std::to_string(count) + " values");
  }
  return t->as<float>();
}

bool Present(const KernelContext& ctx, size_t i) { return OptionalInput(ctx, i) != nullptr; }

// x [rows, k] times the gate matrix w [n, k] (row-major, as TFLite stores
// weights) plus bias -> out [rows, n]: the packed GEMM for many rows (row
// blocks across threads), dot products for a few.
void Project(const KernelContext& ctx, const float* x, int64_t rows, int64_t k, const std::vector<float>& w,
             const PackedB& packed, const float* bias, float* out) {
  const int64_t n = static_cast<int64_t>(w.size()) / std::max<int64_t>(k, 1);
  if (rows == 0 || n == 0) return;
  if (rows < kGemmMr || packed.n != n) {
    DotRows(x, rows, w.data(), k, 0, n, bias, out, n, Activation::kNone);
    return;
  }
  constexpr int64_t kRowsPerBlock = 32;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  ParallelForGrain(ctx, blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t r0 = blk * kRowsPerBlock;
      GemmRows(x + r0 * k, k, std::min(kRowsPerBlock, rows - r0), packed, bias, out + r0 * n, n, ActivationRange{});
    }
  });
}

// ---- LSTM ---------------------------------------------------------------------

// Where one LSTM cell's tensors are among the node's inputs: the 17 weights
// from `w` (LSTM's inputs 1..17 shifted by w - 1), the states, and the layer
// normalisation coefficients from `ln` (-1: the op has none).
struct LstmCellIo {
  size_t w, act_state, cell_state;
  int ln;
};

// One cell's weights gathered for the run: gates in the order i, f, c, o,
// without i when the input and forget gates are coupled (CIFG).
struct LstmCell {
  LstmCellIo io{};
  int64_t n_input = 0, n_cell = 0, n_output = 0, gates = 4;
  bool cifg = false, peephole = false, layer_norm = false, projection = false;
  std::vector<float> wx;    // [gates * n_cell, n_input]
  PackedB wx_packed;        // wx as the GEMM's B
  std::vector<float> wr_t;  // the recurrent weights transposed: [n_output, gates * n_cell]
  std::vector<float> bias;  // [gates * n_cell]
  std::vector<float> peep;  // c2i, c2f, c2o, n_cell each (c2i zero when coupled)
  std::vector<float> ln;    // layer norm coefficients, per gate as in wx
  std::vector<float> wp_t, bp;  // projection transposed [n_cell, n_output] and its bias (zeros when absent)
};

// The scratch of a run, sized at prepare.
struct LstmScratch {
  std::vector<float> xproj;  // [rows, gates * n_cell] for each cell
  std::vector<float> gates;  // [gates * n_cell]
  std::vector<float> hidden; // [n_cell]
};

struct LstmState final : KernelState {
  std::vector<LstmCell> cells;
  std::vector<LstmScratch> scratch;
};

void Append(std::vector<float>* dst, const float* src, int64_t n) { dst->insert(dst->end(), src, src + n); }

Status GatherLstmCell(const KernelContext& ctx, const LstmCellIo& io, int64_t batch, int64_t n_input, LstmCell* c) {
  const size_t w = io.w;
  const TensorData* i2f = OptionalInput(ctx, w + 1);
  const TensorData* r2f = OptionalInput(ctx, w + 5);
  if (i2f == nullptr || r2f == nullptr || i2f->shape.size() != 2 || r2f->shape.size() != 2) {
    return KernelError(ctx, "the forget gate's weights must be present and of rank 2");
  }
  c->io = io;
  c->n_input = n_input;
  c->n_cell = i2f->shape[0];
  c->n_output = r2f->shape[1];
  c->cifg = !Present(ctx, w);
  c->peephole = Present(ctx, w + 9);
  c->projection = Present(ctx, w + 15);
  c->layer_norm = io.ln >= 0 && Present(ctx, static_cast<size_t>(io.ln) + 1);
  c->gates = c->cifg ? 3 : 4;
  const int64_t nc = c->n_cell, no = c->n_output, ni = n_input;
  if (!c->projection && nc != no) return KernelError(ctx, "without projection the cell's units and outputs differ");
  c->wx.clear();
  std::vector<float> wr_all;
  c->bias.clear();
  c->ln.clear();
  for (size_t g = c->cifg ? 1 : 0; g < 4; ++g) {
    GLD_ASSIGN_OR_RETURN(const float* wx, FloatIn(ctx, w + g, nc * ni));
    GLD_ASSIGN_OR_RETURN(const float* wr, FloatIn(ctx, w + 4 + g, nc * no));
    GLD_ASSIGN_OR_RETURN(const float* b, FloatIn(ctx, w + 11 + g, nc));
    Append(&c->wx, wx, nc * ni);
    Append(&wr_all, wr, nc * no);
    Append(&c->bias, b, nc);
    if (c->layer_norm) {
      GLD_ASSIGN_OR_RETURN(const float* ln, FloatIn(ctx, static_cast<size_t>(io.ln) + g, nc));
      Append(&c->ln, ln, nc);
    }
  }
  c->wr_t = Transposed(wr_all, c->gates * nc, no);
  c->peep.assign(static_cast<size_t>(3 * nc), 0.f);
  if (c->peephole) {
    for (size_t g = c->cifg ? 1 : 0; g < 3; ++g) {
      GLD_ASSIGN_OR_RETURN(const float* p, FloatIn(ctx, w + 8 + g, nc));
      std::copy(p, p + nc, c->peep.begin() + static_cast<int64_t>(g) * nc);
    }
  }
  c->bp.assign(static_cast<size_t>(no), 0.f);
  c->wp_t.clear();
  if (c->projection) {
    GLD_ASSIGN_OR_RETURN(const float* wp, FloatIn(ctx, w + 15, no * nc));
    c->wp_t = Transposed(std::vector<float>(wp, wp + no * nc), no, nc);
    if (Present(ctx, w + 16)) {
      GLD_ASSIGN_OR_RETURN(const float* bp, FloatIn(ctx, w + 16, no));
      std::copy(bp, bp + no, c->bp.begin());
    }
  }
  GLD_RETURN_IF_ERROR(StateIn(ctx, io.act_state, batch * no).status());
  GLD_RETURN_IF_ERROR(StateIn(ctx, io.cell_state, batch * nc).status());
  c->wx_packed = PackedB();
  return OkStatus();
}

void SizeScratch(const LstmCell& c, int64_t rows, LstmScratch* s) {
  const int64_t g = c.gates * c.n_cell;
  s->xproj.assign(static_cast<size_t>(rows * g), 0.f);
  s->gates.assign(static_cast<size_t>(g), 0.f);
  s->hidden.assign(static_cast<size_t>(c.n_cell), 0.f);
}

// TFLite's layer normalisation of a gate: (x - mean) / sqrt(variance + 1e-8)
// times the coefficients, then the bias.
void LayerNorm(float* x, int64_t n, const float* coeff, const float* bias) {
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) sum_sq += static_cast<double>(x[i]) * x[i];
  const float variance = static_cast<float>(sum_sq / static_cast<double>(n)) - mean * mean;
  const float inv = 1.f / std::sqrt(variance + 1e-8f);
  for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - mean) * inv * coeff[i] + bias[i];
}

float Clip(float v, float clip) { return clip > 0.f ? std::min(std::max(v, -clip), clip) : v; }

// One step of one batch row: gates from the projected input row `xp` and the
// previous output h (n_output) and cell state c (n_cell, updated in place);
// writes the new output to h and to `out`.
void LstmStep(const LstmCell& c, const RecurrentAttributes& a, const float* xp, float* h, float* cell, float* out,
              LstmScratch* s) {
  const int64_t nc = c.n_cell, no = c.n_output, gn = c.gates * nc;
  float* g = s->gates.data();
  std::memcpy(g, xp, static_cast<size_t>(gn) * sizeof(float));
  MatVecTransposedAccumulate(c.wr_t.data(), h, no, gn, g);
  float* gi = c.cifg ? nullptr : g;
  float* gf = g + (c.cifg ? 0 : nc);
  float* gc = gf + nc;
  float* go = gc + nc;
  const int64_t base = c.cifg ? -1 : 0;  // gate index of i in the gathered arrays
  auto lnc = [&](int64_t k) { return c.ln.data() + (base + k) * nc; };
  auto bias = [&](int64_t k) { return c.bias.data() + (base + k) * nc; };
  if (c.peephole) {
    for (int64_t j = 0; j < nc; ++j) {
      if (gi) gi[j] += c.peep[j] * cell[j];
      gf[j] += c.peep[nc + j] * cell[j];
    }
  }
  if (c.layer_norm) {
    if (gi) LayerNorm(gi, nc, lnc(0), bias(0));
    LayerNorm(gf, nc, lnc(1), bias(1));
    LayerNorm(gc, nc, lnc(2), bias(2));
  }
  if (gi) SigmoidRow(gi, gi, nc);
  SigmoidRow(gf, gf, nc);
  ApplyActivationInPlace(a.activation, gc, nc);
  for (int64_t j = 0; j < nc; ++j) {
    const float i = gi ? gi[j] : 1.f - gf[j];
    cell[j] = Clip(gf[j] * cell[j] + i * gc[j], a.cell_clip);
  }
  if (c.peephole) {
    for (int64_t j = 0; j < nc; ++j) go[j] += c.peep[2 * nc + j] * cell[j];
  }
  if (c.layer_norm) LayerNorm(go, nc, lnc(3), bias(3));
  SigmoidRow(go, go, nc);
  float* hidden = c.projection ? s->hidden.data() : out;
  std::memcpy(hidden, cell, static_cast<size_t>(nc) * sizeof(float));
  ApplyActivationInPlace(a.activation, hidden, nc);
  for (int64_t j = 0; j < nc; ++j) hidden[j] *= go[j];
  if (c.projection) {
    std::memcpy(out, c.bp.data(), static_cast<size_t>(no) * sizeof(float));
    MatVecTransposedAccumulate(c.wp_t.data(), hidden, nc, no, out);
    if (a.proj_clip > 0.f) {
      for (int64_t j = 0; j < no; ++j) out[j] = Clip(out[j], a.proj_clip);
    }
  }
  std::memcpy(h, out, static_cast<size_t>(no) * sizeof(float));
}

// The layout of a sequence: time-major [T, B, F] or batch-major [B, T, F].
struct SeqLayout {
  int64_t batch = 1, time = 1;
  bool time_major = true;
  int64_t Row(int64_t t, int64_t b) const { return time_major ? t * batch + b : b * time + t; }
};

// Runs one LSTM cell over the sequence x (rows of n_input in `layout`),
// forward or backward in time, writing each output row at out + row * stride.
Status RunLstmCell(const KernelContext& ctx, const RecurrentAttributes& a, const LstmCell& c, const float* x,
                   const SeqLayout& layout, bool backward, float* out, int64_t out_stride, LstmScratch* s) {
  const int64_t rows = layout.batch * layout.time, nc = c.n_cell, no = c.n_output;
  const int64_t gn = c.gates * nc;
  if (static_cast<int64_t>(s->xproj.size()) != rows * gn) return InternalError("LSTM scratch of the wrong size");
  Project(ctx, x, rows, c.n_input, c.wx, c.wx_packed, c.layer_norm ? nullptr : c.bias.data(), s->xproj.data());
  GLD_ASSIGN_OR_RETURN(float* h_all, StateIn(ctx, c.io.act_state, layout.batch * no));
  GLD_ASSIGN_OR_RETURN(float* c_all, StateIn(ctx, c.io.cell_state, layout.batch * nc));
  for (int64_t b = 0; b < layout.batch; ++b) {
    for (int64_t step = 0; step < layout.time; ++step) {
      const int64_t t = backward ? layout.time - 1 - step : step;
      const int64_t row = layout.Row(t, b);
      LstmStep(c, a, s->xproj.data() + row * gn, h_all + b * no, c_all + b * nc, out + row * out_stride, s);
    }
  }
  return OkStatus();
}

// The LSTM ops' cells and their geometry.
struct LstmOpShape {
  std::vector<LstmCellIo> cells;
  SeqLayout layout;
  int64_t n_input = 0;
};

Status GetLstmOpShape(const KernelContext& ctx, const RecurrentAttributes& a, LstmOpShape* s) {
  const TensorData* in = OptionalInput(ctx, 0);
  if (in == nullptr) return KernelError(ctx, "input 0 is missing");
  const OpType op = ctx.node->op;
  const bool sequence = op != OpType::kLstm;
  if (in->shape.size() != (sequence ? 3u : 2u)) {
    return KernelError(ctx, "input " + ShapeToString(in->shape) + " must have rank " + (sequence ? "3" : "2"));
  }
  if (sequence) {
    s->layout.time_major = a.time_major;
    s->layout.time = a.time_major ? in->shape[0] : in->shape[1];
    s->layout.batch = a.time_major ? in->shape[1] : in->shape[0];
  } else {
    s->layout = {in->shape[0], 1, true};
  }
  s->n_input = in->shape.back();
  if (op == OpType::kBidirectionalSequenceLstm) {
    for (size_t k = 39; k < 48; ++k) {
      if (Present(ctx, k)) return KernelUnimplemented(ctx, "the auxiliary input is not supported");
    }
    s->cells = {{1, 35, 36, -1}, {18, 37, 38, -1}};
  } else {
    s->cells = {{1, 18, 19, ctx.inputs.size() > 20 ? 20 : -1}};
  }
  return OkStatus();
}

Status BuildLstmState(const KernelContext& ctx, const RecurrentAttributes& a, LstmState* st) {
  LstmOpShape shape;
  GLD_RETURN_IF_ERROR(GetLstmOpShape(ctx, a, &shape));
  const int64_t rows = shape.layout.batch * shape.layout.time;
  st->cells.resize(shape.cells.size());
  st->scratch.resize(shape.cells.size());
  for (size_t k = 0; k < shape.cells.size(); ++k) {
    LstmCell& c = st->cells[k];
    GLD_RETURN_IF_ERROR(GatherLstmCell(ctx, shape.cells[k], shape.layout.batch, shape.n_input, &c));
    if (rows >= kGemmMr) PackGemmB(c.wx.data(), c.n_input, c.gates * c.n_cell, 1, c.n_input, &c.wx_packed);
    SizeScratch(c, rows, &st->scratch[k]);
  }
  return OkStatus();
}

// The inputs that are weights (every input but the data and the states).
bool LstmWeightsConstant(const KernelContext& ctx) {
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    const Tensor* t = InputTensor(ctx, i);
    if (t != nullptr && !t->is_variable && !t->is_constant) return false;
  }
  return true;
}

Status PrepareLstmOp(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  GLD_RETURN_IF_ERROR(CheckLstmActivation(ctx, a->activation));
  if (a->basic_kernel || ctx.state == nullptr || !LstmWeightsConstant(ctx)) return OkStatus();
  auto st = std::make_unique<LstmState>();
  GLD_RETURN_IF_ERROR(BuildLstmState(ctx, *a, st.get()));
  *ctx.state = std::move(st);
  return OkStatus();
}

Status RunLstmOp(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  GLD_RETURN_IF_ERROR(CheckLstmActivation(ctx, a->activation));
  LstmState local;
  LstmState* st = StateAs<LstmState>(ctx);
  if (st == nullptr) {
    GLD_RETURN_IF_ERROR(BuildLstmState(ctx, *a, &local));
    st = &local;
  }
  LstmOpShape shape;
  GLD_RETURN_IF_ERROR(GetLstmOpShape(ctx, *a, &shape));
  const int64_t rows = shape.layout.batch * shape.layout.time;
  GLD_ASSIGN_OR_RETURN(const float* x, FloatIn(ctx, 0, rows * shape.n_input));
  const bool bidi = st->cells.size() == 2;
  if (!bidi || !a->merge_outputs) {
    for (size_t k = 0; k < st->cells.size(); ++k) {
      const LstmCell& c = st->cells[k];
      GLD_ASSIGN_OR_RETURN(float* out, FloatOut(ctx, k, rows * c.n_output));
      GLD_RETURN_IF_ERROR(RunLstmCell(ctx, *a, c, x, shape.layout, k == 1, out, c.n_output, &st->scratch[k]));
    }
    return OkStatus();
  }
  const int64_t fw = st->cells[0].n_output, bw = st->cells[1].n_output;
  GLD_ASSIGN_OR_RETURN(float* out, FloatOut(ctx, 0, rows * (fw + bw)));
  GLD_RETURN_IF_ERROR(RunLstmCell(ctx, *a, st->cells[0], x, shape.layout, false, out, fw + bw, &st->scratch[0]));
  return RunLstmCell(ctx, *a, st->cells[1], x, shape.layout, true, out + fw, fw + bw, &st->scratch[1]);
}

// LSTM's basic kernel: input [B, I], previous activation [B, O], weights
// [4O, I + O], bias [4O], previous state [B, O] -> activation, state, the
// concatenation [input, previous activation] and the gates [B, 4O] (in the
// order input, candidate, forget, output).
Status RunBasicLstm(KernelContext& ctx) {
  const TensorData* in = OptionalInput(ctx, 0);
  const TensorData* prev = OptionalInput(ctx, 1);
  if (ctx.inputs.size() != 5 || ctx.outputs.size() != 4 || in == nullptr || prev == nullptr ||
      in->shape.size() != 2 || prev->shape.size() != 2) {
    return KernelError(ctx, "the basic LSTM kernel takes 5 inputs of which 0 and 1 of rank 2, and has 4 outputs");
  }
  const int64_t b = in->shape[0], ni = in->shape[1], o = prev->shape[1], depth = ni + o;
  GLD_ASSIGN_OR_RETURN(const float* x, FloatIn(ctx, 0, b * ni));
  GLD_ASSIGN_OR_RETURN(const float* h, FloatIn(ctx, 1, b * o));
  GLD_ASSIGN_OR_RETURN(const float* w, FloatIn(ctx, 2, 4 * o * depth));
  GLD_ASSIGN_OR_RETURN(const float* bias, FloatIn(ctx, 3, 4 * o));
  GLD_ASSIGN_OR_RETURN(const float* prev_state, FloatIn(ctx, 4, b * o));
  GLD_ASSIGN_OR_RETURN(float* act_out, FloatOut(ctx, 0, b * o));
  GLD_ASSIGN_OR_RETURN(float* state_out, FloatOut(ctx, 1, b * o));
  GLD_ASSIGN_OR_RETURN(float* concat, FloatOut(ctx, 2, b * depth));
  GLD_ASSIGN_OR_RETURN(float* gates, FloatOut(ctx, 3, b * 4 * o));
  for (int64_t r = 0; r < b; ++r) {
    std::memcpy(concat + r * depth, x + r * ni, static_cast<size_t>(ni) * sizeof(float));
    std::memcpy(concat + r * depth + ni, h + r * o, static_cast<size_t>(o) * sizeof(float));
  }
  DotRows(concat, b, w, depth, 0, 4 * o, bias, gates, 4 * o, Activation::kNone);
  for (int64_t r = 0; r < b; ++r) {
    const float* g = gates + r * 4 * o;
    for (int64_t j = 0; j < o; ++j) {
      const float state = Sigmoid(g[j]) * std::tanh(g[o + j]) + Sigmoid(g[2 * o + j]) * prev_state[r * o + j];
      state_out[r * o + j] = state;
      act_out[r * o + j] = Sigmoid(g[3 * o + j]) * std::tanh(state);
    }
  }
  return OkStatus();
}

// ---- RNN ----------------------------------------------------------------------

// One basic RNN cell: weights, recurrent weights and bias at inputs w..w+2,
// its hidden state at `state`.
struct RnnCell {
  size_t state = 0;
  int64_t n_input = 0, units = 0;
  std::vector<float> wx, wr_t, bias;  // wr_t: the recurrent weights transposed
  PackedB wx_packed;
};

struct RnnState final : KernelState {
  std::vector<RnnCell> cells;
  std::vector<float> xproj;  // [rows, units] of the widest cell
};

struct RnnOpShape {
  std::vector<std::pair<size_t, size_t>> cells;  // (first weight, state)
  SeqLayout layout;
  int64_t n_input = 0;
};

Status GetRnnOpShape(const KernelContext& ctx, const RecurrentAttributes& a, RnnOpShape* s) {
  const TensorData* in = OptionalInput(ctx, 0);
  if (in == nullptr) return KernelError(ctx, "input 0 is missing");
  const OpType op = ctx.node->op;
  const bool sequence = op != OpType::kRnn;
  if (in->shape.size() != (sequence ? 3u : 2u)) {
    return KernelError(ctx, "input " + ShapeToString(in->shape) + " must have rank " + (sequence ? "3" : "2"));
  }
  if (sequence) {
    s->layout = {a.time_major ? in->shape[1] : in->shape[0], a.time_major ? in->shape[0] : in->shape[1],
                 a.time_major};
  } else {
    s->layout = {in->shape[0], 1, true};
  }
  s->n_input = in->shape.back();
  if (op == OpType::kBidirectionalSequenceRnn) {
    for (size_t k = 9; k < ctx.inputs.size(); ++k) {
      if (Present(ctx, k)) return KernelUnimplemented(ctx, "the auxiliary input is not supported");
    }
    s->cells = {{1, 4}, {5, 8}};
  } else {
    s->cells = {{1, 4}};
  }
  return OkStatus();
}

Status BuildRnnState(const KernelContext& ctx, const RecurrentAttributes& a, RnnState* st) {
  RnnOpShape shape;
  GLD_RETURN_IF_ERROR(GetRnnOpShape(ctx, a, &shape));
  const int64_t rows = shape.layout.batch * shape.layout.time, ni = shape.n_input;
  st->cells.resize(shape.cells.size());
  int64_t widest = 0;
  for (size_t k = 0; k < shape.cells.size(); ++k) {
    RnnCell& c = st->cells[k];
    const size_t w = shape.cells[k].first;
    const TensorData* wt = OptionalInput(ctx, w);
    if (wt == nullptr || wt->shape.size() != 2) return KernelError(ctx, "weights must be present and of rank 2");
    c.state = shape.cells[k].second;
    c.n_input = ni;
    c.units = wt->shape[0];
    const int64_t u = c.units;
    GLD_ASSIGN_OR_RETURN(const float* wx, FloatIn(ctx, w, u * ni));
    GLD_ASSIGN_OR_RETURN(const float* wr, FloatIn(ctx, w + 1, u * u));
    GLD_ASSIGN_OR_RETURN(const float* b, FloatIn(ctx, w + 2, u));
    GLD_RETURN_IF_ERROR(StateIn(ctx, c.state, shape.layout.batch * u).status());
    c.wx.assign(wx, wx + u * ni);
    c.wr_t = Transposed(std::vector<float>(wr, wr + u * u), u, u);
    c.bias.assign(b, b + u);
    c.wx_packed = PackedB();
    if (rows >= kGemmMr) PackGemmB(c.wx.data(), ni, u, 1, ni, &c.wx_packed);
    widest = std::max(widest, u);
  }
  st->xproj.assign(static_cast<size_t>(rows * widest), 0.f);
  return OkStatus();
}

Status RunRnnCell(const KernelContext& ctx, const RecurrentAttributes& a, const RnnCell& c, const float* x,
                  const SeqLayout& layout, bool backward, float* out, int64_t out_stride, std::vector<float>* xproj) {
  const int64_t rows = layout.batch * layout.time, u = c.units;
  if (static_cast<int64_t>(xproj->size()) < rows * u) return InternalError("RNN scratch of the wrong size");
  Project(ctx, x, rows, c.n_input, c.wx, c.wx_packed, c.bias.data(), xproj->data());
  GLD_ASSIGN_OR_RETURN(float* h_all, StateIn(ctx, c.state, layout.batch * u));
  for (int64_t b = 0; b < layout.batch; ++b) {
    float* h = h_all + b * u;
    for (int64_t step = 0; step < layout.time; ++step) {
      const int64_t t = backward ? layout.time - 1 - step : step;
      const int64_t row = layout.Row(t, b);
      float* o = out + row * out_stride;
      std::memcpy(o, xproj->data() + row * u, static_cast<size_t>(u) * sizeof(float));
      MatVecTransposedAccumulate(c.wr_t.data(), h, u, u, o);
      ApplyActivationInPlace(a.activation, o, u);
      std::memcpy(h, o, static_cast<size_t>(u) * sizeof(float));
    }
  }
  return OkStatus();
}

Status PrepareRnnOp(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  GLD_RETURN_IF_ERROR(CheckLstmActivation(ctx, a->activation));
  if (ctx.state == nullptr || !LstmWeightsConstant(ctx)) return OkStatus();
  auto st = std::make_unique<RnnState>();
  GLD_RETURN_IF_ERROR(BuildRnnState(ctx, *a, st.get()));
  *ctx.state = std::move(st);
  return OkStatus();
}

Status RunRnnOp(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  GLD_RETURN_IF_ERROR(CheckLstmActivation(ctx, a->activation));
  RnnState local;
  RnnState* st = StateAs<RnnState>(ctx);
  if (st == nullptr) {
    GLD_RETURN_IF_ERROR(BuildRnnState(ctx, *a, &local));
    st = &local;
  }
  RnnOpShape shape;
  GLD_RETURN_IF_ERROR(GetRnnOpShape(ctx, *a, &shape));
  const int64_t rows = shape.layout.batch * shape.layout.time;
  GLD_ASSIGN_OR_RETURN(const float* x, FloatIn(ctx, 0, rows * shape.n_input));
  const bool bidi = st->cells.size() == 2;
  if (!bidi || !a->merge_outputs) {
    for (size_t k = 0; k < st->cells.size(); ++k) {
      const RnnCell& c = st->cells[k];
      GLD_ASSIGN_OR_RETURN(float* out, FloatOut(ctx, k, rows * c.units));
      GLD_RETURN_IF_ERROR(RunRnnCell(ctx, *a, c, x, shape.layout, k == 1, out, c.units, &st->xproj));
    }
    return OkStatus();
  }
  const int64_t fw = st->cells[0].units, bw = st->cells[1].units;
  GLD_ASSIGN_OR_RETURN(float* out, FloatOut(ctx, 0, rows * (fw + bw)));
  GLD_RETURN_IF_ERROR(RunRnnCell(ctx, *a, st->cells[0], x, shape.layout, false, out, fw + bw, &st->xproj));
  return RunRnnCell(ctx, *a, st->cells[1], x, shape.layout, true, out + fw, fw + bw, &st->xproj);
}

}  // namespace

Status PrepareLstm(KernelContext& ctx) { return PrepareLstmOp(ctx); }
Status RunLstm(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  return a->basic_kernel ? RunBasicLstm(ctx) : RunLstmOp(ctx);
}
Status PrepareUnidirectionalSequenceLstm(KernelContext& ctx) { return PrepareLstmOp(ctx); }
Status RunUnidirectionalSequenceLstm(KernelContext& ctx) { return RunLstmOp(ctx); }
Status PrepareBidirectionalSequenceLstm(KernelContext& ctx) { return PrepareLstmOp(ctx); }
Status RunBidirectionalSequenceLstm(KernelContext& ctx) { return RunLstmOp(ctx); }

Status PrepareRnn(KernelContext& ctx) { return PrepareRnnOp(ctx); }
Status RunRnn(KernelContext& ctx) { return RunRnnOp(ctx); }
Status PrepareUnidirectionalSequenceRnn(KernelContext& ctx) { return PrepareRnnOp(ctx); }
Status RunUnidirectionalSequenceRnn(KernelContext& ctx) { return RunRnnOp(ctx); }
Status PrepareBidirectionalSequenceRnn(KernelContext& ctx) { return PrepareRnnOp(ctx); }
Status RunBidirectionalSequenceRnn(KernelContext& ctx) { return RunRnnOp(ctx); }

// SVDF: input [B, I], weights_feature [F, I], weights_time [F, M], optional
// bias [F / rank], state [B, F * M] (per batch row and filter the last M
// features, oldest first). A run shifts the state by one feature, appends
// weights_feature * input, filters each memory with its weights_time, sums
// each unit's `rank` filters, adds the bias and applies the activation.
Status RunSvdf(KernelContext& ctx) {
  const RecurrentAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TensorData* in = OptionalInput(ctx, 0);
  const TensorData* wf = OptionalInput(ctx, 1);
  const TensorData* wt = OptionalInput(ctx, 2);
  if (ctx.inputs.size() != 5 || in == nullptr || wf == nullptr || wt == nullptr || in->shape.size() != 2 ||
      wf->shape.size() != 2 || wt->shape.size() != 2 || a->rank < 1 || wf->shape[0] % a->rank != 0) {
    return KernelError(ctx, "expected input [B, I], weights_feature [F, I], weights_time [F, M] with F a multiple of the rank");
  }
  const int64_t batch = in->shape[0], ni = in->shape[1], filters = wf->shape[0], memory = wt->shape[1];
  const int64_t units = filters / a->rank;
  GLD_ASSIGN_OR_RETURN(const float* x, FloatIn(ctx, 0, batch * ni));
  GLD_ASSIGN_OR_RETURN(const float* feature_w, FloatIn(ctx, 1, filters * ni));
  GLD_ASSIGN_OR_RETURN(const float* time_w, FloatIn(ctx, 2, filters * memory));
  const float* bias = nullptr;
  if (Present(ctx, 3)) {
    GLD_ASSIGN_OR_RETURN(bias, FloatIn(ctx, 3, units));
  }
  GLD_ASSIGN_OR_RETURN(float* state, StateIn(ctx, 4, batch * filters * memory));
  GLD_ASSIGN_OR_RETURN(float* out, FloatOut(ctx, 0, batch * units));
  const int64_t total = batch * filters * memory;
  if (total > 1) std::memmove(state, state + 1, static_cast<size_t>(total - 1) * sizeof(float));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < filters; ++f) {
      state[(b * filters + f) * memory + memory - 1] = Dot(feature_w + f * ni, x + b * ni, ni);
    }
    for (int64_t u = 0; u < units; ++u) {
      float sum = bias != nullptr ? bias[u] : 0.f;
      for (int64_t r = 0; r < a->rank; ++r) {
        const int64_t f = u * a->rank + r;
        sum += Dot(state + (b * filters + f) * memory, time_w + f * memory, memory);
      }
      out[b * units + u] = ApplyActivation(a->activation, sum);
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
