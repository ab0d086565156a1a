// Row statistics kept in the shape of the rows they came from. litert-torch
// writes LayerNorm (and other per-row math) with MEANs that drop the reduced
// axes, elementwise math on the squeezed rows, and RESHAPEs back to the
// keep-dims shape for each broadcast against the input:
//   mean = MEAN(x [1,17,64], [0,2])          -> [17]
//   r = RSQRT(ADD(MEAN(SQUARED_DIFFERENCE(x, RESHAPE(mean, [1,17,1])), [0,2]), eps))
//   out = ADD(MUL(x, RESHAPE(r, [1,17,1])), RESHAPE(SUB(0, MUL(r, mean)), [1,17,1]))
// When every reduction of such a region keeps the same rows (one keep-dims
// shape K), every node between them is elementwise on the squeezed shape
// with scalar-constant or in-region operands, and every way out of the
// region is a RESHAPE to K, the reductions keep their dimensions (their
// axes without the fixed size-1 ones) and the region's tensors take shape
// K: the RESHAPEs become identities for remove_noops, and the chain has the
// keep-dims form the transformer passes (fuse_layer_norm) match. The values
// are the same: only shapes with the same elements in the same order change.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "transforms/pass.h"
#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "keep_reduced_dims";

bool IsReduction(OpType op) {
  return op == OpType::kMean || op == OpType::kSum || op == OpType::kReduceMax || op == OpType::kReduceMin ||
         op == OpType::kReduceProd;
}

// A float32 reduction that drops its axes: its axes (normalized, sorted)
// and its keep-dims output shape; false otherwise.
bool SqueezingReduction(const Graph& graph, size_t n, std::vector<int64_t>* axes, Shape* keep) {
  const Node& node = graph.nodes[n];
  if (!IsReduction(node.op) || node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const auto* a = std::get_if<ReduceAttributes>(&node.attributes);
  if (a == nullptr || a->keep_dims || !ValidTensor(graph, node.inputs[0]) || !ValidTensor(graph, node.outputs[0])) {
    return false;
  }
  const Tensor& in = graph.tensors[static_cast<size_t>(node.inputs[0])];
  if (in.type != DataType::kFloat32 || !ShapeIsValid(in.shape) || !ConstantInts(graph, node.inputs[1], axes) ||
      axes->empty()) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  for (int64_t& x : *axes) {
    if (x < -rank || x >= rank) return false;
    if (x < 0) x += rank;
  }
  std::sort(axes->begin(), axes->end());
  axes->erase(std::unique(axes->begin(), axes->end()), axes->end());
  *keep = in.shape;
  for (int64_t x : *axes) (*keep)[static_cast<size_t>(x)] = 1;
  return true;
}

bool ScalarConstant(const Graph& graph, int t) {
  if (!ValidTensor(graph, t)) return false;
  const Tensor& c = graph.tensors[static_cast<size_t>(t)];
  return c.is_constant && c.type == DataType::kFloat32 && c.num_elements() == 1 && c.shape.size() <= 1;
}

// The region grown from one squeezing reduction.
struct Region {
  Shape keep;                      // K
  std::vector<int64_t> axes;       // every reduction's (normalized, sorted)
  Shape squeezed;                  // the reductions' outputs' shape
  std::vector<size_t> reductions;  // nodes
  std::vector<int> tensors;        // the region's nodes' outputs
  size_t exits = 0;                // RESHAPEs to K (counted once per reader)
};

bool Grow(const Graph& graph, size_t seed, Region* r, std::string* why) {
  if (!SqueezingReduction(graph, seed, &r->axes, &r->keep)) return false;
  const std::vector<int64_t>& axes = r->axes;
  r->squeezed = graph.tensors[static_cast<size_t>(graph.nodes[seed].outputs[0])].shape;
  std::set<size_t> members;
  std::vector<size_t> work;
  // Node `n` joins the region when it is a reduction of the same rows or
  // elementwise on rows; false (with `why`) otherwise.
  auto join = [&](size_t n) {
    if (members.count(n) != 0) return true;
    const Node& node = graph.nodes[n];
    std::vector<int64_t> other_axes;
    Shape other_keep;
    if (IsReduction(node.op)) {
      if (!SqueezingReduction(graph, n, &other_axes, &other_keep) || other_keep != r->keep || other_axes != axes) {
        *why = "a " + std::string(OpTypeName(node.op)) + " of other rows";
        return false;
      }
      r->reductions.push_back(n);
    } else {
      const int arity = ElementwiseArity(node.op);
      if (arity == 0 || node.outputs.size() != 1 || static_cast<int>(node.inputs.size()) != arity) {
        *why = std::string(OpTypeName(node.op)) + " is not elementwise";
        return false;
      }
    }
    const int out = node.outputs[0];
    const Tensor& t = graph.tensors[static_cast<size_t>(out)];
    if (t.type != DataType::kFloat32 || t.shape != r->squeezed) {
      *why = "'" + t.name + "' is not a float32 row of the squeezed shape";
      return false;
    }
    if (graph.IsGraphOutput(out)) {
      *why = "'" + t.name + "' is a graph output";
      return false;
    }
    members.insert(n);
    r->tensors.push_back(out);
    work.push_back(n);
    return true;
  };
  if (!join(seed)) return false;
  while (!work.empty()) {
    const size_t n = work.back();
    work.pop_back();
    const Node& node = graph.nodes[n];
    if (!IsReduction(node.op)) {
      for (int operand : node.inputs) {
        if (ScalarConstant(graph, operand)) continue;
        const int p = graph.Producer(operand);
        if (p < 0) {
          *why = "'" + graph.tensors[static_cast<size_t>(operand)].name + "' comes from outside the rows";
          return false;
        }
        if (!join(static_cast<size_t>(p))) return false;
      }
    }
    for (size_t c : graph.Consumers(node.outputs[0])) {
      const Node& reader = graph.nodes[c];
      if (reader.op == OpType::kReshape && reader.outputs.size() == 1 && ValidTensor(graph, reader.outputs[0]) &&
          graph.tensors[static_cast<size_t>(reader.outputs[0])].shape == r->keep) {
        ++r->exits;
        continue;
      }
      if (!join(c)) return false;
    }
  }
  return r->exits > 0;
}

// The keep-dims shape's signature: the input's with the reduced axes 1.
Shape KeepSignature(const Graph& graph, size_t reduction, const Shape& keep) {
  const Tensor& in = graph.tensors[static_cast<size_t>(graph.nodes[reduction].inputs[0])];
  if (in.signature.empty()) return {};
  Shape s = in.signature;
  for (size_t d = 0; d < s.size() && d < keep.size(); ++d) {
    if (keep[d] == 1 && in.shape[d] != 1) s[d] = 1;
  }
  return s;
}

}  // namespace

Status KeepReducedDims(Graph& graph, PassLog& log) {
  std::vector<bool> done(graph.nodes.size(), false);
  std::set<std::string> logged;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (done[i] || !IsReduction(graph.nodes[i].op)) continue;
    Region r;
    std::string why;
    const bool grown = Grow(graph, i, &r, &why);
    for (size_t n : r.reductions) done[n] = true;  // a region is tried once, from its first reduction
    if (!grown) {
      // Once per reason: each reduction of a region may find the same one.
      if (!why.empty() && (r.tensors.size() > 1 || r.exits > 0) && logged.insert(why).second) {
        log.Add(kPass, "left " + DescribeTensor(graph, graph.nodes[i].outputs[0]) + " squeezed: " + why);
      }
      continue;
    }
    const Shape signature = KeepSignature(graph, i, r.keep);
    for (size_t n : r.reductions) {
      Node& node = graph.nodes[n];
      const int in = node.inputs[0];
      const std::vector<int64_t>& axes = r.axes;
      // Size-1 axes reduce nothing once the dimensions stay.
      std::vector<int32_t> kept;
      for (int64_t a : axes) {
        if (graph.tensors[static_cast<size_t>(in)].shape[static_cast<size_t>(a)] != 1 ||
            !DimsFixed(graph, in, {static_cast<size_t>(a)})) {
          kept.push_back(static_cast<int32_t>(a));
        }
      }
      if (kept.empty()) kept.assign(axes.begin(), axes.end());
      node.inputs[1] = AddInt32Constant(graph, graph.tensors[static_cast<size_t>(node.outputs[0])].name + "/axes", kept);
      std::get<ReduceAttributes>(node.attributes).keep_dims = true;
    }
    for (int t : r.tensors) {
      Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
      tensor.shape = r.keep;
      tensor.signature = signature;
    }
    log.Add(kPass, std::to_string(r.reductions.size()) + " reduction(s) of " +
                       DescribeTensor(graph, graph.nodes[i].inputs[0]) + " and " +
                       std::to_string(r.tensors.size() - r.reductions.size()) + " elementwise row(s) keep their " +
                       "dimensions; " + std::to_string(r.exits) + " RESHAPE(s) back become identities");
  }
  return OkStatus();
}

}  // namespace gld
