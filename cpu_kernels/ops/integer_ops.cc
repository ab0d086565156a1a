// The int8 kernels that give LiteRT's default kernels' integers for ops the
// XNNPACK operators here do not cover (see integer_ops.h).
#include "cpu_kernels/ops/integer_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/micro/fixed_point.h"
#include "cpu_kernels/micro/int8_rows/int8_rows.h"
#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/ops/quantized.h"

namespace gld::cpu {

namespace fp = fixed_point;

namespace {

const Tensor* TensorAt(const Graph& graph, int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph.tensors.size()) return nullptr;
  return &graph.tensors[static_cast<size_t>(index)];
}

// The scale and zero point of an int8 operand: an int8 activation with one
// of each, or a constant the reader decoded from int8 with one of each.
TensorQuant OperandQuant(const Tensor* t) {
  if (t == nullptr) return {};
  if (!t->is_constant) return t->type == DataType::kInt8 ? QuantOf(*t) : TensorQuant{};
  const QuantizationParams& q = t->quant;
  if (t->type != DataType::kFloat32 || q.storage_type != DataType::kInt8 || q.scale.size() != 1 ||
      q.zero_point.size() > 1) {
    return {};
  }
  TensorQuant r;
  r.scale = q.scale[0];
  const int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  if (!(r.scale > 0.f) || !std::isfinite(r.scale) || zp < -128 || zp > 127) return {};
  r.zero_point = static_cast<int32_t>(zp);
  r.valid = true;
  return r;
}

bool IsInt8Activation(const Tensor* t) { return t != nullptr && !t->is_constant && OperandQuant(t).valid; }

// A constant operand whose stored int8 integers can be recovered.
bool IsInt8Constant(const Tensor* t) {
  std::vector<int32_t> values;
  return t != nullptr && t->is_constant && OperandQuant(t).valid && StoredIntegers(*t, &values);
}

bool InRange(float v, float lo, float hi) { return v >= lo && v < hi; }

// --- ADD / SUB / MUL / SQUARED_DIFFERENCE ------------------------------------

// How LiteRT's default kernels run the node: XNNPACK's delegate takes ADD
// and SUB with input / output scale ratios in [2^-10, 2^8) and MUL with a
// product ratio in [2^-16, 2^8) (with or without constants); TFLite's
// builtin kernels run the rest and every SQUARED_DIFFERENCE. False for ADD
// and SUB between activations (the table's XNNPACK kernels); MUL between
// activations (a swish's x * sigmoid(x), a squeeze-excite gate) is
// XNNPACK's arithmetic here too, the int8 rows' vector loop being faster
// than the operator.
bool BinaryKindOf(const Graph& graph, const Node& node, Int8BinaryKind* kind) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const Tensor* a = TensorAt(graph, node.inputs[0]);
  const Tensor* b = TensorAt(graph, node.inputs[1]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  const TensorQuant qa = OperandQuant(a), qb = OperandQuant(b), qo = OperandQuant(out);
  if (!qa.valid || !qb.valid || !qo.valid || out->is_constant || (a->is_constant && b->is_constant)) return false;
  const bool constant = a->is_constant || b->is_constant;
  switch (node.op) {
    case OpType::kSquaredDifference:
      *kind = Int8BinaryKind::kSquaredDifference;
      return true;
    case OpType::kMul:
      if (InRange(qa.scale * qb.scale / qo.scale, 0x1.0p-16f, 0x1.0p+8f)) {
        *kind = Int8BinaryKind::kXnnMul;
        return true;
      }
      *kind = Int8BinaryKind::kMul;
      return true;
    case OpType::kAdd:
    case OpType::kSub:
      if (InRange(qa.scale / qo.scale, 0x1.0p-10f, 0x1.0p+8f) && InRange(qb.scale / qo.scale, 0x1.0p-10f, 0x1.0p+8f)) {
        if (!constant) return false;
        *kind = node.op == OpType::kAdd ? Int8BinaryKind::kXnnAdd : Int8BinaryKind::kXnnSub;
        return true;
      }
      *kind = node.op == OpType::kAdd ? Int8BinaryKind::kAdd : Int8BinaryKind::kSub;
      return true;
    default:
      return false;
  }
}

Status MakeBinaryParams(const KernelContext& ctx, Int8BinaryParams* p) {
  if (!BinaryKindOf(*ctx.graph, *ctx.node, &p->kind)) {
    return KernelUnimplemented(ctx, "no int8 kernel for these operands and scales");
  }
  const TensorQuant qa = OperandQuant(InputTensor(ctx, 0)), qb = OperandQuant(InputTensor(ctx, 1));
  const TensorQuant qo = OperandQuant(OutputTensor(ctx, 0));
  p->a_offset = -qa.zero_point;
  p->b_offset = -qb.zero_point;
  p->out_offset = qo.zero_point;
  if (const auto* attrs = std::get_if<BinaryAttributes>(&ctx.node->attributes)) {
    if (!QuantizedActivationRange(attrs->activation, *OutputTensor(ctx, 0), &p->lo, &p->hi)) {
      return KernelUnimplemented(ctx, "the fused activation is not a clamp of the output's range");
    }
  }
  switch (p->kind) {
    case Int8BinaryKind::kXnnMul:
      p->xnn_scale = qa.scale * qb.scale / qo.scale;
      break;
    case Int8BinaryKind::kXnnAdd:
    case Int8BinaryKind::kXnnSub: {
      // XNNPACK's: both ratios to the output scale as integer multipliers
      // with 20 bits below the larger one's leading bit, one rounding bias
      // holding the zero points, an arithmetic right shift.
      const float sa = qa.scale / qo.scale;
      const float sb = (p->kind == Int8BinaryKind::kXnnSub ? -qb.scale : qb.scale) / qo.scale;
      int exponent = 0;
      std::frexp(std::max(std::fabs(sa), std::fabs(sb)), &exponent);  // value in [2^(e-1), 2^e)
      p->out_shift = 20 - (exponent - 1);
      p->a_mult = static_cast<int32_t>(std::lrint(std::ldexp(sa, p->out_shift)));
      p->b_mult = static_cast<int32_t>(std::lrint(std::ldexp(sb, p->out_shift)));
      p->xnn_bias = (int64_t{1} << (p->out_shift - 1)) - int64_t{p->a_mult} * qa.zero_point -
                    int64_t{p->b_mult} * qb.zero_point;
      break;
    }
    case Int8BinaryKind::kMul: {
      const double real = static_cast<double>(qa.scale * qb.scale) / static_cast<double>(qo.scale);
      fp::QuantizeMultiplier(real, &p->out_mult, &p->out_shift);
      break;
    }
    default: {
      // TFLite's scaling: both inputs onto twice the larger scale, with
      // `left_shift` bits of headroom (20 for ADD / SUB, 7 for
      // SQUARED_DIFFERENCE, whose output multiplier sees the square).
      const bool squared = p->kind == Int8BinaryKind::kSquaredDifference;
      p->left_shift = squared ? 7 : 20;
      const double twice_max = 2.0 * static_cast<double>(std::max(qa.scale, qb.scale));
      fp::QuantizeMultiplier(static_cast<double>(qa.scale) / twice_max, &p->a_mult, &p->a_shift);
      fp::QuantizeMultiplier(static_cast<double>(qb.scale) / twice_max, &p->b_mult, &p->b_shift);
      const double out_real = squared ? twice_max * twice_max /
                                            (static_cast<double>(int64_t{1} << (2 * p->left_shift)) * qo.scale)
                                       : twice_max / (static_cast<double>(int64_t{1} << p->left_shift) * qo.scale);
      fp::QuantizeMultiplier(out_real, &p->out_mult, &p->out_shift);
      FillScaledTables(p);
    }
  }
  return OkStatus();
}

// --- tables: RSQRT, GELU ----------------------------------------------------

// gemmlowp's SaturatingRoundingMultiplyByPOT: a saturating left shift for
// exponent > 0, a rounding right shift for exponent < 0.
int32_t SaturatingRoundingMultiplyByPOT(int32_t x, int exponent) {
  if (exponent < 0) return fp::RoundingDivideByPOT(x, -exponent);
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return fp::ShiftLeftWrapping(x, exponent);
}

// TFLite's GetInvSqrtQuantizedMultiplierExp with its reverse shift (-1):
// 1/sqrt(input) as a multiplier and a left shift, by five Newton steps in
// fixed point with 3 integer bits.
void InvSqrtMultiplier(int32_t input, int32_t* multiplier, int* shift) {
  if (input <= 1) {
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  int right = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++right;
  }
  const int leading_zeros = __builtin_clz(static_cast<uint32_t>(input));
  const int pairs = (leading_zeros - 1) / 2 - 1;
  right -= pairs;
  input <<= 2 * pairs;
  const int32_t x_in = input >> 1;  // F3
  const int32_t half_x = SaturatingRoundingMultiplyByPOT(x_in, -1);
  const int32_t three_halves = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;  // 1.0 in F3
  for (int i = 0; i < 5; ++i) {
    const int32_t x2 = fp::SaturatingRoundingDoublingHighMul(x, x);    // F6
    const int32_t x3_9 = fp::SaturatingRoundingDoublingHighMul(x2, x);  // F9
    const int32_t x3 = SaturatingRoundingMultiplyByPOT(x3_9, 6);        // F3
    const int32_t a = fp::SaturatingRoundingDoublingHighMul(three_halves, x);  // F6
    const int32_t b = fp::SaturatingRoundingDoublingHighMul(half_x, x3);       // F6
    x = SaturatingRoundingMultiplyByPOT(static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)), 3);
  }
  x = fp::SaturatingRoundingDoublingHighMul(x, 1518500250);  // x sqrt(2) / 2
  if (right < 0) {
    x = fp::ShiftLeftWrapping(x, -right);
    right = 0;
  }
  *multiplier = x;
  *shift = -right;
}

struct Table {
  int8_t values[256];  // indexed by the input's bits
};

// TFLite's int8 RSQRT: its fixed-point 1/sqrt of (x - zero point), scaled
// by 1 / (sqrt(input scale) x output scale); the largest value for zero and
// (where TFLite reports an error) below.
void RsqrtTable(const TensorQuant& in, const TensorQuant& out, Table* t) {
  int32_t mult = 0;
  int shift = 0;
  fp::QuantizeMultiplier(1.0 / static_cast<double>(std::sqrt(in.scale) * out.scale), &mult, &shift);
  constexpr int kShift = 20;
  for (int v = -128; v <= 127; ++v) {
    const int32_t value = v - in.zero_point;
    int32_t q = 127;
    if (value > 0) {
      int32_t inv_mult = 0;
      int inv_shift = 0;
      InvSqrtMultiplier(value, &inv_mult, &inv_shift);
      const int32_t data = fp::MultiplyByQuantizedMultiplier(1, inv_mult, inv_shift + kShift);
      q = std::min(std::max(fp::MultiplyByQuantizedMultiplier(data, mult, shift - kShift) + out.zero_point, -128), 127);
    }
    t->values[static_cast<uint8_t>(static_cast<int8_t>(v))] = static_cast<int8_t>(q);
  }
}

// gemmlowp's rounding doubling high multiply on int16 values, and TFLite's
// truncating one (ARM's SQDMULH) and saturating left shift.
int32_t RoundingDoublingHighMul16(int32_t a, int32_t b) {
  if (a == b && a == -32768) return 32767;
  const int32_t ab = a * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (ab + nudge) / (1 << 15);
}
int32_t DoublingHighMul16(int32_t a, int32_t b) {
  if (a == b && a == -32768) return 32767;
  return (a * b) / (1 << 15);
}
int32_t SaturatingLeftShift16(int32_t v, int amount) {
  return std::min<int32_t>(std::max<int32_t>(v * (1 << amount), -32768), 32767);
}

// A 32-bit multiplier rounded to its top 16 bits (TFLite's
// DownScaleInt32ToInt16Multiplier).
int32_t Int16Multiplier(double real, int* exponent) {
  int32_t m32 = 0;
  fp::QuantizeMultiplier(real, &m32, exponent);
  if (m32 >= std::numeric_limits<int32_t>::max() - (1 << 15)) return 32767;
  return (m32 + (1 << 15)) >> 16;
}

// TFLite's int8 HARD_SWISH: x on a 128x finer input scale, times a
// "relu-ish" factor in [0, 1] that is relu6(x + 3) / 6 in 16-bit fixed
// point, on the output scale.
void HardSwishTable(const TensorQuant& in, const TensorQuant& out, Table* t) {
  const float hires_scale = in.scale / 128.f;
  int out_exp = 0, relu_exp = 0;
  const int32_t out_mult = Int16Multiplier(hires_scale / out.scale, &out_exp);
  const int32_t relu_mult = Int16Multiplier(hires_scale / (3.f / 32768.f), &relu_exp);
  for (int v = -128; v <= 127; ++v) {
    const int32_t hires = (v - in.zero_point) * 128;
    const int32_t on_output = RoundingDoublingHighMul16(hires, out_mult);
    int32_t relu = hires;
    if (relu_exp > 0) relu = SaturatingLeftShift16(relu, relu_exp - 1);
    relu = RoundingDoublingHighMul16(relu, relu_mult);
    if (relu_exp > 0) relu = SaturatingLeftShift16(relu, 1);
    if (relu_exp < 0) relu = fp::RoundingDivideByPOT(relu, -relu_exp);
    relu = (relu + (1 << 15)) >> 1;
    const int32_t pre = DoublingHighMul16(relu, on_output);
    const int32_t q = fp::RoundingDivideByPOT(pre, -out_exp) + out.zero_point;
    t->values[static_cast<uint8_t>(static_cast<int8_t>(v))] = static_cast<int8_t>(std::min(std::max(q, -128), 127));
  }
}

float Gelu(float x) { return 0.5f * x * std::erfc(x * static_cast<float>(-M_SQRT1_2)); }
float GeluTanh(float x) {
  return 0.5f * x * (1.f + std::tanh(static_cast<float>(M_2_SQRTPI * M_SQRT1_2) * (x + 0.044715f * x * x * x)));
}

// TFLite's LUTPopulate: f of each dequantized input, divided by the output
// scale (as a product with its inverse), rounded half away from zero.
void FunctionTable(const TensorQuant& in, const TensorQuant& out, float (*f)(float), Table* t) {
  const float inverse_scale = 1.f / out.scale;
  for (int v = -128; v <= 127; ++v) {
    const float x = in.scale * static_cast<float>(v - in.zero_point);
    const float rescaled = std::round(f(x) * inverse_scale);
    const int32_t q = static_cast<int32_t>(rescaled + static_cast<float>(out.zero_point));
    t->values[static_cast<uint8_t>(static_cast<int8_t>(v))] = static_cast<int8_t>(std::min(std::max(q, -128), 127));
  }
}

Status MakeTable(const KernelContext& ctx, Table* t) {
  const TensorQuant in = OperandQuant(InputTensor(ctx, 0)), out = OperandQuant(OutputTensor(ctx, 0));
  if (!in.valid || !out.valid) return KernelUnimplemented(ctx, "int8 input and output with one scale each expected");
  if (ctx.node->op == OpType::kRsqrt) {
    RsqrtTable(in, out, t);
    return OkStatus();
  }
  if (ctx.node->op == OpType::kHardSwish) {
    HardSwishTable(in, out, t);
    return OkStatus();
  }
  const GeluAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  FunctionTable(in, out, attrs->approximate ? GeluTanh : Gelu, t);
  return OkStatus();
}

// --- SOFTMAX -----------------------------------------------------------------

Status MakeSoftmaxParams(const KernelContext& ctx, Int8SoftmaxParams* p) {
  const SoftmaxAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorQuant in = OperandQuant(InputTensor(ctx, 0)), out = OperandQuant(OutputTensor(ctx, 0));
  if (!in.valid || !out.valid) return KernelUnimplemented(ctx, "int8 input and output with one scale each expected");
  const float scale = -in.scale * attrs->beta;
  for (int d = 0; d <= 255; ++d) p->table[255 - d] = std::exp(scale * static_cast<float>(d));
  p->out_scale = out.scale;
  p->out_zero_point = out.zero_point;
  return OkStatus();
}

// --- BATCH_MATMUL ------------------------------------------------------------

Status MakeMatMulParams(const KernelContext& ctx, Int8MatMulParams* p) {
  const TensorQuant a = OperandQuant(InputTensor(ctx, 0)), b = OperandQuant(InputTensor(ctx, 1));
  const TensorQuant o = OperandQuant(OutputTensor(ctx, 0));
  if (!a.valid || !b.valid || !o.valid) return KernelUnimplemented(ctx, "int8 operands with one scale each expected");
  p->a_zero_point = a.zero_point;
  p->b_zero_point = b.zero_point;
  p->out_zero_point = o.zero_point;
  fp::QuantizeMultiplier(static_cast<double>(a.scale * b.scale) / static_cast<double>(o.scale), &p->mult, &p->shift);
  p->xnn_scale = a.scale * b.scale / o.scale;
  return OkStatus();
}

// --- MEAN --------------------------------------------------------------------

struct MeanParams {
  std::vector<bool> reduced;
  int32_t in_zero_point = 0, out_zero_point = 0;
  float in_scale = 1.f, out_scale = 1.f;
};

Status MakeMeanParams(const KernelContext& ctx, MeanParams* p) {
  const TensorQuant in = OperandQuant(InputTensor(ctx, 0)), out = OperandQuant(OutputTensor(ctx, 0));
  if (!in.valid || !out.valid) return KernelUnimplemented(ctx, "int8 input and output with one scale each expected");
  std::vector<int64_t> axes;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "axes", &axes));
  const int64_t rank = static_cast<int64_t>(ctx.inputs[0]->shape.size());
  p->reduced.assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int32_t axis = 0;
    if (!NormalizeAxis(a, rank, &axis)) return KernelError(ctx, "axis " + std::to_string(a) + " out of range");
    p->reduced[static_cast<size_t>(axis)] = true;
  }
  p->in_zero_point = in.zero_point;
  p->out_zero_point = out.zero_point;
  p->in_scale = in.scale;
  p->out_scale = out.scale;
  return OkStatus();
}

// --- state and dispatch --------------------------------------------------------

struct Int8OpState final : KernelState {
  Int8BinaryParams binary;
  // MUL(x, LOGISTIC(x)) (a swish): the input index of x; `table` then holds
  // the product for each x (SwishTable), and the node is one lookup.
  int swish_x = -1;
  std::vector<int8_t> constant[2];  // stored integers of a constant operand
  Table table;
  Int8SoftmaxParams softmax;
  Int8MatMulParams matmul;
  MeanParams mean;
};

// When one operand of the MUL is an int8 LOGISTIC (on XNNPACK's table) of
// the other, the product is a function of that other operand's byte: fills
// `table` with it (the MUL's own arithmetic on the 256 pairs) and returns
// the operand's index; -1 otherwise.
int SwishTable(const KernelContext& ctx, const Int8BinaryParams& p, Table* table) {
  const Node& mul = *ctx.node;
  if (mul.inputs.size() != 2) return -1;
  for (int gate = 0; gate < 2; ++gate) {
    const int x = mul.inputs[static_cast<size_t>(1 - gate)];
    const int producer = ctx.graph->Producer(mul.inputs[static_cast<size_t>(gate)]);
    if (producer < 0) continue;
    const Node& logistic = ctx.graph->nodes[static_cast<size_t>(producer)];
    int8_t sigmoid[256];
    if (logistic.inputs.size() != 1 || logistic.inputs[0] != x ||
        !Int8LogisticTable(*ctx.graph, logistic, sigmoid)) {
      continue;
    }
    int8_t bytes[256];
    for (int v = 0; v < 256; ++v) bytes[v] = static_cast<int8_t>(v);
    if (gate == 1) {
      Int8BinaryRun(p, bytes, 1, sigmoid, 1, table->values, 256);
    } else {
      Int8BinaryRun(p, sigmoid, 1, bytes, 1, table->values, 256);
    }
    return 1 - gate;
  }
  return -1;
}

Status MakeState(const KernelContext& ctx, Int8OpState* s) {
  if (ctx.graph == nullptr || ctx.node == nullptr) return InternalError("int8 kernel run without its graph");
  switch (ctx.node->op) {
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kSquaredDifference:
      GLD_RETURN_IF_ERROR(MakeBinaryParams(ctx, &s->binary));
      for (size_t i = 0; i < 2; ++i) {
        if (!ctx.InputIsConstant(i)) continue;
        std::vector<int32_t> values;
        if (!StoredIntegers(*InputTensor(ctx, i), &values)) {
          return KernelUnimplemented(ctx, "the stored integers of constant input " + std::to_string(i) +
                                              " cannot be recovered");
        }
        s->constant[i].assign(values.begin(), values.end());
      }
      if (ctx.node->op == OpType::kMul && !ctx.InputIsConstant(0) && !ctx.InputIsConstant(1) &&
          ctx.inputs[0]->shape == ctx.inputs[1]->shape) {
        s->swish_x = SwishTable(ctx, s->binary, &s->table);
      }
      return OkStatus();
    case OpType::kRsqrt:
    case OpType::kGelu:
    case OpType::kHardSwish:
      return MakeTable(ctx, &s->table);
    case OpType::kSoftmax:
      return MakeSoftmaxParams(ctx, &s->softmax);
    case OpType::kBatchMatMul:
      return MakeMatMulParams(ctx, &s->matmul);
    case OpType::kMean:
      return MakeMeanParams(ctx, &s->mean);
    default:
      return KernelUnimplemented(ctx, "no int8 kernel for this op");
  }
}

// Rows shorter than this are repeated into longer runs (RunBinary).
constexpr int64_t kInt8ShortRow = 256;

Status RunBinary(KernelContext& ctx, const Int8OpState& s) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (s.swish_x >= 0) {
    const TensorData& x = *ctx.inputs[static_cast<size_t>(s.swish_x)];
    const int64_t n = x.num_elements();
    if (a.shape != b.shape || n != out.num_elements()) return KernelError(ctx, "operand shapes changed");
    const int8_t* px = x.as<int8_t>();
    int8_t* po = out.as<int8_t>();
    ParallelForElements(ctx, n, 4 * kElementwiseChunk,
                        [&](int64_t begin, int64_t end) { Int8TableLookup(s.table.values, px + begin, end - begin, po + begin); });
    return OkStatus();
  }
  BroadcastPlan plan;
  if (!plan.Build({&a.shape, &b.shape}, out.shape)) return KernelError(ctx, "operands do not broadcast to the output");
  const int8_t* pa = s.constant[0].empty() ? a.as<int8_t>() : s.constant[0].data();
  const int8_t* pb = s.constant[1].empty() ? b.as<int8_t>() : s.constant[1].data();
  if ((!s.constant[0].empty() && static_cast<int64_t>(s.constant[0].size()) != a.num_elements()) ||
      (!s.constant[1].empty() && static_cast<int64_t>(s.constant[1].size()) != b.num_elements())) {
    return KernelError(ctx, "a constant operand's size changed");
  }
  int8_t* po = out.as<int8_t>();
  // A row (a squeeze-excite gate's channels) against a whole tensor of
  // short rows: the row repeated to runs of about 1K values, so that the
  // vector loop runs long (one run per row of 32 channels costs more in
  // setup than in values).
  if (RepeatedShortRowRuns(ctx, plan, kInt8ShortRow, pa, pb,
                           [&](const int8_t* ra, const int8_t* rb, int64_t at, int64_t n) {
                             Int8BinaryRun(s.binary, ra, 1, rb, 1, po + at, n);
                           })) {
    return OkStatus();
  }
  ForEachBinaryRun(ctx, plan, [&](int64_t ao, int64_t as, int64_t bo, int64_t bs, int64_t oo, int64_t n) {
    Int8BinaryRun(s.binary, pa + ao, as, pb + bo, bs, po + oo, n);
  });
  return OkStatus();
}

Status RunMatMul(KernelContext& ctx, const Int8MatMulParams& p) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  const BatchMatMulAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  if (a.shape.size() < 2 || b.shape.size() < 2 || out.shape.size() < 2) return KernelError(ctx, "rank 2 or more expected");
  const size_t ra = a.shape.size(), rb = b.shape.size(), ro = out.shape.size();
  const int64_t m = attrs->adj_x ? a.shape[ra - 1] : a.shape[ra - 2];
  const int64_t k = attrs->adj_x ? a.shape[ra - 2] : a.shape[ra - 1];
  const int64_t kb = attrs->adj_y ? b.shape[rb - 1] : b.shape[rb - 2];
  const int64_t n = attrs->adj_y ? b.shape[rb - 2] : b.shape[rb - 1];
  if (k != kb || out.shape[ro - 2] != m || out.shape[ro - 1] != n) return KernelError(ctx, "operand shapes do not match");
  const Shape a_batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
  const Shape o_batch(out.shape.begin(), out.shape.end() - 2);
  BroadcastPlan plan;
  if (!plan.Build({&a_batch, &b_batch}, o_batch)) return KernelError(ctx, "batch dimensions do not broadcast");
  const int64_t batches = NumElements(o_batch);
  const int8_t* pa = a.as<int8_t>();
  const int8_t* pb = b.as<int8_t>();
  int8_t* po = out.as<int8_t>();
  Int8MatMulShape shape;
  shape.m = m, shape.k = k, shape.n = n;
  shape.a_stride_m = attrs->adj_x ? 1 : k, shape.a_stride_k = attrs->adj_x ? m : 1;
  shape.b_stride_k = attrs->adj_y ? 1 : n, shape.b_stride_n = attrs->adj_y ? k : 1;
  ParallelForGrain(ctx, batches, 1, [&](int64_t begin, int64_t end) {
    std::vector<int16_t> scratch;
    for (int64_t batch = begin; batch < end; ++batch) {
      int64_t offs[3] = {0, 0, 0};
      if (!o_batch.empty()) {
        // Offsets along the coalesced plan: one outer step per output batch.
        const int64_t inner = plan.inner();
        plan.Offsets(batch / inner, offs);
        offs[0] += (batch % inner) * plan.strides[0].back();
        offs[1] += (batch % inner) * plan.strides[1].back();
      }
      Int8MatMul(p, shape, pa + offs[0] * m * k, pb + offs[1] * k * n, po + batch * m * n, &scratch);
    }
  });
  return OkStatus();
}

Status RunMean(KernelContext& ctx, const MeanParams& p) {
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (p.reduced.size() != in.shape.size()) return KernelError(ctx, "the input's rank changed since prepare");
  // Output strides over the input's dimensions, 0 along reduced ones.
  const size_t rank = in.shape.size();
  std::vector<int64_t> ostride(rank, 0);
  int64_t out_count = 1;
  for (size_t d = rank; d-- > 0;) {
    if (p.reduced[d]) continue;
    ostride[d] = out_count;
    out_count *= in.shape[d];
  }
  if (out_count != out.num_elements()) return KernelError(ctx, "output size does not match the reduction");
  const int64_t total = in.num_elements();
  const int64_t count = out_count == 0 ? 0 : total / out_count;
  std::vector<int32_t> sums(static_cast<size_t>(out_count), 0);
  const int8_t* x = in.as<int8_t>();
  // Reduced axes in one block: [outer, reduced, inner] sums of rows.
  size_t first = rank, last = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (p.reduced[d]) {
      first = std::min(first, d);
      last = d;
    }
  }
  bool block = first < rank;
  for (size_t d = first; block && d <= last; ++d) block = p.reduced[d];
  if (block) {
    int64_t outer = 1, reduced = 1, inner = 1;
    for (size_t d = 0; d < rank; ++d) {
      (d < first ? outer : d <= last ? reduced : inner) *= in.shape[d];
    }
    Int8SumBlock(x, outer, reduced, inner, sums.data());
  } else {
    std::vector<int64_t> index(rank, 0);
    int64_t o = 0;
    for (int64_t i = 0; i < total; ++i) {
      sums[static_cast<size_t>(o)] += x[i];
      for (size_t d = rank; d-- > 0;) {
        o += ostride[d];
        if (++index[d] < in.shape[d]) break;
        o -= ostride[d] * in.shape[d];
        index[d] = 0;
      }
    }
  }
  // XNNPACK's: the raw sum times the scale, plus one float bias holding the
  // input zero points' share and the output zero point, rounded half to even.
  const float scale = p.in_scale / (p.out_scale * static_cast<float>(std::max<int64_t>(count, 1)));
  const float bias =
      static_cast<float>(p.out_zero_point) - static_cast<float>(count * p.in_zero_point) * scale;
  Int8MeanRequantize(sums.data(), out_count, scale, bias, out.as<int8_t>());
  return OkStatus();
}

Status RunWithState(KernelContext& ctx, const Int8OpState& s) {
  switch (ctx.node->op) {
    case OpType::kRsqrt:
    case OpType::kGelu:
    case OpType::kHardSwish: {
      const int8_t* x = ctx.inputs[0]->as<int8_t>();
      int8_t* y = ctx.outputs[0]->as<int8_t>();
      const int64_t n = ctx.inputs[0]->num_elements();
      if (n != ctx.outputs[0]->num_elements()) return KernelError(ctx, "input and output sizes differ");
      Int8TableLookup(s.table.values, x, n, y);
      return OkStatus();
    }
    case OpType::kSoftmax: {
      const TensorData& in = *ctx.inputs[0];
      if (in.shape.empty() || in.num_elements() != ctx.outputs[0]->num_elements()) {
        return KernelError(ctx, "input and output sizes differ");
      }
      const int64_t n = in.shape.back();
      const int64_t rows = n == 0 ? 0 : in.num_elements() / n;
      Int8SoftmaxRows(s.softmax, in.as<int8_t>(), rows, n, ctx.outputs[0]->as<int8_t>());
      return OkStatus();
    }
    case OpType::kBatchMatMul:
      return RunMatMul(ctx, s.matmul);
    case OpType::kMean:
      return RunMean(ctx, s.mean);
    default:
      return RunBinary(ctx, s);
  }
}

}  // namespace

bool TakesInt8Binary(const Graph& graph, const Node& node) {
  Int8BinaryKind kind;
  if (!BinaryKindOf(graph, node, &kind)) return false;
  for (int t : node.inputs) {
    const Tensor* x = TensorAt(graph, t);
    if (!(x->is_constant ? IsInt8Constant(x) : IsInt8Activation(x))) return false;
  }
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  const auto* attrs = std::get_if<BinaryAttributes>(&node.attributes);
  int32_t lo = 0, hi = 0;
  return IsInt8Activation(out) && (attrs == nullptr || QuantizedActivationRange(attrs->activation, *out, &lo, &hi));
}

bool TakesInt8Table(const Graph& graph, const Node& node) {
  return (node.op == OpType::kRsqrt || node.op == OpType::kGelu || node.op == OpType::kHardSwish) &&
         node.inputs.size() == 1 &&
         node.outputs.size() == 1 && IsInt8Activation(TensorAt(graph, node.inputs[0])) &&
         IsInt8Activation(TensorAt(graph, node.outputs[0]));
}

bool TakesInt8Softmax(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  return IsInt8Activation(in) && !in->shape.empty() && IsInt8Activation(TensorAt(graph, node.outputs[0])) &&
         std::holds_alternative<SoftmaxAttributes>(node.attributes);
}

bool TakesInt8BatchMatMul(const Graph& graph, const Node& node) {
  return node.inputs.size() == 2 && node.outputs.size() == 1 && IsInt8Activation(TensorAt(graph, node.inputs[0])) &&
         IsInt8Activation(TensorAt(graph, node.inputs[1])) && IsInt8Activation(TensorAt(graph, node.outputs[0])) &&
         std::holds_alternative<BatchMatMulAttributes>(node.attributes);
}

bool TakesInt8Mean(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const Tensor* axes = TensorAt(graph, node.inputs[1]);
  return IsInt8Activation(TensorAt(graph, node.inputs[0])) && IsInt8Activation(TensorAt(graph, node.outputs[0])) &&
         axes != nullptr && axes->is_constant && (axes->type == DataType::kInt32 || axes->type == DataType::kInt64);
}

Status PrepareInt8Op(KernelContext& ctx) {
  if (ctx.state == nullptr) return OkStatus();
  auto state = std::make_unique<Int8OpState>();
  GLD_RETURN_IF_ERROR(MakeState(ctx, state.get()));
  *ctx.state = std::move(state);
  return OkStatus();
}

Status RunInt8Op(KernelContext& ctx) {
  if (const auto* s = StateAs<const Int8OpState>(ctx)) {
    return RunWithState(ctx, *s);
  }
  auto local = std::make_unique<Int8OpState>();
  GLD_RETURN_IF_ERROR(MakeState(ctx, local.get()));
  return RunWithState(ctx, *local);
}

}  // namespace gld::cpu
