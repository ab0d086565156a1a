// Layer norm as TensorFlow's converter writes Keras' LayerNormalization
// (tf.nn.batch_normalization over the last axis):
//   mean = MEAN(x, [-1], keep_dims)      var = MEAN(SQUARED_DIFFERENCE(x, mean))
//   r = RSQRT(ADD(var, epsilon))         s = MUL(r, gamma)     (no MUL: no gamma)
//   out = ADD(MUL(x, s), SUB(beta, MUL(mean, s)))
//      or ADD(MUL(x, s), NEG(MUL(mean, s))), ADD(MUL(x, s), MUL(NEG(mean), s))
//                                                              (no beta)
// A per-channel MUL and then ADD of constants after the final ADD (litert-torch
// writes LayerNorm's elementwise affine after the normalization: the chain
// alone, after keep_reduced_dims, with beta 0) fold into gamma and beta.
// The chain becomes one GLD_LAYER_NORM(x, gamma, beta) node (graph/op_list.inc) where
// every intermediate tensor is read only inside the chain and is no graph
// output. Its CPU kernel and GL shader compute the same arithmetic in one
// pass over each row.
#include <algorithm>
#include <string>
#include <vector>

#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "fuse_layer_norm";

// The only reader of `tensor` when it is a node of `op` (and the tensor is
// private to it); -1 otherwise.
int SoleReader(const Graph& graph, int tensor, OpType op) {
  const int reader = SoleReader(graph, tensor);
  return reader >= 0 && graph.nodes[static_cast<size_t>(reader)].op == op ? reader : -1;
}

// The operand of binary node `n` other than `t`; kNoTensor when `t` is not
// exactly one of its inputs or the node has a fused activation.
int OtherOperand(const Graph& graph, size_t n, int t) {
  const Node& node = graph.nodes[n];
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return kNoTensor;
  if (const auto* a = std::get_if<BinaryAttributes>(&node.attributes); a != nullptr && a->activation != Activation::kNone) {
    return kNoTensor;
  }
  if (node.inputs[0] == t && node.inputs[1] != t) return node.inputs[1];
  if (node.inputs[1] == t && node.inputs[0] != t) return node.inputs[0];
  return kNoTensor;
}

// A MEAN of `in` over its last axis, keeping dimensions.
bool IsLastAxisMean(const Graph& graph, size_t n, int in) {
  const Node& node = graph.nodes[n];
  if (node.op != OpType::kMean || node.inputs.size() != 2 || node.inputs[0] != in || node.outputs.size() != 1) {
    return false;
  }
  const auto* a = std::get_if<ReduceAttributes>(&node.attributes);
  std::vector<int64_t> axes;
  const int64_t rank = static_cast<int64_t>(graph.tensors[static_cast<size_t>(in)].shape.size());
  if (a == nullptr || !a->keep_dims || rank < 1 || !ConstantInts(graph, node.inputs[1], &axes) || axes.size() != 1) {
    return false;
  }
  return axes[0] == rank - 1 || axes[0] == -1;
}

// A constant float32 of 1 or `channels` values along the last axis (every
// other dimension 1, so it broadcasts per channel).
bool ChannelConstant(const Graph& graph, int t, int64_t channels, std::vector<float>* v) {
  if (!ConstantFloats(graph, t, v) || (static_cast<int64_t>(v->size()) != channels && v->size() != 1)) return false;
  const Shape& shape = graph.tensors[static_cast<size_t>(t)].shape;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    if (shape[d] != 1) return false;
  }
  return true;
}

struct Chain {
  std::vector<size_t> nodes;  // every node of the pattern; the last is the final ADD
  int x = kNoTensor, gamma = kNoTensor, beta = kNoTensor, out = kNoTensor;
  float epsilon = 0.0f;
  // Set when a trailing affine folded in: the new gamma and beta, `channels`
  // values each.
  std::vector<float> folded_gamma, folded_beta;
};

// `v` (1 or `channels` values) as `channels` values.
std::vector<float> PerChannel(const std::vector<float>& v, int64_t channels) {
  return v.size() == 1 ? std::vector<float>(static_cast<size_t>(channels), v[0]) : v;
}

// Folds a per-channel MUL, then ADD, of constants reading the chain's
// output into gamma and beta (their values `gamma`, `beta`, per channel).
void FoldTrailingAffine(const Graph& graph, int64_t channels, std::vector<float> gamma, std::vector<float> beta,
                        Chain* c) {
  bool folded = false;
  std::vector<float> v;
  const int mul = SoleReader(graph, c->out, OpType::kMul);
  if (mul >= 0 && ChannelConstant(graph, OtherOperand(graph, static_cast<size_t>(mul), c->out), channels, &v)) {
    v = PerChannel(v, channels);
    for (size_t i = 0; i < v.size(); ++i) {
      gamma[i] *= v[i];
      beta[i] *= v[i];
    }
    c->nodes.push_back(static_cast<size_t>(mul));
    c->out = graph.nodes[static_cast<size_t>(mul)].outputs[0];
    folded = true;
  }
  const int add = SoleReader(graph, c->out, OpType::kAdd);
  if (add >= 0 && ChannelConstant(graph, OtherOperand(graph, static_cast<size_t>(add), c->out), channels, &v)) {
    v = PerChannel(v, channels);
    for (size_t i = 0; i < v.size(); ++i) beta[i] += v[i];
    c->nodes.push_back(static_cast<size_t>(add));
    c->out = graph.nodes[static_cast<size_t>(add)].outputs[0];
    folded = true;
  }
  if (folded) {
    c->folded_gamma = std::move(gamma);
    c->folded_beta = std::move(beta);
  }
}

// The chain whose first MEAN is node `m1`; false when the nodes around it
// are not exactly the pattern.
bool MatchChain(const Graph& graph, size_t m1, Chain* c) {
  const Node& first = graph.nodes[m1];
  if (first.inputs.empty() || first.outputs.size() != 1) return false;
  const int x = first.inputs[0], mean = first.outputs[0];
  if (!ValidTensor(graph, x) || graph.tensors[static_cast<size_t>(x)].type != DataType::kFloat32) return false;
  if (!IsLastAxisMean(graph, m1, x) || graph.IsGraphOutput(mean)) return false;
  const int64_t channels = graph.tensors[static_cast<size_t>(x)].shape.back();
  // mean has two readers: SQUARED_DIFFERENCE(x, mean) and MUL(mean, s) (or
  // NEG(mean), read by MUL(-mean, s)).
  std::vector<size_t> mean_readers = graph.Consumers(mean);
  if (mean_readers.size() != 2) return false;
  if (graph.nodes[mean_readers[0]].op != OpType::kSquaredDifference) std::swap(mean_readers[0], mean_readers[1]);
  const size_t sd = mean_readers[0];
  size_t mean_mul = mean_readers[1];
  if (graph.nodes[sd].op != OpType::kSquaredDifference || OtherOperand(graph, sd, mean) != x) return false;
  int mean_operand = mean;
  int neg_first = -1;
  if (graph.nodes[mean_mul].op == OpType::kNeg && graph.nodes[mean_mul].outputs.size() == 1) {
    neg_first = static_cast<int>(mean_mul);
    mean_operand = graph.nodes[mean_mul].outputs[0];
    const int mul = SoleReader(graph, mean_operand, OpType::kMul);
    if (mul < 0) return false;
    mean_mul = static_cast<size_t>(mul);
  }
  const int m2 = SoleReader(graph, graph.nodes[sd].outputs[0], OpType::kMean);
  if (m2 < 0 || !IsLastAxisMean(graph, static_cast<size_t>(m2), graph.nodes[sd].outputs[0])) return false;
  const int var = graph.nodes[static_cast<size_t>(m2)].outputs[0];
  const int add_eps = SoleReader(graph, var, OpType::kAdd);
  if (add_eps < 0) return false;
  std::vector<float> eps;
  if (!ConstantFloats(graph, OtherOperand(graph, static_cast<size_t>(add_eps), var), &eps) || eps.size() != 1) {
    return false;
  }
  const int rsqrt = SoleReader(graph, graph.nodes[static_cast<size_t>(add_eps)].outputs[0], OpType::kRsqrt);
  if (rsqrt < 0 || graph.nodes[static_cast<size_t>(rsqrt)].outputs.size() != 1) return false;
  int s = graph.nodes[static_cast<size_t>(rsqrt)].outputs[0];
  c->nodes = {m1, sd, static_cast<size_t>(m2), static_cast<size_t>(add_eps), static_cast<size_t>(rsqrt)};
  if (neg_first >= 0) c->nodes.push_back(static_cast<size_t>(neg_first));
  std::vector<float> values, gamma_values{1.0f}, beta_values{0.0f};
  const int gamma_mul = SoleReader(graph, s, OpType::kMul);
  if (gamma_mul >= 0 && ChannelConstant(graph, OtherOperand(graph, static_cast<size_t>(gamma_mul), s), channels, &values)) {
    c->gamma = OtherOperand(graph, static_cast<size_t>(gamma_mul), s);
    gamma_values = values;
    c->nodes.push_back(static_cast<size_t>(gamma_mul));
    s = graph.nodes[static_cast<size_t>(gamma_mul)].outputs[0];
  }
  // s has two readers: MUL(x, s) and the MUL(mean, s) found above.
  std::vector<size_t> s_readers = graph.Consumers(s);
  if (graph.IsGraphOutput(s) || s_readers.size() != 2) return false;
  if (s_readers[0] == mean_mul) std::swap(s_readers[0], s_readers[1]);
  const size_t x_mul = s_readers[0];
  if (s_readers[1] != mean_mul || graph.nodes[x_mul].op != OpType::kMul || graph.nodes[mean_mul].op != OpType::kMul ||
      OtherOperand(graph, x_mul, s) != x || OtherOperand(graph, mean_mul, s) != mean_operand) {
    return false;
  }
  const int xs = graph.nodes[x_mul].outputs[0], ms = graph.nodes[mean_mul].outputs[0];
  c->nodes.push_back(x_mul);
  c->nodes.push_back(mean_mul);
  // beta - mean * s or -(mean * s); (-mean) * s is the shift itself.
  int shift = ms;
  int shift_node = -1;
  if (neg_first < 0) {
    shift_node = SoleReader(graph, ms, OpType::kSub);
    if (shift_node >= 0) {
      const Node& sub = graph.nodes[static_cast<size_t>(shift_node)];
      if (sub.inputs.size() != 2 || sub.inputs[1] != ms || !ChannelConstant(graph, sub.inputs[0], channels, &values) ||
          OtherOperand(graph, static_cast<size_t>(shift_node), ms) == kNoTensor) {
        return false;
      }
      c->beta = sub.inputs[0];
      beta_values = values;
    } else {
      shift_node = SoleReader(graph, ms, OpType::kNeg);
      if (shift_node < 0) return false;
    }
  }
  if (shift_node >= 0) {
    c->nodes.push_back(static_cast<size_t>(shift_node));
    shift = graph.nodes[static_cast<size_t>(shift_node)].outputs[0];
  }
  const int final_add = SoleReader(graph, shift, OpType::kAdd);
  if (final_add < 0 || OtherOperand(graph, static_cast<size_t>(final_add), shift) != xs ||
      SoleReader(graph, xs, OpType::kAdd) != final_add) {
    return false;
  }
  c->nodes.push_back(static_cast<size_t>(final_add));
  c->x = x;
  c->out = graph.nodes[static_cast<size_t>(final_add)].outputs[0];
  c->epsilon = eps[0];
  FoldTrailingAffine(graph, channels, PerChannel(gamma_values, channels), PerChannel(beta_values, channels), c);
  const Tensor& out = graph.tensors[static_cast<size_t>(c->out)];
  return out.type == DataType::kFloat32 && out.shape == graph.tensors[static_cast<size_t>(x)].shape;
}

}  // namespace

Status FuseLayerNorm(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op != OpType::kMean || remove[i]) continue;
    Chain c;
    if (!MatchChain(graph, i, &c)) continue;
    if (AnyTaken(c.nodes, remove)) continue;
    const std::string name = graph.tensors[static_cast<size_t>(c.out)].name;
    if (!c.folded_gamma.empty()) {
      const Shape channels = {static_cast<int>(c.folded_gamma.size())};
      c.gamma = AddFloatConstant(graph, name + "/gamma", channels, c.folded_gamma);
      c.beta = AddFloatConstant(graph, name + "/beta", channels, c.folded_beta);
    }
    if (c.gamma == kNoTensor) c.gamma = AddFloatConstant(graph, name + "/gamma", {1}, {1.0f});
    if (c.beta == kNoTensor) c.beta = AddFloatConstant(graph, name + "/beta", {1}, {0.0f});
    // The final ADD's place becomes the fused node: its inputs come earlier.
    const size_t at = c.nodes.back();
    Node fused;
    fused.op = OpType::kLayerNorm;
    fused.inputs = {c.x, c.gamma, c.beta};
    fused.outputs = {c.out};
    fused.attributes = LayerNormAttributes{c.epsilon};
    fused.source_index = graph.nodes[at].source_index;
    const std::string labels = ReplaceChain(graph, at, std::move(fused), c.nodes, remove);
    any = true;
    log.Add(kPass, labels + " became one GLD_LAYER_NORM (epsilon " + std::to_string(c.epsilon) + ") of " +
                       DescribeTensor(graph, c.x) + " writing " + DescribeTensor(graph, c.out));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
