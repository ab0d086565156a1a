// SLICE / STRIDED_SLICE (stride 1) above rank 4 as RESHAPE, a slice of rank
// <= 4, RESHAPE. PyTorch's converter takes q, k and v out of the rank-5
// [3, B, H, N, D] tensor of attention's q/k/v split by slicing the first
// axis (qkv.unbind(0)); Swin slices rank-6 views. Dimensions of size 1 are
// dropped, and a dimension taken whole joins the one before it (begin and
// size scale by its size): the same elements in the same order. A
// shrink_axis_mask only drops a size-1 dimension of the output, which the
// last RESHAPE writes; ellipsis and new-axis masks are left alone.
#include <algorithm>
#include <string>
#include <vector>

#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "slice_to_rank4";
constexpr size_t kMaxRank = 4;

// Each dimension's begin and size, from the node's constant inputs; false
// when the node is not a stride-1 slice this pass takes.
bool Window(const Graph& graph, const Node& node, const Shape& in, std::vector<int64_t>* begin,
            std::vector<int64_t>* size) {
  std::vector<int64_t> b, e, s;
  const size_t rank = in.size();
  if (node.op == OpType::kSlice) {
    if (node.inputs.size() != 3 || !ConstantInts(graph, node.inputs[1], &b) ||
        !ConstantInts(graph, node.inputs[2], &s) || b.size() != rank || s.size() != rank) {
      return false;
    }
    for (size_t d = 0; d < rank; ++d) {
      if (b[d] < 0 || b[d] > in[d]) return false;
      if (s[d] == -1) s[d] = in[d] - b[d];
      if (s[d] < 0 || b[d] + s[d] > in[d]) return false;
    }
    *begin = b;
    *size = s;
    return true;
  }
  const auto* a = std::get_if<StridedSliceAttributes>(&node.attributes);
  if (a == nullptr || a->ellipsis_mask != 0 || a->new_axis_mask != 0 || a->offset || node.inputs.size() != 4 ||
      !ConstantInts(graph, node.inputs[1], &b) || !ConstantInts(graph, node.inputs[2], &e) ||
      !ConstantInts(graph, node.inputs[3], &s) || b.size() != rank || e.size() != rank || s.size() != rank) {
    return false;
  }
  begin->assign(rank, 0);
  size->assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (s[d] != 1) return false;
    auto wrap = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + in[d] : v, 0, in[d]); };
    const int64_t from = (a->begin_mask >> d & 1) != 0 ? 0 : wrap(b[d]);
    int64_t to = (a->end_mask >> d & 1) != 0 ? in[d] : wrap(e[d]);
    if ((a->shrink_axis_mask >> d & 1) != 0) to = from + 1;
    if (to <= from || to > in[d]) return false;
    (*begin)[d] = from;
    (*size)[d] = to - from;
  }
  return true;
}

// Unit dimensions dropped, whole dimensions joined to the one before.
void Reduce(const Shape& in, std::vector<int64_t>* shape, std::vector<int64_t>* begin, std::vector<int64_t>* size) {
  std::vector<int64_t> s, b, z;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) continue;
    const bool whole = (*begin)[d] == 0 && (*size)[d] == in[d];
    if (whole && !s.empty()) {
      s.back() *= in[d];
      b.back() *= in[d];
      z.back() *= in[d];
      continue;
    }
    s.push_back(in[d]);
    b.push_back((*begin)[d]);
    z.push_back((*size)[d]);
  }
  *shape = s;
  *begin = b;
  *size = z;
}

}  // namespace

Status SliceToRank4(Graph& graph, PassLog& log) {
  std::vector<std::vector<Node>> replacements(graph.nodes.size());
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if ((node.op != OpType::kSlice && node.op != OpType::kStridedSlice) || node.outputs.size() != 1) continue;
    const int in = node.inputs.empty() ? kNoTensor : node.inputs[0], out = node.outputs[0];
    if (!FullyFixed(graph, in) || !FullyFixed(graph, out)) continue;
    const Shape in_shape = graph.tensors[static_cast<size_t>(in)].shape;
    const Shape& out_shape = graph.tensors[static_cast<size_t>(out)].shape;
    std::vector<int64_t> begin, size, shape;
    if (in_shape.size() <= kMaxRank && out_shape.size() <= kMaxRank) continue;
    if (!Window(graph, node, in_shape, &begin, &size)) continue;
    Reduce(in_shape, &shape, &begin, &size);
    if (shape.size() > kMaxRank) continue;
    if (shape.empty()) {  // every dimension of size 1: shape [1]
      shape = begin = size = {1};
      begin[0] = 0;
    }
    const std::string name = graph.tensors[static_cast<size_t>(out)].name;
    std::vector<Node>& nodes = replacements[i];
    const int view = AddActivationLike(graph, in, name + "/view", Shape(shape.begin(), shape.end()));
    nodes.push_back(MakeReshape(graph, in, view));
    const int sliced = AddActivationLike(graph, in, name + "/slice", Shape(size.begin(), size.end()));
    Node slice;
    slice.op = OpType::kSlice;
    slice.inputs = {view, AddInt32Constant(graph, name + "/begin", std::vector<int32_t>(begin.begin(), begin.end())),
                    AddInt32Constant(graph, name + "/size", std::vector<int32_t>(size.begin(), size.end()))};
    slice.outputs = {sliced};
    nodes.push_back(std::move(slice));
    nodes.push_back(MakeReshape(graph, sliced, out));
    for (Node& n : nodes) {
      n.source_index = node.source_index;
      n.fused_names = node.fused_names;
    }
    log.Add(kPass, graph.NodeLabel(i) + " " + ShapeToString(in_shape) + " as a SLICE of rank " +
                       std::to_string(shape.size()) + " on " + ShapeToString(Shape(shape.begin(), shape.end())));
    any = true;
  }
  if (any) ReplaceNodes(graph, replacements);
  return OkStatus();
}

}  // namespace gld
