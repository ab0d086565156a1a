// Builds small IR graphs directly for tests: tensors, constants, quantized
// tensors and nodes appended to a Graph. The graph builders of the op tests
// (OpTest, tests/cpu_kernels/op_test_util.h; GlOpTest, tests/gl/gl_test_util.h)
// add their tensors and nodes through these.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace gld::testing {

// A tensor named `name` (its shape may be left for shape inference); its id.
int AddTensor(Graph& g, const std::string& name, Shape shape, DataType type = DataType::kFloat32);

// A constant tensor holding `values`' bytes.
template <typename T>
int AddConstant(Graph& g, const std::string& name, Shape shape, DataType type, const std::vector<T>& values) {
  int t = AddTensor(g, name, std::move(shape), type);
  Tensor& tensor = g.tensors[t];
  tensor.is_constant = true;
  tensor.data = ConstantData::CopyOf(values.data(), values.size() * sizeof(T));
  return t;
}

// Per-tensor quantization parameters.
QuantizationParams Quant(float scale, int64_t zero_point, DataType storage = DataType::kUnknown);
// Per-tensor or per-axis (along `dim`) quantization parameters.
QuantizationParams Quant(std::vector<float> scale, std::vector<int64_t> zero_point, int32_t dim = 0,
                         DataType storage = DataType::kUnknown);

int AddQuantized(Graph& g, const std::string& name, Shape shape, DataType type, QuantizationParams q);

// The graph's ops in order.
std::vector<OpType> Ops(const Graph& g);

// A node op(inputs) -> outputs; its index. Its source_index is its index
// unless given.
int AddNode(Graph& g, OpType op, std::vector<int> inputs, std::vector<int> outputs, int source_index = -1,
            Attributes attributes = {});

template <typename T>
std::vector<T> ConstantValues(const Tensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace gld::testing
