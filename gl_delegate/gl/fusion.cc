#include "gl/fusion.h"

#include <map>

namespace gld::gl {

namespace {

// Templates whose main() stores one output (binding 0) through
// finish_output(), and so applies gld_epilogue().
bool TakesEpilogue(const Dispatch& d) {
  static const std::set<std::string> kTemplates = {
      "conv2d.comp", "depthwise_conv.comp", "transpose_conv.comp", "fully_connected.comp",
      "elementwise.comp", "pooling.comp", "reduce.comp", "softmax.comp", "pad.comp", "reshape.comp",
      "resize.comp", "slice.comp", "depth_space.comp", "tile.comp", "transpose.comp"};
  if (!kTemplates.count(d.shader.template_name)) return false;
  for (const auto& [name, value] : d.shader.defines) {
    if (name == "WITH_INDICES" && value != "0") return false;
  }
  return true;
}

int OutputTensor(const Dispatch& d) {
  for (const auto& [binding, ref] : d.bindings) {
    if (binding == 0 && ref.kind == BufferRef::kTensor) return ref.index;
  }
  return kNoTensor;
}

uint32_t NextBinding(const Dispatch& d) {
  uint32_t next = 0;
  for (const auto& b : d.bindings) next = std::max(next, b.first + 1);
  return next;
}

}  // namespace

int FuseElementwiseEpilogues(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::set<int>& keep,
                             Precision precision, int max_bindings, std::vector<std::string>* log) {
  // Position of each node in the segment, and of each tensor's producer.
  std::map<size_t, size_t> position;
  for (size_t i = 0; i < nodes.size(); ++i) position[nodes[i].node] = i;
  auto producer_position = [&](int tensor) -> long {
    int p = graph.Producer(tensor);
    if (p < 0) return -1;  // graph input or constant
    auto it = position.find(static_cast<size_t>(p));
    return it == position.end() ? -1 : static_cast<long>(it->second);  // outside: before the segment
  };
  int absorbed = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeDispatches& producer = nodes[i];
    if (producer.absorbed || producer.dispatches.size() != 1) continue;
    if (graph.nodes[producer.node].outputs.size() != 1) continue;
    Dispatch& d = producer.dispatches[0];
    if (!TakesEpilogue(d)) continue;
    int count = 0;
    while (count < kMaxEpilogueOps) {
      const int t = OutputTensor(d);
      if (t < 0 || keep.count(t)) break;
      std::vector<size_t> readers = graph.Consumers(t);
      if (readers.size() != 1) break;
      auto it = position.find(readers[0]);
      if (it == position.end() || it->second <= i) break;
      NodeDispatches& consumer = nodes[it->second];
      if (consumer.absorbed) break;
      auto e = DescribeEpilogueOp(graph, consumer.node, t, precision);
      if (!e.ok()) break;
      uint32_t binding = NextBinding(d);
      if (e->operand != kNoTensor) {
        if (producer_position(e->operand) >= static_cast<long>(i)) break;  // not computed yet
        if (static_cast<int>(binding) + 1 > max_bindings) break;
      }
      const std::string k = std::to_string(count + 1);
      if (count == 0) {
        d.shader.Define("GLD_EPILOGUE", 1);
        d.shader.Library("elementwise_ops.comp").Library("epilogue.comp");
      }
      d.shader.Define("EPI_OP_" + k, e->op).Define("EPI_ACT_" + k, e->act);
      d.shader.Define("EPI_OPERAND_" + k, e->operand == kNoTensor ? 0 : e->operand_first ? 2 : 1);
      if (e->operand != kNoTensor) {
        d.shader.Define("EPI_BINDING_" + k, binding);
        d.Bind(binding, BufferRef{BufferRef::kTensor, e->operand});
        d.IVec4("u_epi_shape_" + k, e->operand_shape);
        d.IVec4("u_epi_map_" + k, e->map[0], e->map[1], e->map[2], 0);
      }
      d.Vec4("u_epi_params_" + k, e->params[0], e->params[1], e->params[2], e->params[3]);
      // The producer now writes the consumer's output.
      const int out = graph.nodes[consumer.node].outputs[0];
      for (auto& b : d.bindings) {
        if (b.first == 0) b.second.index = out;
      }
      consumer.absorbed = true;
      consumer.dispatches.clear();
      producer.fused_nodes.push_back(consumer.node);
      ++count;
      ++absorbed;
      if (log != nullptr) {
        log->push_back(graph.NodeLabel(consumer.node) + " fused into " + graph.NodeLabel(producer.node) + " (" +
                       d.shader.template_name + ")");
      }
    }
    if (count > 0) d.shader.Define("EPI_COUNT", count);
  }
  return absorbed;
}

}  // namespace gld::gl
