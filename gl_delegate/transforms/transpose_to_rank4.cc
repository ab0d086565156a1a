// TRANSPOSE above rank 4 as TRANSPOSEs of rank <= 4 between RESHAPEs.
// PyTorch's converter writes ShuffleNet's channel shuffle
// ([1, g, C/g, H, W] perm 0 2 1 3 4), attention's q/k/v split
// ([1, N, 3, H, D] perm 2 0 3 1 4), Swin's window partition (rank 6) and
// pixel_shuffle ([1, C, r, r, H, W] perm 0 1 4 2 5 3) this way.
//
// Dimensions of size 1 carry no order and are dropped; input dimensions that
// stay next to each other, in order, under the permutation are one
// dimension. When at most 4 dimensions are left the node becomes
//   RESHAPE (to those dimensions)  TRANSPOSE (rank <= 4)  RESHAPE (to the output)
// and when more are left (pixel_shuffle: 5), a chain of rank-4 transposes
// that each move the next output dimension into place: with P the
// dimensions already placed, A those before the wanted one X and B those
// after it, [P, A, X, B] perm 0 2 1 3 is rank 4 whatever the rank. The
// RESHAPEs then join their neighbours (merge_reshapes).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "transpose_to_rank4";
constexpr size_t kMaxRank = 4;

// The transpose with unit dimensions dropped and adjacent dimensions
// merged: `dims` the merged input sizes, `perm` over them.
struct Reduced {
  std::vector<int64_t> dims;
  std::vector<size_t> perm;
};

Reduced Reduce(const Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<size_t> kept;  // the permutation over the non-unit dimensions, as input indices
  for (int64_t p : perm) {
    if (shape[static_cast<size_t>(p)] != 1) kept.push_back(static_cast<size_t>(p));
  }
  // Groups of input dimensions that follow each other in the output order.
  std::vector<std::vector<size_t>> groups;
  for (size_t j = 0; j < kept.size(); ++j) {
    const bool joins = j > 0 && groups.back().back() + 1 == kept[j];
    // A unit dimension between them does not part them: the next kept one
    // must be the next non-unit input dimension.
    bool next_non_unit = false;
    if (j > 0 && !joins) {
      size_t d = groups.back().back() + 1;
      while (d < shape.size() && shape[d] == 1) ++d;
      next_non_unit = d == kept[j];
    }
    if (joins || next_non_unit) {
      groups.back().push_back(kept[j]);
    } else {
      groups.push_back({kept[j]});
    }
  }
  // Groups in input order give the merged input; perm lists them in output order.
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
  Reduced r;
  std::vector<size_t> position(groups.size());
  for (size_t k = 0; k < order.size(); ++k) {
    int64_t size = 1;
    for (size_t d : groups[order[k]]) size *= shape[d];
    r.dims.push_back(size);
    position[order[k]] = k;
  }
  for (size_t g = 0; g < groups.size(); ++g) r.perm.push_back(position[g]);
  return r;
}

// Appends RESHAPE (x -> `dims`) and TRANSPOSE (`perm`) to `nodes`; returns
// the transposed tensor.
int AppendTranspose(Graph& graph, int x, const std::vector<int64_t>& dims, const std::vector<int32_t>& perm,
                    const std::string& name, std::vector<Node>* nodes) {
  const int view = AddActivationLike(graph, x, name + "/view", Shape(dims.begin(), dims.end()));
  nodes->push_back(MakeReshape(graph, x, view));
  Shape out_shape;
  for (int32_t p : perm) out_shape.push_back(dims[static_cast<size_t>(p)]);
  const int out = AddActivationLike(graph, x, name + "/t", out_shape);
  Node t;
  t.op = OpType::kTranspose;
  t.inputs = {view, AddInt32Constant(graph, name + "/perm", perm)};
  t.outputs = {out};
  nodes->push_back(std::move(t));
  return out;
}

// The rank-4 steps of a reduced transpose: each moves one dimension into
// place as [P, A, X, B] perm 0 2 1 3.
int AppendSteps(Graph& graph, int x, const Reduced& r, const std::string& name, std::vector<Node>* nodes) {
  if (r.dims.size() <= kMaxRank) {
    return AppendTranspose(graph, x, r.dims, std::vector<int32_t>(r.perm.begin(), r.perm.end()), name, nodes);
  }
  std::vector<size_t> cur(r.dims.size());  // reduced dimensions in memory order
  std::iota(cur.begin(), cur.end(), 0);
  for (size_t k = 0; k < r.perm.size(); ++k) {
    const size_t m = static_cast<size_t>(std::find(cur.begin(), cur.end(), r.perm[k]) - cur.begin());
    if (m == k) continue;
    auto product = [&](size_t from, size_t to) {
      int64_t p = 1;
      for (size_t i = from; i < to; ++i) p *= r.dims[cur[i]];
      return p;
    };
    const std::vector<int64_t> dims = {product(0, k), product(k, m), r.dims[cur[m]], product(m + 1, cur.size())};
    x = AppendTranspose(graph, x, dims, {0, 2, 1, 3}, name + "/step" + std::to_string(k), nodes);
    const size_t moved = cur[m];
    cur.erase(cur.begin() + static_cast<std::ptrdiff_t>(m));
    cur.insert(cur.begin() + static_cast<std::ptrdiff_t>(k), moved);
  }
  return x;
}

}  // namespace

Status TransposeToRank4(Graph& graph, PassLog& log) {
  std::vector<std::vector<Node>> replacements(graph.nodes.size());
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != OpType::kTranspose || node.inputs.size() != 2 || node.outputs.size() != 1) continue;
    const int in = node.inputs[0], out = node.outputs[0];
    if (!FullyFixed(graph, in) || !FullyFixed(graph, out)) continue;
    const Shape in_shape = graph.tensors[static_cast<size_t>(in)].shape;
    std::vector<int64_t> perm;
    if (in_shape.size() <= kMaxRank || !ConstantInts(graph, node.inputs[1], &perm) || perm.size() != in_shape.size()) {
      continue;
    }
    std::vector<bool> seen(perm.size(), false);
    bool valid = true;
    for (int64_t p : perm) {
      valid = valid && p >= 0 && static_cast<size_t>(p) < perm.size() && !seen[static_cast<size_t>(p)];
      if (valid) seen[static_cast<size_t>(p)] = true;
    }
    if (!valid) continue;
    const Reduced r = Reduce(in_shape, perm);
    std::vector<Node>& nodes = replacements[i];
    const std::string name = graph.tensors[static_cast<size_t>(out)].name;
    int x = in;
    if (r.dims.size() > 1) x = AppendSteps(graph, in, r, name, &nodes);
    nodes.push_back(MakeReshape(graph, x, out));
    for (Node& n : nodes) {
      n.source_index = node.source_index;
      n.fused_names = node.fused_names;
    }
    const size_t transposes = (nodes.size() - 1) / 2;
    log.Add(kPass, graph.NodeLabel(i) + " " + ShapeToString(in_shape) + " as " +
                       (transposes == 0 ? std::string("a RESHAPE (the order is kept)")
                                        : std::to_string(transposes) + " TRANSPOSE(s) of rank <= 4 on " +
                                              ShapeToString(Shape(r.dims.begin(), r.dims.end()))));
    any = true;
  }
  if (any) ReplaceNodes(graph, replacements);
  return OkStatus();
}

}  // namespace gld
