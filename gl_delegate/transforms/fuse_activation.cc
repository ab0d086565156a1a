// An activation node (RELU, RELU6, RELU_N1_TO_1, TANH, LOGISTIC) that is the
// only reader of its producer's output becomes the producer's fused
// activation, when the producer has that field and none set yet. The
// producer then writes the activation's output tensor, so graph outputs keep
// their tensor. PRELU (a tensor operand) and HARD_SWISH are left as nodes:
// the GL backend fuses them into the producer's shader epilogue instead
// (gl/fusion.h), which is where the saving is on the GPU.
#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "fuse_activation";

bool ActivationOf(OpType op, Activation* a) {
  switch (op) {
    case OpType::kRelu: *a = Activation::kRelu; return true;
    case OpType::kRelu6: *a = Activation::kRelu6; return true;
    case OpType::kReluN1To1: *a = Activation::kReluN1To1; return true;
    case OpType::kTanh: *a = Activation::kTanh; return true;
    case OpType::kLogistic: *a = Activation::kSigmoid; return true;
    default: return false;
  }
}

// The producer's fused-activation field, for ops whose CPU kernel and GL
// template both apply it to a float32 result.
Activation* ActivationField(Node& node) {
  switch (node.op) {
    case OpType::kConv2d:
      if (auto* a = std::get_if<Conv2dAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    case OpType::kDepthwiseConv2d:
      if (auto* a = std::get_if<DepthwiseConv2dAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    case OpType::kFullyConnected:
      if (auto* a = std::get_if<FullyConnectedAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d:
      if (auto* a = std::get_if<Pool2dAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
      if (auto* a = std::get_if<BinaryAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    case OpType::kConcatenation:
      if (auto* a = std::get_if<ConcatenationAttributes>(&node.attributes)) return &a->activation;
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace

Status FuseActivation(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& act_node = graph.nodes[i];
    Activation act;
    if (!ActivationOf(act_node.op, &act) || act_node.inputs.size() != 1 || act_node.outputs.size() != 1) continue;
    const int in = act_node.inputs[0], out = act_node.outputs[0];
    if (!ValidTensor(graph, out) || !OnlyReadBy(graph, in, i)) continue;
    const int p = graph.Producer(in);
    if (p < 0 || remove[static_cast<size_t>(p)]) continue;
    Node& producer = graph.nodes[static_cast<size_t>(p)];
    Activation* field = ActivationField(producer);
    if (field == nullptr || *field != Activation::kNone || producer.outputs.size() != 1) continue;
    const Tensor& t_in = graph.tensors[static_cast<size_t>(in)];
    const Tensor& t_out = graph.tensors[static_cast<size_t>(out)];
    if (t_in.type != DataType::kFloat32 || t_out.type != DataType::kFloat32 || t_in.shape != t_out.shape) continue;
    *field = act;
    producer.outputs[0] = out;
    NoteFused(graph, producer, i);
    remove[i] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(i) + " fused into " + graph.NodeLabel(static_cast<size_t>(p)) +
                       " as activation " + ActivationName(act) + "; it now writes " + DescribeTensor(graph, out) +
                       " instead of " + DescribeTensor(graph, in));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
