// Nearest-neighbour upsampling written as repeats. TensorFlow's converter
// writes Keras 3's UpSampling2D (and tf.repeat along a spatial axis) as
//   RESHAPE [N, H, W, C] -> [N, H, 1, W, C]   TILE [1, 1, a, 1, 1]
//   RESHAPE -> [N, H*a, W, 1, C]              TILE [1, 1, 1, b, 1]
//   RESHAPE -> [N, H*a, W*b, C]
// with rank-5 tensors in between, which the GPU layout does not take. A chain
// of RESHAPE and TILE nodes from a 4-D tensor to a 4-D tensor whose every
// element is the input's element at (n, y / a, x / b, c) is one
// RESIZE_NEAREST_NEIGHBOR to [H*a, W*b] (align_corners and half-pixel centers
// off: TFLite then reads floor(y * H / (H*a)) = y / a, the same element).
//
// The match is checked on values, not on the shapes' look: the chain is run
// over the input's element indices (RESHAPE keeps the order, TILE repeats)
// and the result compared with the resize's index map, so any arrangement of
// reshapes and tiles that means this upsampling is taken and nothing else is.
#include <algorithm>
#include <string>
#include <vector>

#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "repeat_as_resize";
// Index maps at most this long are checked (4 Mi elements: 16 MiB).
constexpr int64_t kMaxElements = int64_t{1} << 22;

bool FullyFixed(const Graph& graph, int tensor) {
  const Shape& s = graph.tensors[static_cast<size_t>(tensor)].shape;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!DimsFixed(graph, tensor, {d})) return false;
  }
  return true;
}

// Writes the TILE of `in` (row-major over shape[d..], `stride` its steps)
// to out_shape[d..] at `out`, block by block; returns the elements written.
int64_t TileDims(const int64_t* in, const Shape& shape, const Shape& out_shape, const std::vector<int64_t>& stride,
                 size_t d, int64_t* out) {
  const int64_t copies = out_shape[d] / shape[d];
  int64_t block = 0;
  if (d + 1 == shape.size()) {
    std::copy(in, in + shape[d], out);
    block = shape[d];
  } else {
    for (int64_t i = 0; i < shape[d]; ++i) block += TileDims(in + i * stride[d], shape, out_shape, stride, d + 1, out + block);
  }
  for (int64_t r = 1; r < copies; ++r) std::copy(out, out + block, out + r * block);
  return block * copies;
}

// TILE of `in` (element indices, row-major over `shape`) to `out_shape`.
std::vector<int64_t> Tile(const std::vector<int64_t>& in, const Shape& shape, const Shape& out_shape) {
  std::vector<int64_t> out(static_cast<size_t>(NumElements(out_shape)));
  if (shape.empty()) {
    std::copy(in.begin(), in.end(), out.begin());
    return out;
  }
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t d = shape.size() - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  if (!out.empty()) TileDims(in.data(), shape, out_shape, stride, 0, out.data());
  return out;
}

struct Chain {
  std::vector<size_t> nodes;
  int x = kNoTensor, out = kNoTensor;
  int64_t a = 1, b = 1;  // row and column factors
};

// The chain of RESHAPE / TILE nodes that starts at `first` (a RESHAPE of a
// 4-D tensor) and ends at the first 4-D tensor after it, when it upsamples.
bool MatchChain(const Graph& graph, size_t first, Chain* c) {
  const Node& head = graph.nodes[first];
  if (head.op != OpType::kReshape || head.inputs.empty() || head.outputs.size() != 1) return false;
  c->x = head.inputs[0];
  const Tensor& x = graph.tensors[static_cast<size_t>(c->x)];
  if (x.shape.size() != 4 || !FullyFixed(graph, c->x) || NumElements(x.shape) <= 0) return false;
  Shape shape = x.shape;
  // Each TILE's shapes before and after: the element order is followed only
  // once the chain's shapes say it may upsample (most RESHAPEs of a 4-D
  // tensor start no such chain, and the order costs one int64 per element).
  std::vector<std::pair<Shape, Shape>> tiles;
  size_t n = first;
  while (true) {
    const Node& node = graph.nodes[n];
    if (node.outputs.size() != 1 || node.inputs.empty() || node.inputs[0] == kNoTensor) return false;
    const int out = node.outputs[0];
    const Tensor& t = graph.tensors[static_cast<size_t>(out)];
    if (t.type != x.type || !FullyFixed(graph, out) || NumElements(t.shape) > kMaxElements) return false;
    if (node.op == OpType::kTile) {
      std::vector<int64_t> multiples;
      if (node.inputs.size() != 2 || !ConstantInts(graph, node.inputs[1], &multiples) ||
          multiples.size() != shape.size() || t.shape.size() != shape.size()) {
        return false;
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        if (multiples[d] < 1 || t.shape[d] != shape[d] * multiples[d]) return false;
      }
      tiles.emplace_back(shape, t.shape);
    } else if (node.op != OpType::kReshape || NumElements(t.shape) != NumElements(shape)) {
      return false;
    }
    shape = t.shape;
    c->nodes.push_back(n);
    if (shape.size() == 4 && n != first) {
      c->out = out;
      break;
    }
    const int next = SoleReader(graph, out);
    if (next < 0) return false;
    n = static_cast<size_t>(next);
  }
  if (tiles.empty() || shape[0] != x.shape[0] || shape[3] != x.shape[3] || shape[1] % x.shape[1] != 0 ||
      shape[2] % x.shape[2] != 0) {
    return false;
  }
  c->a = shape[1] / x.shape[1];
  c->b = shape[2] / x.shape[2];
  std::vector<int64_t> values(static_cast<size_t>(NumElements(x.shape)));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  for (const auto& [from, to] : tiles) values = Tile(values, from, to);
  // Every element must be the input's at (n, y / a, x / b, c).
  size_t o = 0;
  for (int64_t bn = 0; bn < shape[0]; ++bn) {
    for (int64_t y = 0; y < shape[1]; ++y) {
      for (int64_t xx = 0; xx < shape[2]; ++xx) {
        const int64_t row = ((bn * x.shape[1] + y / c->a) * x.shape[2] + xx / c->b) * x.shape[3];
        for (int64_t ch = 0; ch < shape[3]; ++ch, ++o) {
          if (values[o] != row + ch) return false;
        }
      }
    }
  }
  return true;
}

int AddSizeConstant(Graph& graph, const std::string& name, int32_t h, int32_t w) {
  Tensor t;
  t.name = name;
  t.type = DataType::kInt32;
  t.shape = {2};
  t.is_constant = true;
  const int32_t v[2] = {h, w};
  t.data = ConstantData::CopyOf(v, sizeof(v));
  graph.tensors.push_back(std::move(t));
  return static_cast<int>(graph.tensors.size()) - 1;
}

}  // namespace

Status RepeatAsResize(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op != OpType::kReshape || remove[i]) continue;
    Chain c;
    if (!MatchChain(graph, i, &c)) continue;
    const Tensor& out = graph.tensors[static_cast<size_t>(c.out)];
    const int size = AddSizeConstant(graph, out.name + "/size", static_cast<int32_t>(out.shape[1]),
                                     static_cast<int32_t>(out.shape[2]));
    // The last node's place becomes the resize: its input comes earlier.
    const size_t at = c.nodes.back();
    Node resize;
    resize.op = OpType::kResizeNearestNeighbor;
    resize.inputs = {c.x, size};
    resize.outputs = {c.out};
    resize.attributes = ResizeAttributes{};
    resize.source_index = graph.nodes[at].source_index;
    const std::string labels = ReplaceChain(graph, at, std::move(resize), c.nodes, remove);
    any = true;
    log.Add(kPass, labels + " repeat " + DescribeTensor(graph, c.x) + " " + std::to_string(c.a) + "x" +
                       std::to_string(c.b) + ": one RESIZE_NEAREST_NEIGHBOR writing " + DescribeTensor(graph, c.out));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
