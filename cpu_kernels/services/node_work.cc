// How much arithmetic one run of a node takes, roughly: the runtime runs the
// nodes below a threshold on the calling thread (see kernel_interface.h).
#include "cpu_kernels/kernel_interface.h"
#include "cpu_kernels/ops/integer_kernels.h"

namespace gld::cpu {

namespace {

// An elementwise op, a copy or a reduction reads and writes memory for each
// element; a multiply-add of a convolution runs from registers, 16 to a
// vector, two vectors a cycle. One element costs about as much as a few
// multiply-adds.
constexpr int64_t kPerElement = 8;

int64_t Elements(const Graph& graph, int t) {
  return t == kNoTensor ? 0 : NumElements(graph.tensors[static_cast<size_t>(t)].shape);
}

const Shape* InputShape(const Graph& graph, const Node& node, size_t i) {
  if (i >= node.inputs.size() || node.inputs[i] == kNoTensor) return nullptr;
  return &graph.tensors[static_cast<size_t>(node.inputs[i])].shape;
}

// Multiply-adds per output element of the ops whose outputs each read a
// window or a row; kPerElement for the others.
int64_t WorkPerOutput(const Graph& graph, const Node& node) {
  switch (node.op) {
    case OpType::kConv2d:
    case OpType::kDepthwiseConv2d: {
      const Shape* f = InputShape(graph, node, 1);  // [oc, kh, kw, ic / groups] or [1, kh, kw, oc]
      if (f == nullptr || f->size() != 4) return 1;
      return (*f)[1] * (*f)[2] * (node.op == OpType::kConv2d ? (*f)[3] : 1);
    }
    case OpType::kConv3d: {
      const Shape* f = InputShape(graph, node, 1);  // [kd, kh, kw, ic, oc]
      return f != nullptr && f->size() == 5 ? int64_t{(*f)[0]} * (*f)[1] * (*f)[2] * (*f)[3] : 1;
    }
    case OpType::kFullyConnected: {
      const Shape* w = InputShape(graph, node, 1);  // [units, depth]
      return w != nullptr && w->size() == 2 ? (*w)[1] : 1;
    }
    case OpType::kTransposeConv:
    case OpType::kConvolution2DTransposeBias: {
      // Each input element meets kh * kw * oc weights; per output element
      // that is about kh * kw * ic / (stride_h * stride_w) <= kh * kw * ic.
      const Shape* f = InputShape(graph, node, 1);  // [oc, kh, kw, ic]
      return f != nullptr && f->size() == 4 ? (*f)[1] * (*f)[2] * (*f)[3] : 1;
    }
    case OpType::kMaxPool2d:
    case OpType::kAveragePool2d: {
      const auto* a = std::get_if<Pool2dAttributes>(&node.attributes);
      return a != nullptr ? static_cast<int64_t>(a->filter_h) * a->filter_w : 1;
    }
    case OpType::kLstm:
    case OpType::kUnidirectionalSequenceLstm:
    case OpType::kBidirectionalSequenceLstm: {
      // Four gates, each a row of the input and a row of the output.
      const Shape* i2f = InputShape(graph, node, 2);  // [n_cell, n_input]
      const Shape* r2f = InputShape(graph, node, 6);  // [n_cell, n_output]
      if (i2f == nullptr || r2f == nullptr || i2f->size() != 2 || r2f->size() != 2) return kPerElement;
      return 4 * ((*i2f)[1] + (*r2f)[1]);
    }
    case OpType::kRnn:
    case OpType::kUnidirectionalSequenceRnn:
    case OpType::kBidirectionalSequenceRnn: {
      const Shape* w = InputShape(graph, node, 1);  // [units, n_input]
      return w != nullptr && w->size() == 2 ? (*w)[0] + (*w)[1] : kPerElement;
    }
    case OpType::kScaledDotProductAttention: {
      // Each output value: S scores' share (H multiply-adds each over the
      // row's H values) and S multiply-adds of v.
      const Shape* k = InputShape(graph, node, 1);  // [B, S, K, H]
      return k != nullptr && k->size() == 4 ? 2 * (*k)[1] : kPerElement;
    }
    default: return kPerElement;
  }
}

// The work of an integer kernel in float32 multiply-adds' time (the float
// figure: about 46 ps a unit), from 1-thread medians of the int8 networks'
// layers on AVX-512 VNNI:
// - the GEMM of a 1x1 convolution or a fully connected layer (int8_gemm.h):
//   5.4 ps a multiply-add of its lanes (the channels rounded up to 16, the
//   depth to 4: VPDPBUSD does four byte products a lane) and 90 ps an
//   output (requantizing and storing it): an eighth of a unit and two. The
//   two terms fit the MobileNetV2 layers from 0.9 us (6x6, 144 -> 24) to
//   14.7 us (48x48, 8 -> 48) within 15%;
// - a convolution over other windows: half its multiply-adds (22 ps each
//   when its windows were gathered; MobileNetV2's first layer, its windows
//   now read in place, takes about 12 ps: still far above the threshold);
// - a depthwise convolution (int8_depthwise.h: four taps a VPDPBUSD lane):
//   half its multiply-adds (20-30 ps each on the 24x24 and larger maps,
//   up to 40 on 6x6; XNNPACK's, where there is no VNNI, is some 3x slower);
// - the others (elementwise, pooling) move a quarter of float32's bytes.
int64_t IntegerWork(const Graph& graph, const Node& node, int64_t work) {
  const Shape* f = InputShape(graph, node, 1);
  const auto round_up = [](int64_t v, int64_t m) { return (v + m - 1) / m * m; };
  const auto gemm = [&](int64_t n, int64_t k) {
    const int64_t outputs = Elements(graph, node.outputs.empty() ? kNoTensor : node.outputs[0]);
    const int64_t rows = n > 0 ? outputs / n : 0;
    return rows * round_up(n, 16) * round_up(k, 4) / 8 + outputs * 2;
  };
  switch (node.op) {
    case OpType::kDepthwiseConv2d: return work / 2;
    case OpType::kConv2d:
      if (f != nullptr && f->size() == 4 && (*f)[1] * (*f)[2] == 1) return gemm((*f)[0], (*f)[3]);
      return work / 2;
    case OpType::kFullyConnected:
      if (f != nullptr && f->size() == 2) return gemm((*f)[0], (*f)[1]);
      return work / 4;
    default: return work / 4;
  }
}

}  // namespace

int64_t EstimateNodeWork(const Graph& graph, size_t node_index) {
  const Node& node = graph.nodes[node_index];
  int64_t outputs = 0;
  for (int t : node.outputs) outputs += Elements(graph, t);
  const int64_t work = outputs * std::max<int64_t>(1, WorkPerOutput(graph, node));
  return FindIntegerKernel(graph, node) != nullptr ? IntegerWork(graph, node, work) : work;
}

}  // namespace gld::cpu
