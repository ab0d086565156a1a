// FULLY_CONNECTED above rank 4 as RESHAPE to [rows, K], FULLY_CONNECTED,
// RESHAPE back. FULLY_CONNECTED multiplies along the last axis only, so
// the leading dimensions are rows whatever their number; PyTorch's
// converter applies Swin's Linear layers to the rank-6 window view
// [1, h, w, ws, ws, C] with keep_num_dims.
#include <string>
#include <vector>

#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "fully_connected_to_rank4";
constexpr size_t kMaxRank = 4;

}  // namespace

Status FullyConnectedToRank4(Graph& graph, PassLog& log) {
  std::vector<std::vector<Node>> replacements(graph.nodes.size());
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != OpType::kFullyConnected || node.inputs.size() < 2 || node.outputs.size() != 1) continue;
    const int in = node.inputs[0], out = node.outputs[0];
    if (!FullyFixed(graph, in) || !FullyFixed(graph, out)) continue;
    const Shape in_shape = graph.tensors[static_cast<size_t>(in)].shape;
    const Shape out_shape = graph.tensors[static_cast<size_t>(out)].shape;
    if ((in_shape.size() <= kMaxRank && out_shape.size() <= kMaxRank) || in_shape.empty() || out_shape.empty()) {
      continue;
    }
    const int64_t k = in_shape.back(), units = out_shape.back();
    const int64_t rows = NumElements(in_shape) / (k == 0 ? 1 : k);
    if (k <= 0 || units <= 0 || rows * units != NumElements(out_shape)) continue;
    const std::string name = graph.tensors[static_cast<size_t>(out)].name;
    std::vector<Node>& nodes = replacements[i];
    const int rows_in = AddActivationLike(graph, in, name + "/rows_in", {static_cast<int>(rows), static_cast<int>(k)});
    nodes.push_back(MakeReshape(graph, in, rows_in));
    const int rows_out =
        AddActivationLike(graph, out, name + "/rows_out", {static_cast<int>(rows), static_cast<int>(units)});
    Node fc = node;
    fc.inputs[0] = rows_in;
    fc.outputs = {rows_out};
    if (auto* a = std::get_if<FullyConnectedAttributes>(&fc.attributes)) a->keep_num_dims = true;
    nodes.push_back(std::move(fc));
    nodes.push_back(MakeReshape(graph, rows_out, out));
    for (Node& n : nodes) {
      n.source_index = node.source_index;
      n.fused_names = node.fused_names;
    }
    log.Add(kPass, graph.NodeLabel(i) + " " + ShapeToString(in_shape) + " on " + std::to_string(rows) + " rows");
    any = true;
  }
  if (any) ReplaceNodes(graph, replacements);
  return OkStatus();
}

}  // namespace gld
