// Rotary position embedding as litert-torch's converter writes it (the
// half-rotation form; per layer, once for q and once for k):
//   x1 = SLICE(x, last axis [0, h))     x2 = SLICE(x, last axis [h, 2h))
//   out = CONCATENATION(SUB(MUL(x1, cos), MUL(x2, sin)),
//                       ADD(MUL(x2, cos), MUL(x1, sin)), last axis)
// becomes one GLD_ROTARY_EMBEDDING(x, cos, sin) node (graph/op_list.inc),
// whichever operand order each MUL and the ADD have. cos and sin are
// whatever tensors the MULs pair with the halves that way (the op computes
// that arithmetic, not a table it assumes): one shape, broadcast to the
// halves' without enlarging them. Every intermediate must be read only
// inside the chain and be no graph output; shapes must be fixed.
//
// Where cos and sin vary along the last axis only (a decode step's one
// position), every row of x turns alike, so a RESHAPE that keeps the last
// dimension commutes with the op: a RESHAPE feeding x and the one after the
// CONCATENATION that undoes it are taken into the node too, which then runs
// on the first one's input (the converter writes x's [B, T, N, D] ->
// [B, N, T, D] and back as RESHAPEs when T is 1).
//
// A chain that has the pattern's skeleton (a CONCATENATION of a SUB and an
// ADD, each of two MULs) but is not rotary embedding stays as it is, with
// the reason in the pass log.
#include <array>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "fuse_rotary_embedding";

// The producer of `tensor` when it is a node of `op` with two inputs, one
// output and no fused activation; -1 otherwise.
int PlainBinary(const Graph& graph, int tensor, OpType op) {
  const int p = ValidTensor(graph, tensor) ? graph.Producer(tensor) : -1;
  if (p < 0) return -1;
  const Node& n = graph.nodes[static_cast<size_t>(p)];
  if (n.op != op || n.inputs.size() != 2 || n.outputs.size() != 1) return -1;
  const auto* a = std::get_if<BinaryAttributes>(&n.attributes);
  return a == nullptr || a->activation == Activation::kNone ? p : -1;
}

// True when node `n` takes operands {a, b} in either order.
bool Takes(const Node& n, int a, int b) {
  return (n.inputs[0] == a && n.inputs[1] == b) || (n.inputs[0] == b && n.inputs[1] == a);
}

// The x that SLICE node `n` takes half `which` (0: the first) of the last
// axis of, whole along the others; kNoTensor otherwise.
int HalfOf(const Graph& graph, const Node& n, int64_t which) {
  if (n.op != OpType::kSlice || n.inputs.size() != 3 || n.outputs.size() != 1 || !FullyFixed(graph, n.inputs[0])) {
    return kNoTensor;
  }
  const Shape& x = graph.tensors[static_cast<size_t>(n.inputs[0])].shape;
  std::vector<int64_t> begin, size;
  if (x.empty() || x.back() % 2 != 0 || !ConstantInts(graph, n.inputs[1], &begin) ||
      !ConstantInts(graph, n.inputs[2], &size) || begin.size() != x.size() || size.size() != x.size()) {
    return kNoTensor;
  }
  const int64_t h = x.back() / 2;
  for (size_t d = 0; d + 1 < x.size(); ++d) {
    if (begin[d] != 0 || (size[d] != x[d] && size[d] != -1)) return kNoTensor;
  }
  const bool to_end = size.back() == -1 && which == 1;
  return begin.back() == which * h && (size.back() == h || to_end) ? n.inputs[0] : kNoTensor;
}

// A chain found from its CONCATENATION.
struct Chain {
  std::vector<size_t> nodes;  // the nine of the pattern, then the RESHAPEs taken in
  int x = kNoTensor, cos = kNoTensor, sin = kNoTensor, out = kNoTensor;
};

// The skeleton: CONCATENATION(SUB(MUL, MUL), ADD(MUL, MUL)). The nodes in
// `mul` are SUB's two, then ADD's two.
bool Skeleton(const Graph& graph, const Node& concat, size_t* sub, size_t* add, std::array<size_t, 4>* mul) {
  if (concat.op != OpType::kConcatenation || concat.inputs.size() != 2 || concat.outputs.size() != 1) return false;
  const int s = PlainBinary(graph, concat.inputs[0], OpType::kSub);
  const int a = PlainBinary(graph, concat.inputs[1], OpType::kAdd);
  if (s < 0 || a < 0) return false;
  *sub = static_cast<size_t>(s);
  *add = static_cast<size_t>(a);
  for (size_t k = 0; k < 4; ++k) {
    const Node& n = graph.nodes[k < 2 ? *sub : *add];
    const int m = PlainBinary(graph, n.inputs[k % 2], OpType::kMul);
    if (m < 0) return false;
    (*mul)[k] = static_cast<size_t>(m);
  }
  return true;
}

// Which operands of the MULs are x's halves and which cos and sin: SUB's
// are x1 * cos and x2 * sin, ADD's x2 * cos and x1 * sin (either order).
bool PairOperands(const Graph& graph, const std::array<size_t, 4>& mul, Chain* c, std::array<size_t, 2>* slices) {
  const Node& a = graph.nodes[mul[0]];  // x1 * cos
  const Node& b = graph.nodes[mul[1]];  // x2 * sin
  for (int ia = 0; ia < 2; ++ia) {
    for (int ib = 0; ib < 2; ++ib) {
      for (int swap = 0; swap < 2; ++swap) {
        const int x1 = a.inputs[static_cast<size_t>(ia)], cos = a.inputs[static_cast<size_t>(1 - ia)];
        const int x2 = b.inputs[static_cast<size_t>(ib)], sin = b.inputs[static_cast<size_t>(1 - ib)];
        const Node& c_mul = graph.nodes[mul[2 + static_cast<size_t>(swap)]];  // x2 * cos
        const Node& d_mul = graph.nodes[mul[3 - static_cast<size_t>(swap)]];  // x1 * sin
        if (x1 == x2 || !Takes(c_mul, x2, cos) || !Takes(d_mul, x1, sin)) continue;
        const int p1 = graph.Producer(x1), p2 = graph.Producer(x2);
        if (p1 < 0 || p2 < 0) continue;
        const int x = HalfOf(graph, graph.nodes[static_cast<size_t>(p1)], 0);
        if (x == kNoTensor || HalfOf(graph, graph.nodes[static_cast<size_t>(p2)], 1) != x) continue;
        c->x = x;
        c->cos = cos;
        c->sin = sin;
        *slices = {static_cast<size_t>(p1), static_cast<size_t>(p2)};
        return true;
      }
    }
  }
  return false;
}

// Every tensor the chain makes, bar its output, is read only by the chain's
// nodes and is no graph output.
bool Private(const Graph& graph, const Chain& c) {
  for (size_t n : c.nodes) {
    const int t = graph.nodes[n].outputs[0];
    if (t == c.out) continue;
    if (graph.IsGraphOutput(t)) return false;
    for (size_t r : graph.Consumers(t)) {
      bool inside = false;
      for (size_t m : c.nodes) inside = inside || m == r;
      if (!inside) return false;
    }
  }
  return true;
}

bool IsFloat(const Graph& graph, int t) {
  return ValidTensor(graph, t) && graph.tensors[static_cast<size_t>(t)].type == DataType::kFloat32;
}

const Shape& ShapeOf(const Graph& graph, int t) { return graph.tensors[static_cast<size_t>(t)].shape; }

// A RESHAPE of fixed shapes.
bool FixedReshape(const Graph& graph, const Node& n) {
  return n.op == OpType::kReshape && !n.inputs.empty() && n.outputs.size() == 1 && IsFloat(graph, n.inputs[0]) &&
         IsFloat(graph, n.outputs[0]) && FullyFixed(graph, n.inputs[0]) && FullyFixed(graph, n.outputs[0]);
}

// Takes in a RESHAPE before x and one after the output that undoes it
// (src -> x -> ... -> out -> src's shape), where every row turns alike and
// the reshape keeps the last dimension: the op then runs on src's view.
void TakeReshapes(const Graph& graph, const std::array<size_t, 2>& slices, Chain* c) {
  const Shape& table = ShapeOf(graph, c->cos);
  if (!table.empty() && NumElements(table) != table.back()) return;  // the rows' tables differ
  const int p = graph.Producer(c->x);
  const int r = SoleReader(graph, c->out);
  if (p < 0 || r < 0 || graph.IsGraphOutput(c->x)) return;
  const Node& before = graph.nodes[static_cast<size_t>(p)];
  const Node& after = graph.nodes[static_cast<size_t>(r)];
  if (!FixedReshape(graph, before) || !FixedReshape(graph, after)) return;
  const Shape& src = ShapeOf(graph, before.inputs[0]);
  if (src != ShapeOf(graph, after.outputs[0]) || src.empty() || src.back() != ShapeOf(graph, c->x).back() ||
      src.size() < table.size()) {
    return;
  }
  for (size_t reader : graph.Consumers(c->x)) {
    if (reader != slices[0] && reader != slices[1]) return;  // x is read elsewhere too
  }
  c->nodes.push_back(static_cast<size_t>(p));
  c->nodes.push_back(static_cast<size_t>(r));
  c->x = before.inputs[0];
  c->out = after.outputs[0];
}

// The chain ending at CONCATENATION node `at`: false (why empty) when the
// node is no rotary skeleton; false with why when the skeleton is there
// but the arithmetic or the shapes are not the op's.
bool Match(const Graph& graph, size_t at, Chain* c, std::string* why) {
  const Node& concat = graph.nodes[at];
  size_t sub = 0, add = 0;
  std::array<size_t, 4> mul;
  if (!Skeleton(graph, concat, &sub, &add, &mul)) return false;
  std::array<size_t, 2> slices;
  if (!PairOperands(graph, mul, c, &slices)) {
    *why = "its MULs do not pair the halves of one tensor with two others as x1 * cos - x2 * sin, x2 * cos + x1 * sin";
    return false;
  }
  c->out = concat.outputs[0];
  c->nodes = {slices[0], slices[1], mul[0], mul[1], mul[2], mul[3], sub, add, at};
  const auto* ca = std::get_if<ConcatenationAttributes>(&concat.attributes);
  const int64_t rank = static_cast<int64_t>(ShapeOf(graph, c->x).size());
  if (ca == nullptr || ca->activation != Activation::kNone || (ca->axis != rank - 1 && ca->axis != -1)) {
    *why = "its CONCATENATION is not along the last axis (or has an activation)";
    return false;
  }
  for (size_t i = 0; i < c->nodes.size(); ++i) {
    const int made = graph.nodes[c->nodes[i]].outputs[0];
    bool twice = made == c->cos || made == c->sin;
    for (size_t j = i + 1; j < c->nodes.size(); ++j) twice = twice || c->nodes[i] == c->nodes[j];
    if (twice) {
      *why = "one of its nodes plays two parts in it";
      return false;
    }
  }
  if (!Private(graph, *c)) {
    *why = "a tensor inside it is read elsewhere or is a graph output";
    return false;
  }
  for (int t : {c->x, c->cos, c->sin, c->out}) {
    if (!IsFloat(graph, t) || !FullyFixed(graph, t)) {
      *why = DescribeTensor(graph, t) + " is not float32 of a fixed shape";
      return false;
    }
  }
  const Shape& x = ShapeOf(graph, c->x);
  if (std::string mismatch = RotaryOperandsMismatch(x, ShapeOf(graph, c->cos), ShapeOf(graph, c->sin));
      !mismatch.empty()) {
    *why = mismatch;
    return false;
  }
  // No MUL broadcasts the halves up: each product, difference and sum has their shape.
  Shape half = x;
  half.back() /= 2;
  for (size_t k = 2; k < 8; ++k) {
    if (ShapeOf(graph, graph.nodes[c->nodes[k]].outputs[0]) != half) {
      *why = "a product is not of x's halves' shape " + ShapeToString(half);
      return false;
    }
  }
  if (ShapeOf(graph, c->out) != x) {
    *why = "its output is not of x's shape " + ShapeToString(x);
    return false;
  }
  TakeReshapes(graph, slices, c);
  return true;
}

}  // namespace

Status FuseRotaryEmbedding(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op != OpType::kConcatenation) continue;
    Chain c;
    std::string why;
    if (!Match(graph, i, &c, &why)) {
      if (!why.empty()) log.Add(kPass, graph.NodeLabel(i) + " is left as it is: " + why);
      continue;
    }
    if (AnyTaken(c.nodes, remove)) continue;
    Node fused;
    fused.op = OpType::kRotaryEmbedding;
    fused.inputs = {c.x, c.cos, c.sin};
    fused.outputs = {c.out};
    fused.source_index = graph.nodes[i].source_index;
    // The CONCATENATION's place: x, cos and sin come earlier, the readers
    // of the output (or of the RESHAPE after it) later.
    const std::string labels = ReplaceChain(graph, i, std::move(fused), c.nodes, remove);
    log.Add(kPass, labels + " became one GLD_ROTARY_EMBEDDING of " + DescribeTensor(graph, c.x) + " by " +
                       DescribeTensor(graph, c.cos) + " and " + DescribeTensor(graph, c.sin) + " writing " +
                       DescribeTensor(graph, c.out));
    any = true;
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
