// Shape inference's driver: walks the graph in node order, checks each
// node's tensors, runs the shape rule its op_list.inc row names (one file per
// op family: graph/shapes/<family>.cc, see graph/shapes/shape_rules.h), checks
// what the rule produced, and keeps the small integer values the oracle
// computes for the nodes after it.
#include "graph/shape_inference.h"

#include <string>
#include <vector>

#include "graph/node_shapes.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

namespace {

using shapes::KnownValues;
using shapes::RuleContext;

// Largest tensor shape inference accepts (as the .tflite reader does).
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

// Indexed by OpType: the rule each row of the op table names.
constexpr shapes::ShapeRule kShapeRules[] = {
#define GLD_OP(e, name, min_inputs, max_inputs, min_outputs, max_outputs, optional_input, rule, known_values) \
  &shapes::rule,
#include "graph/op_list.inc"
#undef GLD_OP
};

// What every rule may assume: the node's tensor indices are in range, its
// inputs' shapes are valid and no output is a constant.
Status CheckNodeTensors(const RuleContext& ctx) {
  const Graph& g = ctx.graph();
  const Node& node = ctx.node();
  const size_t nt = g.tensors.size();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int t = node.inputs[i];
    if (t == kNoTensor) continue;
    if (t < 0 || static_cast<size_t>(t) >= nt) {
      return ctx.Err("input " + std::to_string(i) + " refers to tensor " + std::to_string(t) + " of " +
                     std::to_string(nt));
    }
    if (!ShapeIsValid(g.tensors[static_cast<size_t>(t)].shape)) {
      return ctx.Err(ctx.Name(i) + " has invalid shape " + ShapeToString(ctx.InShape(i)));
    }
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const int t = node.outputs[i];
    if (t < 0 || static_cast<size_t>(t) >= nt) {
      return ctx.Err("output " + std::to_string(i) + " refers to tensor " + std::to_string(t) + " of " +
                     std::to_string(nt));
    }
    if (g.tensors[static_cast<size_t>(t)].is_constant) {
      return ctx.Err("output " + std::to_string(i) + " '" + g.tensors[static_cast<size_t>(t)].name + "' is a constant");
    }
  }
  return OkStatus();
}

// Runs node `index`'s rule, then checks the types it set against the
// declared ones and every output's size.
Status RunRule(Graph& graph, size_t index, KnownValues* known, std::vector<uint8_t>* dynamic = nullptr,
               bool node_alone = false) {
  RuleContext ctx(graph, index, known, dynamic, node_alone);
  GLD_RETURN_IF_ERROR(CheckNodeTensors(ctx));
  GLD_RETURN_IF_ERROR(kShapeRules[static_cast<size_t>(ctx.node().op)](ctx));
  if (!ctx.type_conflict().empty()) return ctx.Err(ctx.type_conflict());
  for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
    const Tensor& t = ctx.Out(i);
    if (dynamic != nullptr && (*dynamic)[static_cast<size_t>(ctx.node().outputs[i])]) continue;
    if (ctx.kernel_sized(i)) {
      Shape known_dims;  // the dimensions the rule knows; the kernel sets the others
      for (int32_t d : t.shape) known_dims.push_back(d < 0 ? 1 : d);
      if (!ShapeIsValid(known_dims, kMaxElements)) {
        return ctx.Err("output " + std::to_string(i) + " '" + t.name + "' would have shape " +
                       ShapeToString(t.shape) + ", invalid or too large");
      }
      continue;
    }
    if (!ShapeIsValid(t.shape, kMaxElements)) {
      return ctx.Err("output " + std::to_string(i) + " '" + t.name + "' would have shape " + ShapeToString(t.shape) +
                     ", more than " + std::to_string(kMaxElements) + " elements or invalid");
    }
  }
  return OkStatus();
}

// After node `index` got its shapes: when all its inputs have known values
// and its outputs are small integer tensors, asks `oracle` for them and
// records them. Failures only mean "not known".
void EvaluateKnownValues(const Graph& g, size_t index, const ValueOracle& oracle, KnownValues* known) {
  const Node& node = g.nodes[index];
  if (!oracle || !GetOpInfo(node.op).known_values || node.outputs.empty()) return;
  constexpr int64_t kMaxValues = 1024;
  for (int t : node.outputs) {
    const Tensor& o = g.tensors[static_cast<size_t>(t)];
    if ((o.type != DataType::kInt32 && o.type != DataType::kInt64) || !ShapeIsValid(o.shape) ||
        o.num_elements() > kMaxValues) {
      return;
    }
  }
  std::vector<ValueBytes> inputs(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int t = node.inputs[i];
    if (t < 0) continue;
    const Tensor& in = g.tensors[static_cast<size_t>(t)];
    if (in.num_elements() > kMaxValues) return;
    auto it = known->find(t);
    if (it != known->end()) {
      inputs[i] = {it->second.data(), it->second.size()};
    } else if (in.is_constant && !in.sparsity.has_value()) {
      inputs[i] = {in.data.data(), in.data.size()};
    } else {
      return;
    }
  }
  std::vector<std::vector<uint8_t>> outputs(node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const Tensor& o = g.tensors[static_cast<size_t>(node.outputs[i])];
    outputs[i].assign(static_cast<size_t>(o.num_elements()) * DataTypeSize(o.type), 0);
  }
  if (!oracle(g, index, inputs, &outputs)) return;
  for (size_t i = 0; i < node.outputs.size(); ++i) (*known)[node.outputs[i]] = std::move(outputs[i]);
}

bool ReadsDynamic(const Graph& g, size_t index, const std::vector<uint8_t>& dynamic) {
  for (int t : g.nodes[index].inputs) {
    if (t >= 0 && static_cast<size_t>(t) < dynamic.size() && dynamic[static_cast<size_t>(t)]) return true;
  }
  return false;
}

}  // namespace

Status InferNodeShapes(Graph& graph, size_t node_index) {
  if (node_index >= graph.nodes.size()) {
    return InvalidArgumentError("node index " + std::to_string(node_index) + " out of range");
  }
  KnownValues known;
  return RunRule(graph, node_index, &known, nullptr, /*node_alone=*/true);
}

Status InferNodeShapesWithValues(Graph& graph, size_t node_index, std::map<int, std::vector<uint8_t>>* values) {
  if (node_index >= graph.nodes.size()) {
    return InvalidArgumentError("node index " + std::to_string(node_index) + " out of range");
  }
  return RunRule(graph, node_index, values, nullptr, /*node_alone=*/true);
}

Status InferNodeShapes(Graph& graph, size_t node_index, const std::vector<ValueBytes>& input_values) {
  if (node_index >= graph.nodes.size()) {
    return InvalidArgumentError("node index " + std::to_string(node_index) + " out of range");
  }
  KnownValues known;
  const Node& node = graph.nodes[node_index];
  for (size_t i = 0; i < node.inputs.size() && i < input_values.size(); ++i) {
    if (node.inputs[i] < 0 || input_values[i].data == nullptr) continue;
    known[node.inputs[i]].assign(input_values[i].data, input_values[i].data + input_values[i].size);
  }
  return RunRule(graph, node_index, &known, nullptr, /*node_alone=*/true);
}

Status InferShapes(Graph& graph, const ValueOracle& values, std::vector<uint8_t>* dynamic,
                   std::map<int, std::vector<uint8_t>>* known_out) {
  const size_t nt = graph.tensors.size();
  for (int t : graph.inputs) {
    if (t < 0 || static_cast<size_t>(t) >= nt) {
      return InvalidArgumentError("graph input refers to tensor " + std::to_string(t) + " of " + std::to_string(nt));
    }
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    if (!ShapeIsValid(tensor.shape)) {
      return InvalidArgumentError("graph input '" + tensor.name + "' has unknown or invalid shape " +
                                  ShapeToString(tensor.shape));
    }
  }
  KnownValues known;
  if (dynamic != nullptr) dynamic->assign(nt, 0);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (dynamic != nullptr && ReadsDynamic(graph, i, *dynamic)) {
      for (int t : graph.nodes[i].outputs) {
        if (t >= 0 && static_cast<size_t>(t) < nt) (*dynamic)[static_cast<size_t>(t)] = 1;
      }
      continue;
    }
    GLD_RETURN_IF_ERROR(RunRule(graph, i, &known, dynamic));
    bool made_dynamic = false;
    for (int t : graph.nodes[i].outputs) made_dynamic = made_dynamic || (dynamic != nullptr && (*dynamic)[static_cast<size_t>(t)]);
    if (!made_dynamic) EvaluateKnownValues(graph, i, values, &known);
  }
  if (known_out != nullptr) *known_out = std::move(known);
  return OkStatus();
}

}  // namespace gld
