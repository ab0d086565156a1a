// Builds small IR graphs directly and runs them through shape inference and
// the CPU kernels. Test-only.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/graph_builder.h"
#include "common/random_values.h"
#include "cpu_kernels/kernel_interface.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "util/thread_pool.h"

#define GLD_ASSERT_OK(expr)                          \
  do {                                               \
    const ::gld::Status gld_s_ = (expr);             \
    ASSERT_TRUE(gld_s_.ok()) << gld_s_.ToString();   \
  } while (0)

namespace gld::testing {

template <typename T>
constexpr DataType TypeOf();
template <> constexpr DataType TypeOf<float>() { return DataType::kFloat32; }
template <> constexpr DataType TypeOf<int32_t>() { return DataType::kInt32; }
template <> constexpr DataType TypeOf<int64_t>() { return DataType::kInt64; }
template <> constexpr DataType TypeOf<int8_t>() { return DataType::kInt8; }
template <> constexpr DataType TypeOf<uint8_t>() { return DataType::kUInt8; }
template <> constexpr DataType TypeOf<int16_t>() { return DataType::kInt16; }
template <> constexpr DataType TypeOf<bool>() { return DataType::kBool; }
template <> constexpr DataType TypeOf<uint16_t>() { return DataType::kFloat16; }  // raw halves

template <typename T>
std::vector<uint8_t> ToBytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < v.size(); ++i) b[i] = v[i] ? 1 : 0;
  } else {
    if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  }
  return b;
}

class OpTest {
 public:
  // A runtime input (graph input) holding `values`.
  template <typename T>
  int Input(const Shape& shape, const std::vector<T>& values, DataType type = TypeOf<T>()) {
    const int id = AddTensor(graph, "in" + std::to_string(graph.tensors.size()), shape, type);
    graph.inputs.push_back(id);
    runtime_[id] = ToBytes(values);
    runtime_[id].reserve(runtime_[id].size() + kSlack);
    return id;
  }
  // A constant tensor.
  template <typename T>
  int Const(const Shape& shape, const std::vector<T>& values, DataType type = TypeOf<T>()) {
    const int id = AddTensor(graph, "const" + std::to_string(graph.tensors.size()), shape, type);
    graph.tensors[static_cast<size_t>(id)].is_constant = true;
    graph.tensors[static_cast<size_t>(id)].data = ToBytes(values);
    return id;
  }
  // An output tensor whose shape and type shape inference fills in (the
  // stored type matters for ops whose output type comes from the file).
  int Output(DataType stored_type = DataType::kFloat32, const Shape& stored_shape = {}) {
    return AddTensor(graph, "out" + std::to_string(graph.tensors.size()), stored_shape, stored_type);
  }
  size_t Node(OpType op, std::vector<int> inputs, std::vector<int> outputs, Attributes attrs = {}) {
    return static_cast<size_t>(AddNode(graph, op, std::move(inputs), std::move(outputs), -1, std::move(attrs)));
  }

  // Shape inference, then every node's kernel in order.
  Status Run(int threads = 1) {
    GLD_RETURN_IF_ERROR(InferShapes(graph, cpu::KnownValueOracle()));
    return RunKernels(threads);
  }
  // As the runtime runs them: each node's kernel prepared once (its state
  // kept in states[i], e.g. an XNNPACK operator), then run `runs` times on a
  // ThreadPool of `threads`.
  Status RunPrepared(int threads = 1, int runs = 2) {
    GLD_RETURN_IF_ERROR(InferShapes(graph, cpu::KnownValueOracle()));
    states.clear();
    states.resize(graph.nodes.size());
    ThreadPool pool(threads);
    for (int r = 0; r < runs; ++r) GLD_RETURN_IF_ERROR(RunKernels(threads, &pool));
    return OkStatus();
  }
  std::vector<std::unique_ptr<cpu::KernelState>> states;

  // Storage for every tensor that is neither a constant nor a runtime input,
  // sized for the shapes currently in the graph and filled with 0xCD.
  void AllocateStorage() {
    for (size_t i = 0; i < graph.tensors.size(); ++i) {
      const Tensor& t = graph.tensors[i];
      if (t.is_constant || runtime_.count(static_cast<int>(i))) continue;
      const size_t bytes = static_cast<size_t>(NumElements(t.shape)) * DataTypeSize(t.type);
      auto& b = storage_[static_cast<int>(i)];
      b.reserve(bytes + kSlack);  // an earlier run's buffer keeps its address
      b.assign(bytes, 0xCD);
    }
  }

  // Node i's buffers as a kernel sees them (after AllocateStorage).
  struct NodeBuffers {
    std::vector<cpu::TensorData> ins, outs;
    std::vector<const cpu::TensorData*> in_ptrs;  // nullptr for an absent optional input
    std::vector<cpu::TensorData*> out_ptrs;
  };
  void BindNode(size_t i, NodeBuffers* b) {
    const gld::Node& n = graph.nodes[i];
    b->ins.assign(n.inputs.size(), cpu::TensorData());
    b->outs.assign(n.outputs.size(), cpu::TensorData());
    b->in_ptrs.assign(n.inputs.size(), nullptr);
    b->out_ptrs.assign(n.outputs.size(), nullptr);
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      if (n.inputs[j] < 0) continue;
      Bind(n.inputs[j], &b->ins[j]);
      b->in_ptrs[j] = &b->ins[j];
    }
    for (size_t j = 0; j < n.outputs.size(); ++j) {
      Bind(n.outputs[j], &b->outs[j]);
      b->out_ptrs[j] = &b->outs[j];
    }
  }

  // Kernels only, with the shapes currently in the graph.
  Status RunKernels(int threads = 1, ThreadPool* pool = nullptr) {
    AllocateStorage();
    cpu::NodeRunOptions options;
    options.num_threads = threads;
    if (pool != nullptr && threads > 1) {
      options.parallel_for = [pool](int64_t count, const std::function<void(int64_t, int64_t)>& fn) {
        pool->ParallelFor(count, fn);
      };
      options.threadpool = pool->pthreadpool();
    } else if (threads > 1) {
      options.parallel_for = [threads](int64_t count, const std::function<void(int64_t, int64_t)>& fn) {
        std::vector<std::thread> pool;
        const int64_t per = (count + threads - 1) / threads;
        for (int w = 0; w < threads; ++w) {
          const int64_t b = w * per, e = std::min(count, b + per);
          if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
        }
        for (auto& th : pool) th.join();
      };
    }
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      NodeBuffers b;
      BindNode(i, &b);
      options.state = states.empty() ? nullptr : &states[i];
      GLD_RETURN_IF_ERROR(cpu::EvaluateNode(graph, i, std::move(b.in_ptrs), std::move(b.out_ptrs), options));
    }
    return OkStatus();
  }

  template <typename T = float>
  std::vector<T> Get(int id) const {
    const std::vector<uint8_t>& b = Bytes(id);
    std::vector<T> v(b.size() / sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < b.size(); ++i) v[i] = b[i] != 0;
    } else {
      if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    }
    return v;
  }
  const Shape& ShapeOf(int id) const { return graph.tensors[static_cast<size_t>(id)].shape; }
  DataType TypeOfTensor(int id) const { return graph.tensors[static_cast<size_t>(id)].type; }

  Graph graph;

 private:
  std::vector<uint8_t> Bytes(int id) const {
    const Tensor& t = graph.tensors[static_cast<size_t>(id)];
    if (t.is_constant) return t.data.ToVector();
    auto it = runtime_.find(id);
    if (it != runtime_.end()) return it->second;
    return storage_.at(id);
  }
  void Bind(int id, cpu::TensorData* td) {
    const Tensor& t = graph.tensors[static_cast<size_t>(id)];
    td->type = t.type;
    td->shape = t.shape;
    if (t.is_constant) {
      // Kernels read constants through const TensorData*; nothing writes them.
      td->data = const_cast<uint8_t*>(t.data.data());
      td->bytes = t.data.size();
      return;
    }
    std::vector<uint8_t>* b;
    if (runtime_.count(id)) {
      b = &runtime_[id];
    } else {
      b = &storage_[id];
    }
    td->data = b->data();
    td->bytes = b->size();
  }

  // XNNPACK may read up to 16 bytes past a tensor (never using them): the
  // buffers keep that much capacity beyond their size.
  static constexpr size_t kSlack = 64;
  std::map<int, std::vector<uint8_t>> runtime_;
  std::map<int, std::vector<uint8_t>> storage_;
};

// One node with one float output: builds, runs and returns the output.
// `inputs` are runtime float inputs; `consts` int32 constants appended after.
struct SimpleRun {
  std::vector<float> values;
  Shape shape;
  Status status;
};
inline SimpleRun RunFloatOp(OpType op, const std::vector<std::pair<Shape, std::vector<float>>>& inputs,
                            Attributes attrs = {}, const std::vector<std::pair<Shape, std::vector<int32_t>>>& consts = {},
                            int threads = 1) {
  OpTest t;
  std::vector<int> ins;
  for (const auto& in : inputs) ins.push_back(t.Input<float>(in.first, in.second));
  for (const auto& c : consts) ins.push_back(t.Const<int32_t>(c.first, c.second));
  const int out = t.Output();
  t.Node(op, ins, {out}, std::move(attrs));
  SimpleRun r;
  r.status = t.Run(threads);
  if (r.status.ok()) {
    r.values = t.Get<float>(out);
    r.shape = t.ShapeOf(out);
  }
  return r;
}

// Elementwise comparison with an absolute + relative tolerance.
inline void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const float scale = std::max(1.f, std::abs(expected[i]));
    EXPECT_NEAR(actual[i], expected[i], tol * scale) << "at index " << i;
  }
}

}  // namespace gld::testing
