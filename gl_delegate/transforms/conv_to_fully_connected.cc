// A CONV_2D with a 1x1 kernel over a 1x1 input (the squeeze-and-excitation
// layers of MobileNetV3-style networks, heads over a pooled vector) is a
// FULLY_CONNECTED: each batch row is one input vector, the [O, 1, 1, I]
// filter holds the same bytes as [O, I] weights, and keep_num_dims keeps
// the [B, 1, 1, O] output tensor. What it saves:
//  - CPU: both kernels take dot products over the unpacked weights for so
//    few rows (CONV_2D since its few-pixel path); FULLY_CONNECTED skips
//    CONV_2D's im2col copy of the input. Measured on selfie_segmentation's
//    squeeze-and-excitation layers: 2-6 us each as CONV_2D with a packed
//    filter, 2-3 us as FULLY_CONNECTED.
//  - GL: conv2d.comp's 1x1 path and fully_connected.comp do the same work per
//    invocation, so the rewrite changes nothing there.
// The way back (FULLY_CONNECTED -> 1x1 CONV_2D) is faster on neither
// backend: with many rows both use the same packed GEMM on the CPU and the
// same loop on GL, so the pass only goes this way.
#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "conv_to_fully_connected";

bool IsOnePixel(const Shape& s) { return s.size() == 4 && s[1] == 1 && s[2] == 1; }

}  // namespace

Status ConvToFullyConnected(Graph& graph, PassLog& log) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    const auto* a = std::get_if<Conv2dAttributes>(&node.attributes);
    if (node.op != OpType::kConv2d || a == nullptr || node.inputs.size() < 2 || node.outputs.size() != 1) continue;
    const int x = node.inputs[0], w = node.inputs[1], y = node.outputs[0];
    if (!ValidTensor(graph, x) || !ValidTensor(graph, w) || !ValidTensor(graph, y)) continue;
    const ExplicitPadding& e = a->explicit_padding;
    if (e.top != 0 || e.bottom != 0 || e.left != 0 || e.right != 0) continue;
    // Copies: AddFloatConstant below may move graph.tensors.
    const Tensor& filter = graph.tensors[static_cast<size_t>(w)];
    const Shape xs = graph.tensors[static_cast<size_t>(x)].shape;
    const Shape ys = graph.tensors[static_cast<size_t>(y)].shape;
    // Groups would need a block-diagonal weight matrix: only I == C.
    if (!filter.is_constant || filter.type != DataType::kFloat32 || !IsOnePixel(filter.shape) ||
        !IsOnePixel(xs) || !IsOnePixel(ys) || filter.shape[3] != xs[3] || ys[3] != filter.shape[0] ||
        ys[0] != xs[0] || !DimsFixed(graph, x, {1, 2}) || !DimsFixed(graph, y, {1, 2})) {
      continue;
    }
    const Shape weights_shape = {filter.shape[0], filter.shape[3]};
    const std::string conv = graph.NodeLabel(i);
    int weights = w;
    if (graph.Consumers(w).size() == 1) {
      graph.tensors[static_cast<size_t>(w)].shape = weights_shape;
    } else {
      std::vector<float> values;
      if (!ConstantFloats(graph, w, &values)) continue;
      weights = AddFloatConstant(graph, filter.name + "/fully_connected", weights_shape, values);
    }
    FullyConnectedAttributes fc;
    fc.activation = a->activation;
    fc.keep_num_dims = true;
    node.op = OpType::kFullyConnected;
    node.attributes = fc;
    node.inputs[1] = weights;
    log.Add(kPass, conv + " (1x1 kernel over " + ShapeToString(xs) + ") is a FULLY_CONNECTED with weights " +
                       DescribeTensor(graph, weights));
  }
  return OkStatus();
}

}  // namespace gld
