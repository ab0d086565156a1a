// The CPU kernel interface: what the runtime and a kernel share (TensorData,
// KernelContext, CpuKernel) and what the runtime calls (FindCpuKernel,
// EvaluateNode: services/). Each op family lives in its own file of ops/;
// each kernel is one line of ops/kernel_list.inc. Kernels are both the CPU fallback of the
// GPU path and the oracle it is tested against: their semantics are TFLite's.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "graph/shape_inference.h"

// pthreadpool's pool (pthreadpool.h): XNNPACK's thread pool and ours.
typedef struct pthreadpool* pthreadpool_t;

namespace gld::cpu {

// A tensor's run-time storage. Shapes are final before a kernel runs.
struct TensorData {
  DataType type = DataType::kFloat32;
  Shape shape;
  void* data = nullptr;
  size_t bytes = 0;

  template <typename T> T* as() { return static_cast<T*>(data); }
  template <typename T> const T* as() const { return static_cast<const T*>(data); }
  int64_t num_elements() const { return NumElements(shape); }
};

// What a kernel derives from its node's constant inputs (packed weights, an
// XNNPACK operator) and keeps from one run to the next. The runtime gives each
// CPU node one slot, which the kernel's prepare fills.
struct KernelState {
  virtual ~KernelState() = default;
};

struct Epilogue;  // epilogue.h
class ModelServices;  // model_services.h

struct KernelContext {
  const Graph* graph = nullptr;  // tensor metadata (names, quantization, constants)
  const Node* node = nullptr;
  std::vector<const TensorData*> inputs;  // nullptr for an absent optional input
  std::vector<TensorData*> outputs;
  int num_threads = 1;
  // The node's state slot; nullptr when nothing is kept between runs.
  std::unique_ptr<KernelState>* state = nullptr;
  // Runs fn(begin, end) over [0, n) split across num_threads workers.
  std::function<void(int64_t n, const std::function<void(int64_t, int64_t)>& fn)> parallel_for;
  // The pool behind parallel_for, for XNNPACK; nullptr when single-threaded.
  pthreadpool_t threadpool = nullptr;
  // Elementwise nodes to run on output 0 after the node (epilogue.h), or
  // nullptr. A kernel whose own output pass runs them sets epilogue_done;
  // otherwise the step runs them in a pass of their own.
  const Epilogue* epilogue = nullptr;
  bool epilogue_done = false;
  // What the model lends a kernel beyond its node (model_services.h: the
  // subgraphs control flow runs, the resource variables); nullptr outside
  // a runtime (shape inference's oracle, constant folding).
  ModelServices* model = nullptr;
  // Sizes output k of a kernel whose output size only its computation
  // knows (the shape rule declared it SizedByKernel: WHERE, UNIQUE): the
  // step running a dynamic node sets it, allocates the buffer and updates
  // *outputs[k]. Unset, SizeOutput requires the planned shape.
  std::function<Status(size_t k, const Shape& shape)> size_output;

  // Gives output k `shape` (see size_output); InvalidArgument when the
  // output was planned with another shape (a shape the file fixes).
  Status SizeOutput(size_t k, const Shape& shape);
  // Set by a runtime step whose buffers and shapes are fixed once a run of
  // this context passed CheckIo: the later runs' CheckIo would find the same
  // (kernel_helpers.h) and returns at once. Cleared when the context is rebuilt.
  bool io_checked = false;

  // True when input i is present and a constant of the graph.
  bool InputIsConstant(size_t i) const {
    return graph != nullptr && node != nullptr && i < node->inputs.size() && node->inputs[i] != kNoTensor &&
           graph->tensors[static_cast<size_t>(node->inputs[i])].is_constant;
  }

  // Runs fn over [0, n): in parallel when parallel_for is set. A template:
  // on one thread fn runs as it is, where a std::function of a lambda that
  // captures more than two pointers would allocate at every run.
  template <typename Fn>
  void ParallelFor(int64_t n, Fn&& fn) const {
    if (parallel_for && num_threads > 1) {
      parallel_for(n, std::function<void(int64_t, int64_t)>(std::ref(fn)));
    } else {
      fn(int64_t{0}, n);
    }
  }
};

// The node's kept state as a T, or nullptr when it has none or another. T is
// final, so its exact type tells it: one type comparison at every run,
// where a dynamic_cast walks the hierarchy (a small graph runs ~100 nodes
// in ~50 us).
template <typename T>
T* StateAs(const KernelContext& ctx) {
  static_assert(std::is_final_v<T>, "StateAs tells a state by its exact type: declare it final");
  KernelState* state = ctx.state != nullptr ? ctx.state->get() : nullptr;
  return state != nullptr && typeid(*state) == typeid(T) ? static_cast<T*>(state) : nullptr;
}

using KernelFn = Status (*)(KernelContext& ctx);

// A kernel runs in two stages. `prepare` (optional) is called once per node
// when its shapes are final and its buffers allocated (at Interpreter
// creation): it checks the node and fills ctx.state (packed weights, an
// XNNPACK operator). `run` is called at every invoke; a node whose prepare
// kept nothing runs the kernel's own code, checking as it goes.
struct CpuKernel {
  OpType op;
  KernelFn run;
  KernelFn prepare = nullptr;
};

// nullptr when the CPU has no kernel for op.
const CpuKernel* FindCpuKernel(OpType op);

// What a node's kernel gets besides its buffers.
struct NodeRunOptions {
  int num_threads = 1;
  std::function<void(int64_t n, const std::function<void(int64_t, int64_t)>& fn)> parallel_for;
  pthreadpool_t threadpool = nullptr;
  // With a state slot, an empty slot is prepared first and kept for the next
  // runs; without one the kernel runs its own code alone (the oracle of
  // shape inference and constant folding).
  std::unique_ptr<KernelState>* state = nullptr;
  // KernelContext::size_output, for a node whose outputs the kernel sizes.
  std::function<Status(size_t k, const Shape& shape)> size_output;
};

// Runs node `node_index` of `graph` on its op's CPU kernel over the given
// buffers (nullptr for an absent optional input), with shapes already final.
// Unimplemented "node 7 (FOO): no CPU kernel" when the CPU has none.
Status EvaluateNode(const Graph& graph, size_t node_index, std::vector<const TensorData*> inputs,
                    std::vector<TensorData*> outputs, const NodeRunOptions& options = {});

// Shape inference's value oracle, evaluating nodes with EvaluateNode.
ValueOracle KnownValueOracle();

}  // namespace gld::cpu

// Single-threaded small nodes. Handing part of a node to another thread
// costs a few microseconds (waking or signalling it, and the output's cache
// lines crossing cores); a node with less work than this runs whole on the
// calling thread.
namespace gld::cpu {

// Rough arithmetic of one run of node `node_index`: multiply-adds for the
// ops that read a window or a row per output element (convolutions, fully
// connected, pooling), a few per output element for the others (see
// node_work.cc). Shapes must be final.
int64_t EstimateNodeWork(const Graph& graph, size_t node_index);

// Nodes with less work run on the calling thread alone: about 3 us of
// convolution on one core with AVX2 or AVX-512, a few times what handing a
// loop to a worker that is awake costs.
constexpr int64_t kParallelMinWork = 1 << 16;

}  // namespace gld::cpu
