// SPACE_TO_BATCH_ND -> CONV_2D / DEPTHWISE_CONV_2D -> BATCH_TO_SPACE_ND, the
// way TensorFlow lowers an atrous convolution, becomes one convolution with
// dilation = the block size. The space-to-batch padding, less the crops
// (they drop the first / last padded rows and columns the outputs would
// read), becomes explicit padding. Only an inner convolution that is VALID,
// stride 1 and undilated is rewritten: then output row r of the pair reads
// padded rows r, r + d, ..., exactly what a dilated window reads.
#include "graph/shape_inference.h"
#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "dilated_conv";

struct Window {
  Padding* padding = nullptr;
  ExplicitPadding* explicit_padding = nullptr;
  int32_t *stride_h = nullptr, *stride_w = nullptr, *dilation_h = nullptr, *dilation_w = nullptr;
};

bool ConvWindow(Node& node, Window* w) {
  if (auto* a = std::get_if<Conv2dAttributes>(&node.attributes); a && node.op == OpType::kConv2d) {
    *w = {&a->padding, &a->explicit_padding, &a->stride_h, &a->stride_w, &a->dilation_h, &a->dilation_w};
    return true;
  }
  if (auto* a = std::get_if<DepthwiseConv2dAttributes>(&node.attributes); a && node.op == OpType::kDepthwiseConv2d) {
    *w = {&a->padding, &a->explicit_padding, &a->stride_h, &a->stride_w, &a->dilation_h, &a->dilation_w};
    return true;
  }
  return false;
}

bool IsZero(const ExplicitPadding& e) { return e.top == 0 && e.bottom == 0 && e.left == 0 && e.right == 0; }

}  // namespace

Status DilatedConv(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t c = 0; c < graph.nodes.size(); ++c) {
    Node& conv = graph.nodes[c];
    Window w;
    if (!ConvWindow(conv, &w) || conv.inputs.size() < 2 || conv.outputs.size() != 1 || *w.padding != Padding::kValid ||
        *w.stride_h != 1 || *w.stride_w != 1 || *w.dilation_h != 1 || *w.dilation_w != 1 || !IsZero(*w.explicit_padding)) {
      continue;
    }
    const int space = conv.inputs[0], batch = conv.outputs[0];
    const int s = ValidTensor(graph, space) ? graph.Producer(space) : -1;
    const std::vector<size_t> readers = ValidTensor(graph, batch) ? graph.Consumers(batch) : std::vector<size_t>{};
    if (s < 0 || remove[static_cast<size_t>(s)] || readers.size() != 1 || !OnlyReadBy(graph, space, c) ||
        !OnlyReadBy(graph, batch, readers[0])) {
      continue;
    }
    const Node& stb = graph.nodes[static_cast<size_t>(s)];
    const Node& bts = graph.nodes[readers[0]];
    std::vector<int64_t> block, pads, block2, crops;
    if (stb.op != OpType::kSpaceToBatchNd || bts.op != OpType::kBatchToSpaceNd || stb.inputs.size() != 3 ||
        bts.inputs.size() != 3 || bts.inputs[0] != batch || bts.outputs.size() != 1 ||
        !ConstantInts(graph, stb.inputs[1], &block) || !ConstantInts(graph, stb.inputs[2], &pads) ||
        !ConstantInts(graph, bts.inputs[1], &block2) || !ConstantInts(graph, bts.inputs[2], &crops) ||
        block.size() != 2 || block != block2 || pads.size() != 4 || crops.size() != 4) {
      continue;
    }
    const int x = stb.inputs[0], y = bts.outputs[0];
    if (!ValidTensor(graph, x) || !ValidTensor(graph, y) || !ValidTensor(graph, conv.inputs[1]) ||
        !DimsFixed(graph, x, {1, 2}) || !DimsFixed(graph, y, {1, 2})) {
      continue;
    }
    const Shape& xs = graph.tensors[static_cast<size_t>(x)].shape;
    const Shape& ys = graph.tensors[static_cast<size_t>(y)].shape;
    const Shape& f = graph.tensors[static_cast<size_t>(conv.inputs[1])].shape;
    bool fits = xs.size() == 4 && ys.size() == 4 && f.size() == 4 && block[0] > 0 && block[1] > 0 &&
                block[0] <= (1 << 16) && block[1] <= (1 << 16);
    const ExplicitPadding e = fits ? ExplicitPadding{static_cast<int32_t>(pads[0] - crops[0]),
                                                      static_cast<int32_t>(pads[1] - crops[1]),
                                                      static_cast<int32_t>(pads[2] - crops[2]),
                                                      static_cast<int32_t>(pads[3] - crops[3])}
                                   : ExplicitPadding{};
    for (size_t k = 0; fits && k < 4; ++k) {
      fits = pads[k] >= 0 && crops[k] >= 0 && pads[k] <= (1 << 20) && crops[k] <= pads[k];
    }
    // The rewritten convolution must give the pair's output shape.
    fits = fits && ys[0] == xs[0] && ys[3] == graph.tensors[static_cast<size_t>(batch)].shape.back() &&
           ys[1] == ConvOutputSize(Padding::kValid, xs[1] + e.top + e.bottom, f[1], 1,
                                   static_cast<int32_t>(block[0])) &&
           ys[2] == ConvOutputSize(Padding::kValid, xs[2] + e.left + e.right, f[2], 1,
                                   static_cast<int32_t>(block[1]));
    if (!fits) continue;
    *w.dilation_h = static_cast<int32_t>(block[0]);
    *w.dilation_w = static_cast<int32_t>(block[1]);
    *w.explicit_padding = e;
    conv.inputs[0] = x;
    conv.outputs[0] = y;
    NoteFused(graph, conv, static_cast<size_t>(s));
    NoteFused(graph, conv, readers[0]);
    remove[static_cast<size_t>(s)] = remove[readers[0]] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(static_cast<size_t>(s)) + " -> " + graph.NodeLabel(c) + " -> " +
                       graph.NodeLabel(readers[0]) + " is one " + OpTypeName(conv.op) + " with dilation " +
                       std::to_string(block[0]) + "x" + std::to_string(block[1]) + ", padding " +
                       std::to_string(e.top) + "/" + std::to_string(e.bottom) + "/" + std::to_string(e.left) + "/" +
                       std::to_string(e.right) + ", reading " + DescribeTensor(graph, x) + " and writing " +
                       DescribeTensor(graph, y));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
