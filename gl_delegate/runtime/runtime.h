// The runtime behind gld::Interpreter: takes a prepared (checked and
// transformed) graph, infers its shapes, partitions it, plans steps and
// memory, and runs it.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "partition/partition.h"
#include "runtime/plan.h"
#include "util/aligned_buffer.h"
#include "util/single_user.h"
#include "util/startup_phases.h"

namespace gld {

class GpuBackend;
class SubgraphRunner;
class ThreadPool;
class TraceRecorder;

// A graph after the structural checks and the default passes, none of which
// depend on Options: a Model prepares its graph once, and each Runtime on it
// starts from a copy whose constants are shared, not copied.
struct PreparedGraph {
  Graph graph;
  std::vector<std::string> pass_log;
  int original_nodes = 0;  // before the passes
  // A graph with int8/uint8 activations also has the CPU backend's form
  // (CpuIntegerPasses: integers kept where the CPU has integer kernels);
  // a Runtime whose backend is the CPU runs it instead of `graph`.
  std::optional<Graph> cpu_graph;
  std::vector<std::string> cpu_pass_log;
  // Made for CPU Runtimes alone (PrepareGraph's cpu_only): `graph` is the
  // checked graph without the default passes, and only cpu_graph may run.
  bool cpu_only = false;
  // What loading the model and preparing this took ("load: ...", "prepare:
  // ..."), put into each Runtime's startup trace (Options::enable_trace).
  PhaseTimes phases;
};

// "input 0 ('x' [1, 4] float32)": a graph input or output in errors.
std::string DescribeIo(const char* kind, int index, const Tensor& tensor);

// Checks `graph` (as read) and runs the default passes over it. With
// `cpu_only`, a graph with int8/uint8 activations gets its CPU integer form
// alone: the float form's passes (which turn every quantized weight into
// its float view and fold it) are left to a GL or auto Runtime's
// PreparedGraph; other graphs are prepared as without it.
StatusOr<PreparedGraph> PrepareGraph(Graph graph, bool cpu_only = false);

class Runtime {
 public:
  // Limit on the host memory one runtime may plan for its tensors: 16 GiB,
  // and 1.5 GiB in a 32-bit process (whose user address space is 2-3 GiB).
  static constexpr uint64_t kMaxHostBytes = sizeof(void*) >= 8 ? uint64_t{16} << 30 : uint64_t{3} << 29;

  // Makes the GPU backend for options.backend gl/auto; CreateGpuBackend
  // unless a test or an embedder supplies another.
  using GpuBackendFactory = std::function<StatusOr<std::unique_ptr<GpuBackend>>(const Options&)>;

  // Runs `prepared`, copied with its constants shared.
  static StatusOr<std::unique_ptr<Runtime>> Create(const PreparedGraph& prepared, const Options& options,
                                                   const GpuBackendFactory& gpu_factory = nullptr);
  // Prepares `graph` (as read, before transforms) for this runtime alone.
  static StatusOr<std::unique_ptr<Runtime>> Create(Graph graph, const Options& options,
                                                   const GpuBackendFactory& gpu_factory = nullptr);
  // A subgraph a control-flow node runs (runtime/subgraph_runner.h): on the
  // CPU, with the caller's thread pool (null: single-threaded) and model
  // services (its subgraphs and resource variables). `graph` is prepared
  // and its inputs have the caller's shapes.
  static StatusOr<std::unique_ptr<Runtime>> CreateCallee(Graph graph, const Options& options,
                                                         cpu::ModelServices* model, ThreadPool* pool);
  ~Runtime();

  // A runtime for the same graph and options planned for other input shapes
  // (one per graph input): shapes inferred again, then partition, plan, host
  // memory and step preparation as Create does, sharing this runtime's GPU
  // backend (its context and program cache) and thread pool. Tensors whose
  // file gives a shape_signature start from it, so a value-dependent shape
  // kept from the file (KeepStored) is kept only where the file says it is
  // fixed. This runtime is left as it was; an error names the node that
  // refused the shapes.
  StatusOr<std::unique_ptr<Runtime>> Reshaped(const std::vector<Shape>& input_shapes) const;
  // The shapes of the graph inputs this runtime is planned for.
  std::vector<Shape> InputShapes() const;
  // True while a graph input or output is bound to an app's GL object or
  // kept on the GPU.
  bool HasGlBindings() const;
  // True when some tensor's shape is known only once its producer runs
  // (InferShapes' dynamic tensors); tensor(t).shape then holds the last run's.
  bool HasDynamicTensors() const { return any_dynamic_; }

  const Graph& graph() const { return graph_; }

  // SetInput, Invoke, InvokeAsync and GetOutput hold the runtime for their
  // call (util/single_user.h): one that finds another thread inside fails
  // with kInUseOnAnotherThread, on either backend, instead of racing it.
  Status SetInput(int index, const void* data, size_t bytes);
  Status Invoke();
  Status GetOutput(int index, void* data, size_t bytes) const;
  const void* OutputData(int index) const;
  // Host storage of graph input (`input`) or output `index`, in place: a
  // control-flow node writes its callee's inputs and reads its outputs so.
  cpu::TensorData& io_storage(bool input, size_t index) {
    return tensors_[static_cast<size_t>(input ? graph_.inputs[index] : graph_.outputs[index])];
  }
  // Interpreter::ResetVariables: resource variables lose their values,
  // variable tensors get their initial contents.
  Status ResetVariables();

  // Interpreter::Cancel's flag: set from any thread, it ends the Invoke or
  // InvokeAsync running now before its next step (and a WHILE before its
  // next iteration) with cpu::InvokeCancelled; each Invoke clears it as it
  // starts.
  // Shared with the Runtimes Reshaped makes and lent to callees (null in a
  // callee).
  const std::shared_ptr<std::atomic<bool>>& cancel_flag() const { return cancel_; }
  // Reads `flag` as its cancel flag from now on (the TFLite delegate's, one
  // for all its partitions: GldTfLiteDelegateCancel). Not in a callee.
  void UseCancelFlag(std::shared_ptr<std::atomic<bool>> flag);
  const InterpreterReport& report() const { return report_; }
  // Options::enable_profiling: rows averaged over the runs since Create or
  // ResetProfile (see Interpreter::profile()).
  std::vector<ProfileRow> Profile() const;
  // Summed over the steps (Step::AddIssueStats).
  DispatchIssueStats IssueStats() const;
  void ResetProfile();
  // Options::enable_trace: the recorder's events (TraceRecorder::Events);
  // empty without tracing.
  std::vector<TraceEvent> Trace() const;
  const Partition& partition() const { return partition_; }
  const HostMemoryPlan& memory() const { return memory_; }
  size_t num_steps() const { return plan_.steps.size(); }
  // Host storage of tensor t (data == nullptr when it has none).
  const cpu::TensorData& tensor(int t) const { return tensors_[t]; }

  // ---- Zero-copy GL I/O (runtime/gl_io.cc; see Interpreter) ----
  Status BindInputBuffer(int index, uint32_t buffer, GlLayout layout);
  Status BindInputTexture(int index, const TextureInput& texture);
  Status BindOutputBuffer(int index, uint32_t buffer, GlLayout layout);
  Status UnbindInput(int index);
  Status UnbindOutput(int index);
  Status KeepOutputOnGpu(int index);
  StatusOr<uint32_t> OutputGlBuffer(int index) const;
  // Runs like Invoke without waiting for bound outputs; the fence (a GLsync).
  StatusOr<void*> InvokeAsync();
  TransferStats transfer_stats() const;

  // ---- App host memory as inputs / outputs (runtime/host_io.cc; see
  // Interpreter::BindInputHostBuffer) ----
  Status BindHostBuffer(bool input, int index, void* data, size_t bytes);
  // True while a graph input or output is bound to the app's host memory.
  bool HasHostBindings() const;

 private:
  // The tensor of graph input/output `index` (OutOfRange naming the count
  // otherwise); `what` gets its description.
  StatusOr<int> IoTensor(bool input, int index, std::string* what) const;
  // The tensor of graph input/output `index` when it may be bound to GL
  // object `name`; `what` gets its description.
  StatusOr<int> BindableTensor(bool input, int index, uint32_t name, std::string* what);
  // Which tensors CPU steps read and GPU steps write (once).
  void FindHostUses();
  // The bytes tensor t needs in `layout`, or why it cannot bind so.
  StatusOr<uint64_t> BoundBytes(int t, GlLayout layout, const std::string& what) const;
  // OK when the bound outputs that share an input's GL buffer (a state
  // updated in place) may: one shape and layout, no GPU step reading the
  // input after the output is written, and the writing segment's commands
  // proved ordered with that buffer shared (Step::CheckBoundIo). Two
  // outputs on one buffer are refused.
  Status CheckSharedBuffers() const;
  // Tensor t back to its own storage when it is bound to host memory.
  void UnbindHostBuffer(int t);
  // OK when the host-bound outputs overlapping host-bound inputs may
  // (CheckInPlaceUpdate); two outputs may not overlap.
  Status CheckSharedHostMemory() const;
  // OK when output y may update input x in place: the same bytes, and no
  // step reading x after y's producer, which reads x before writing (a GPU
  // segment, a DYNAMIC_UPDATE_SLICE / STABLEHLO_SCATTER of operand x).
  Status CheckInPlaceUpdate(int x, int y, const std::string& pair) const;
  // Per tensor: its own storage while the app's host memory replaces it
  // (null: not bound); empty until something is bound.
  std::vector<void*> own_data_;
  // Changes whenever a tensor's storage moves (StepContext::storage_version).
  uint64_t storage_version_ = 0;
  Status RunSteps(bool async);
  // Options::enable_trace: the events of step i's run from `start_us` to
  // `end_us`, and of the whole run.
  void TraceStep(size_t i, double start_us, double end_us);
  void TraceRun(bool async, double start_us);
  // Host copies of bound tensors that CPU nodes read / wrote.
  Status CopyBoundInputsToHost();
  Status CopyBoundOutputsFromHost();
  std::vector<TensorGlIo> gl_io_;  // per tensor; empty until something is bound
  // Outputs bound to a buffer that a CPU node produces: tensor, buffer.
  std::vector<std::pair<int, uint32_t>> cpu_bound_outputs_;
  std::vector<uint64_t> uploaded_, downloaded_;  // per tensor, last run
  std::vector<std::string> cpu_reader_;  // per tensor: label of a CPU step reading it; empty: none
  std::vector<uint8_t> gpu_writes_;      // per tensor: a GPU step produces it
  std::vector<uint8_t> gpu_reads_;       // per tensor: a GPU step reads it from the host

  Runtime() = default;
  Status Initialize(const Options& options, const GpuBackendFactory& gpu_factory, const PreparedGraph& prepared);
  Status SelectBackend(const Options& options, const GpuBackendFactory& gpu_factory, PartitionOptions* popts);
  Status PlanSteps(const Options& options, PartitionOptions& popts);
  // Everything that depends on the shapes: InferShapes, PlanSteps, host
  // memory, step preparation, the report (Initialize and Reshaped).
  Status PlanForShapes();
  Status CheckSomeBackendRunsEveryNode(const PartitionOptions& popts) const;
  Status AllocateTensors();
  Status PrepareSteps();
  // A step's kind in the startup trace: "CONV_2D int8" (a CPU node's op and
  // its first input's type), "GL segment", or its label.
  std::string StepKind(const Step& step) const;
  // Options::enable_trace: `phases` (a PreparedGraph's) as startup events.
  void TracePreparedPhases(const PhaseTimes& phases);
  StepContext MakeStepContext();
  void FillReport(const Options& options, int original_nodes, const std::vector<std::string>& pass_log);

  SingleUser in_use_;  // one of SetInput / Invoke / InvokeAsync / GetOutput at a time
  // The graph planned for the current input shapes: shape arithmetic those
  // shapes decide is folded into constants (fold_known_values).
  Graph graph_;
  // graph_ before that folding: what Reshaped plans other shapes from.
  Graph unfolded_;
  // What Initialize chose, kept for Reshaped: the options, the partition
  // options after the backend was selected, the passes' report lines.
  Options options_;
  PartitionOptions popts_;
  int original_nodes_ = 0;
  std::vector<std::string> pass_log_;
  // Shared with the runtimes Reshaped makes (one thread uses them at a time:
  // they serve one Interpreter).
  std::shared_ptr<GpuBackend> gpu_;
  Backend backend_in_use_ = Backend::kCpu;
  Partition partition_;
  Plan plan_;
  HostMemoryPlan memory_;
  AlignedBuffer arena_;
  std::vector<AlignedBuffer> dedicated_;
  // Per tensor: its shape depends on values computed at run time (InferShapes).
  std::vector<uint8_t> dynamic_;
  bool any_dynamic_ = false;
  std::vector<cpu::TensorData> tensors_;
  std::shared_ptr<ThreadPool> pool_;  // shared with the Runtimes Reshaped makes
  ThreadPool* borrowed_pool_ = nullptr;  // a callee's: its caller's pool
  ThreadPool* pool() const { return pool_ != nullptr ? pool_.get() : borrowed_pool_; }
  // The model's subgraphs and resource variables: the runner an
  // Interpreter's Runtime owns (shared with its Reshaped Runtimes, so
  // variables survive a resize), or (a callee) its caller's.
  std::shared_ptr<SubgraphRunner> subgraph_runner_;
  cpu::ModelServices* model_ = nullptr;
  bool callee_ = false;
  int num_threads_ = 1;
  InterpreterReport report_;
  // Profiling of the steps that do not profile themselves: total ns and runs.
  bool profiling_ = false;
  std::vector<uint64_t> step_ns_;
  std::vector<int64_t> step_runs_;
  // Options::enable_trace; null when off. Steps and the GPU backend hold
  // pointers to it; none records while being destroyed.
  std::unique_ptr<TraceRecorder> trace_;
  std::shared_ptr<std::atomic<bool>> cancel_;  // see cancel_flag()
  // The status of a run cancelled before step i.
  Status Cancelled(size_t i) const;
};

}  // namespace gld
