// DEQUANTIZE of a constant (float16 or affine-quantized weights, or weights
// the loader already decoded to float32) becomes a float32 constant: the node is removed and its output tensor holds the
// dequantized values.
#include <cstring>

#include "gldelegate/types.hpp"
#include "graph/dequantize.h"
#include "transforms/pass.h"
#include "util/half.h"

namespace gld {

namespace {

constexpr char kPass[] = "fold_constant_dequantize";

// Checks the constant's quantization parameters, then dequantizes it.
template <typename Q>
Status DequantizeConstant(const Graph& graph, size_t node_index, const Tensor& in, std::vector<float>* out) {
  const QuantizationParams& q = in.quant;
  auto fail = [&](const std::string& what) {
    return InvalidArgumentError(graph.NodeLabel(node_index) + ": constant '" + in.name + "': " + what);
  };
  if (q.scale.empty()) return fail("integer input without quantization parameters");
  if (q.zero_point.size() != q.scale.size() && !q.zero_point.empty()) {
    return fail(std::to_string(q.scale.size()) + " scales but " + std::to_string(q.zero_point.size()) +
                " zero points");
  }
  AffineQuantization affine;
  affine.scale = q.scale.data();
  affine.zero_point = q.zero_point.empty() ? nullptr : q.zero_point.data();
  if (q.scale.size() > 1) {
    // Per-channel along quantized_dimension.
    const int dim = q.quantized_dimension;
    if (dim < 0 || static_cast<size_t>(dim) >= in.shape.size()) {
      return fail("quantized_dimension " + std::to_string(dim) + " is outside shape " + ShapeToString(in.shape));
    }
    affine.channels = in.shape[dim];
    if (static_cast<int64_t>(q.scale.size()) != affine.channels) {
      return fail(std::to_string(q.scale.size()) + " scales for " + std::to_string(affine.channels) +
                  " channels on dimension " + std::to_string(dim));
    }
    for (size_t d = static_cast<size_t>(dim) + 1; d < in.shape.size(); ++d) affine.inner *= in.shape[d];
  }
  const int64_t n = in.num_elements();
  out->resize(static_cast<size_t>(n));
  DequantizeAffine<Q>(in.data.data(), 0, n, affine, out->data());
  return OkStatus();
}

}  // namespace

Status FoldConstantDequantize(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != OpType::kDequantize || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
    int in_index = node.inputs[0], out_index = node.outputs[0];
    if (in_index < 0 || static_cast<size_t>(in_index) >= graph.tensors.size() || out_index < 0 ||
        static_cast<size_t>(out_index) >= graph.tensors.size() || in_index == out_index) {
      continue;  // graph validation reports bad indices with context
    }
    const Tensor& in = graph.tensors[in_index];
    if (!in.is_constant || in.sparsity.has_value()) continue;
    if (!ShapeIsValid(in.shape)) continue;
    const int64_t n = in.num_elements();
    const size_t expected = static_cast<size_t>(n) * DataTypeSize(in.type);
    if (in.data.size() != expected) {
      return InvalidArgumentError(graph.NodeLabel(i) + ": constant '" + in.name + "' " + ShapeToString(in.shape) +
                                  " " + DataTypeName(in.type) + " has " + std::to_string(in.data.size()) +
                                  " bytes, expected " + std::to_string(expected));
    }
    // The folded float32 bytes. Weights the loader already decoded are not
    // copied: they move over when this node is their only reader
    // (release_unused_constants would drop them next anyway), else the
    // buffer is shared.
    ConstantData bytes;
    if (in.type == DataType::kFloat32) {
      Tensor& source = graph.tensors[in_index];
      const bool only_reader = graph.Consumers(in_index).size() == 1 && !graph.IsGraphOutput(in_index);
      bytes = only_reader ? std::move(source.data) : source.data;
    } else {
      std::vector<float> values;
      switch (in.type) {
        case DataType::kFloat16:
          values.resize(static_cast<size_t>(n));
          HalfToFloatArray(in.DataAs<uint16_t>(), values.data(), n);
          break;
        case DataType::kInt8: GLD_RETURN_IF_ERROR(DequantizeConstant<int8_t>(graph, i, in, &values)); break;
        case DataType::kUInt8: GLD_RETURN_IF_ERROR(DequantizeConstant<uint8_t>(graph, i, in, &values)); break;
        case DataType::kInt16: GLD_RETURN_IF_ERROR(DequantizeConstant<int16_t>(graph, i, in, &values)); break;
        default: continue;  // left to the DEQUANTIZE kernel
      }
      bytes = ConstantData::CopyOf(values.data(), values.size() * sizeof(float));
    }
    const Shape shape = graph.tensors[in_index].shape;
    Tensor& out = graph.tensors[out_index];
    out.type = DataType::kFloat32;
    out.shape = shape;
    out.quant = QuantizationParams();
    out.sparsity.reset();
    out.data = std::move(bytes);
    out.is_constant = true;
    remove[i] = true;
    any = true;
    log.Add(kPass, graph.NodeLabel(i) + " -> constant tensor " + DescribeTensor(graph, out_index));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
