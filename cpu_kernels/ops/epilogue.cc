#include "cpu_kernels/ops/epilogue.h"

#include <algorithm>
#include <cstring>

#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"
#include "cpu_kernels/micro/vector_ops/vector_ops.h"
#include "graph/shape_inference.h"

namespace gld::cpu {

namespace {

bool IsFloat32(const Graph& graph, int t) { return graph.tensors[static_cast<size_t>(t)].type == DataType::kFloat32; }

}  // namespace

namespace {

// GELU of the chain's value x, of its shape, float32.
bool GeluStepFor(const Graph& graph, const Node& node, int x, EpilogueStepSpec* spec) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.inputs[0] != x) return false;
  const Tensor& in = graph.tensors[static_cast<size_t>(x)];
  const Tensor& out = graph.tensors[static_cast<size_t>(node.outputs[0])];
  if (in.type != DataType::kFloat32 || out.type != DataType::kFloat32 || in.shape != out.shape ||
      NumElements(out.shape) <= 0) {
    return false;
  }
  const auto* attrs = std::get_if<GeluAttributes>(&node.attributes);
  EpilogueStepSpec s;
  s.kind = attrs != nullptr && attrs->approximate ? EpilogueKind::kGeluTanh : EpilogueKind::kGelu;
  *spec = s;
  return true;
}

}  // namespace

bool EpilogueStepFor(const Graph& graph, size_t node_index, int x, EpilogueStepSpec* spec) {
  const Node& node = graph.nodes[node_index];
  if (node.op == OpType::kGelu) return GeluStepFor(graph, node, x, spec);
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const int a = node.inputs[0], b = node.inputs[1], out = node.outputs[0];
  if (a == kNoTensor || b == kNoTensor || (a == x) == (b == x)) return false;
  if (!IsFloat32(graph, a) || !IsFloat32(graph, b) || !IsFloat32(graph, out)) return false;
  const Shape& out_shape = graph.tensors[static_cast<size_t>(out)].shape;
  if (graph.tensors[static_cast<size_t>(x)].shape != out_shape || NumElements(out_shape) <= 0) return false;
  EpilogueStepSpec s;
  s.x_first = a == x;
  s.operand = s.x_first ? b : a;
  const Shape& operand_shape = graph.tensors[static_cast<size_t>(s.operand)].shape;
  switch (node.op) {
    case OpType::kPrelu:
      if (!s.x_first || !IsPerChannelSlope(operand_shape, out_shape)) return false;
      s.kind = EpilogueKind::kPrelu;
      break;
    case OpType::kAdd: s.kind = EpilogueKind::kAdd; break;
    case OpType::kSub: s.kind = EpilogueKind::kSub; break;
    case OpType::kMul: s.kind = EpilogueKind::kMul; break;
    case OpType::kDiv: s.kind = EpilogueKind::kDiv; break;
    default: return false;
  }
  if (s.kind != EpilogueKind::kPrelu) {
    // One value against the whole output (attention's scale, a layer
    // norm's epsilon) or an operand of the output's shape.
    s.scalar = operand_shape != out_shape && NumElements(operand_shape) == 1;
    if (operand_shape != out_shape && !s.scalar) return false;
    if (const auto* attrs = std::get_if<BinaryAttributes>(&node.attributes)) s.activation = attrs->activation;
    if (!IsClampActivation(s.activation)) return false;
  }
  *spec = s;
  return true;
}

bool AbsorbChannelPad(const Graph& graph, size_t pad_node, EpilogueStepSpec* spec) {
  const Node& pad = graph.nodes[pad_node];
  if (pad.op != OpType::kPad || pad.inputs.size() != 2 || pad.outputs.size() != 1 || spec->operand != pad.outputs[0] ||
      spec->kind == EpilogueKind::kPrelu || spec->scalar || spec->pad_node >= 0) {
    return false;
  }
  const Tensor& in = graph.tensors[static_cast<size_t>(pad.inputs[0])];
  const Tensor& out = graph.tensors[static_cast<size_t>(pad.outputs[0])];
  const Tensor& paddings = graph.tensors[static_cast<size_t>(pad.inputs[1])];
  std::vector<int64_t> p;
  if (in.type != DataType::kFloat32 || out.type != DataType::kFloat32 || !paddings.is_constant ||
      !ReadConstantInts(paddings, &p) || in.shape.empty() || p.size() != 2 * in.shape.size() ||
      out.shape.size() != in.shape.size() || !in.quant.zero_point.empty()) {
    return false;
  }
  const size_t last = in.shape.size() - 1;
  for (size_t d = 0; d < last; ++d) {
    if (p[2 * d] != 0 || p[2 * d + 1] != 0 || in.shape[d] != out.shape[d]) return false;
  }
  if (p[2 * last] < 0 || p[2 * last + 1] < 0 || in.shape[last] <= 0 ||
      in.shape[last] + p[2 * last] + p[2 * last + 1] != out.shape[last]) {
    return false;
  }
  spec->operand = pad.inputs[0];
  spec->pad_node = static_cast<int>(pad_node);
  spec->pad_before = p[2 * last];
  return true;
}

Status BindEpilogueStep(const EpilogueStepSpec& spec, const TensorData& operand, const TensorData& out,
                        const std::string& label, EpilogueStep* step) {
  if (EpilogueKindIsUnary(spec.kind)) {
    if (out.type != DataType::kFloat32 || out.data == nullptr) {
      return InvalidArgumentError(label + ": cannot run in its producer's epilogue: output " +
                                  ShapeToString(out.shape) + " " + DataTypeName(out.type));
    }
    *step = EpilogueStep{};
    step->kind = spec.kind;
    return OkStatus();
  }
  bool fits = spec.kind == EpilogueKind::kPrelu ? IsPerChannelSlope(operand.shape, out.shape)
                                                : operand.shape == out.shape;
  if (spec.scalar) fits = operand.num_elements() == 1;
  if (spec.pad_node >= 0) {
    // Rows of the operand's last dimension, zero-padded to the output's.
    fits = operand.shape.size() == out.shape.size() && !out.shape.empty() && operand.shape.back() > 0 &&
           spec.pad_before >= 0 && spec.pad_before + operand.shape.back() <= out.shape.back() &&
           std::equal(operand.shape.begin(), operand.shape.end() - 1, out.shape.begin());
  }
  if (operand.type != DataType::kFloat32 || out.type != DataType::kFloat32 || !fits || operand.data == nullptr ||
      out.data == nullptr) {
    return InvalidArgumentError(label + ": cannot run in its producer's epilogue: operand " +
                                ShapeToString(operand.shape) + ", output " + ShapeToString(out.shape));
  }
  step->kind = spec.kind;
  step->operand = operand.as<float>();
  step->x_first = spec.x_first;
  step->scalar = spec.scalar;
  step->operand_channels = spec.pad_node >= 0 ? operand.shape.back() : 0;
  step->pad_before = spec.pad_before;
  step->clamp = spec.activation != Activation::kNone;
  const ActivationRange r = GetActivationRange(spec.activation);
  step->lo = r.lo;
  step->hi = r.hi;
  return OkStatus();
}

namespace {

// operand values [i, i + n) of a zero-padded operand, as the PAD would have
// written them (rows of `channels`): one division per block, then a row at a
// time (the padding is a few zeros at either end of each row, the rest one
// copy).
void GatherPadded(const EpilogueStep& s, int64_t channels, int64_t i, int64_t n, float* dst) {
  const int64_t lead = s.pad_before, width = s.operand_channels;
  int64_t c0 = i % channels;
  const float* src = s.operand + (i / channels) * width;  // src[c - lead]: the value at channel c
  for (int64_t j = 0; j < n; j += channels - c0, c0 = 0, src += width) {
    const int64_t c1 = std::min(channels, c0 + n - j);  // this row's channels [c0, c1)
    float* out = dst + j - c0;                            // out[c]: channel c
    const int64_t copy_begin = std::max(c0, lead), copy_end = std::min(c1, lead + width);
    for (int64_t c = c0; c < std::min(c1, lead); ++c) out[c] = 0.f;
    if (copy_end > copy_begin) {
      std::memcpy(out + copy_begin, src + (copy_begin - lead),
                  static_cast<size_t>(copy_end - copy_begin) * sizeof(float));
    }
    for (int64_t c = std::max(c0, lead + width); c < c1; ++c) out[c] = 0.f;
  }
}

}  // namespace

void RunEpilogue(const Epilogue& e, const float* x, int64_t begin, int64_t end) {
  float scratch[kEpilogueBlock];
  float padded[kEpilogueBlock];
  for (int64_t i = begin; i < end; i += kEpilogueBlock) {
    const int64_t n = std::min(kEpilogueBlock, end - i);
    const float* src = x + i;
    for (size_t k = 0; k < e.steps.size(); ++k) {
      const EpilogueStep& s = e.steps[k];
      float* dst = k + 1 == e.steps.size() ? e.out + i : scratch;
      if (s.kind == EpilogueKind::kPrelu) {
        PreluSpan(src, s.operand, e.channels, i % e.channels, n, dst);
        src = dst;
        continue;
      }
      if (EpilogueKindIsUnary(s.kind)) {
        GeluRow(src, dst, n, s.kind == EpilogueKind::kGeluTanh);
        src = dst;
        continue;
      }
      VectorOp op = VectorOp::kAdd;
      switch (s.kind) {
        case EpilogueKind::kAdd: op = VectorOp::kAdd; break;
        case EpilogueKind::kSub: op = VectorOp::kSub; break;
        case EpilogueKind::kMul: op = VectorOp::kMul; break;
        case EpilogueKind::kDiv: op = VectorOp::kDiv; break;
        case EpilogueKind::kPrelu:
        case EpilogueKind::kGelu:
        case EpilogueKind::kGeluTanh: break;
      }
      const float* other = s.operand + i;
      if (s.operand_channels > 0) {
        GatherPadded(s, e.channels, i, n, padded);
        other = padded;
      } else if (s.scalar) {
        std::fill(padded, padded + n, s.operand[0]);
        other = padded;
      }
      VectorBinary(op, s.x_first ? src : other, s.x_first ? other : src, dst, n, s.clamp, s.lo, s.hi);
      src = dst;
    }
  }
}

}  // namespace gld::cpu
