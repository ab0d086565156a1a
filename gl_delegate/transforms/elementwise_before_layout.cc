// A binary elementwise op with a constant operand moves before the TRANSPOSE
// or unit-dimension RESHAPE that produced its other operand, the constant
// rearranged to match. PyTorch's BatchNorm1d after a Conv1d, as litert-torch
// writes it, runs on the NCW view of the convolution's NHWC output:
//   conv [1, 1, W, C] -> TRANSPOSE -> [1, C, 1, W] -> RESHAPE -> [1, C, W]
//     -> MUL [1, C, 1] -> ADD [1, C, 1] -> RESHAPE -> TRANSPOSE -> [1, 1, W, C]
// Moved, the MUL and ADD read the convolution's output per channel
// (fold_mul_add_into_conv takes them into its weights), and the TRANSPOSE,
// RESHAPE, RESHAPE, TRANSPOSE between them cancel (merge_reshapes,
// merge_transposes, remove_noops). Only where the moved node's input is
// read by it alone, the op does not broadcast that input to a larger
// shape and that input is of rank 4 or less; the values are the same, the elements merely visited in another
// order.
#include <string>
#include <vector>

#include "transforms/pass.h"
#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "elementwise_before_layout";
// Never onto a tensor above the GPU layout's rank: the rank passes have just
// brought the ops there down to it (a scalar MUL before the RESHAPE that
// leaves a rank-5 q/k/v view would run on the CPU).
constexpr size_t kMaxMovedRank = 4;

// The non-unit dimensions of `shape`, in order.
Shape NonUnit(const Shape& shape) {
  Shape s;
  for (int d : shape) {
    if (d != 1) s.push_back(d);
  }
  return s;
}

// A RESHAPE (or SQUEEZE / EXPAND_DIMS) that only adds or removes size-1
// dimensions: the other dimensions stay, in order.
bool UnitReshape(const Graph& graph, const Node& node) {
  if ((node.op != OpType::kReshape && node.op != OpType::kSqueeze && node.op != OpType::kExpandDims) ||
      node.inputs.empty() || node.outputs.size() != 1) {
    return false;
  }
  const Shape& in = graph.tensors[static_cast<size_t>(node.inputs[0])].shape;
  const Shape& out = graph.tensors[static_cast<size_t>(node.outputs[0])].shape;
  return ShapeIsValid(in) && ShapeIsValid(out) && NonUnit(in) == NonUnit(out);
}

// Constant `c` (broadcasting into `y_shape`) as the constant that
// broadcasts the same way into `x_shape`, the shape before the layout node
// `layout`; false when there is none.
bool MoveConstant(const Graph& graph, const Node& layout, int c, const Shape& y_shape, const Shape& x_shape,
                  Shape* shape, std::vector<float>* values) {
  std::vector<float> v;
  const Shape& c_shape = graph.tensors[static_cast<size_t>(c)].shape;
  if (!ConstantFloats(graph, c, &v) || c_shape.size() > y_shape.size()) return false;
  // c at y's rank (leading 1s), each dimension 1 or y's.
  Shape full(y_shape.size() - c_shape.size(), 1);
  full.insert(full.end(), c_shape.begin(), c_shape.end());
  for (size_t d = 0; d < full.size(); ++d) {
    if (full[d] != 1 && full[d] != y_shape[d]) return false;
  }
  if (layout.op != OpType::kTranspose) {
    // Unit dimensions only: c's values keep their order; its non-unit
    // dimensions sit where x has y's non-unit dimensions.
    shape->assign(x_shape.size(), 1);
    size_t j = 0;
    for (size_t d = 0; d < x_shape.size(); ++d) {
      if (x_shape[d] == 1) continue;
      while (j < y_shape.size() && y_shape[j] == 1) ++j;
      (*shape)[d] = full[j++];
    }
    *values = std::move(v);
    return true;
  }
  // y = transpose(x, perm): y dimension i is x dimension perm[i], so c'
  // has c's dimension i at perm[i], its values transposed by the inverse.
  std::vector<int64_t> perm;
  if (!TransposePermutation(graph, layout, &perm) || perm.size() != full.size()) return false;
  shape->assign(full.size(), 1);
  for (size_t i = 0; i < perm.size(); ++i) (*shape)[static_cast<size_t>(perm[i])] = full[i];
  values->assign(v.size(), 0.0f);
  const size_t rank = full.size();
  std::vector<int64_t> out_strides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) out_strides[d] = out_strides[d + 1] * (*shape)[d + 1];
  for (size_t e = 0; e < v.size(); ++e) {
    int64_t rest = static_cast<int64_t>(e), o = 0;
    for (size_t i = rank; i-- > 0;) {
      o += (rest % full[i]) * out_strides[static_cast<size_t>(perm[i])];
      rest /= full[i];
    }
    (*values)[static_cast<size_t>(o)] = v[e];
  }
  return true;
}

// Moves node `j` before the layout node producing its operand; the slot it
// moved to, or -1.
int Hoist(Graph& graph, size_t j, PassLog& log) {
  const Node& e = graph.nodes[j];
  if (ElementwiseArity(e.op) != 2 || e.inputs.size() != 2 || e.outputs.size() != 1) return -1;
  for (size_t k = 0; k < 2; ++k) {
    const int y = e.inputs[k], c = e.inputs[1 - k];
    if (!ValidTensor(graph, y) || !ValidTensor(graph, c) || !graph.tensors[static_cast<size_t>(c)].is_constant) continue;
    const int p = graph.Producer(y);
    if (p < 0 || !OnlyReadBy(graph, y, j)) continue;
    const Node& layout = graph.nodes[static_cast<size_t>(p)];
    if (!UnitReshape(graph, layout) && layout.op != OpType::kTranspose) continue;
    const int x = layout.inputs[0];
    const Tensor& ty = graph.tensors[static_cast<size_t>(y)];
    const Tensor& tx = graph.tensors[static_cast<size_t>(x)];
    const Tensor& tout = graph.tensors[static_cast<size_t>(e.outputs[0])];
    if (ty.type != DataType::kFloat32 || tout.type != DataType::kFloat32 || tout.shape != ty.shape ||
        !ShapeIsValid(tx.shape) || tx.type != DataType::kFloat32 || tx.shape.size() > kMaxMovedRank) {
      continue;
    }
    Shape shape;
    std::vector<float> values;
    if (!MoveConstant(graph, layout, c, ty.shape, tx.shape, &shape, &values)) {
      continue;
    }
    const std::string what = graph.NodeLabel(j) + " before " + graph.NodeLabel(static_cast<size_t>(p)) + " (" +
                             ShapeToString(ty.shape) + " -> " + ShapeToString(tx.shape) + ")";
    // Copies: the new tensors below move graph.tensors, and the references with it.
    const std::string z_name = tout.name + "/before_layout";
    const Shape x_shape = tx.shape, x_signature = tx.signature;
    std::string c_name = graph.tensors[static_cast<size_t>(c)].name;
    if (c_name.size() < 6 || c_name.compare(c_name.size() - 6, 6, "/moved") != 0) c_name += "/moved";
    const int moved_c = AddFloatConstant(graph, c_name, shape, values);
    const int zi = AddActivationLike(graph, x, z_name, x_shape);
    graph.tensors[static_cast<size_t>(zi)].signature = x_signature;
    // The layout node's slot runs the op on x; the op's slot runs the layout
    // node on its result, writing the op's output.
    Node op = graph.nodes[j];
    Node moved_layout = graph.nodes[static_cast<size_t>(p)];
    op.inputs[k] = x;
    op.inputs[1 - k] = moved_c;
    op.outputs = {zi};
    moved_layout.inputs[0] = zi;
    moved_layout.outputs = {graph.nodes[j].outputs[0]};
    // (Its perm, shape input or attributes stay right: it still takes x's
    // shape to y's, which is the op's output's.)
    graph.nodes[static_cast<size_t>(p)] = std::move(op);
    graph.nodes[j] = std::move(moved_layout);
    log.Add(kPass, what);
    return p;
  }
  return -1;
}

}  // namespace

Status ElementwiseBeforeLayout(Graph& graph, PassLog& log) {
  // In graph order, each op as far up as it goes, one layout node at a time:
  // a MUL, then the ADD after it, past a RESHAPE and then a TRANSPOSE.
  for (size_t j = 0; j < graph.nodes.size(); ++j) {
    for (int at = static_cast<int>(j); at >= 0;) at = Hoist(graph, static_cast<size_t>(at), log);
  }
  return OkStatus();
}

}  // namespace gld
