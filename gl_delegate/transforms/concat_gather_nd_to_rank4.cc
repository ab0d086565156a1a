// CONCATENATION above rank 4 and GATHER_ND with indices above rank 4 as
// RESHAPEs around a rank <= 4 form. PyTorch's grid_sample builds its gather
// indices as [1, C, H, W, 1] columns (batch, channel, y, x) concatenated on
// the last axis into [1, C, H, W, 4] for a GATHER_ND on the [1, C, H, W]
// image. CONCATENATION: the dimensions of size 1 other than the axis are
// dropped (the same elements in the same order). GATHER_ND: the output is
// indices' leading dimensions followed by params' trailing ones, so a size-1
// leading dimension of the indices drops out of both. A constant input gets
// a view of its new shape instead of a RESHAPE; merge_reshapes then joins the
// RESHAPE chains.
#include <string>
#include <vector>

#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr size_t kMaxRank = 4;

// A tensor of `shape` holding `in`'s elements: a constant's view, or a new
// activation written by a RESHAPE appended to `nodes`.
int ViewOf(Graph& graph, int in, const Shape& shape, const std::string& name, std::vector<Node>& nodes) {
  const Tensor& src = graph.tensors[static_cast<size_t>(in)];
  if (src.is_constant) {
    Tensor t = src;
    t.name = name;
    t.shape = shape;
    t.signature.clear();
    graph.tensors.push_back(std::move(t));
    return static_cast<int>(graph.tensors.size()) - 1;
  }
  const int view = AddActivationLike(graph, in, name, shape);
  nodes.push_back(MakeReshape(graph, in, view));
  return view;
}

void Stamp(const Node& from, std::vector<Node>& nodes) {
  for (Node& n : nodes) {
    n.source_index = from.source_index;
    n.fused_names = from.fused_names;
  }
}

// The CONCATENATION's rank <= 4 form; empty when it has none.
std::vector<Node> ConcatForm(Graph& graph, const Node& node) {
  const auto* a = std::get_if<ConcatenationAttributes>(&node.attributes);
  if (a == nullptr || node.outputs.size() != 1 || node.inputs.empty()) return {};
  const int out = node.outputs[0];
  if (!FullyFixed(graph, out)) return {};
  const Shape out_shape = graph.tensors[static_cast<size_t>(out)].shape;
  const int rank = static_cast<int>(out_shape.size());
  const int axis = a->axis < 0 ? a->axis + rank : a->axis;
  if (static_cast<size_t>(rank) <= kMaxRank || axis < 0 || axis >= rank) return {};
  std::vector<bool> keep(static_cast<size_t>(rank));
  size_t kept = 0;
  int new_axis = 0;
  for (int d = 0; d < rank; ++d) {
    keep[static_cast<size_t>(d)] = d == axis || out_shape[static_cast<size_t>(d)] != 1;
    if (d == axis) new_axis = static_cast<int>(kept);
    kept += keep[static_cast<size_t>(d)] ? 1 : 0;
  }
  if (kept > kMaxRank) return {};
  auto reduce = [&](const Shape& s) {
    Shape r;
    for (size_t d = 0; d < s.size(); ++d) {
      if (keep[d]) r.push_back(s[d]);
    }
    return r;
  };
  std::vector<Node> nodes;
  Node concat = node;
  const std::string name = graph.tensors[static_cast<size_t>(out)].name;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const int in = node.inputs[k];
    if (!FullyFixed(graph, in) || graph.tensors[static_cast<size_t>(in)].shape.size() != out_shape.size()) return {};
    const Shape in_shape = graph.tensors[static_cast<size_t>(in)].shape;
    concat.inputs[k] = ViewOf(graph, in, reduce(in_shape), name + "/in" + std::to_string(k), nodes);
  }
  const int joined = AddActivationLike(graph, out, name + "/concat", reduce(out_shape));
  concat.outputs = {joined};
  std::get<ConcatenationAttributes>(concat.attributes).axis = new_axis;
  nodes.push_back(std::move(concat));
  nodes.push_back(MakeReshape(graph, joined, out));
  Stamp(node, nodes);
  return nodes;
}

// The GATHER_ND's form with the indices' size-1 leading dimensions dropped;
// empty when that leaves them above rank 4.
std::vector<Node> GatherNdForm(Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return {};
  const int idx = node.inputs[1], out = node.outputs[0];
  if (!FullyFixed(graph, idx) || !FullyFixed(graph, out)) return {};
  const Shape indices = graph.tensors[static_cast<size_t>(idx)].shape;
  const Shape out_shape = graph.tensors[static_cast<size_t>(out)].shape;
  if (indices.size() <= kMaxRank && out_shape.size() <= kMaxRank) return {};
  const size_t batch = indices.size() - 1;  // indices' leading dimensions, the output's too
  if (out_shape.size() < batch) return {};
  Shape new_idx, new_out;
  for (size_t d = 0; d < batch; ++d) {
    if (indices[d] != out_shape[d]) return {};
    if (indices[d] == 1) continue;
    new_idx.push_back(indices[d]);
    new_out.push_back(indices[d]);
  }
  new_idx.push_back(indices.back());
  for (size_t d = batch; d < out_shape.size(); ++d) new_out.push_back(out_shape[d]);
  if (new_out.empty()) new_out.push_back(1);
  if (new_idx.size() > kMaxRank || new_out.size() > kMaxRank) return {};
  std::vector<Node> nodes;
  const std::string name = graph.tensors[static_cast<size_t>(out)].name;
  Node gather = node;
  gather.inputs[1] = ViewOf(graph, idx, new_idx, name + "/indices", nodes);
  const int gathered = AddActivationLike(graph, out, name + "/gather", new_out);
  gather.outputs = {gathered};
  nodes.push_back(std::move(gather));
  nodes.push_back(MakeReshape(graph, gathered, out));
  Stamp(node, nodes);
  return nodes;
}

}  // namespace

Status ConcatGatherNdToRank4(Graph& graph, PassLog& log) {
  std::vector<std::vector<Node>> replacements(graph.nodes.size());
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node node = graph.nodes[i];
    std::vector<Node> form;
    if (node.op == OpType::kConcatenation) form = ConcatForm(graph, node);
    if (node.op == OpType::kGatherNd) form = GatherNdForm(graph, node);
    if (form.empty()) continue;
    const Node& core = form[form.size() - 2];
    const int shown = node.op == OpType::kGatherNd ? core.inputs[1] : core.outputs[0];
    log.Add("concat_gather_nd_to_rank4", graph.NodeLabel(i) + " on " +
                                             ShapeToString(graph.tensors[static_cast<size_t>(shown)].shape));
    replacements[i] = std::move(form);
    any = true;
  }
  if (any) ReplaceNodes(graph, replacements);
  return OkStatus();
}

}  // namespace gld
