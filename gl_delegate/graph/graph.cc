#include "graph/graph.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace gld {

namespace {
const OpInfo kOps[] = {
#define GLD_OP(e, name, min_inputs, max_inputs, min_outputs, max_outputs, optional_input, rule, known_values) \
  {OpType::e, name, min_inputs, max_inputs, min_outputs, max_outputs, optional_input, known_values},
#include "graph/op_list.inc"
#undef GLD_OP
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);
}  // namespace

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
    case Activation::kRelu6: return "RELU6";
    case Activation::kTanh: return "TANH";
    case Activation::kSignBit: return "SIGN_BIT";
    case Activation::kSigmoid: return "SIGMOID";
  }
  return "UNKNOWN";
}

const OpInfo& GetOpInfo(OpType op) { return kOps[static_cast<size_t>(op)]; }

const char* OpTypeName(OpType op) {
  size_t i = static_cast<size_t>(op);
  return i < kNumOps ? kOps[i].name : "UNKNOWN_OP";
}

bool IsPassOp(OpType op) { return std::strncmp(OpTypeName(op), "GLD_", 4) == 0; }

bool OpTypeFromName(const std::string& name, OpType* op) {
  static const std::unordered_map<std::string, OpType> map = [] {
    std::unordered_map<std::string, OpType> m;
    for (size_t i = 0; i < kNumOps; ++i) m.emplace(kOps[i].name, kOps[i].op);
    return m;
  }();
  auto it = map.find(name);
  if (it == map.end()) return false;
  *op = it->second;
  return true;
}

const std::vector<OpType>& AllOpTypes() {
  static const std::vector<OpType> all = [] {
    std::vector<OpType> v;
    for (size_t i = 0; i < kNumOps; ++i) v.push_back(static_cast<OpType>(i));
    return v;
  }();
  return all;
}

int ElementwiseArity(OpType op) {
  switch (op) {
#define GLD_EW_UNARY(Name, ...) case OpType::k##Name: return 1;
#define GLD_EW_BINARY(Name, ...) case OpType::k##Name: return 2;
#define GLD_EW_GL(...)
#include "graph/elementwise_ops.inc"
#undef GLD_EW_GL
#undef GLD_EW_BINARY
#undef GLD_EW_UNARY
    default: return 0;
  }
}

const char* NodeOpName(const Node& node) {
  if (node.op == OpType::kCustom) {
    if (const auto* a = std::get_if<CustomAttributes>(&node.attributes)) return a->name.c_str();
  }
  return OpTypeName(node.op);
}

std::string Graph::SubgraphLabel() const {
  return "subgraph " + std::to_string(subgraph_index) + " ('" + subgraph_name + "')";
}

std::string Graph::NodeLabel(size_t node_index) const {
  const std::string where = is_callee ? SubgraphLabel() + " " : std::string();
  if (node_index >= nodes.size()) return where + "node ?";
  const Node& n = nodes[node_index];
  int shown = n.source_index >= 0 ? n.source_index : static_cast<int>(node_index);
  return where + "node " + std::to_string(shown) + " (" + NodeOpName(n) + ")";
}

std::vector<SubgraphCall> CalledSubgraphs(const Node& node) {
  if (const auto* w = std::get_if<WhileAttributes>(&node.attributes)) {
    return {{"cond", w->cond_subgraph}, {"body", w->body_subgraph}};
  }
  if (const auto* f = std::get_if<IfAttributes>(&node.attributes)) {
    return {{"then", f->then_subgraph}, {"else", f->else_subgraph}};
  }
  if (const auto* c = std::get_if<CallOnceAttributes>(&node.attributes)) return {{"init", c->init_subgraph}};
  if (const auto* c = std::get_if<CompositeAttributes>(&node.attributes)) {
    return {{"decomposition", c->decomposition_subgraph}};
  }
  return {};
}

bool NodeHasSideEffects(const Node& node) {
  switch (node.op) {
    case OpType::kAssignVariable:
    case OpType::kCallOnce:
    case OpType::kWhile:
    case OpType::kIf: return true;
    default: return false;
  }
}

std::vector<size_t> Graph::Consumers(int tensor) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& in = nodes[i].inputs;
    if (std::find(in.begin(), in.end(), tensor) != in.end()) out.push_back(i);
  }
  return out;
}

int Graph::Producer(int tensor) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& out = nodes[i].outputs;
    if (std::find(out.begin(), out.end(), tensor) != out.end()) return static_cast<int>(i);
  }
  return -1;
}

bool Graph::IsGraphOutput(int tensor) const {
  return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
}

bool Graph::IsGraphInput(int tensor) const {
  return std::find(inputs.begin(), inputs.end(), tensor) != inputs.end();
}

}  // namespace gld
