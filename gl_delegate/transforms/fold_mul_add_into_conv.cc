// Folds a constant MUL or ADD (a scalar or one value per channel) into the
// CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED next to it:
//  - after it (the layer has no fused activation and its output has no other
//    reader): MUL scales the weights and bias of each output channel, ADD
//    adds to the bias; the MUL/ADD's own fused activation moves to the layer;
//  - before it (the MUL's output is read only by the layer, as its input):
//    MUL scales the weights of each input channel. Zero padding stays zero
//    under a scale, so this is exact for SAME convolutions too. An ADD before
//    a convolution is not folded: with padding, the padded border would not
//    get the addend.
// New weight and bias tensors are made (the old ones may be shared); the old
// ones are released later if nothing reads them.
#include <algorithm>

#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "fold_mul_add_into_conv";

// Where the channels lie in the layer's weights.
struct Layer {
  int64_t out_channels = 0, in_channels = 0;
  Activation* activation = nullptr;
};

bool DescribeLayer(Graph& graph, Node& node, Layer* layer) {
  if (node.inputs.size() < 2 || node.outputs.size() != 1 || !ValidTensor(graph, node.inputs[1])) return false;
  const Shape& w = graph.tensors[static_cast<size_t>(node.inputs[1])].shape;
  if (node.op == OpType::kConv2d && w.size() == 4) {
    auto* a = std::get_if<Conv2dAttributes>(&node.attributes);
    if (a == nullptr) return false;
    *layer = {w[0], w[3], &a->activation};
  } else if (node.op == OpType::kDepthwiseConv2d && w.size() == 4 && w[0] == 1) {
    auto* a = std::get_if<DepthwiseConv2dAttributes>(&node.attributes);
    const Shape& x = ValidTensor(graph, node.inputs[0]) ? graph.tensors[static_cast<size_t>(node.inputs[0])].shape
                                                         : Shape{};
    if (a == nullptr || x.size() != 4 || x[3] <= 0 || w[3] % x[3] != 0) return false;
    *layer = {w[3], x[3], &a->activation};
  } else if (node.op == OpType::kFullyConnected && w.size() == 2) {
    auto* a = std::get_if<FullyConnectedAttributes>(&node.attributes);
    if (a == nullptr) return false;
    *layer = {w[0], w[1], &a->activation};
  } else {
    return false;
  }
  return layer->activation != nullptr && layer->out_channels > 0 && layer->in_channels > 0;
}

// The constant as one value per channel: a scalar, or a vector along the
// last axis whose other dimensions are 1 and whose rank does not exceed the
// other operand's.
bool PerChannel(const Graph& graph, int tensor, int64_t channels, size_t rank, std::vector<float>* values) {
  std::vector<float> v;
  if (!ConstantFloats(graph, tensor, &v)) return false;
  const Shape& s = graph.tensors[static_cast<size_t>(tensor)].shape;
  if (s.size() > rank) return false;
  if (v.size() == 1) {
    values->assign(static_cast<size_t>(channels), v[0]);
    return true;
  }
  if (s.empty() || s.back() != channels || static_cast<int64_t>(v.size()) != channels) return false;
  *values = std::move(v);
  return true;
}

// The MUL/ADD's operands: which input is the constant.
bool SplitOperands(const Graph& graph, const Node& node, int through, int* constant) {
  if ((node.op != OpType::kMul && node.op != OpType::kAdd) || node.inputs.size() != 2 || node.outputs.size() != 1) {
    return false;
  }
  if (node.inputs[0] == through && node.inputs[1] != through) *constant = node.inputs[1];
  else if (node.inputs[1] == through && node.inputs[0] != through) *constant = node.inputs[0];
  else return false;
  const int out = node.outputs[0];
  return ValidTensor(graph, out) && ValidTensor(graph, through) &&
         graph.tensors[static_cast<size_t>(out)].shape == graph.tensors[static_cast<size_t>(through)].shape &&
         graph.tensors[static_cast<size_t>(out)].type == DataType::kFloat32;
}

Activation OwnActivation(const Node& node) {
  const auto* a = std::get_if<BinaryAttributes>(&node.attributes);
  return a == nullptr ? Activation::kNone : a->activation;
}

// Replaces the layer's weights (and bias) with scaled copies:
// w[o][i] *= out_scale[o] * in_scale[i], bias[o] = bias[o] * out_scale[o] + shift[o].
bool Rewrite(Graph& graph, Node& node, const Layer& layer, const std::vector<float>& out_scale,
             const std::vector<float>& in_scale, const std::vector<float>& shift) {
  std::vector<float> w, b;
  const int w_index = node.inputs[1];
  if (!ConstantFloats(graph, w_index, &w)) return false;
  const int b_index = node.inputs.size() > 2 ? node.inputs[2] : kNoTensor;
  if (b_index != kNoTensor) {
    if (!ConstantFloats(graph, b_index, &b) || static_cast<int64_t>(b.size()) != layer.out_channels) return false;
  } else {
    b.assign(static_cast<size_t>(layer.out_channels), 0.0f);
  }
  const size_t oc = static_cast<size_t>(layer.out_channels);
  const size_t ic = static_cast<size_t>(layer.in_channels);
  if (w.size() % oc != 0) return false;
  if (node.op == OpType::kDepthwiseConv2d) {
    // [1, KH, KW, O]; output channel o reads input channel o / multiplier.
    const size_t multiplier = oc / ic;
    for (size_t k = 0; k < w.size(); ++k) w[k] *= out_scale[k % oc] * in_scale[(k % oc) / multiplier];
  } else {
    // [O, KH, KW, I] or [O, I]: output channel outermost, input innermost.
    if (w.size() % (oc * ic) != 0) return false;
    const size_t per_out = w.size() / oc;
    for (size_t k = 0; k < w.size(); ++k) w[k] *= out_scale[k / per_out] * in_scale[k % ic];
  }
  for (size_t o = 0; o < oc; ++o) b[o] = b[o] * out_scale[o] + shift[o];
  const std::string w_name = graph.tensors[static_cast<size_t>(w_index)].name + "/folded";
  const std::string b_name = b_index != kNoTensor ? graph.tensors[static_cast<size_t>(b_index)].name + "/folded"
                                                  : graph.tensors[static_cast<size_t>(node.outputs[0])].name + "/bias";
  const Shape w_shape = graph.tensors[static_cast<size_t>(w_index)].shape;
  auto is_one = [](float v) { return v == 1.0f; };
  if (!std::all_of(out_scale.begin(), out_scale.end(), is_one) ||
      !std::all_of(in_scale.begin(), in_scale.end(), is_one)) {
    node.inputs[1] = AddFloatConstant(graph, w_name, w_shape, w);
  }
  const int new_bias = AddFloatConstant(graph, b_name, {static_cast<int32_t>(oc)}, b);
  if (node.inputs.size() > 2) node.inputs[2] = new_bias;
  else node.inputs.push_back(new_bias);
  return true;
}

}  // namespace

Status FoldMulAddIntoConv(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (remove[i]) continue;
    Layer layer;
    if (!DescribeLayer(graph, graph.nodes[i], &layer)) continue;
    const size_t oc = static_cast<size_t>(layer.out_channels), ic = static_cast<size_t>(layer.in_channels);
    // Before: MUL(x, s) -> layer.
    const int x = graph.nodes[i].inputs[0];
    const int m = ValidTensor(graph, x) ? graph.Producer(x) : -1;
    int constant = kNoTensor;
    std::vector<float> scale;
    if (m >= 0 && !remove[static_cast<size_t>(m)] && graph.nodes[static_cast<size_t>(m)].op == OpType::kMul &&
        OnlyReadBy(graph, x, i)) {
      const Node& mul = graph.nodes[static_cast<size_t>(m)];
      // The non-constant operand is the one that is not per-channel constant.
      for (int k = 0; k < 2 && mul.inputs.size() == 2; ++k) {
        const int in = mul.inputs[static_cast<size_t>(k)], c = mul.inputs[static_cast<size_t>(1 - k)];
        if (!ValidTensor(graph, in) || graph.tensors[static_cast<size_t>(in)].is_constant) continue;
        const Shape& in_shape = graph.tensors[static_cast<size_t>(in)].shape;
        if (OwnActivation(mul) != Activation::kNone || in_shape != graph.tensors[static_cast<size_t>(x)].shape ||
            in_shape.empty() || in_shape.back() != layer.in_channels ||
            !PerChannel(graph, c, layer.in_channels, in_shape.size(), &scale)) {
          continue;
        }
        if (!Rewrite(graph, graph.nodes[i], layer, std::vector<float>(oc, 1.0f), scale,
                     std::vector<float>(oc, 0.0f))) {
          break;
        }
        graph.nodes[i].inputs[0] = in;
        NoteFused(graph, graph.nodes[i], static_cast<size_t>(m));
        remove[static_cast<size_t>(m)] = true;
        any = true;
        log.Add(kPass, graph.NodeLabel(static_cast<size_t>(m)) + " (x " + DescribeTensor(graph, c) +
                           ") folded into the input channels of " + graph.NodeLabel(i) + "'s weights");
        break;
      }
    }
    // After: layer -> MUL/ADD(y, c).
    if (*layer.activation != Activation::kNone) continue;
    const int y = graph.nodes[i].outputs[0];
    const std::vector<size_t> readers = ValidTensor(graph, y) ? graph.Consumers(y) : std::vector<size_t>{};
    if (readers.size() != 1 || !OnlyReadBy(graph, y, readers[0])) continue;
    const size_t r = readers[0];
    const Node& op = graph.nodes[r];
    if (!SplitOperands(graph, op, y, &constant)) continue;
    const Shape& y_shape = graph.tensors[static_cast<size_t>(y)].shape;
    std::vector<float> values;
    if (y_shape.empty() || y_shape.back() != layer.out_channels ||
        !PerChannel(graph, constant, layer.out_channels, y_shape.size(), &values)) {
      continue;
    }
    const bool is_mul = op.op == OpType::kMul;
    const std::vector<float> ones(oc, 1.0f), zeros(oc, 0.0f);
    if (!Rewrite(graph, graph.nodes[i], layer, is_mul ? values : ones, std::vector<float>(ic, 1.0f),
                 is_mul ? zeros : values)) {
      continue;
    }
    Node& node = graph.nodes[i];
    Layer updated;
    if (!DescribeLayer(graph, node, &updated)) return InternalError(graph.NodeLabel(i) + ": lost its weights");
    *updated.activation = OwnActivation(graph.nodes[r]);
    node.outputs[0] = graph.nodes[r].outputs[0];
    NoteFused(graph, node, r);
    remove[r] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(r) + " (" + (is_mul ? "x " : "+ ") + DescribeTensor(graph, constant) +
                       ") folded into " + graph.NodeLabel(i) + "'s " + (is_mul ? "weights and bias" : "bias") +
                       "; it now writes " + DescribeTensor(graph, node.outputs[0]));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
