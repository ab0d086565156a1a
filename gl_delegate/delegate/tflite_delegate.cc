#include "delegate/tflite_delegate.h"

#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "delegate/tflite_graph.h"
#include "gldelegate/tflite_generated.h"
#include "graph/shape_inference.h"
#include "partition/partition.h"
#include "runtime/custom_ops.h"
#include "runtime/gpu_backend.h"
#include "runtime/runtime.h"
#include "util/hex.h"
#include "util/logging.h"

namespace gld::delegate {
namespace {

constexpr char kKernelName[] = "gldelegate";

void ReportToTfLite(TfLiteContext* context, const Status& s) {
  const std::string message = "gldelegate: " + s.ToString();
  if (context != nullptr && context->ReportError != nullptr) {
    context->ReportError(context, "%s", message.c_str());
  } else {
    Log().error("{}", message);
  }
}

// Runs fn, turning an escaping exception into a status: nothing the
// delegate does may unwind into TFLite's C frames.
template <typename Fn>
Status Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return InternalError(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return InternalError("unexpected exception");
  }
}

// The program cache entry's name for a partition: the app's model_token (if
// any) and a fingerprint of what the partition computes (ops, tensors,
// shapes, constants), so that each partition of each model keeps its own
// entry file and a second process finds it.
std::string CacheToken(const Graph& g, const std::string& app_token) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  auto add = [&](const void* p, size_t n) { XXH3_64bits_update(state, p, n); };
  for (const Node& n : g.nodes) {
    const int op = static_cast<int>(n.op), kind = static_cast<int>(n.attributes.index());
    add(&op, sizeof(op));
    add(&kind, sizeof(kind));
    add(n.inputs.data(), n.inputs.size() * sizeof(int));
    add(n.outputs.data(), n.outputs.size() * sizeof(int));
    const std::string name = NodeOpName(n);
    add(name.data(), name.size());
  }
  for (const Tensor& t : g.tensors) {
    const int type = static_cast<int>(t.type);
    add(&type, sizeof(type));
    add(t.shape.data(), t.shape.size() * sizeof(int32_t));
    if (t.is_constant) add(t.data.data(), t.data.size());
  }
  add(g.inputs.data(), g.inputs.size() * sizeof(int));
  add(g.outputs.data(), g.outputs.size() * sizeof(int));
  const unsigned long long h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return (app_token.empty() ? std::string("tflite") : app_token) + "-" + Hex64(h);
}

// A TfLiteIntArray TFLite may take ownership of (it frees with free()).
TfLiteIntArray* NewIntArray(const std::vector<int32_t>& values) {
  auto* a = static_cast<TfLiteIntArray*>(std::malloc(sizeof(int) * (values.size() + 1)));
  if (a == nullptr) return nullptr;
  a->size = static_cast<int>(values.size());
  if (!values.empty()) std::memcpy(a->data, values.data(), values.size() * sizeof(int));
  return a;
}

std::vector<int> Indices(const TfLiteIntArray* a) {
  if (a == nullptr || a->size <= 0) return {};
  return std::vector<int>(a->data, a->data + a->size);
}

// One partition TFLite made of the delegated nodes: a Runtime over them.
class PartitionKernel {
 public:
  PartitionKernel(const Options& options, std::shared_ptr<std::atomic<bool>> cancel, std::vector<Node> nodes,
                  const TfLiteDelegateParams& params)
      : options_(options),
        cancel_(std::move(cancel)),
        nodes_(std::move(nodes)),
        inputs_(Indices(params.input_tensors)),
        outputs_(Indices(params.output_tensors)) {}

  // (Re)plans when the inputs' shapes differ from those planned for, and
  // gives TFLite the outputs' shapes.
  Status Prepare(TfLiteContext* context) {
    std::vector<Shape> shapes;
    for (int t : inputs_) shapes.push_back(TfLiteShape(context->tensors[t]));
    if (runtime_ != nullptr && shapes == planned_) return OkStatus();
    runtime_.reset();
    GLD_ASSIGN_OR_RETURN(ContextGraph cg, BuildContextGraph(context, nodes_, inputs_, outputs_));
    Options options = options_;
    options.model_token = CacheToken(cg.graph, options_.model_token);
    runtime_inputs_.clear();
    runtime_outputs_.clear();
    for (int t : cg.graph.inputs) runtime_inputs_.push_back(cg.tflite_tensor[static_cast<size_t>(t)]);
    for (int t : cg.graph.outputs) runtime_outputs_.push_back(cg.tflite_tensor[static_cast<size_t>(t)]);
    GLD_ASSIGN_OR_RETURN(runtime_, Runtime::Create(std::move(cg.graph), options));
    runtime_->UseCancelFlag(cancel_);
    const InterpreterReport& r = runtime_->report();
    Log().info("gldelegate: partition of {} TFLite nodes: {}; program cache: {} hits, {} misses{}", nodes_.size(),
               r.placement_line, r.cache_hits, r.cache_misses, r.cache_file.empty() ? "" : " (" + r.cache_file + ")");
    GLD_RETURN_IF_ERROR(ResizeOutputs(context));
    planned_ = std::move(shapes);
    return OkStatus();
  }

  Status Invoke(TfLiteContext* context) {
    if (runtime_ == nullptr) return FailedPreconditionError("invoked before a successful prepare");
    for (size_t i = 0; i < runtime_inputs_.size(); ++i) {
      const TfLiteTensor& t = context->tensors[runtime_inputs_[i]];
      GLD_RETURN_IF_ERROR(runtime_->SetInput(static_cast<int>(i), t.data, t.bytes));
    }
    GLD_RETURN_IF_ERROR(runtime_->Invoke());
    for (size_t i = 0; i < runtime_outputs_.size(); ++i) {
      TfLiteTensor& t = context->tensors[runtime_outputs_[i]];
      GLD_RETURN_IF_ERROR(runtime_->GetOutput(static_cast<int>(i), t.data, t.bytes));
    }
    return OkStatus();
  }

 private:
  Status ResizeOutputs(TfLiteContext* context) {
    const Graph& g = runtime_->graph();
    for (size_t i = 0; i < runtime_outputs_.size(); ++i) {
      TfLiteTensor& t = context->tensors[runtime_outputs_[i]];
      const Tensor& ours = g.tensors[static_cast<size_t>(g.outputs[i])];
      DataType type;
      if (!FromTfLiteType(t.type, &type) || type != ours.type) {
        return InternalError("output tensor " + std::to_string(runtime_outputs_[i]) + " is " +
                             DataTypeName(ours.type) + " here but TFLite type " +
                             std::to_string(static_cast<int>(t.type)) + " in TFLite");
      }
      if (TfLiteShape(t) == ours.shape) continue;
      TfLiteIntArray* dims = NewIntArray(ours.shape);
      if (dims == nullptr || context->ResizeTensor(context, &t, dims) != kTfLiteOk) {
        return InternalError("TFLite refused to resize output tensor " + std::to_string(runtime_outputs_[i]) +
                             " to " + ShapeToString(ours.shape));
      }
    }
    return OkStatus();
  }

  const Options& options_;
  std::shared_ptr<std::atomic<bool>> cancel_;  // the delegate's (GldTfLiteDelegateCancel)
  std::vector<Node> nodes_;           // made in the delegate's Prepare
  std::vector<int> inputs_, outputs_;  // TFLite indices
  std::unique_ptr<Runtime> runtime_;
  std::vector<int> runtime_inputs_, runtime_outputs_;  // TFLite tensor of each runtime input / output
  std::vector<Shape> planned_;                        // shapes of inputs_ runtime_ was made for
};

void* KernelInit(TfLiteContext* context, const char* buffer, size_t) {
  const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
  GlTfLiteDelegate* self = params == nullptr ? nullptr : GlTfLiteDelegate::From(params->delegate);
  if (self == nullptr) return nullptr;  // prepare reports it
  try {
    std::vector<Node> nodes;
    for (int n : Indices(params->nodes_to_replace)) {
      const Node* node = self->chosen_node(n);
      if (node == nullptr) return nullptr;
      nodes.push_back(*node);
    }
    return new PartitionKernel(self->options(), self->cancel_flag(), std::move(nodes), *params);
  } catch (...) {
    return nullptr;
  }
}

void KernelFree(TfLiteContext*, void* buffer) { delete static_cast<PartitionKernel*>(buffer); }

// Runs one stage of the node's partition kernel, its error told to TFLite.
TfLiteStatus RunKernel(TfLiteContext* context, TfLiteNode* node, Status (PartitionKernel::*stage)(TfLiteContext*)) {
  auto* kernel = static_cast<PartitionKernel*>(node->user_data);
  Status s = kernel == nullptr ? InternalError("the partition's kernel could not be made")
                               : Guarded([&] { return (kernel->*stage)(context); });
  if (s.ok()) return kTfLiteOk;
  ReportToTfLite(context, s);
  return kTfLiteError;
}

TfLiteStatus KernelPrepare(TfLiteContext* context, TfLiteNode* node) {
  return RunKernel(context, node, &PartitionKernel::Prepare);
}
TfLiteStatus KernelInvoke(TfLiteContext* context, TfLiteNode* node) {
  return RunKernel(context, node, &PartitionKernel::Invoke);
}

// The backend that answers "does it run this node" for `options`: the GL
// backend's support query, or none (the CPU kernels) for backend cpu and
// for auto without a usable hardware GPU (as the runtime decides).
StatusOr<std::unique_ptr<GpuBackend>> QueryBackend(const Options& options) {
  if (options.backend == Backend::kCpu) return std::unique_ptr<GpuBackend>();
  auto gpu = CreateGpuBackend(options);
  if (!gpu.ok()) {
    if (options.backend == Backend::kGl) return gpu.status();
    Log().warn("gldelegate: GPU backend unavailable, delegating to the CPU kernels: {}", gpu.status().message());
    return std::unique_ptr<GpuBackend>();
  }
  if (options.backend == Backend::kAuto && (*gpu)->IsSoftwareRasterizer()) {
    Log().warn("gldelegate: auto: GL renderer '{}' is a software rasterizer; delegating to the CPU kernels "
               "(use backend gl to force)",
               (*gpu)->device_name());
    return std::unique_ptr<GpuBackend>();
  }
  return std::move(gpu).value();
}

// Ops whose work reaches beyond their node (TFLite's other subgraphs, its
// resource variables) stay with TFLite's interpreter.
bool StaysWithTflite(OpType op) {
  switch (op) {
    case OpType::kWhile:
    case OpType::kIf:
    case OpType::kCallOnce:
    case OpType::kVarHandle:
    case OpType::kReadVariable:
    case OpType::kAssignVariable: return true;
    default: return false;
  }
}

// Which prepared nodes the backend of `options` runs.
StatusOr<std::vector<bool>> RunnableNodes(const Graph& g, const Options& options) {
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<GpuBackend> gpu, QueryBackend(options));
  std::vector<bool> runs(g.nodes.size(), false);
  if (gpu == nullptr) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      runs[i] = cpu::FindCpuKernel(g.nodes[i].op) != nullptr && !StaysWithTflite(g.nodes[i].op);
    }
    return runs;
  }
  PartitionOptions popts;
  popts.gpu = gpu.get();
  popts.max_segments = options.max_delegated_partitions;
  popts.min_segment_nodes = options.min_nodes_per_partition;
  GLD_ASSIGN_OR_RETURN(popts.gpu_deny_ops, ParseOpNames(options.gpu_deny_ops));
  const Partition p = PartitionGraph(g, popts);
  for (size_t i = 0; i < g.nodes.size(); ++i) runs[i] = p.nodes[i].on_gpu;
  return runs;
}

// TFLite's view of the nodes: who writes and who reads each tensor.
struct PlanUses {
  std::map<int, int> producer;               // tensor -> node
  std::map<int, std::vector<int>> readers;   // tensor -> nodes
  std::map<int, std::vector<int>> node_inputs, node_outputs;
};

PlanUses UsesOf(TfLiteContext* context, const std::vector<int>& plan) {
  PlanUses u;
  for (int n : plan) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* reg = nullptr;
    context->GetNodeAndRegistration(context, n, &node, &reg);
    u.node_inputs[n] = Indices(node->inputs);
    u.node_outputs[n] = Indices(node->outputs);
    for (int t : u.node_inputs[n]) {
      if (t >= 0) u.readers[t].push_back(n);
    }
    for (int t : u.node_outputs[n]) u.producer[t] = n;
  }
  return u;
}

// Nodes the passes folded or fused away go with the nodes that took them
// over: one is delegated when everything that reads its outputs and writes
// its inputs is (or is such a node too), found as a fixed point.
void PlaceVanishedNodes(TfLiteContext* context, const PlanUses& uses, std::map<int, int>* state) {
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [n, s] : *state) {
      if (s != -1) continue;
      bool ok = true;
      auto delegated = [&](int other) {
        auto it = state->find(other);
        return it != state->end() && it->second != 0;
      };
      for (int t : uses.node_outputs.at(n)) {
        auto r = uses.readers.find(t);
        if (r == uses.readers.end()) continue;
        for (int reader : r->second) ok = ok && delegated(reader);
      }
      for (int t : uses.node_inputs.at(n)) {
        if (t < 0 || IsTfLiteConstant(context->tensors[t])) continue;
        auto p = uses.producer.find(t);
        if (p != uses.producer.end()) ok = ok && delegated(p->second);
      }
      if (!ok) {
        s = 0;
        changed = true;
      }
    }
  }
}

// The TFLite nodes (of `plan`) the delegate takes.
StatusOr<std::vector<int>> ChooseNodes(TfLiteContext* context, const std::vector<int>& plan, const Options& options,
                                       std::map<int, Node>* ir_nodes) {
  std::vector<int> mapped;
  std::vector<Node> mapped_nodes;
  std::map<int, int> state;  // mapped TFLite node -> 1 runs, 0 does not, -1 vanished in the passes
  for (int n : plan) {
    auto node = NodeFromTfLite(context, n);
    if (!node.ok()) {
      Log().info("gldelegate: node {} stays with TFLite: {}", n, node.status().message());
      continue;
    }
    mapped.push_back(n);
    mapped_nodes.push_back(*node);
    (*ir_nodes)[n] = std::move(node).value();
    state[n] = -1;
  }
  const PlanUses uses = UsesOf(context, plan);
  // The mapped nodes as one graph: its inputs are what others write (or the
  // model's inputs), its outputs what others read or nobody reads.
  std::vector<int> inputs, outputs;
  for (int n : mapped) {
    for (int t : uses.node_inputs.at(n)) {
      auto p = uses.producer.find(t);
      if (t >= 0 && (p == uses.producer.end() || state.count(p->second) == 0)) inputs.push_back(t);
    }
    for (int t : uses.node_outputs.at(n)) {
      auto r = uses.readers.find(t);
      bool read_outside = r == uses.readers.end();
      for (int reader : r == uses.readers.end() ? std::vector<int>{} : r->second) {
        read_outside = read_outside || state.count(reader) == 0;
      }
      if (read_outside) outputs.push_back(t);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  GLD_ASSIGN_OR_RETURN(ContextGraph cg, BuildContextGraph(context, mapped_nodes, inputs, outputs));
  GLD_ASSIGN_OR_RETURN(PreparedGraph prepared, PrepareGraph(std::move(cg.graph)));
  Graph& g = prepared.graph;
  // MediaPipe's ops become the library's rows here too (as Runtime::Create
  // does), else shape inference finds an unregistered custom op.
  GLD_RETURN_IF_ERROR(BindCustomOps(g, options.custom_ops));
  GLD_RETURN_IF_ERROR(InferShapes(g, cpu::KnownValueOracle()));
  GLD_ASSIGN_OR_RETURN(std::vector<bool> runs, RunnableNodes(g, options));
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto it = state.find(g.nodes[i].source_index);
    if (it == state.end()) continue;
    it->second = (it->second != 0 && runs[i]) ? 1 : 0;
    if (!runs[i]) Log().info("gldelegate: node {} ({}) stays with TFLite", it->first, NodeOpName(g.nodes[i]));
  }
  PlaceVanishedNodes(context, uses, &state);
  std::vector<int> chosen;
  for (int n : plan) {
    auto it = state.find(n);
    if (it != state.end() && it->second != 0) chosen.push_back(n);
  }
  return chosen;
}

Status SelectAndReplace(TfLiteContext* context, GlTfLiteDelegate& self) {
  GLD_RETURN_IF_ERROR(ConfigureLogging(self.options().log_level));
  GLD_ASSIGN_OR_RETURN(std::vector<int> plan, CheckedExecutionPlan(context));
  std::map<int, Node> ir_nodes;
  GLD_ASSIGN_OR_RETURN(std::vector<int> chosen, ChooseNodes(context, plan, self.options(), &ir_nodes));
  self.set_chosen_nodes(std::move(ir_nodes));
  Log().info("gldelegate: taking {} of {} nodes (backend {})", chosen.size(), plan.size(),
             BackendName(self.options().backend));
  if (chosen.empty()) return OkStatus();
  std::vector<int> list(chosen.size() + 1);
  list[0] = static_cast<int>(chosen.size());
  std::copy(chosen.begin(), chosen.end(), list.begin() + 1);
  TfLiteRegistration reg;
  std::memset(&reg, 0, sizeof(reg));
  reg.init = KernelInit;
  reg.free = KernelFree;
  reg.prepare = KernelPrepare;
  reg.invoke = KernelInvoke;
  reg.builtin_code = static_cast<int32_t>(tflite::BuiltinOperator::DELEGATE);
  reg.custom_name = kKernelName;
  reg.version = 1;
  if (context->ReplaceNodeSubsetsWithDelegateKernels(context, reg, reinterpret_cast<const TfLiteIntArray*>(list.data()),
                                                     self.tflite()) != kTfLiteOk) {
    return InternalError("TFLite refused to replace the nodes with the delegate's kernels");
  }
  return OkStatus();
}

TfLiteStatus DelegatePrepare(TfLiteContext* context, TfLiteDelegate* delegate) {
  GlTfLiteDelegate* self = GlTfLiteDelegate::From(delegate);
  Status s = self == nullptr ? InternalError("not a gldelegate delegate")
                             : Guarded([&] { return SelectAndReplace(context, *self); });
  if (s.ok()) return kTfLiteOk;
  ReportToTfLite(context, s);
  return kTfLiteError;
}

}  // namespace

GlTfLiteDelegate::GlTfLiteDelegate(Options options) : options_(std::move(options)) {
  std::memset(&delegate_, 0, sizeof(delegate_));
  delegate_.data_ = this;
  delegate_.Prepare = DelegatePrepare;
  // The kernels plan again for new input shapes (and tell TFLite their
  // outputs'), so TFLite need not prepare every node before delegating to
  // find dynamic shapes: it could not prepare a custom op that only the
  // delegate runs (MediaPipe's Convolution2DTransposeBias).
  delegate_.flags = kTfLiteDelegateFlagsAllowDynamicTensors;
}

const Node* GlTfLiteDelegate::chosen_node(int tflite_node) const {
  auto it = chosen_.find(tflite_node);
  return it == chosen_.end() ? nullptr : &it->second;
}

GlTfLiteDelegate* GlTfLiteDelegate::From(TfLiteDelegate* delegate) {
  if (delegate == nullptr || delegate->Prepare != DelegatePrepare) return nullptr;
  return static_cast<GlTfLiteDelegate*>(delegate->data_);
}

}  // namespace gld::delegate
