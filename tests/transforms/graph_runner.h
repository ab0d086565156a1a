// Runs an IR graph on the CPU kernels, node by node, for pass tests that
// compare a graph's outputs before and after a rewrite.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/random_values.h"
#include "cpu_kernels/kernel_interface.h"
#include "graph/graph.h"

namespace gld::testing {

// Float32 inputs (in graph.inputs order) -> float32 outputs (graph.outputs
// order). Every tensor gets its own buffer sized from its shape.
inline StatusOr<std::vector<std::vector<float>>> RunOnCpu(const Graph& graph,
                                                         const std::vector<std::vector<float>>& inputs) {
  std::vector<std::vector<uint8_t>> storage(graph.tensors.size());
  std::vector<cpu::TensorData> data(graph.tensors.size());
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const Tensor& tensor = graph.tensors[t];
    data[t].type = tensor.type;
    data[t].shape = tensor.shape;
    if (tensor.is_constant) {
      data[t].data = const_cast<uint8_t*>(tensor.data.data());
      data[t].bytes = tensor.data.size();
      continue;
    }
    storage[t].assign(static_cast<size_t>(tensor.num_elements()) * DataTypeSize(tensor.type), 0);
    data[t].data = storage[t].data();
    data[t].bytes = storage[t].size();
  }
  for (size_t k = 0; k < graph.inputs.size() && k < inputs.size(); ++k) {
    auto& s = storage[static_cast<size_t>(graph.inputs[k])];
    if (s.size() != inputs[k].size() * sizeof(float)) return InvalidArgumentError("input size");
    std::memcpy(s.data(), inputs[k].data(), s.size());
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    std::vector<const cpu::TensorData*> ins;
    std::vector<cpu::TensorData*> outs;
    for (int t : node.inputs) ins.push_back(t < 0 ? nullptr : &data[static_cast<size_t>(t)]);
    for (int t : node.outputs) outs.push_back(&data[static_cast<size_t>(t)]);
    Status s = cpu::EvaluateNode(graph, n, std::move(ins), std::move(outs));
    if (!s.ok()) return s;
  }
  std::vector<std::vector<float>> out;
  for (int t : graph.outputs) {
    const cpu::TensorData& d = data[static_cast<size_t>(t)];
    std::vector<float> v(d.bytes / sizeof(float));
    if (!v.empty()) std::memcpy(v.data(), d.data, v.size() * sizeof(float));
    out.push_back(std::move(v));
  }
  return out;
}

// Runs `graph` before and after `rewrite` on the same random inputs and
// expects outputs equal within fp32 rounding (1e-5 of the largest magnitude).
template <typename Rewrite>
void ExpectSameOutputs(Graph& graph, Rewrite rewrite, uint32_t seed = 7) {
  std::vector<std::vector<float>> inputs;
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const Tensor& t = graph.tensors[static_cast<size_t>(graph.inputs[k])];
    inputs.push_back(RandomFloats(static_cast<size_t>(t.num_elements()), seed + static_cast<uint32_t>(k), -2.f, 2.f));
  }
  auto before = RunOnCpu(graph, inputs);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  rewrite(graph);
  auto after = RunOnCpu(graph, inputs);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(before->size(), after->size());
  for (size_t o = 0; o < before->size(); ++o) {
    const auto& a = (*before)[o];
    const auto& b = (*after)[o];
    ASSERT_EQ(a.size(), b.size()) << "output " << o;
    float scale = 0;
    for (float x : a) scale = std::max(scale, std::fabs(x));
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a[i], b[i], 1e-5f * std::max(scale, 1.0f)) << "output " << o << " element " << i;
    }
  }
}

}  // namespace gld::testing
