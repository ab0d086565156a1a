// A grouped convolution with one input channel per group is a depthwise
// convolution. Keras 3 writes ConvNeXt's 7x7 depthwise layers (and any
// Conv2D(groups=channels)) as CONV_2D with weights [O, kh, kw, 1] over C
// input channels; group g = o / (O / C) reads input channel g, exactly as
// DEPTHWISE_CONV_2D with depth multiplier O / C reads channel o / m. The
// weights move from [O, kh, kw, 1] to [1, kh, kw, O] (element (o, y, x)
// keeps its place in o-major order, so the bytes are the same); the bias,
// padding, strides, dilations and activation stay. The GPU path takes
// depthwise convolutions and not grouped ones; the CPU runs depthwise
// layers on its depthwise kernels.
#include <string>
#include <vector>

#include "transforms/pass.h"

namespace gld {

Status GroupedConvAsDepthwise(Graph& graph, PassLog& log) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    if (node.op != OpType::kConv2d || node.inputs.size() < 2 || node.outputs.size() != 1) continue;
    const auto* conv = std::get_if<Conv2dAttributes>(&node.attributes);
    const int x = node.inputs[0], w = node.inputs[1];
    if (conv == nullptr || !ValidTensor(graph, x) || !ValidTensor(graph, w)) continue;
    const Tensor& in = graph.tensors[static_cast<size_t>(x)];
    const Tensor& filter = graph.tensors[static_cast<size_t>(w)];
    std::vector<float> weights;
    if (in.shape.size() != 4 || filter.shape.size() != 4 || filter.shape[3] != 1 || in.shape[3] <= 1 ||
        !DimsFixed(graph, x, {3}) || filter.shape[0] % in.shape[3] != 0 || !ConstantFloats(graph, w, &weights)) {
      continue;
    }
    // Copies: AddFloatConstant grows graph.tensors, which `in` and `filter` point into.
    const int channels = in.shape[3];
    const std::string filter_name = filter.name;
    const Shape dw_shape = {1, filter.shape[1], filter.shape[2], filter.shape[0]};
    // [O, kh, kw, 1] -> [1, kh, kw, O]: element (o, y, x) moves to (y, x, o).
    const int64_t o_count = filter.shape[0], taps = static_cast<int64_t>(filter.shape[1]) * filter.shape[2];
    std::vector<float> moved(weights.size());
    for (int64_t o = 0; o < o_count; ++o) {
      for (int64_t t = 0; t < taps; ++t) moved[static_cast<size_t>(t * o_count + o)] = weights[static_cast<size_t>(o * taps + t)];
    }
    const int dw = AddFloatConstant(graph, filter_name + "/depthwise", dw_shape, moved);
    DepthwiseConv2dAttributes a;
    a.padding = conv->padding;
    a.stride_h = conv->stride_h;
    a.stride_w = conv->stride_w;
    a.dilation_h = conv->dilation_h;
    a.dilation_w = conv->dilation_w;
    a.activation = conv->activation;
    a.explicit_padding = conv->explicit_padding;
    a.depth_multiplier = static_cast<int32_t>(o_count / channels);
    log.Add("grouped_conv_as_depthwise", graph.NodeLabel(i) + " (" + std::to_string(channels) +
                                             " groups of one channel) became a DEPTHWISE_CONV_2D with multiplier " +
                                             std::to_string(a.depth_multiplier));
    node.op = OpType::kDepthwiseConv2d;
    node.inputs[1] = dw;
    node.attributes = a;
  }
  return OkStatus();
}

}  // namespace gld
