// Steps: the units a Plan runs in order. A step reads its input tensors from
// host buffers and writes its output tensors to host buffers. CpuNodeStep runs
// one node with its CPU kernel; a GPU segment step (made by a GpuBackend, see
// runtime/gpu_backend.h) runs a whole segment.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "cpu_kernels/ops/epilogue.h"
#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "util/aligned_buffer.h"

namespace gld {

class ThreadPool;

// Zero-copy I/O: a graph input or output bound to an app's GL object
// (Interpreter::BindInputBuffer and friends).
struct TensorGlIo {
  uint32_t buffer = 0;   // a buffer object: float32 in the host (BHWC) layout
  bool phwc4 = false;    // ... or in the GPU layout (PHWC4, fp32)
  uint32_t texture = 0;  // inputs: a 2D texture, texel * scale + offset
  float scale[4] = {1, 1, 1, 1};
  float offset[4] = {0, 0, 0, 0};
  // A CPU node reads the tensor too: a GPU step producing it also copies it
  // to its host storage.
  bool host_too = false;
  // Outputs: left in the GPU step's own output buffer, not downloaded
  // (Interpreter::KeepOutputOnGpu); Step::OutputGlBuffer names it.
  bool keep_on_gpu = false;
};

// What a step sees while it runs.
struct StepContext {
  const Graph* graph = nullptr;
  // Host storage of every tensor, indexed like graph->tensors. Tensors that no
  // step reads or writes on the host (e.g. inside a GPU segment) have data ==
  // nullptr.
  std::vector<cpu::TensorData>* tensors = nullptr;
  // Changes when a tensor's data pointer moved (the app bound or unbound
  // host memory): steps that keep pointers into `tensors` look again.
  uint64_t storage_version = 0;
  ThreadPool* pool = nullptr;  // nullptr when single-threaded
  int num_threads = 1;
  // Zero-copy I/O, indexed like graph->tensors (null: nothing bound). A GPU
  // step uses a bound object in place of the tensor's host storage.
  const std::vector<TensorGlIo>* gl_io = nullptr;
  // Host <-> GPU bytes moved per tensor in this run; GPU steps add theirs.
  std::vector<uint64_t>* uploaded_bytes = nullptr;
  std::vector<uint64_t>* downloaded_bytes = nullptr;
  // Interpreter::InvokeAsync: do not wait for GPU work that writes an app's
  // buffer (the runtime fences it).
  bool async = false;
  // Lent to CPU kernels (KernelContext::model): the model's subgraphs and
  // resource variables.
  cpu::ModelServices* model = nullptr;
};

class Step {
 public:
  virtual ~Step() = default;
  // "node 3 (ADD)", "GL segment 0 (nodes 0-11)".
  virtual std::string label() const = 0;
  // True for a GPU segment's step (the report counts the others as CPU steps).
  virtual bool RunsOnGpu() const { return false; }
  // Tensors the step reads / writes through host buffers: they decide the
  // memory plan. Constants may be listed; they are never planned.
  virtual std::vector<int> host_inputs() const = 0;
  virtual std::vector<int> host_outputs() const = 0;
  // Once, after the host buffers are allocated and before the first Run:
  // checks what can be checked and builds what runs can reuse (a CPU
  // kernel's packed weights or XNNPACK operator). Errors carry the label.
  virtual Status Prepare(StepContext& ctx) { return OkStatus(); }
  // Errors carry the label of what failed.
  virtual Status Run(StepContext& ctx) = 0;

  // Profiling (Options::enable_profiling). A step that times its own parts
  // (a GPU segment: each dispatch) says so here; the runtime times the
  // others as a whole.
  virtual bool ProfilesItself() const { return false; }
  // The rows of a step that profiles itself, time_us being the total over
  // `count` runs (the runtime turns totals into averages).
  virtual void AppendProfile(std::vector<ProfileRow>* rows) const {}
  virtual void ResetProfile() {}
  // Adds the host cost of the GPU dispatches this step issued since Create
  // or ResetProfile (GPU segment steps; others add nothing).
  virtual void AddIssueStats(DispatchIssueStats* stats) const {}
  // The GL buffer object holding output tensor `tensor` in the host layout
  // after a run (a GPU step's staging buffer); 0 when the step has none.
  virtual uint32_t OutputGlBuffer(int tensor) const { return 0; }
  // Zero-copy I/O: OK when a run with the tensors bound as `gl_io` (indexed
  // like the graph's tensors) orders every access to the app's objects; a
  // GPU step proves it where one of its outputs shares an input's buffer.
  virtual Status CheckBoundIo(const std::vector<TensorGlIo>& gl_io) const { return OkStatus(); }
  // Variable tensors the step keeps in storage of its own (a GPU segment's
  // recurrent state) get their initial contents again (ResetVariables).
  virtual Status ResetVariables() { return OkStatus(); }
};

// Whether a node run alone (DynamicNodeStep, a callee run node by node)
// passes its input of `type` x `elements` to its shape rule as a value: small
// integer tensors (a shape, an axis, a count; at most `max_elements`), and
// RANGE's float32 scalars (start, limit and delta decide its length).
bool IsShapeValue(OpType op, DataType type, int64_t elements, int64_t max_elements);

// One node run by its CPU kernel, and the elementwise nodes of its epilogue
// chain (runtime/plan.h) run on its output in the same step.
class CpuNodeStep : public Step {
 public:
  CpuNodeStep(const Graph& graph, size_t node_index, const cpu::CpuKernel* kernel,
              std::vector<size_t> epilogue_nodes = {}, std::vector<cpu::EpilogueStepSpec> epilogue_specs = {});
  // "node 10 (CONV_2D)", "node 10 (CONV_2D) + node 11 (ADD) + node 13 (PRELU)" (an
  // absorbed PAD comes before the node that reads it).
  std::string label() const override { return label_; }
  std::vector<int> host_inputs() const override;
  // The node's outputs and the chain's last output (the chain's
  // intermediate tensors are never stored).
  std::vector<int> host_outputs() const override;
  Status Prepare(StepContext& ctx) override;
  Status Run(StepContext& ctx) override;
  size_t node_index() const { return node_index_; }
  // True when the step runs on the calling thread alone (less work than
  // cpu::kParallelMinWork, or cpu::kIntegerParallelMinWork for an integer
  // kernel).
  bool serial() const { return serial_; }

 private:
  // Builds the kernel's context for `ctx` (and binds the epilogue) when it
  // was built for other buffers or another pool; they stay the same for a
  // Runtime's life.
  Status UpdateKernelContext(StepContext& ctx);
  // Runs one stage of the kernel, naming the node in its errors.
  Status CallKernel(cpu::KernelFn fn, StepContext& ctx);

  const Graph* graph_;
  const Node* node_;
  size_t node_index_;
  const cpu::CpuKernel* kernel_;
  std::vector<size_t> epilogue_nodes_;
  std::vector<cpu::EpilogueStepSpec> epilogue_specs_;
  std::string label_;
  std::unique_ptr<cpu::KernelState> state_;  // what the kernel keeps between runs
  // A step with less work than its bar (serial()) runs on the calling
  // thread alone, its XNNPACK operator included.
  bool serial_;
  cpu::KernelContext kernel_ctx_;
  cpu::Epilogue epilogue_;  // bound to the buffers kernel_ctx_ was built for
  const std::vector<cpu::TensorData>* ctx_tensors_ = nullptr;  // what kernel_ctx_ was built for
  uint64_t ctx_version_ = 0;
  ThreadPool* ctx_pool_ = nullptr;
  int ctx_threads_ = 0;
};

// A group of CPU elementwise nodes of one element count (runtime/plan.h,
// PlanCpuGroups) run as one step: block by block (cpu::kEpilogueBlock
// values), every node in turn over the block while it is in L1, each by its
// own kernel on views of the block (an input of one value is read whole), so
// the results are the kernels' own. Every member's output is stored (a later
// step may read it). Runs on the calling thread: groups are small.
class CpuGroupStep : public Step {
 public:
  CpuGroupStep(const Graph& graph, std::vector<size_t> nodes, std::vector<const cpu::CpuKernel*> kernels);
  // "node 4 (LESS) + node 5 (ADD) + node 6 (SELECT)".
  std::string label() const override { return label_; }
  std::vector<int> host_inputs() const override;
  std::vector<int> host_outputs() const override;
  Status Run(StepContext& ctx) override;
  const std::vector<size_t>& nodes() const { return nodes_; }

 private:
  struct Member {
    size_t node = 0;
    const cpu::CpuKernel* kernel = nullptr;
    // Views of the block, and the buffers they look into (nullptr: absent).
    std::vector<cpu::TensorData> in_views, out_views;
    std::vector<const cpu::TensorData*> in_buffers;
    std::vector<cpu::TensorData*> out_buffers;
    std::vector<bool> in_whole;  // one value, read whole by every block
    std::unique_ptr<cpu::KernelState> state;
    cpu::KernelContext k;
  };
  // Points the views at `ctx`'s buffers when they moved; InvalidArgument when
  // a buffer's size is not the planned one.
  Status Bind(StepContext& ctx);

  const Graph* graph_;
  std::vector<size_t> nodes_;
  std::string label_;
  std::vector<Member> members_;
  int64_t elements_ = 0;
  const std::vector<cpu::TensorData>* bound_ = nullptr;
  uint64_t bound_version_ = 0;
};

// A node that makes a dynamic tensor (InferShapes: its output shape depends
// on values computed at run time, or it reads such a tensor). Each run infers
// its shapes from its inputs' shapes and values, sizes its outputs' buffers
// (kept, grown when a run needs more; never in the arena) and runs the CPU
// kernel's own code, nothing prepared. An output whose size only the kernel
// knows (WHERE, UNIQUE) is sized when the kernel calls SizeOutput.
class DynamicNodeStep : public Step {
 public:
  DynamicNodeStep(const Graph& graph, size_t node_index);
  std::string label() const override { return label_; }
  std::vector<int> host_inputs() const override;
  std::vector<int> host_outputs() const override;
  Status Run(StepContext& ctx) override;
  size_t node_index() const { return node_index_; }

 private:
  // Gives output k `shape` in its own buffer (grown when needed) and points
  // `d` at it; the kernel's KernelContext::size_output.
  Status SizeOutput(size_t k, const Shape& shape, cpu::TensorData& d);

  // The graph's metadata (constants shared), whose shapes of this node's
  // tensors each run sets.
  Graph graph_;
  size_t node_index_;
  std::string label_;
  const cpu::CpuKernel* kernel_;  // cpu::FindNodeKernel's; nullptr: none
  std::vector<AlignedBuffer> buffers_;  // per output
  cpu::KernelContext kernel_ctx_;  // reused by every run (its vectors keep their room)
  std::vector<ValueBytes> values_;  // the shape rule's values, by input
  // Input shapes at the shape rule's last run (empty: none passed yet).
  std::vector<Shape> inferred_shapes_;
};

}  // namespace gld
