// Removes nodes that copy their input unchanged: RESHAPE / SQUEEZE /
// EXPAND_DIMS to the same shape, TRANSPOSE by the identity permutation, SLICE / STRIDED_SLICE of the whole tensor,
// ADD_N / CONCATENATION of one input, RESIZE_* to the same size. Readers of
// the output read the input instead. When the output is a graph output, the
// input's producer writes the output tensor instead (so the graph keeps its
// output tensor); when that is not possible the node stays.
#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "remove_noops";

bool AllZero(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x != 0) return false;
  }
  return true;
}

// Why the node is an identity ("" when it is not). `in` and `out` already
// have the same valid shape and type.
std::string IdentityReason(const Graph& graph, const Node& node, const Shape& shape) {
  std::vector<int64_t> a, b, c;
  switch (node.op) {
    case OpType::kReshape:
    case OpType::kSqueeze:
    case OpType::kExpandDims: return "same shape in and out";
    case OpType::kResizeBilinear:
    case OpType::kResizeNearestNeighbor: return "same size in and out";
    case OpType::kAddN:
    case OpType::kConcatenation: {
      if (node.inputs.size() != 1) return "";
      const auto* attrs = std::get_if<ConcatenationAttributes>(&node.attributes);
      if (attrs != nullptr && attrs->activation != Activation::kNone) return "";
      return "a single input";
    }
    case OpType::kTranspose: {
      if (!TransposePermutation(graph, node, &a)) return "";
      for (size_t d = 0; d < a.size(); ++d) {
        if (a[d] != static_cast<int64_t>(d)) return "";
      }
      return "the identity permutation";
    }
    case OpType::kSlice:
      // begin all zero and the output the input's shape: the whole tensor.
      if (node.inputs.size() != 3 || !ConstantInts(graph, node.inputs[1], &a) || a.size() != shape.size()) return "";
      return AllZero(a) ? "the whole tensor" : "";
    case OpType::kStridedSlice: {
      const auto* attrs = std::get_if<StridedSliceAttributes>(&node.attributes);
      if (attrs == nullptr || attrs->ellipsis_mask != 0 || attrs->new_axis_mask != 0 ||
          attrs->shrink_axis_mask != 0 || node.inputs.size() < 4 || !ConstantInts(graph, node.inputs[1], &a) ||
          !ConstantInts(graph, node.inputs[3], &c) || a.size() != shape.size() || c.size() != shape.size()) {
        return "";
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        const bool from_start = (attrs->begin_mask >> d & 1) != 0 || a[d] == 0;
        if (!from_start || c[d] != 1) return "";
      }
      return "the whole tensor with stride 1";
    }
    default: return "";
  }
}

}  // namespace

Status RemoveNoops(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.inputs.empty() || node.outputs.size() != 1) continue;
    const int in = node.inputs[0], out = node.outputs[0];
    if (!ValidTensor(graph, in) || !ValidTensor(graph, out) || in == out) continue;
    const Tensor& t_in = graph.tensors[static_cast<size_t>(in)];
    const Tensor& t_out = graph.tensors[static_cast<size_t>(out)];
    // Same shape under every resize of the inputs too (a slice of one batch row is no identity at batch 4).
    if (t_in.type != t_out.type || t_in.shape != t_out.shape || SignatureOf(t_in) != SignatureOf(t_out) ||
        !ShapeIsValid(t_in.shape) || t_out.is_variable ||
        t_in.quant.scale != t_out.quant.scale || t_in.quant.zero_point != t_out.quant.zero_point) {
      continue;
    }
    const std::string why = IdentityReason(graph, node, t_in.shape);
    if (why.empty()) continue;
    std::string how;
    if (!graph.IsGraphOutput(out)) {
      RedirectReaders(graph, out, in);
      how = "readers of " + DescribeTensor(graph, out) + " read " + DescribeTensor(graph, in);
    } else {
      // The output must keep its tensor: let the input's producer write it.
      const int p = graph.Producer(in);
      if (p < 0 || !OnlyReadBy(graph, in, i)) continue;
      Node& producer = graph.nodes[static_cast<size_t>(p)];
      for (int& t : producer.outputs) {
        if (t == in) t = out;
      }
      how = graph.NodeLabel(static_cast<size_t>(p)) + " writes graph output " + DescribeTensor(graph, out) +
            " directly";
    }
    remove[i] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(i) + " removed (" + why + "): " + how);
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
