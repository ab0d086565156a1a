#include "runtime/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/custom_ops.h"
#include "runtime/gpu_backend.h"
#include "runtime/step.h"
#include "runtime/subgraph_runner.h"
#include "gldelegate/options.hpp"
#include "graph/graph_check.h"
#include "transforms/pass.h"
#include "transforms/pass_list.h"
#include "util/logging.h"
#include "util/single_user.h"
#include "util/thread_pool.h"
#include "util/trace_recorder.h"

namespace gld {

namespace {

constexpr int kMaxThreads = 256;

}  // namespace

std::string DescribeIo(const char* kind, int index, const Tensor& tensor) {
  return std::string(kind) + " " + std::to_string(index) + " ('" + tensor.name + "' " + ShapeToString(tensor.shape) +
         " " + DataTypeName(tensor.type) + ")";
}

Runtime::~Runtime() = default;

namespace {

// The subgraphs control-flow nodes call, checked and passed like the graph
// itself (their pass log lines name them); the placeholder of the graph the
// model runs stays as it is.
Status PrepareCallees(Graph& graph, PassLog& pass_log) {
  if (graph.subgraphs == nullptr) return OkStatus();
  auto prepared = std::make_shared<std::vector<Graph>>();
  prepared->reserve(graph.subgraphs->size());
  for (const Graph& g : *graph.subgraphs) {
    Graph callee = g;
    if (callee.is_callee) {
      const std::string label = callee.SubgraphLabel();
      Status s = CheckGraphStructure(callee);
      if (!s.ok()) return s.WithContext(label);
      PassLog log;
      callee.subgraphs = graph.subgraphs;  // the subgraphs its composites inline
      s = RunDefaultPasses(callee, log);
      callee.subgraphs = nullptr;
      if (!s.ok()) return s.WithContext(label);
      for (std::string& line : log.lines) pass_log.lines.push_back(label + ": " + line);
    }
    prepared->push_back(std::move(callee));
  }
  graph.subgraphs = std::move(prepared);
  return OkStatus();
}

}  // namespace

StatusOr<PreparedGraph> PrepareGraph(Graph graph, bool cpu_only) {
  PreparedGraph prepared;
  PhaseTimes* phases = &prepared.phases;
  prepared.original_nodes = static_cast<int>(graph.nodes.size());
  {
    PhaseScope phase(phases, "prepare: check the structure");
    GLD_RETURN_IF_ERROR(CheckGraphStructure(graph));
  }
  if (HasQuantizedActivations(graph)) {
    Graph cpu_graph = graph;  // constants shared
    PassLog cpu_log;
    GLD_RETURN_IF_ERROR(RunPasses(cpu_graph, CpuIntegerPasses(), cpu_log, phases, "prepare: integer passes: "));
    prepared.cpu_graph = std::move(cpu_graph);
    prepared.cpu_pass_log = std::move(cpu_log.lines);
    if (cpu_only) {
      prepared.cpu_only = true;
      prepared.graph = std::move(graph);
      return prepared;
    }
  }
  PassLog pass_log;
  GLD_RETURN_IF_ERROR(RunPasses(graph, DefaultPasses(), pass_log, phases, "prepare: passes: "));
  {
    PhaseScope phase(phases, "prepare: subgraphs");
    GLD_RETURN_IF_ERROR(PrepareCallees(graph, pass_log));
  }
  prepared.graph = std::move(graph);
  prepared.pass_log = std::move(pass_log.lines);
  return prepared;
}

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(const PreparedGraph& prepared, const Options& options,
                                                   const GpuBackendFactory& gpu_factory) {
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  std::unique_ptr<Runtime> rt(new Runtime());
  // Initialize copies the form of `prepared` its backend runs into graph_.
  GLD_RETURN_IF_ERROR(
      rt->Initialize(options, gpu_factory ? gpu_factory : GpuBackendFactory(CreateGpuBackend), prepared));
  return rt;
}

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(Graph graph, const Options& options,
                                                   const GpuBackendFactory& gpu_factory) {
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  GLD_ASSIGN_OR_RETURN(PreparedGraph prepared, PrepareGraph(std::move(graph)));
  return Create(prepared, options, gpu_factory);
}

StatusOr<std::unique_ptr<Runtime>> Runtime::CreateCallee(Graph graph, const Options& options,
                                                         cpu::ModelServices* model, ThreadPool* pool) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->callee_ = true;
  rt->model_ = model;
  rt->borrowed_pool_ = pool;
  Options callee_options = options;
  callee_options.backend = Backend::kCpu;
  callee_options.enable_profiling = false;
  callee_options.enable_trace = false;
  PreparedGraph prepared;  // already prepared: no passes to report
  prepared.original_nodes = static_cast<int>(graph.nodes.size());
  rt->graph_ = std::move(graph);
  GLD_RETURN_IF_ERROR(rt->Initialize(callee_options, nullptr, prepared));
  return rt;
}

Status Runtime::SelectBackend(const Options& options, const GpuBackendFactory& gpu_factory,
                              PartitionOptions* popts) {
  switch (options.backend) {
    case Backend::kCpu:
      popts->cpu_reason = "backend is cpu";
      backend_in_use_ = Backend::kCpu;
      return OkStatus();
    case Backend::kGl: {
      auto gpu = gpu_factory(options);
      if (!gpu.ok()) return gpu.status();
      gpu_ = std::move(gpu).value();
      backend_in_use_ = Backend::kGl;
      break;
    }
    case Backend::kAuto: {
      auto gpu = gpu_factory(options);
      if (!gpu.ok()) {
        Log().warn("GPU backend unavailable, running every node on the CPU: {}", gpu.status().message());
        popts->cpu_reason = "GPU backend unavailable: " + gpu.status().message();
        backend_in_use_ = Backend::kCpu;
        return OkStatus();
      }
      if ((*gpu)->IsSoftwareRasterizer()) {
        // A software rasterizer runs the same arithmetic as the CPU kernels,
        // through a GL driver, many times slower.
        const std::string name = (*gpu)->device_name();
        popts->cpu_reason = "auto: GL renderer '" + name +
                            "' is a software rasterizer; running on the CPU (use --backend=gl to force)";
        Log().warn("{}", popts->cpu_reason);
        backend_in_use_ = Backend::kCpu;
        return OkStatus();
      }
      gpu_ = std::move(gpu).value();
      backend_in_use_ = Backend::kGl;
      break;
    }
  }
  popts->gpu = gpu_.get();
  return OkStatus();
}

// Before shape inference, so that an op nobody can run is reported as such
// rather than as a shape problem.
Status Runtime::CheckSomeBackendRunsEveryNode(const PartitionOptions& popts) const {
  std::vector<OpType> gpu_ops;
  if (popts.gpu != nullptr && gpu_ != nullptr) gpu_ops = gpu_->SupportedOps();
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const OpType op = graph_.nodes[i].op;
    if (cpu::FindCpuKernel(op) != nullptr) continue;
    bool gpu_may_run = popts.gpu_deny_ops.count(op) == 0 && std::find(gpu_ops.begin(), gpu_ops.end(), op) != gpu_ops.end();
    if (!gpu_may_run) return UnimplementedError(graph_.NodeLabel(i) + ": no CPU kernel");
  }
  return OkStatus();
}

// Partitions and builds the steps. In auto mode a GPU backend that fails to
// build its segments is dropped and every node runs on the CPU.
Status Runtime::PlanSteps(const Options& options, PartitionOptions& popts) {
  TraceRecorder* trace = trace_.get();
  auto partition = [&] {
    TraceScope scope(trace, "startup", "partition");
    PartitionOptions with_dynamic = popts;
    DynamicNodesOnCpu query(popts.gpu, dynamic_);
    if (popts.gpu != nullptr && HasDynamicTensors()) with_dynamic.gpu = &query;
    partition_ = PartitionGraph(graph_, with_dynamic);
  };
  partition();
  auto build = [&](GpuBackend* gpu) {
    TraceScope scope(trace, "startup", "build the plan");
    return BuildPlan(graph_, partition_, gpu, &dynamic_);
  };
  auto plan = build(gpu_.get());
  if (!plan.ok() && gpu_ != nullptr && partition_.gpu_nodes > 0 && options.backend == Backend::kAuto) {
    Log().warn("GPU plan failed, running every node on the CPU: {}", plan.status().message());
    popts.gpu = nullptr;
    popts.cpu_reason = "GPU plan failed: " + plan.status().message();
    gpu_.reset();
    backend_in_use_ = Backend::kCpu;
    GLD_RETURN_IF_ERROR(CheckSomeBackendRunsEveryNode(popts));
    partition();
    plan = build(nullptr);
  }
  if (!plan.ok()) return plan.status();
  plan_ = std::move(plan).value();
  return OkStatus();
}

Status Runtime::Initialize(const Options& options, const GpuBackendFactory& gpu_factory,
                           const PreparedGraph& prepared) {
  // The one check of every option (gldelegate/options.inc), as each entry
  // above made it; a caller below the API gets the same errors.
  GLD_RETURN_IF_ERROR(CheckOptions(options));
  if (options.num_threads > kMaxThreads) {
    return InvalidArgumentError("num_threads must be -1 (every core) or in [1, " + std::to_string(kMaxThreads) +
                                "], got " + std::to_string(options.num_threads));
  }
  num_threads_ = std::min(ResolveNumThreads(options.num_threads), kMaxThreads);
  if (options.enable_trace) {
    trace_ = std::make_unique<TraceRecorder>(options.trace_max_invokes);
  }
  TraceRecorder* trace = trace_.get();
  if (trace != nullptr) TracePreparedPhases(prepared.phases);
  PartitionOptions popts;
  popts.max_segments = options.max_delegated_partitions;
  popts.min_segment_nodes = options.min_nodes_per_partition;
  GLD_ASSIGN_OR_RETURN(popts.gpu_deny_ops, ParseOpNames(options.gpu_deny_ops));

  {
    TraceScope scope(trace, "startup", "select the backend (GL context)");
    GLD_RETURN_IF_ERROR(SelectBackend(options, gpu_factory, &popts));
  }
  // The CPU runs a quantized graph's integer form (a callee's graph_ is
  // its own already).
  const bool cpu_form = backend_in_use_ == Backend::kCpu && prepared.cpu_graph.has_value();
  if (prepared.cpu_only && !cpu_form) {
    return InternalError("a graph prepared for the CPU backend alone reached a " +
                         std::string(BackendName(backend_in_use_)) + " runtime");
  }
  if (!callee_) {
    TraceScope scope(trace, "startup", "copy the prepared graph");
    graph_ = cpu_form ? *prepared.cpu_graph : prepared.graph;
  }
  {
    TraceScope scope(trace, "startup", "bind custom ops");
    GLD_RETURN_IF_ERROR(BindCustomOps(graph_, options.custom_ops));
  }
  if (callee_) {
    popts.cpu_reason = "in " + graph_.SubgraphLabel() +
                       ", which a control-flow node runs: subgraphs run on the CPU for now";
  }
  if (gpu_ != nullptr) gpu_->SetTrace(trace);
  {
    TraceScope scope(trace, "startup", "check every node has a backend");
    GLD_RETURN_IF_ERROR(CheckSomeBackendRunsEveryNode(popts));
  }
  {
    TraceScope scope(trace, "startup", "thread pool and subgraph runner");
    if (borrowed_pool_ != nullptr) {
      num_threads_ = borrowed_pool_->num_threads();
    } else if (num_threads_ > 1) {
      pool_ = std::make_shared<ThreadPool>(num_threads_);
      num_threads_ = pool_->num_threads();
    }
    if (!callee_) {
      subgraph_runner_ = std::make_shared<SubgraphRunner>(graph_.subgraphs, options, pool());
      model_ = subgraph_runner_.get();
      cancel_ = std::make_shared<std::atomic<bool>>(false);
      subgraph_runner_->set_cancel_flag(cancel_.get());
    }
  }
  options_ = options;
  popts_ = std::move(popts);
  original_nodes_ = prepared.original_nodes;
  pass_log_ = cpu_form ? prepared.cpu_pass_log : prepared.pass_log;
  return PlanForShapes();
}

void Runtime::TracePreparedPhases(const PhaseTimes& phases) {
  // Before this Runtime (and its recorder) existed: laid end to end from 0
  // on a track of their own.
  const int track = trace_->NamedTrack("model: load and prepare (once per Model)");
  double at = 0;
  for (const StartupPhase& p : phases.rows()) {
    trace_->Complete(p.name, "startup", at, p.us, track, {TraceRecorder::Number("calls", p.count)});
    at += p.us;
  }
}

Status Runtime::PlanForShapes() {
  TraceRecorder* trace = trace_.get();
  if (gpu_ != nullptr) gpu_->BeginPlan();
  PassLog folded;
  {
    TraceScope scope(trace, "startup", "infer shapes and fold known values");
    unfolded_ = graph_;
    GLD_RETURN_IF_ERROR(InferShapesAndFold(graph_, &dynamic_, folded));
  }
  any_dynamic_ = std::find(dynamic_.begin(), dynamic_.end(), uint8_t{1}) != dynamic_.end();
  {
    TraceScope scope(trace, "startup", "partition and plan (GL segments and their programs)");
    GLD_RETURN_IF_ERROR(PlanSteps(options_, popts_));
  }
  {
    TraceScope scope(trace, "startup", "plan host memory");
    GLD_ASSIGN_OR_RETURN(memory_, PlanHostMemory(graph_, plan_.steps, kMaxHostBytes, &dynamic_));
  }
  {
    TraceScope scope(trace, "startup", "allocate host memory");
    GLD_RETURN_IF_ERROR(AllocateTensors());
  }
  Log().info("memory: CPU arena {} bytes for {} intermediate tensors (naive {} bytes), {} bytes for inputs, "
             "outputs and variables",
             memory_.arena_bytes, memory_.arena_tensors, memory_.arena_naive_bytes, memory_.dedicated_bytes);
  {
    TraceScope scope(trace, "startup", "prepare the steps (CPU kernels)");
    GLD_RETURN_IF_ERROR(PrepareSteps());
  }
  profiling_ = options_.enable_profiling;
  step_ns_.assign(plan_.steps.size(), 0);
  step_runs_.assign(plan_.steps.size(), 0);
  std::vector<std::string> log = pass_log_;
  log.insert(log.end(), folded.lines.begin(), folded.lines.end());
  {
    TraceScope scope(trace, "startup", "fill the report");
    FillReport(options_, original_nodes_, log);
  }
  if (trace != nullptr) {
    trace->Complete("create the interpreter", "startup", 0, trace->NowMicros(), trace->ThreadTrack(),
                    {TraceRecorder::Text("placement", report_.placement_line),
                     TraceRecorder::Number("steps", static_cast<double>(plan_.steps.size()))});
    trace->EndStartup();
  }
  return OkStatus();
}

std::vector<Shape> Runtime::InputShapes() const {
  std::vector<Shape> shapes;
  for (int t : graph_.inputs) shapes.push_back(graph_.tensors[static_cast<size_t>(t)].shape);
  return shapes;
}

bool Runtime::HasGlBindings() const {
  for (const TensorGlIo& io : gl_io_) {
    if (io.buffer != 0 || io.texture != 0 || io.keep_on_gpu) return true;
  }
  return false;
}

StatusOr<std::unique_ptr<Runtime>> Runtime::Reshaped(const std::vector<Shape>& input_shapes) const {
  if (input_shapes.size() != graph_.inputs.size()) {
    return InvalidArgumentError("Reshaped: " + std::to_string(input_shapes.size()) + " shapes for " +
                                std::to_string(graph_.inputs.size()) + " inputs");
  }
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->graph_ = unfolded_;
  // Every tensor a node makes starts from what the file says of it.
  for (Tensor& t : rt->graph_.tensors) {
    if (!t.is_constant && !t.signature.empty()) t.shape = t.signature;
  }
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    rt->graph_.tensors[static_cast<size_t>(graph_.inputs[i])].shape = input_shapes[i];
  }
  rt->options_ = options_;
  rt->popts_ = popts_;
  rt->original_nodes_ = original_nodes_;
  rt->pass_log_ = pass_log_;
  rt->gpu_ = gpu_;
  rt->backend_in_use_ = backend_in_use_;
  rt->pool_ = pool_;
  rt->borrowed_pool_ = borrowed_pool_;
  rt->num_threads_ = num_threads_;
  // The model's subgraphs and its resource variables carry over.
  rt->subgraph_runner_ = subgraph_runner_;
  rt->model_ = model_;
  rt->callee_ = callee_;
  rt->cancel_ = cancel_;
  if (trace_ != nullptr) rt->trace_ = std::make_unique<TraceRecorder>(static_cast<int>(trace_->max_runs()));
  if (rt->gpu_ != nullptr) rt->gpu_->SetTrace(rt->trace_.get());
  rt->popts_.gpu = rt->gpu_.get();
  GLD_RETURN_IF_ERROR(rt->PlanForShapes());
  return rt;
}

Status Runtime::AllocateTensors() {
  const size_t n = graph_.tensors.size();
  tensors_.assign(n, cpu::TensorData());
  uploaded_.assign(n, 0);
  downloaded_.assign(n, 0);
  GLD_RETURN_IF_ERROR(arena_.Allocate(memory_.arena_bytes, "the CPU arena"));
  for (size_t t = 0; t < n; ++t) {
    const Tensor& tensor = graph_.tensors[t];
    cpu::TensorData& td = tensors_[t];
    td.type = tensor.type;
    td.shape = tensor.shape;
    td.bytes = static_cast<size_t>(memory_.bytes[t]);
    switch (memory_.storage[t]) {
      case TensorStorage::kNone:
      case TensorStorage::kDynamic: td.bytes = 0; break;
      case TensorStorage::kConstant:
        // Kernels read constants through const TensorData*; nothing writes them.
        td.data = tensor.data.empty() ? arena_.data() : const_cast<uint8_t*>(tensor.data.data());
        break;
      case TensorStorage::kArena: td.data = arena_.data() + memory_.arena_offset[t]; break;
      case TensorStorage::kDedicated: {
        AlignedBuffer buffer;
        GLD_RETURN_IF_ERROR(buffer.Allocate(memory_.bytes[t], "tensor '" + tensor.name + "'"));
        if (tensor.is_variable && tensor.data.size() == memory_.bytes[t] && !tensor.data.empty()) {
          std::memcpy(buffer.data(), tensor.data.data(), tensor.data.size());
        }
        td.data = buffer.data();
        dedicated_.push_back(std::move(buffer));
        break;
      }
    }
  }
  return OkStatus();
}

void Runtime::FillReport(const Options& options, int original_nodes, const std::vector<std::string>& pass_log) {
  InterpreterReport& r = report_;
  r.backend = backend_in_use_;
  r.precision = options.precision;
  r.placement_line = partition_.PlacementLine();
  r.pass_log = pass_log;
  r.original_nodes = original_nodes;
  r.total_nodes = static_cast<int>(graph_.nodes.size());
  r.gpu_nodes = partition_.gpu_nodes;
  r.segments = static_cast<int>(partition_.segments.size());
  r.cpu_bytes_planned = memory_.arena_bytes + memory_.dedicated_bytes;
  r.cpu_bytes_naive = memory_.arena_naive_bytes + memory_.dedicated_bytes;
  r.nodes.clear();
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& node = graph_.nodes[i];
    PlacementInfo p;
    p.index = static_cast<int>(i);
    p.op = NodeOpName(node);
    p.label = graph_.NodeLabel(i);
    p.fused = node.fused_names;
    for (int t : node.inputs) {
      p.input_tensors.push_back(t == kNoTensor ? -1 : t);
      p.input_names.push_back(t == kNoTensor ? std::string() : graph_.tensors[t].name);
      p.input_shapes.push_back(t == kNoTensor ? std::vector<int>{}
                                              : std::vector<int>(graph_.tensors[t].shape.begin(),
                                                                 graph_.tensors[t].shape.end()));
    }
    for (int t : node.outputs) {
      p.output_tensors.push_back(t);
      p.output_names.push_back(graph_.tensors[t].name);
      p.output_shapes.emplace_back(graph_.tensors[t].shape.begin(), graph_.tensors[t].shape.end());
    }
    p.on_gpu = partition_.nodes[i].on_gpu;
    p.segment = partition_.nodes[i].segment;
    p.reason = partition_.nodes[i].reason;
    r.nodes.push_back(std::move(p));
  }
  r.steps.clear();
  r.cpu_steps = 0;
  for (const std::unique_ptr<Step>& step : plan_.steps) {
    r.steps.push_back((step->RunsOnGpu() ? "GPU: " : "CPU: ") + step->label());
    if (!step->RunsOnGpu()) ++r.cpu_steps;
  }
  if (gpu_) gpu_->FillReport(r);
}

Status Runtime::SetInput(int index, const void* data, size_t bytes) {
  GLD_HOLD_SINGLE_USER(in_use_, "SetInput");
  if (index < 0 || static_cast<size_t>(index) >= graph_.inputs.size()) {
    return OutOfRangeError("input index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(graph_.inputs.size()) + " input(s)");
  }
  if (!gl_io_.empty() && (gl_io_[graph_.inputs[index]].buffer != 0 || gl_io_[graph_.inputs[index]].texture != 0)) {
    return FailedPreconditionError(DescribeIo("input", index, graph_.tensors[graph_.inputs[index]]) +
                                   " is bound to a GL object; UnbindInput it to set it from the host");
  }
  const size_t need = tensors_[graph_.inputs[index]].bytes;
  if (bytes != need) {
    return InvalidArgumentError(DescribeIo("input", index, graph_.tensors[graph_.inputs[index]]) + " needs " + std::to_string(need) +
                                " bytes, got " + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) return InvalidArgumentError(DescribeIo("input", index, graph_.tensors[graph_.inputs[index]]) + ": data is null");
  if (bytes > 0) std::memcpy(tensors_[graph_.inputs[index]].data, data, bytes);
  return OkStatus();
}

StepContext Runtime::MakeStepContext() {
  StepContext ctx;
  ctx.graph = &graph_;
  ctx.tensors = &tensors_;
  ctx.storage_version = storage_version_;
  ctx.pool = pool();
  ctx.num_threads = num_threads_;
  ctx.model = model_;
  ctx.gl_io = gl_io_.empty() ? nullptr : &gl_io_;
  ctx.uploaded_bytes = &uploaded_;
  ctx.downloaded_bytes = &downloaded_;
  return ctx;
}

std::string Runtime::StepKind(const Step& step) const {
  const auto* cpu_step = dynamic_cast<const CpuNodeStep*>(&step);
  if (cpu_step == nullptr) return step.RunsOnGpu() ? "GL segment" : step.label();
  const Node& node = graph_.nodes[cpu_step->node_index()];
  std::string kind = NodeOpName(node);
  if (!node.inputs.empty() && node.inputs[0] != kNoTensor) {
    kind += std::string(" ") + DataTypeName(graph_.tensors[static_cast<size_t>(node.inputs[0])].type);
  }
  return kind;
}

Status Runtime::PrepareSteps() {
  const auto start = std::chrono::steady_clock::now();
  StepContext ctx = MakeStepContext();
  const size_t n = plan_.steps.size();
  TraceRecorder* trace = trace_.get();
  auto prepare = [&](size_t i) {
    Step& step = *plan_.steps[i];
    TraceScope scope(trace, "startup", trace != nullptr ? "prepare step: " + StepKind(step) : std::string());
    if (trace != nullptr) scope.AddArg(TraceRecorder::Text("step", step.label()));
    try {
      return step.Prepare(ctx);
    } catch (const std::bad_alloc&) {
      return InternalError(step.label() + ": cannot allocate memory while preparing it");
    }
  };
  // CPU steps prepare on the pool: each builds its own kernel state
  // (XNNPACK packs its weights), which is most of an Interpreter's creation.
  // Other steps (a GPU segment, bound to its context's thread; control flow
  // and variable handles, which make callee runtimes and handles in the
  // shared model services) prepare on this thread, in order; the first
  // error in step order is the one told.
  std::vector<Status> status(n);
  std::vector<size_t> cpu_steps;
  for (size_t i = 0; i < n; ++i) {
    const auto* cpu_step = dynamic_cast<const CpuNodeStep*>(plan_.steps[i].get());
    if (pool() == nullptr || cpu_step == nullptr) continue;
    const Node& node = graph_.nodes[cpu_step->node_index()];
    if (CalledSubgraphs(node).empty() && node.op != OpType::kVarHandle) cpu_steps.push_back(i);
  }
  if (!cpu_steps.empty()) {
    pool()->ParallelFor(static_cast<int64_t>(cpu_steps.size()), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const size_t i = cpu_steps[static_cast<size_t>(k)];
        status[i] = prepare(i);
      }
    });
  }
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (k < cpu_steps.size() && cpu_steps[k] == i) {
      ++k;
    } else {
      status[i] = prepare(i);
    }
    GLD_RETURN_IF_ERROR(status[i]);
  }
  Log().debug("prepared {} steps in {:.2f} ms", n,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return OkStatus();
}

Status Runtime::ResetVariables() {
  GLD_HOLD_SINGLE_USER(in_use_, "ResetVariables");
  if (model_ != nullptr) model_->variables().Reset();
  for (size_t t = 0; t < graph_.tensors.size(); ++t) {
    const Tensor& tensor = graph_.tensors[t];
    cpu::TensorData& td = tensors_[t];
    if (!tensor.is_variable || td.data == nullptr || td.bytes == 0) continue;
    if (tensor.data.size() == td.bytes) {
      std::memcpy(td.data, tensor.data.data(), td.bytes);
    } else {
      std::memset(td.data, 0, td.bytes);
    }
  }
  for (const auto& step : plan_.steps) GLD_RETURN_IF_ERROR(step->ResetVariables());
  return OkStatus();
}

Status Runtime::Invoke() {
  GLD_HOLD_SINGLE_USER(in_use_, "Invoke");
  Status s = RunSteps(false);
  // A run's events, failed runs' too, are one run of the trace's ring.
  if (trace_ != nullptr) trace_->EndRun();
  return s;
}

void Runtime::UseCancelFlag(std::shared_ptr<std::atomic<bool>> flag) {
  if (callee_ || subgraph_runner_ == nullptr || flag == nullptr) return;
  cancel_ = std::move(flag);
  subgraph_runner_->set_cancel_flag(cancel_.get());
}

Status Runtime::RunSteps(bool async) {
  std::fill(uploaded_.begin(), uploaded_.end(), 0);
  std::fill(downloaded_.begin(), downloaded_.end(), 0);
  GLD_RETURN_IF_ERROR(CopyBoundInputsToHost());
  StepContext ctx = MakeStepContext();
  ctx.async = async;
  // A Cancel before this run began was for an earlier one (TFLite's rule).
  if (cancel_ != nullptr) cancel_->store(false, std::memory_order_relaxed);
  const double run_start_us = trace_ != nullptr ? trace_->NowMicros() : 0;
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    Step& step = *plan_.steps[i];
    if (model_ != nullptr && model_->cancel_requested()) return Cancelled(i);
    const bool profile = profiling_ && !step.ProfilesItself();
    if (!profile && trace_ == nullptr) {
      GLD_RETURN_IF_ERROR(step.Run(ctx));
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    GLD_RETURN_IF_ERROR(step.Run(ctx));
    const auto end = std::chrono::steady_clock::now();
    if (trace_ != nullptr) TraceStep(i, trace_->Micros(start), trace_->Micros(end));
    if (!profile) continue;
    step_ns_[i] += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    ++step_runs_[i];
  }
  GLD_RETURN_IF_ERROR(CopyBoundOutputsFromHost());
  if (trace_ != nullptr) TraceRun(async, run_start_us);
  return OkStatus();
}

Status Runtime::Cancelled(size_t i) const {
  return cpu::InvokeCancelled("before " + plan_.steps[i]->label() + " (step " + std::to_string(i + 1) + " of " +
                              std::to_string(plan_.steps.size()) + ")");
}

void Runtime::TraceStep(size_t i, double start_us, double end_us) {
  const Step& step = *plan_.steps[i];
  std::vector<TraceArg> args;
  const char* category = "gl_segment";
  if (const auto* cpu_step = dynamic_cast<const CpuNodeStep*>(&step)) {
    const Node& node = graph_.nodes[cpu_step->node_index()];
    category = "cpu";
    args.push_back(TraceRecorder::Text("op", NodeOpName(node)));
    args.push_back(TraceRecorder::Number("node", static_cast<double>(cpu_step->node_index())));
    // The node runs on this thread; with a pool, its workers share the work
    // unless the step is too small to split.
    args.push_back(TraceRecorder::Number("threads", cpu_step->serial() ? 1 : num_threads_));
    std::string fused;
    for (const std::string& f : node.fused_names) fused += (fused.empty() ? "" : ", ") + f;
    if (!fused.empty()) args.push_back(TraceRecorder::Text("fused", fused));
  } else {
    args.push_back(TraceRecorder::Text("backend", gpu_ != nullptr ? gpu_->name() : "gpu"));
  }
  args.push_back(TraceRecorder::Text("timing", "wall"));
  trace_->Complete(step.label(), category, start_us, end_us - start_us, trace_->ThreadTrack(), std::move(args));
}

void Runtime::TraceRun(bool async, double start_us) {
  const double end_us = trace_->NowMicros();
  uint64_t up = 0, down = 0;
  for (uint64_t b : uploaded_) up += b;
  for (uint64_t b : downloaded_) down += b;
  trace_->Complete(async ? "InvokeAsync" : "Invoke", "invoke", start_us, end_us - start_us, trace_->ThreadTrack(),
                   {TraceRecorder::Number("steps", static_cast<double>(plan_.steps.size())),
                    TraceRecorder::Number("uploaded_bytes", static_cast<double>(up)),
                    TraceRecorder::Number("downloaded_bytes", static_cast<double>(down))});
  trace_->Counter("bytes moved per run", start_us,
                  {TraceRecorder::Number("uploaded", static_cast<double>(up)),
                   TraceRecorder::Number("downloaded", static_cast<double>(down))});
}

std::vector<ProfileRow> Runtime::Profile() const {
  std::vector<ProfileRow> rows;
  if (!profiling_) return rows;
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    const Step& step = *plan_.steps[i];
    if (step.ProfilesItself()) {
      step.AppendProfile(&rows);
      continue;
    }
    ProfileRow row;
    row.name = step.label();
    row.timing = "wall";
    if (const auto* cpu_step = dynamic_cast<const CpuNodeStep*>(&step)) {
      const Node& node = graph_.nodes[cpu_step->node_index()];
      row.op = NodeOpName(node);
      row.backend = "cpu";
      row.fused = node.fused_names;
    } else {
      row.op = "GPU_SEGMENT";
      row.backend = gpu_ != nullptr ? gpu_->name() : "gpu";
    }
    row.time_us = static_cast<double>(step_ns_[i]) / 1000.0;
    row.count = step_runs_[i];
    rows.push_back(std::move(row));
  }
  for (ProfileRow& row : rows) row.time_us = row.count > 0 ? row.time_us / static_cast<double>(row.count) : 0.0;
  return rows;
}

DispatchIssueStats Runtime::IssueStats() const {
  DispatchIssueStats stats;
  for (const auto& step : plan_.steps) step->AddIssueStats(&stats);
  return stats;
}

std::vector<TraceEvent> Runtime::Trace() const {
  return trace_ != nullptr ? trace_->Events() : std::vector<TraceEvent>{};
}

void Runtime::ResetProfile() {
  if (trace_ != nullptr) trace_->ClearRuns();
  std::fill(step_ns_.begin(), step_ns_.end(), 0);
  std::fill(step_runs_.begin(), step_runs_.end(), 0);
  for (auto& step : plan_.steps) step->ResetProfile();
}

Status Runtime::GetOutput(int index, void* data, size_t bytes) const {
  GLD_HOLD_SINGLE_USER(in_use_, "GetOutput");
  if (index < 0 || static_cast<size_t>(index) >= graph_.outputs.size()) {
    return OutOfRangeError("output index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(graph_.outputs.size()) + " output(s)");
  }
  if (OutputData(index) == nullptr) {
    return FailedPreconditionError(DescribeIo("output", index, graph_.tensors[graph_.outputs[index]]) +
                                   " is bound to a GL buffer or kept on the GPU; read it there, or UnbindOutput it");
  }
  const size_t has = tensors_[graph_.outputs[index]].bytes;
  if (bytes != has) {
    return InvalidArgumentError(DescribeIo("output", index, graph_.tensors[graph_.outputs[index]]) + " has " + std::to_string(has) +
                                " bytes, the buffer has " + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) return InvalidArgumentError(DescribeIo("output", index, graph_.tensors[graph_.outputs[index]]) + ": buffer is null");
  if (bytes > 0) std::memcpy(data, tensors_[graph_.outputs[index]].data, bytes);
  return OkStatus();
}

const void* Runtime::OutputData(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= graph_.outputs.size()) return nullptr;
  const int t = graph_.outputs[index];
  if (!gl_io_.empty() && (gl_io_[t].buffer != 0 || gl_io_[t].keep_on_gpu) && !gl_io_[t].host_too) return nullptr;
  for (const auto& bound : cpu_bound_outputs_) {
    if (bound.first == t) return nullptr;
  }
  return tensors_[t].data;
}

}  // namespace gld
