#include "gl/codegen/int32_need.h"

#include <algorithm>
#include <cstring>

namespace gld::gl {

void Int32Need::Add(int64_t a, int64_t b) {
  if (a > b) return;
  if (empty()) {
    lo = a;
    hi = b;
    return;
  }
  lo = std::min(lo, a);
  hi = std::max(hi, b);
}

void Int32Need::Add(const Int32Need& other) {
  Add(other.lo, other.hi);
  every_value = every_value || other.every_value;
}

std::string Int32Need::ToString() const {
  std::string s = empty() ? "no range" : "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return every_value ? s + " and every value (a CAST)" : s;
}

int64_t ExactIntegerLimit(Precision precision) {
  return precision == Precision::kFp32 ? (int64_t{1} << 24) : 2048;
}

namespace {

constexpr int kMaxDepth = 16;
constexpr int kMaxVisits = 4096;

const Tensor* TensorAt(const Graph& graph, int t) {
  return t < 0 || static_cast<size_t>(t) >= graph.tensors.size() ? nullptr : &graph.tensors[static_cast<size_t>(t)];
}

DataType TypeOf(const Graph& graph, int t) {
  const Tensor* x = TensorAt(graph, t);
  return x == nullptr ? DataType::kUnknown : x->type;
}

// The smallest and largest value of a non-empty int32 constant.
bool ConstantRange(const Graph& graph, int t, int64_t* lo, int64_t* hi) {
  const Tensor* x = TensorAt(graph, t);
  if (x == nullptr || !x->is_constant || x->type != DataType::kInt32) return false;
  const int64_t n = x->num_elements();
  if (n <= 0 || x->data.size() < static_cast<size_t>(n) * 4) return false;
  for (int64_t k = 0; k < n; ++k) {
    int32_t v;
    std::memcpy(&v, x->data.data() + 4 * k, 4);
    *lo = k == 0 ? v : std::min<int64_t>(*lo, v);
    *hi = k == 0 ? v : std::max<int64_t>(*hi, v);
  }
  return true;
}

// The size of the axis a GATHER node picks along; -1 when its attributes or
// params shape do not say.
int64_t GatherAxisSize(const Graph& graph, const Node& node) {
  const Tensor* params = node.inputs.empty() ? nullptr : TensorAt(graph, node.inputs[0]);
  if (params == nullptr) return -1;
  int64_t axis = 0;
  if (const auto* a = std::get_if<AxisAttributes>(&node.attributes)) axis = a->axis;
  if (axis < 0) axis += static_cast<int64_t>(params->shape.size());
  if (axis < 0 || axis >= static_cast<int64_t>(params->shape.size())) return -1;
  return params->shape[static_cast<size_t>(axis)];
}

// Dimension `dim` of the node's input `input` (-1: the largest); -1 when it
// has none.
int64_t TensorDim(const Graph& graph, const Node& node, size_t input, int dim) {
  const Tensor* t = node.inputs.size() <= input ? nullptr : TensorAt(graph, node.inputs[input]);
  if (t == nullptr) return -1;
  if (dim < 0) {
    int64_t largest = -1;
    for (int32_t d : t->shape) largest = std::max<int64_t>(largest, d);
    return largest;
  }
  return dim < static_cast<int>(t->shape.size()) ? t->shape[static_cast<size_t>(dim)] : -1;
}

bool IsComparison(OpType op) {
  switch (op) {
    case OpType::kLess:
    case OpType::kLessEqual:
    case OpType::kGreater:
    case OpType::kGreaterEqual:
    case OpType::kEqual:
    case OpType::kNotEqual:
      return true;
    default:
      return false;
  }
}

class NeedWalk {
 public:
  explicit NeedWalk(const Graph& graph) : graph_(graph) {}

  StatusOr<Int32Need> Need(int tensor, int depth) {
    const Tensor& t = graph_.tensors[static_cast<size_t>(tensor)];
    if (depth > kMaxDepth || ++visits_ > kMaxVisits) {
      return UnimplementedError("int32 tensor '" + t.name + "' starts too long a chain of int32 readers");
    }
    if (graph_.IsGraphOutput(tensor)) {
      return UnimplementedError("int32 tensor '" + t.name + "' is a graph output (the GPU holds int32 as floats)");
    }
    Int32Need need;
    for (size_t reader : graph_.Consumers(tensor)) {
      GLD_ASSIGN_OR_RETURN(Int32Need r, ReaderNeed(reader, tensor, depth));
      need.Add(r);
    }
    return need;
  }

 private:
  Status NotTaken(size_t reader, int tensor) const {
    return UnimplementedError("int32 tensor '" + graph_.tensors[static_cast<size_t>(tensor)].name + "' is read by " +
                              graph_.NodeLabel(reader) + ", which does not take int32 values held as floats");
  }

  static Int32Need Index(int64_t bound) {
    Int32Need n;
    n.Add(0, bound - 1);
    return n;
  }

  // ADD / SUB / a comparison of `tensor` with an int32 constant: the need of
  // `tensor` (the other operand a constant), or of the constant itself.
  StatusOr<Int32Need> ConstantOperandNeed(size_t reader, int tensor, int depth) {
    const Node& node = graph_.nodes[reader];
    if (node.inputs.size() != 2 || node.inputs[0] == node.inputs[1]) return NotTaken(reader, tensor);
    if (const auto* a = std::get_if<BinaryAttributes>(&node.attributes); a != nullptr && a->activation != Activation::kNone) {
      return NotTaken(reader, tensor);
    }
    const bool first = node.inputs[0] == tensor;
    int64_t klo = 0, khi = 0;
    Int32Need n;
    if (!ConstantRange(graph_, node.inputs[first ? 1 : 0], &klo, &khi)) {
      // The constant side: exact over its own values.
      if (!ConstantRange(graph_, tensor, &klo, &khi)) return NotTaken(reader, tensor);
      n.Add(klo, khi);
      return n;
    }
    if (IsComparison(node.op)) {
      n.Add(klo - 1, khi + 1);  // x < k answers as on the CPU when k - 1, k and k + 1 are exact
      return n;
    }
    const int out = node.outputs.empty() ? kNoTensor : node.outputs[0];
    if (TypeOf(graph_, out) != DataType::kInt32) return NotTaken(reader, tensor);
    GLD_ASSIGN_OR_RETURN(Int32Need o, Need(out, depth + 1));
    if (o.every_value) {
      return UnimplementedError("int32 " + std::string(OpTypeName(node.op)) + " " + graph_.NodeLabel(reader) +
                                " on the GPU is exact over a bounded range only, and its result reaches a CAST, "
                                "which reads every value");
    }
    if (o.empty()) return n;
    if (node.op == OpType::kAdd) {
      n.Add(o.lo - khi, o.hi - klo);
    } else if (first) {  // x - k
      n.Add(o.lo + klo, o.hi + khi);
    } else {  // k - x
      n.Add(klo - o.hi, khi - o.lo);
    }
    return n;
  }

  StatusOr<Int32Need> ReaderNeed(size_t reader, int tensor, int depth) {
    const Node& node = graph_.nodes[reader];
    const int out = node.outputs.empty() ? kNoTensor : node.outputs[0];
    const DataType out_type = TypeOf(graph_, out);
    auto is = [&](size_t i) { return node.inputs.size() > i && node.inputs[i] == tensor; };
    int64_t bound = -1;
    switch (node.op) {
      case OpType::kCast:
        if (is(0) && node.inputs.size() == 1 && (out_type == DataType::kFloat32 || out_type == DataType::kBool)) {
          Int32Need n;
          n.every_value = true;  // storage rounds float(x) as it rounds the cast's result
          return n;
        }
        break;
      case OpType::kGather:
        if (is(1) && !is(0)) bound = GatherAxisSize(graph_, node);
        break;
      case OpType::kEmbeddingLookup:
        if (is(0) && !is(1)) bound = TensorDim(graph_, node, 1, 0);
        break;
      case OpType::kGatherNd:
        if (is(1) && !is(0)) bound = TensorDim(graph_, node, 0, -1);
        break;
      case OpType::kDynamicUpdateSlice:  // clamped in the shader
        if (node.inputs.size() == 3 && is(2) && !is(0) && !is(1)) bound = TensorDim(graph_, node, 0, -1);
        break;
      case OpType::kStablehloScatter:  // others are skipped
        if (node.inputs.size() == 3 && is(1) && !is(0) && !is(2)) bound = TensorDim(graph_, node, 0, -1);
        break;
      case OpType::kReshape:
      case OpType::kBroadcastTo:
        if (is(0) && !is(1) && out_type == DataType::kInt32) return Need(out, depth + 1);
        break;
      case OpType::kConcatenation:
        if (out_type == DataType::kInt32) return Need(out, depth + 1);
        break;
      case OpType::kSelect:
      case OpType::kSelectV2:
        if (!is(0) && out_type == DataType::kInt32) return Need(out, depth + 1);
        break;
      case OpType::kAdd:
      case OpType::kSub:
        return ConstantOperandNeed(reader, tensor, depth);
      default:
        if (IsComparison(node.op)) return ConstantOperandNeed(reader, tensor, depth);
        break;
    }
    if (bound <= 0) return NotTaken(reader, tensor);
    return Index(bound);
  }

  const Graph& graph_;
  int visits_ = 0;
};

}  // namespace

StatusOr<Int32Need> Int32ReadersNeed(const Graph& graph, int tensor) {
  if (TensorAt(graph, tensor) == nullptr) {
    return InvalidArgumentError("missing tensor (index " + std::to_string(tensor) + ")");
  }
  NeedWalk walk(graph);
  return walk.Need(tensor, 0);
}

bool WritesInt32OnGpu(const Graph& graph, size_t node, int tensor) {
  const Node& n = graph.nodes[node];
  if (n.outputs.size() != 1 || n.outputs[0] != tensor) return false;
  switch (n.op) {
    case OpType::kCast: {
      const DataType from = n.inputs.empty() ? DataType::kUnknown : TypeOf(graph, n.inputs[0]);
      return from == DataType::kFloat32 || from == DataType::kBool;
    }
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kSelect:
    case OpType::kSelectV2:
    case OpType::kReshape:
    case OpType::kBroadcastTo:
    case OpType::kConcatenation:
      return true;
    default:
      return false;
  }
}

Status CheckInt32OnGpu(const Graph& graph, int tensor, Precision precision) {
  GLD_ASSIGN_OR_RETURN(Int32Need need, Int32ReadersNeed(graph, tensor));
  const int64_t exact = ExactIntegerLimit(precision);
  if (!need.empty() && (need.lo < -(exact - 1) || need.hi > exact - 1)) {
    return UnimplementedError("int32 tensor '" + graph.tensors[static_cast<size_t>(tensor)].name +
                              "' must be exact over " + need.ToString() + "; " + PrecisionName(precision) +
                              " storage holds integers exactly only up to " + std::to_string(exact));
  }
  return OkStatus();
}

}  // namespace gld::gl
