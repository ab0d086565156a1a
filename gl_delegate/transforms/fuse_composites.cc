// STABLEHLO_COMPOSITE nodes that litert-torch emits for its generative
// layers, run as one op of the library's instead of their decomposition
// (before inline_composites, which inlines the others):
//   odml.rms_norm (x, w)                     -> GLD_RMS_NORM(x, w)
//   odml.scaled_dot_product_attention
//                       (q, k, v[, mask])    -> GLD_SCALED_DOT_PRODUCT_ATTENTION
// A composite is defined by its decomposition, so each is taken only where
// its decomposition is the arithmetic the fused op computes (checked below,
// op by op for RMS norm; for attention the dataflow from each input through
// reshapes, transposes and scalar MULs to the two BATCH_MATMULs, the mask
// ADD and the SOFTMAX) and the shapes are ones the op takes; any other is
// left to inline_composites with the reason in the pass log.
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "transforms/pass.h"

namespace gld {
namespace {

constexpr char kPass[] = "fuse_composites";

// The composite's numeric attribute `key`, if it has one.
bool Number(const CompositeAttributes& a, const char* key, double* v) {
  for (const auto& [name, value] : a.numbers) {
    if (name == key) {
      *v = value;
      return true;
    }
  }
  return false;
}

bool Close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::fabs(b) + 1e-12; }

// A node of `op` with no fused activation and one output.
bool Plain(const Node& n, OpType op) {
  if (n.op != op || n.outputs.size() != 1) return false;
  const auto* b = std::get_if<BinaryAttributes>(&n.attributes);
  return b == nullptr || b->activation == Activation::kNone;
}

// The single float scalar constant `t` holds.
bool ScalarConstant(const Graph& g, int t, float* v) {
  std::vector<float> values;
  if (!ConstantFloats(g, t, &values) || values.size() != 1) return false;
  *v = values[0];
  return true;
}

bool AllFloat32(const Graph& g, const std::vector<int>& tensors) {
  for (int t : tensors) {
    if (!ValidTensor(g, t) || g.tensors[static_cast<size_t>(t)].type != DataType::kFloat32) return false;
  }
  return true;
}

// odml.rms_norm: its decomposition must be exactly
//   MUL(x, x) -> MEAN(last axis, keep_dims) -> ADD(epsilon) -> RSQRT -> MUL(x, .) -> MUL(., w)
// or with MEAN dropping the axis and a RESHAPE putting it back before RSQRT.
std::string RmsNorm(const Graph& graph, const Node& node, const Graph& callee, Node* fused) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return "it does not take (x, w) to one output";
  if (!AllFloat32(graph, {node.inputs[0], node.inputs[1], node.outputs[0]})) return "its tensors are not float32";
  const Shape& x_shape = graph.tensors[static_cast<size_t>(node.inputs[0])].shape;
  const int64_t w_size = graph.tensors[static_cast<size_t>(node.inputs[1])].num_elements();
  if (x_shape.empty() || (w_size != x_shape.back() && w_size != 1) ||
      graph.tensors[static_cast<size_t>(node.outputs[0])].shape != x_shape) {
    return "x " + ShapeToString(x_shape) + " and w do not make an RMS norm over the last axis";
  }
  const int x = callee.inputs[0], w = callee.inputs[1];
  const std::string differs = "its decomposition is not MUL(x, x), MEAN, ADD epsilon, (RESHAPE,) RSQRT, MUL x, MUL w";
  auto node_of = [&](int t, OpType op) -> const Node* {
    const int p = callee.Producer(t);
    return p >= 0 && Plain(callee.nodes[static_cast<size_t>(p)], op) ? &callee.nodes[static_cast<size_t>(p)] : nullptr;
  };
  auto other = [](const Node& n, int t) { return n.inputs[0] == t ? n.inputs[1] : n.inputs[0]; };
  const Node* mul_w = node_of(callee.outputs[0], OpType::kMul);
  if (mul_w == nullptr || (mul_w->inputs[0] != w && mul_w->inputs[1] != w)) return differs;
  const Node* mul_x = node_of(other(*mul_w, w), OpType::kMul);
  if (mul_x == nullptr || (mul_x->inputs[0] != x && mul_x->inputs[1] != x)) return differs;
  const Node* rsqrt = node_of(other(*mul_x, x), OpType::kRsqrt);
  if (rsqrt == nullptr) return differs;
  // The row sums without keep_dims, put back in shape by a RESHAPE before RSQRT.
  int add_out = rsqrt->inputs[0];
  bool reshaped = false;
  if (const Node* r = node_of(add_out, OpType::kReshape); r != nullptr) {
    Shape kept = x_shape;
    kept.back() = 1;
    const Shape dropped(x_shape.begin(), x_shape.end() - 1);
    if (callee.tensors[static_cast<size_t>(r->outputs[0])].shape != kept ||
        callee.tensors[static_cast<size_t>(r->inputs[0])].shape != dropped) {
      return differs;
    }
    add_out = r->inputs[0];
    reshaped = true;
  }
  if (callee.nodes.size() != (reshaped ? 7u : 6u)) return differs;
  const Node* add = node_of(add_out, OpType::kAdd);
  if (add == nullptr) return differs;
  float eps = 0.0f;
  int mean_out = add->inputs[0];
  if (!ScalarConstant(callee, add->inputs[1], &eps)) {
    mean_out = add->inputs[1];
    if (!ScalarConstant(callee, add->inputs[0], &eps)) return differs;
  }
  const Node* mean = node_of(mean_out, OpType::kMean);
  std::vector<int64_t> axes;
  const auto* ra = mean == nullptr ? nullptr : std::get_if<ReduceAttributes>(&mean->attributes);
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  if (ra == nullptr || ra->keep_dims == reshaped || !ConstantInts(callee, mean->inputs[1], &axes) || axes.size() != 1 ||
      (axes[0] != rank - 1 && axes[0] != -1)) {
    return differs;
  }
  const Node* square = node_of(mean->inputs[0], OpType::kMul);
  if (square == nullptr || square->inputs[0] != x || square->inputs[1] != x) return differs;
  double attr = 0.0;
  if (Number(node.attrs<CompositeAttributes>(), "epsilon", &attr) && !Close(eps, static_cast<float>(attr))) {
    return "its epsilon attribute " + std::to_string(attr) + " is not its decomposition's " + std::to_string(eps);
  }
  fused->op = OpType::kRmsNorm;
  fused->inputs = node.inputs;
  fused->attributes = RmsNormAttributes{eps};
  return "";
}

// Where `t` goes through ops that move values (RESHAPE, TRANSPOSE) or scale
// them by a scalar constant (MUL, the product kept in `scale`): the first
// node that does something else, and which of its inputs the chain reaches
// (-1, -1 when the chain forks or ends).
std::pair<int, int> Follow(const Graph& g, int t, double* scale) {
  for (;;) {
    const std::vector<size_t> readers = g.Consumers(t);
    if (readers.size() != 1) return {-1, -1};
    const Node& n = g.nodes[readers[0]];
    int input = -1;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == t) input = input < 0 ? static_cast<int>(i) : -2;
    }
    float s = 0.0f;
    const bool moves = (n.op == OpType::kReshape || n.op == OpType::kTranspose) && input == 0;
    const bool scales = Plain(n, OpType::kMul) && input >= 0 && ScalarConstant(g, n.inputs[1 - input], &s);
    if (!moves && !scales) return {static_cast<int>(readers[0]), input};
    if (scales) *scale *= s;
    if (n.outputs.size() != 1) return {-1, -1};
    t = n.outputs[0];
  }
}

std::string AttentionShapes(const Graph& graph, const Node& node) {
  const Shape& q = graph.tensors[static_cast<size_t>(node.inputs[0])].shape;
  const Shape& k = graph.tensors[static_cast<size_t>(node.inputs[1])].shape;
  const Shape& v = graph.tensors[static_cast<size_t>(node.inputs[2])].shape;
  const std::string qkv = "q " + ShapeToString(q) + ", k " + ShapeToString(k) + ", v " + ShapeToString(v);
  if (q.size() != 4 || k != v || k.size() != 4 || k[0] != q[0] || k[3] != q[3] ||
      graph.tensors[static_cast<size_t>(node.outputs[0])].shape != q) {
    return qkv + " are not [B, T, N, H], [B, S, N, H] twice with an output of q's shape";
  }
  if (k[2] != q[2]) return qkv + ": grouped-query attention (other head counts for q and k) is not taken";
  if (node.inputs.size() == 4) {
    const Shape& m = graph.tensors[static_cast<size_t>(node.inputs[3])].shape;
    const Shape full = {q[0], q[2], q[1], k[1]};
    bool ok = m.size() <= 4;
    for (size_t d = 0; ok && d < m.size(); ++d) ok = m[d] == 1 || m[d] == full[4 - m.size() + d];
    if (!ok) return "mask " + ShapeToString(m) + " does not broadcast to [B, N, T, S] " + ShapeToString(full);
  }
  return "";
}

// odml.scaled_dot_product_attention (q, k, v[, mask]), BTNH layout:
// softmax(scale q k^T + mask) v.
std::string Attention(const Graph& graph, const Node& node, const Graph& callee, Node* fused) {
  const size_t n_in = node.inputs.size();
  if ((n_in != 3 && n_in != 4) || node.outputs.size() != 1) return "it does not take (q, k, v[, mask]) to one output";
  std::vector<int> all = node.inputs;
  all.push_back(node.outputs[0]);
  if (!AllFloat32(graph, all)) return "its tensors are not float32";
  if (std::string s = AttentionShapes(graph, node); !s.empty()) return s;
  const std::string differs =
      "its decomposition is not softmax(q k^T + mask) v through two BATCH_MATMULs, reshapes, transposes and scalar "
      "MULs";
  for (const Node& n : callee.nodes) {
    if (n.op != OpType::kReshape && n.op != OpType::kTranspose && n.op != OpType::kMul &&
        n.op != OpType::kBatchMatMul && n.op != OpType::kAdd && n.op != OpType::kSoftmax) {
      return differs + " (it holds " + std::string(OpTypeName(n.op)) + ")";
    }
  }
  // Scalar MULs may scale q, k and the scores before the mask is added;
  // anywhere else they would change more than the scale.
  double scale = 1.0, other_scale = 1.0;
  const auto [qk, q_in] = Follow(callee, callee.inputs[0], &scale);
  const auto [qk2, k_in] = Follow(callee, callee.inputs[1], &scale);
  if (qk < 0 || qk != qk2 || q_in != 0 || k_in != 1 || !Plain(callee.nodes[static_cast<size_t>(qk)], OpType::kBatchMatMul)) {
    return differs;
  }
  auto [next, next_in] = Follow(callee, callee.nodes[static_cast<size_t>(qk)].outputs[0], &scale);
  if (n_in == 4) {
    const auto [add, add_in] = Follow(callee, callee.inputs[3], &other_scale);
    if (next < 0 || add != next || next_in == add_in || !Plain(callee.nodes[static_cast<size_t>(add)], OpType::kAdd)) {
      return differs;
    }
    std::tie(next, next_in) = Follow(callee, callee.nodes[static_cast<size_t>(add)].outputs[0], &other_scale);
  }
  if (next < 0 || callee.nodes[static_cast<size_t>(next)].op != OpType::kSoftmax ||
      callee.nodes[static_cast<size_t>(next)].attrs<SoftmaxAttributes>().beta != 1.0f) {
    return differs;
  }
  const auto [pv, p_in] = Follow(callee, callee.nodes[static_cast<size_t>(next)].outputs[0], &other_scale);
  const auto [pv2, v_in] = Follow(callee, callee.inputs[2], &other_scale);
  if (pv < 0 || pv != pv2 || p_in != 0 || v_in != 1 || other_scale != 1.0 ||
      !Plain(callee.nodes[static_cast<size_t>(pv)], OpType::kBatchMatMul)) {
    return differs;
  }
  for (size_t b : {static_cast<size_t>(qk), static_cast<size_t>(pv)}) {
    const auto& m = callee.nodes[b].attrs<BatchMatMulAttributes>();
    if (m.adj_x || m.adj_y) return differs + " (a BATCH_MATMUL transposes an operand)";
  }
  // What is left of the output's chain moves values only.
  int t = callee.nodes[static_cast<size_t>(pv)].outputs[0];
  while (t != callee.outputs[0]) {
    const std::vector<size_t> readers = callee.Consumers(t);
    if (readers.size() != 1 || callee.nodes[readers[0]].outputs.size() != 1) return differs;
    const Node& n = callee.nodes[readers[0]];
    if (n.op != OpType::kReshape && n.op != OpType::kTranspose) return differs;
    t = n.outputs[0];
  }
  double attr = 0.0;
  if (Number(node.attrs<CompositeAttributes>(), "scale", &attr) && !Close(scale, attr)) {
    return "its scale attribute " + std::to_string(attr) + " is not its decomposition's " + std::to_string(scale);
  }
  fused->op = OpType::kScaledDotProductAttention;
  fused->inputs = node.inputs;
  fused->attributes = AttentionAttributes{static_cast<float>(scale)};
  return "";
}

using Recognizer = std::string (*)(const Graph& graph, const Node& node, const Graph& callee, Node* fused);
struct Recognized {
  const char* name;
  Recognizer recognize;
};
constexpr Recognized kRecognized[] = {
    {"odml.rms_norm", RmsNorm},
    {"odml.scaled_dot_product_attention", Attention},
};

}  // namespace

Status FuseComposites(Graph& graph, PassLog& log) {
  for (Node& node : graph.nodes) {
    if (node.op != OpType::kStablehloComposite) continue;
    const auto& a = node.attrs<CompositeAttributes>();
    Recognizer recognize = nullptr;
    for (const Recognized& r : kRecognized) {
      if (a.name == r.name) recognize = r.recognize;
    }
    if (recognize == nullptr || graph.subgraphs == nullptr || a.decomposition_subgraph < 0 ||
        static_cast<size_t>(a.decomposition_subgraph) >= graph.subgraphs->size()) {
      continue;  // inline_composites inlines it (or says what is wrong)
    }
    const Graph& callee = (*graph.subgraphs)[static_cast<size_t>(a.decomposition_subgraph)];
    const std::string who = graph.NodeLabel(static_cast<size_t>(&node - graph.nodes.data())) + " ('" + a.name + "')";
    if (callee.inputs.size() != node.inputs.size() || callee.outputs.size() != 1) continue;
    Node fused;
    const std::string why_not = recognize(graph, node, callee, &fused);
    if (!why_not.empty()) {
      log.Add(kPass, who + " left to its decomposition: " + why_not);
      continue;
    }
    fused.outputs = node.outputs;
    fused.source_index = node.source_index;
    fused.fused_names = node.fused_names;
    fused.fused_names.push_back(a.name);
    log.Add(kPass, who + " runs as one " + OpTypeName(fused.op) + " instead of the " +
                       std::to_string(callee.nodes.size()) + " nodes of " + callee.SubgraphLabel());
    node = std::move(fused);
  }
  return OkStatus();
}

}  // namespace gld
