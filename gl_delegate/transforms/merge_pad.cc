// A zero PAD on height and width that feeds only VALID convolutions
// (CONV_2D, DEPTHWISE_CONV_2D) is merged into them, and they read the PAD's
// input: when the padding is exactly what SAME padding of the unpadded input
// gives, they switch to SAME; otherwise they keep VALID and carry the padding
// in their explicit_padding attribute (graph/attributes.h), which the CPU
// kernels and GL shaders treat as zeros around the input. Either way the
// output size and every product are the same.
//
// Not merged, because the result would change: pooling (AVERAGE_POOL_2D's
// SAME padding leaves padded cells out of the average, MAX_POOL_2D's ignores
// them, where a zero PAD takes part), PADs with a non-zero value, padding
// SAME would not give (asymmetric the other way, or larger). A channel PAD
// feeding an ADD stays a node too: the GL backend fuses the ADD into the
// PAD's dispatch (gl/fusion.h), so it costs no extra dispatch there.
#include "graph/shape_inference.h"
#include "transforms/pass.h"

namespace gld {

namespace {

constexpr char kPass[] = "merge_pad";
constexpr int64_t kMaxPad = int64_t{1} << 20;

struct ConvWindow {
  Padding* padding = nullptr;
  ExplicitPadding* explicit_padding = nullptr;
  int32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
};

bool Window(Node& node, ConvWindow* w) {
  if (auto* a = std::get_if<Conv2dAttributes>(&node.attributes); a && node.op == OpType::kConv2d) {
    *w = {&a->padding, &a->explicit_padding, a->stride_h, a->stride_w, a->dilation_h, a->dilation_w};
    return true;
  }
  if (auto* a = std::get_if<DepthwiseConv2dAttributes>(&node.attributes);
      a && node.op == OpType::kDepthwiseConv2d) {
    *w = {&a->padding, &a->explicit_padding, a->stride_h, a->stride_w, a->dilation_h, a->dilation_w};
    return true;
  }
  return false;
}

// True when SAME padding of an input of `in` cells gives exactly
// (before, after) for this filter.
bool SameGives(int32_t in, int32_t filter, int32_t stride, int32_t dilation, int64_t before, int64_t after) {
  if (in <= 0 || filter <= 0 || stride <= 0 || dilation <= 0) return false;
  const int32_t out = ConvOutputSize(Padding::kSame, in, filter, stride, dilation);
  const PaddingValues p = ComputePadding(Padding::kSame, in, filter, stride, dilation, out);
  return p.before == before && p.after == after;
}

}  // namespace

Status MergePad(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& pad = graph.nodes[i];
    if (pad.op != OpType::kPad || pad.inputs.size() != 2 || pad.outputs.size() != 1) continue;
    const int in = pad.inputs[0], out = pad.outputs[0];
    std::vector<int64_t> pads;
    if (!ValidTensor(graph, in) || !ValidTensor(graph, out) || graph.IsGraphOutput(out) ||
        !ConstantInts(graph, pad.inputs[1], &pads)) {
      continue;
    }
    const Tensor& t_in = graph.tensors[static_cast<size_t>(in)];
    if (t_in.type != DataType::kFloat32 || t_in.shape.size() != 4 || pads.size() != 8) continue;
    if (pads[0] != 0 || pads[1] != 0 || pads[6] != 0 || pads[7] != 0) continue;  // batch or channels
    bool sane = true;  // shape inference has not run yet: check what the merge relies on
    for (size_t k = 2; k < 6; ++k) sane = sane && pads[k] >= 0 && pads[k] <= kMaxPad;
    const Shape& t_out = graph.tensors[static_cast<size_t>(out)].shape;
    // SAME's equivalence depends on the spatial size: only where no resize changes it.
    if (!sane || t_out.size() != 4 || t_out[1] != t_in.shape[1] + pads[2] + pads[3] ||
        t_out[2] != t_in.shape[2] + pads[4] + pads[5] || !DimsFixed(graph, in, {1, 2})) {
      continue;
    }
    const std::vector<size_t> readers = graph.Consumers(out);
    if (readers.empty()) continue;
    bool all_fit = true;
    for (size_t r : readers) {
      Node& conv = graph.nodes[r];
      ConvWindow w;
      if (!Window(conv, &w) || *w.padding != Padding::kValid || conv.inputs.size() < 2 || conv.inputs[0] != out ||
          !ValidTensor(graph, conv.inputs[1])) {
        all_fit = false;
        break;
      }
      for (size_t k = 1; k < conv.inputs.size(); ++k) all_fit = all_fit && conv.inputs[k] != out;
      const ExplicitPadding& e = *w.explicit_padding;
      all_fit = all_fit && e.top == 0 && e.bottom == 0 && e.left == 0 && e.right == 0 &&
                graph.tensors[static_cast<size_t>(conv.inputs[1])].shape.size() == 4;
      if (!all_fit) break;
    }
    if (!all_fit) continue;
    std::string convs;
    for (size_t r : readers) {
      Node& conv = graph.nodes[r];
      ConvWindow w;
      Window(conv, &w);
      const Shape& filter = graph.tensors[static_cast<size_t>(conv.inputs[1])].shape;  // [O|1, KH, KW, I|O]
      std::string how;
      if (SameGives(t_in.shape[1], filter[1], w.stride_h, w.dilation_h, pads[2], pads[3]) &&
          SameGives(t_in.shape[2], filter[2], w.stride_w, w.dilation_w, pads[4], pads[5])) {
        *w.padding = Padding::kSame;
        how = " (VALID -> SAME)";
      } else {
        *w.explicit_padding = {static_cast<int32_t>(pads[2]), static_cast<int32_t>(pads[3]),
                               static_cast<int32_t>(pads[4]), static_cast<int32_t>(pads[5])};
        how = " (explicit padding)";
      }
      conv.inputs[0] = in;
      NoteFused(graph, conv, i);
      convs += (convs.empty() ? "" : ", ") + graph.NodeLabel(r) + how;
    }
    remove[i] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(i) + " (H " + std::to_string(pads[2]) + "/" + std::to_string(pads[3]) +
                       ", W " + std::to_string(pads[4]) + "/" + std::to_string(pads[5]) + ") merged into " + convs +
                       ", reading " + DescribeTensor(graph, in));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
