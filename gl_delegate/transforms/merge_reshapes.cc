// A RESHAPE / SQUEEZE / EXPAND_DIMS of a RESHAPE / SQUEEZE / EXPAND_DIMS is
// one RESHAPE of the first one's input: both keep the row-major order of the
// elements, so only the last shape matters. PyTorch's converter passes
// through rank-5/6 shapes this way ([B, N, 3C] -> [B, N, 3, H, D]), and the
// rank passes (transpose_to_rank4, slice_to_rank4) leave RESHAPE pairs
// around their rank <= 4 forms; merged, the rank-5/6 tensor between them
// drops out. A RESHAPE whose input then has the output's shape is removed
// when its output is no graph output (readers read the input). Shapes must
// be fixed (no free dimension). The first node stays while others read its
// output.
#include <string>
#include <vector>

#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "merge_reshapes";

bool IsShapeOnly(const Node& node) {
  return (node.op == OpType::kReshape || node.op == OpType::kSqueeze || node.op == OpType::kExpandDims) &&
         !node.inputs.empty() && node.outputs.size() == 1;
}

bool SameQuant(const Tensor& a, const Tensor& b) {
  return a.type == b.type && a.quant.scale == b.quant.scale && a.quant.zero_point == b.quant.zero_point;
}

}  // namespace

Status MergeReshapes(Graph& graph, PassLog& log) {
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!IsShapeOnly(graph.nodes[i])) continue;
    const int mid = graph.nodes[i].inputs[0], out = graph.nodes[i].outputs[0];
    const int p = graph.Producer(mid);
    if (p < 0 || !IsShapeOnly(graph.nodes[static_cast<size_t>(p)])) continue;
    const int src = graph.nodes[static_cast<size_t>(p)].inputs[0];
    if (!FullyFixed(graph, src) || !FullyFixed(graph, mid) || !FullyFixed(graph, out)) continue;
    const Tensor& t_src = graph.tensors[static_cast<size_t>(src)];
    const Tensor& t_mid = graph.tensors[static_cast<size_t>(mid)];
    const Tensor& t_out = graph.tensors[static_cast<size_t>(out)];
    if (!SameQuant(t_src, t_mid) || !SameQuant(t_mid, t_out) || t_mid.is_variable || t_out.is_variable) continue;
    const std::string what = graph.NodeLabel(static_cast<size_t>(p)) + " and " + graph.NodeLabel(i) + " (" +
                             ShapeToString(t_src.shape) + " -> " + ShapeToString(t_mid.shape) + " -> " +
                             ShapeToString(t_out.shape) + ")";
    Node merged = MakeReshape(graph, src, out);
    merged.source_index = graph.nodes[i].source_index;
    merged.fused_names = graph.nodes[i].fused_names;
    NoteFused(graph, merged, static_cast<size_t>(p));
    graph.nodes[i] = std::move(merged);
    log.Add(kPass, what + " as one RESHAPE");
    any = true;
  }
  if (!any) return OkStatus();
  // RESHAPEs that now keep the shape, and first nodes nothing reads any more.
  std::vector<bool> remove(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != OpType::kReshape || node.inputs.empty() || node.outputs.size() != 1) continue;
    const int in = node.inputs[0], out = node.outputs[0];
    if (graph.Producer(in) < 0 && !graph.IsGraphInput(in)) continue;
    if (!graph.IsGraphOutput(out) && FullyFixed(graph, in) && FullyFixed(graph, out) &&
        graph.tensors[static_cast<size_t>(in)].shape == graph.tensors[static_cast<size_t>(out)].shape &&
        SameQuant(graph.tensors[static_cast<size_t>(in)], graph.tensors[static_cast<size_t>(out)])) {
      RedirectReaders(graph, out, in);
      remove[i] = true;
    }
  }
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const Node& node = graph.nodes[i];
    if (remove[i] || !IsShapeOnly(node)) continue;
    bool read = graph.IsGraphOutput(node.outputs[0]);
    for (size_t r : graph.Consumers(node.outputs[0])) read = read || !remove[r];
    if (!read) remove[i] = true;
  }
  EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
