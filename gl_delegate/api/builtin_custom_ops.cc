#include "api/builtin_custom_ops.h"

#include "cpu_kernels/cpu_kernel.h"
#include "graph/shape_inference.h"
#include "model/tflite_ops.h"

namespace gld {

namespace {

// The op as one node of a graph of its own: what the op table's shape rule
// and CPU kernel take.
StatusOr<Graph> OneNodeGraph(OpType op, const CustomOpNode& node) {
  Graph g;
  Node n;
  n.op = op;
  GLD_RETURN_IF_ERROR(tflite_ops::ParseCustomOptions(op, node.options, node.options_size, node.version, &n.attributes));
  auto add = [&g](const CustomTensorType& t, std::vector<int>* list) {
    Tensor tensor;
    tensor.name = (list == nullptr ? "output " : "input ") + std::to_string(g.tensors.size());
    tensor.type = FromElementType(t.type);
    tensor.shape.assign(t.shape.begin(), t.shape.end());
    g.tensors.push_back(std::move(tensor));
    return static_cast<int>(g.tensors.size() - 1);
  };
  for (const CustomTensorType& t : node.inputs) n.inputs.push_back(add(t, &n.inputs));
  for (const CustomTensorType& t : node.outputs) n.outputs.push_back(add(t, nullptr));
  g.nodes.push_back(std::move(n));
  return g;
}

// A message of the one-node graph without its "node 0 (OP): " prefix (the
// caller names the real node).
Status WithoutLabel(const Graph& g, const Status& s) {
  const std::string prefix = g.NodeLabel(0) + ": ";
  if (s.ok() || s.message().rfind(prefix, 0) != 0) return s;
  return Status(s.code(), s.message().substr(prefix.size()));
}

// The one-node graph with final shapes, and the buffers its kernel reads and
// writes (data pointers set at each run).
struct BuiltinState {
  Graph graph;
  std::vector<cpu::TensorData> inputs, outputs;
  std::vector<const cpu::TensorData*> input_ptrs;
  std::vector<cpu::TensorData*> output_ptrs;
};

CustomOp LibraryOp(OpType op) {
  CustomOp c;
  c.name = OpTypeName(op);
  c.shape = [op](CustomOpNode* node) -> Status {
    GLD_ASSIGN_OR_RETURN(Graph g, OneNodeGraph(op, *node));
    GLD_RETURN_IF_ERROR(WithoutLabel(g, InferNodeShapes(g, 0)));
    for (size_t i = 0; i < node->outputs.size(); ++i) {
      const Tensor& t = g.tensors[static_cast<size_t>(g.nodes[0].outputs[i])];
      node->outputs[i].type = ToElementType(t.type);
      node->outputs[i].shape.assign(t.shape.begin(), t.shape.end());
    }
    return OkStatus();
  };
  c.prepare = [op](const CustomOpNode& node, std::shared_ptr<void>* state) -> Status {
    auto s = std::make_shared<BuiltinState>();
    GLD_ASSIGN_OR_RETURN(s->graph, OneNodeGraph(op, node));
    auto view = [&s](int t) {
      const Tensor& tensor = s->graph.tensors[static_cast<size_t>(t)];
      return cpu::TensorData{tensor.type, tensor.shape, nullptr,
                             static_cast<size_t>(tensor.num_elements()) * DataTypeSize(tensor.type)};
    };
    for (int t : s->graph.nodes[0].inputs) s->inputs.push_back(view(t));
    for (int t : s->graph.nodes[0].outputs) s->outputs.push_back(view(t));
    for (cpu::TensorData& t : s->inputs) s->input_ptrs.push_back(&t);
    for (cpu::TensorData& t : s->outputs) s->output_ptrs.push_back(&t);
    *state = s;
    return OkStatus();
  };
  c.run = [](const CustomCpuRun& run) -> Status {
    auto* s = static_cast<BuiltinState*>(run.state);
    for (size_t i = 0; i < s->inputs.size(); ++i) s->inputs[i].data = const_cast<void*>(run.inputs[i]);
    for (size_t i = 0; i < s->outputs.size(); ++i) s->outputs[i].data = run.outputs[i];
    return WithoutLabel(s->graph, cpu::EvaluateNode(s->graph, 0, s->input_ptrs, s->output_ptrs));
  };
  return c;
}

}  // namespace

const std::vector<std::shared_ptr<const CustomOp>>& BuiltinCustomOps() {
  static const std::vector<std::shared_ptr<const CustomOp>> ops = [] {
    std::vector<std::shared_ptr<const CustomOp>> v;
    for (OpType op : AllOpTypes()) {
      if (tflite_ops::IsLibraryCustomOp(op)) v.push_back(std::make_shared<const CustomOp>(LibraryOp(op)));
    }
    return v;
  }();
  return ops;
}

Options WithLibraryCustomOps(const Options& options) {
  Options out = options;
  out.custom_ops.insert(out.custom_ops.end(), BuiltinCustomOps().begin(), BuiltinCustomOps().end());
  return out;
}

}  // namespace gld
