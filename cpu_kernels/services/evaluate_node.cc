#include "cpu_kernels/kernel_interface.h"
#include "cpu_kernels/ops/integer_kernels.h"

namespace gld::cpu {

Status EvaluateNode(const Graph& graph, size_t node_index, std::vector<const TensorData*> inputs,
                    std::vector<TensorData*> outputs, const NodeRunOptions& options) {
  const Node& node = graph.nodes[node_index];
  const CpuKernel* kernel = FindNodeKernel(graph, node);
  if (kernel == nullptr) return UnimplementedError(graph.NodeLabel(node_index) + ": no CPU kernel");
  KernelContext ctx;
  ctx.graph = &graph;
  ctx.node = &node;
  ctx.inputs = std::move(inputs);
  ctx.outputs = std::move(outputs);
  ctx.num_threads = options.num_threads;
  ctx.parallel_for = options.parallel_for;
  ctx.threadpool = options.threadpool;
  ctx.state = options.state;
  ctx.size_output = options.size_output;
  if (kernel->prepare != nullptr && options.state != nullptr && *options.state == nullptr) {
    GLD_RETURN_IF_ERROR(kernel->prepare(ctx));
  }
  return kernel->run(ctx);
}

ValueOracle KnownValueOracle() {
  return [](const Graph& graph, size_t node_index, const std::vector<ValueBytes>& inputs,
            std::vector<std::vector<uint8_t>>* outputs) {
    const Node& node = graph.nodes[node_index];
    std::vector<TensorData> ins(inputs.size()), outs(outputs->size());
    std::vector<const TensorData*> in_ptrs(inputs.size(), nullptr);
    std::vector<TensorData*> out_ptrs(outputs->size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (node.inputs[i] == kNoTensor) continue;
      const Tensor& t = graph.tensors[static_cast<size_t>(node.inputs[i])];
      // Kernels take mutable pointers but never write their inputs.
      ins[i] = {t.type, t.shape, const_cast<uint8_t*>(inputs[i].data), inputs[i].size};
      in_ptrs[i] = &ins[i];
    }
    for (size_t i = 0; i < outputs->size(); ++i) {
      const Tensor& t = graph.tensors[static_cast<size_t>(node.outputs[i])];
      outs[i] = {t.type, t.shape, (*outputs)[i].data(), (*outputs)[i].size()};
      out_ptrs[i] = &outs[i];
    }
    return EvaluateNode(graph, node_index, std::move(in_ptrs), std::move(out_ptrs)).ok();
  };
}

}  // namespace gld::cpu
