#include "runtime/step.h"

#include <algorithm>
#include <new>

#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/kernel_helpers.h"
#include "graph/shape_inference.h"
#include "util/thread_pool.h"

namespace gld {

namespace {

std::string StepLabel(const Graph& graph, size_t node, const std::vector<size_t>& epilogue,
                      const std::vector<cpu::EpilogueStepSpec>& specs) {
  std::string label = graph.NodeLabel(node);
  for (size_t k = 0; k < epilogue.size(); ++k) {
    if (specs[k].pad_node >= 0) label += " + " + graph.NodeLabel(static_cast<size_t>(specs[k].pad_node));
    label += " + " + graph.NodeLabel(epilogue[k]);
  }
  return label;
}

int64_t StepWork(const Graph& graph, size_t node, const std::vector<size_t>& epilogue) {
  int64_t work = cpu::EstimateNodeWork(graph, node);
  for (size_t n : epilogue) work += cpu::EstimateNodeWork(graph, n);
  return work;
}

// Whether a step runs on the calling thread alone: less work than its
// kernel's bar (integer kernels split more cheaply, integer_kernels.h).
bool SerialStep(const Graph& graph, size_t node, const std::vector<size_t>& epilogue) {
  const bool integer = cpu::FindIntegerKernel(graph, graph.nodes[node]) != nullptr;
  return StepWork(graph, node, epilogue) < (integer ? cpu::kIntegerParallelMinWork : cpu::kParallelMinWork);
}

// An epilogue's own pass runs on the pool from this many values.
constexpr int64_t kEpilogueParallelMin = 1 << 14;

}  // namespace

CpuNodeStep::CpuNodeStep(const Graph& graph, size_t node_index, const cpu::CpuKernel* kernel,
                         std::vector<size_t> epilogue_nodes, std::vector<cpu::EpilogueStepSpec> epilogue_specs)
    : graph_(&graph),
      node_(&graph.nodes[node_index]),
      node_index_(node_index),
      kernel_(kernel),
      epilogue_nodes_(std::move(epilogue_nodes)),
      epilogue_specs_(std::move(epilogue_specs)),
      label_(StepLabel(graph, node_index, epilogue_nodes_, epilogue_specs_)),
      serial_(SerialStep(graph, node_index, epilogue_nodes_)) {}

std::vector<int> CpuNodeStep::host_inputs() const {
  std::vector<int> v;
  for (int t : node_->inputs) {
    if (t != kNoTensor) v.push_back(t);
  }
  for (const cpu::EpilogueStepSpec& spec : epilogue_specs_) {
    if (spec.operand != kNoTensor) v.push_back(spec.operand);  // GELU's step reads none
  }
  return v;
}

std::vector<int> CpuNodeStep::host_outputs() const {
  std::vector<int> v = node_->outputs;
  if (!epilogue_nodes_.empty()) v.push_back(graph_->nodes[epilogue_nodes_.back()].outputs[0]);
  return v;
}

Status CpuNodeStep::UpdateKernelContext(StepContext& ctx) {
  cpu::KernelContext& k = kernel_ctx_;
  // A kernel may clear its state pointer for one run (see xnnpack_op.h).
  k.state = &state_;
  if (ctx_tensors_ == ctx.tensors && ctx_version_ == ctx.storage_version && ctx_pool_ == ctx.pool &&
      ctx_threads_ == ctx.num_threads && k.node != nullptr) {
    return OkStatus();
  }
  k.graph = ctx.graph;
  k.node = node_;
  k.model = ctx.model;
  k.io_checked = false;
  k.inputs.clear();
  for (int t : node_->inputs) k.inputs.push_back(t == kNoTensor ? nullptr : &(*ctx.tensors)[t]);
  k.outputs.clear();
  for (int t : node_->outputs) k.outputs.push_back(&(*ctx.tensors)[t]);
  const bool parallel = ctx.pool != nullptr && ctx.num_threads > 1 && !serial_;
  k.num_threads = parallel ? ctx.num_threads : 1;
  k.parallel_for = nullptr;
  k.threadpool = nullptr;
  if (parallel) {
    ThreadPool* pool = ctx.pool;
    k.parallel_for = [pool](int64_t n, const std::function<void(int64_t, int64_t)>& fn) { pool->ParallelFor(n, fn); };
    k.threadpool = pool->pthreadpool();
  }
  k.epilogue = nullptr;
  if (!epilogue_nodes_.empty()) {
    // The chain's input is the node's output 0 and has the last output's
    // shape (PlanCpuEpilogues checked both against the graph).
    const cpu::TensorData& x = *k.outputs[0];
    cpu::TensorData& out = (*ctx.tensors)[graph_->nodes[epilogue_nodes_.back()].outputs[0]];
    epilogue_.steps.assign(epilogue_specs_.size(), cpu::EpilogueStep{});
    const cpu::TensorData none;
    for (size_t i = 0; i < epilogue_specs_.size(); ++i) {
      const int operand = epilogue_specs_[i].operand;
      GLD_RETURN_IF_ERROR(cpu::BindEpilogueStep(epilogue_specs_[i], operand != kNoTensor ? (*ctx.tensors)[operand] : none,
                                                out, graph_->NodeLabel(epilogue_nodes_[i]), &epilogue_.steps[i]));
    }
    if (x.type != DataType::kFloat32 || x.shape != out.shape || x.data == nullptr) {
      return InternalError(label_ + ": the epilogue's input " + ShapeToString(x.shape) + " does not match its output " +
                           ShapeToString(out.shape));
    }
    epilogue_.out = out.as<float>();
    epilogue_.channels = out.shape.empty() ? 1 : out.shape.back();
    epilogue_.elements = out.num_elements();
    k.epilogue = &epilogue_;
  }
  ctx_tensors_ = ctx.tensors;
  ctx_version_ = ctx.storage_version;
  ctx_pool_ = ctx.pool;
  ctx_threads_ = ctx.num_threads;
  return OkStatus();
}

Status CpuNodeStep::CallKernel(cpu::KernelFn fn, StepContext& ctx) {
  GLD_RETURN_IF_ERROR(UpdateKernelContext(ctx));
  cpu::KernelContext& k = kernel_ctx_;
  Status s;
  try {
    s = fn(k);
  } catch (const std::bad_alloc&) {
    // Packing weights and scratch buffers allocate inside the kernels (on a
    // worker, the pool hands the exception to this thread). The allocator
    // does not say how much it was asked for; the node's constant inputs and
    // outputs give the scale.
    uint64_t constant_bytes = 0, output_bytes = 0;
    for (int t : node_->inputs) {
      if (t != kNoTensor && ctx.graph->tensors[static_cast<size_t>(t)].is_constant) {
        constant_bytes += ctx.graph->tensors[static_cast<size_t>(t)].data.size();
      }
    }
    for (int t : node_->outputs) output_bytes += (*ctx.tensors)[t].bytes;
    return InternalError(label_ + ": cannot allocate memory for its packed weights or scratch buffers (its constant "
                         "inputs hold " + std::to_string(constant_bytes) + " bytes, its outputs " +
                         std::to_string(output_bytes) + " bytes)");
  }
  if (s.ok()) return s;
  // The kernel ran the step's node (its chain runs after): its errors name
  // that node, not the chain. Kernels usually name it already; add the label
  // only when missing.
  const std::string node_label = graph_->NodeLabel(node_index_);
  if (s.message().rfind(node_label, 0) == 0) return s;
  return s.WithContext(node_label);
}

Status CpuNodeStep::Prepare(StepContext& ctx) {
  if (kernel_->prepare == nullptr) return OkStatus();
  return CallKernel(kernel_->prepare, ctx);
}

Status CpuNodeStep::Run(StepContext& ctx) {
  kernel_ctx_.epilogue_done = false;
  GLD_RETURN_IF_ERROR(CallKernel(kernel_->run, ctx));
  // The step's buffers and shapes stay as planned: what CheckIo found holds
  // for the next runs (KernelContext::io_checked).
  kernel_ctx_.io_checked = true;
  if (kernel_ctx_.epilogue == nullptr || kernel_ctx_.epilogue_done) return OkStatus();
  // The kernel's own code ran: the chain gets a pass of its own.
  const cpu::Epilogue& e = *kernel_ctx_.epilogue;
  const float* x = kernel_ctx_.outputs[0]->as<float>();
  cpu::ParallelForElements(kernel_ctx_, e.elements, kEpilogueParallelMin,
                        [&](int64_t b, int64_t end) { cpu::RunEpilogue(e, x, b, end); });
  return OkStatus();
}

CpuGroupStep::CpuGroupStep(const Graph& graph, std::vector<size_t> nodes, std::vector<const cpu::CpuKernel*> kernels)
    : graph_(&graph), nodes_(std::move(nodes)), members_(nodes_.size()) {
  for (size_t m = 0; m < nodes_.size(); ++m) {
    label_ += (m == 0 ? "" : " + ") + graph.NodeLabel(nodes_[m]);
    members_[m].node = nodes_[m];
    members_[m].kernel = kernels[m];
  }
}

std::vector<int> CpuGroupStep::host_inputs() const {
  std::vector<int> v;
  for (size_t n : nodes_) {
    for (int t : graph_->nodes[n].inputs) {
      if (t != kNoTensor) v.push_back(t);
    }
  }
  return v;
}

std::vector<int> CpuGroupStep::host_outputs() const {
  std::vector<int> v;
  for (size_t n : nodes_) v.insert(v.end(), graph_->nodes[n].outputs.begin(), graph_->nodes[n].outputs.end());
  return v;
}

Status CpuGroupStep::Bind(StepContext& ctx) {
  if (bound_ == ctx.tensors && bound_version_ == ctx.storage_version) return OkStatus();
  const Node& last = graph_->nodes[nodes_.back()];
  elements_ = (*ctx.tensors)[static_cast<size_t>(last.outputs[0])].num_elements();
  for (Member& m : members_) {
    const Node& node = graph_->nodes[m.node];
    if (m.kernel == nullptr) return UnimplementedError(graph_->NodeLabel(m.node) + ": no CPU kernel");
    m.in_buffers.clear();
    m.in_whole.clear();
    m.in_views.assign(node.inputs.size(), cpu::TensorData());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int t = node.inputs[i];
      const cpu::TensorData* b = t == kNoTensor ? nullptr : &(*ctx.tensors)[static_cast<size_t>(t)];
      m.in_buffers.push_back(b);
      const bool whole = b != nullptr && b->num_elements() == 1 && elements_ != 1;
      if (b != nullptr && !whole && b->num_elements() != elements_) {
        return InvalidArgumentError(label_ + ": " + graph_->NodeLabel(m.node) + " input " + std::to_string(i) + " has " +
                                    std::to_string(b->num_elements()) + " values, the group " +
                                    std::to_string(elements_));
      }
      m.in_whole.push_back(whole);
      if (b != nullptr) m.in_views[i] = {b->type, Shape{1}, b->data, b->bytes};
    }
    m.out_buffers.clear();
    m.out_views.assign(node.outputs.size(), cpu::TensorData());
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      cpu::TensorData* b = &(*ctx.tensors)[static_cast<size_t>(node.outputs[o])];
      if (b->num_elements() != elements_) {
        return InvalidArgumentError(label_ + ": " + graph_->NodeLabel(m.node) + " output has " +
                                    std::to_string(b->num_elements()) + " values, the group " +
                                    std::to_string(elements_));
      }
      m.out_buffers.push_back(b);
      m.out_views[o] = {b->type, Shape{1}, b->data, b->bytes};
    }
    m.k = cpu::KernelContext();
    m.k.graph = ctx.graph;
    m.k.node = &node;
    m.k.model = ctx.model;
    m.k.state = &m.state;
    for (cpu::TensorData& v : m.in_views) m.k.inputs.push_back(v.data == nullptr ? nullptr : &v);
    for (cpu::TensorData& v : m.out_views) m.k.outputs.push_back(&v);
  }
  bound_ = ctx.tensors;
  bound_version_ = ctx.storage_version;
  return OkStatus();
}

Status CpuGroupStep::Run(StepContext& ctx) {
  GLD_RETURN_IF_ERROR(Bind(ctx));
  for (int64_t begin = 0; begin < elements_; begin += cpu::kEpilogueBlock) {
    const int64_t n = std::min(cpu::kEpilogueBlock, elements_ - begin);
    for (Member& m : members_) {
      // Views of [begin, begin + n): no allocation, the shapes keep one dimension.
      for (size_t i = 0; i < m.in_views.size(); ++i) {
        const cpu::TensorData* b = m.in_buffers[i];
        if (b == nullptr || m.in_whole[i]) continue;
        const size_t size = DataTypeSize(b->type);
        m.in_views[i].data = const_cast<uint8_t*>(static_cast<const uint8_t*>(b->data)) + begin * size;
        m.in_views[i].shape[0] = static_cast<int32_t>(n);
        m.in_views[i].bytes = static_cast<size_t>(n) * size;
      }
      for (size_t o = 0; o < m.out_views.size(); ++o) {
        const size_t size = DataTypeSize(m.out_buffers[o]->type);
        m.out_views[o].data = static_cast<uint8_t*>(m.out_buffers[o]->data) + begin * size;
        m.out_views[o].shape[0] = static_cast<int32_t>(n);
        m.out_views[o].bytes = static_cast<size_t>(n) * size;
      }
      const Status s = m.kernel->run(m.k);
      if (!s.ok()) {
        const std::string node_label = graph_->NodeLabel(m.node);
        return s.message().rfind(node_label, 0) == 0 ? s : s.WithContext(node_label);
      }
    }
  }
  return OkStatus();
}

bool IsShapeValue(OpType op, DataType type, int64_t elements, int64_t max_elements) {
  if (type == DataType::kInt32 || type == DataType::kInt64) return elements <= max_elements;
  return op == OpType::kRange && type == DataType::kFloat32 && elements == 1;
}

DynamicNodeStep::DynamicNodeStep(const Graph& graph, size_t node_index)
    : graph_(graph),
      node_index_(node_index),
      label_(graph.NodeLabel(node_index) + " (dynamic)"),
      kernel_(cpu::FindNodeKernel(graph_, graph_.nodes[node_index])),
      buffers_(graph.nodes[node_index].outputs.size()) {
  // The kernel's context, as cpu::EvaluateNode builds it (no state, one
  // thread), once: each run only points its inputs and outputs.
  const Node& node = graph_.nodes[node_index_];
  kernel_ctx_.graph = &graph_;
  kernel_ctx_.node = &node;
  kernel_ctx_.inputs.reserve(node.inputs.size());
  kernel_ctx_.outputs.reserve(node.outputs.size());
  values_.reserve(node.inputs.size());
  kernel_ctx_.size_output = [this](size_t k, const Shape& shape) {
    return SizeOutput(k, shape, *kernel_ctx_.outputs[k]);
  };
}

std::vector<int> DynamicNodeStep::host_inputs() const {
  std::vector<int> v;
  for (int t : graph_.nodes[node_index_].inputs) {
    if (t != kNoTensor) v.push_back(t);
  }
  return v;
}

std::vector<int> DynamicNodeStep::host_outputs() const { return graph_.nodes[node_index_].outputs; }

Status DynamicNodeStep::Run(StepContext& ctx) {
  // Values a shape rule may read: small integer inputs (a shape, an axis).
  constexpr int64_t kMaxValues = 1024;
  const Node& node = graph_.nodes[node_index_];
  values_.assign(node.inputs.size(), ValueBytes{});  // reused: no allocation after the first run
  std::vector<const cpu::TensorData*>& ins = kernel_ctx_.inputs;
  ins.clear();
  // The shape rule reads its inputs' shapes, the graph's constants and the
  // values below: with no values from a non-constant input and the shapes
  // of its last run, it would find the same output shapes again.
  bool reads_values = false;
  bool same_shapes = inferred_shapes_.size() == node.inputs.size();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int t = node.inputs[i];
    if (t == kNoTensor) {
      ins.push_back(nullptr);
      continue;
    }
    const cpu::TensorData& d = (*ctx.tensors)[static_cast<size_t>(t)];
    Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
    same_shapes = same_shapes && inferred_shapes_[i] == d.shape;
    if (tensor.shape != d.shape) tensor.shape = d.shape;
    if (d.data != nullptr && IsShapeValue(node.op, d.type, d.num_elements(), kMaxValues)) {
      values_[i] = {static_cast<const uint8_t*>(d.data), static_cast<size_t>(d.num_elements()) * DataTypeSize(d.type)};
      reads_values = reads_values || !tensor.is_constant;
    }
    ins.push_back(&d);
  }
  if (reads_values || !same_shapes) {
    inferred_shapes_.clear();  // until the rule passes
    GLD_RETURN_IF_ERROR(InferNodeShapes(graph_, node_index_, values_));
    inferred_shapes_.resize(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (ins[i] != nullptr) inferred_shapes_[i] = ins[i]->shape;
    }
  }
  std::vector<cpu::TensorData*>& outs = kernel_ctx_.outputs;
  outs.clear();
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const Tensor& tensor = graph_.tensors[static_cast<size_t>(node.outputs[k])];
    cpu::TensorData& d = (*ctx.tensors)[static_cast<size_t>(node.outputs[k])];
    d.type = tensor.type;
    if (d.shape != tensor.shape) d.shape = tensor.shape;
    d.bytes = 0;
    d.data = nullptr;
    // A shape with -1 (SizedByKernel) is sized by the kernel (SizeOutput).
    if (ShapeIsValid(tensor.shape)) GLD_RETURN_IF_ERROR(SizeOutput(k, tensor.shape, d));
    outs.push_back(&d);
  }
  if (kernel_ == nullptr) return UnimplementedError(graph_.NodeLabel(node_index_) + ": no CPU kernel");
  GLD_RETURN_IF_ERROR(kernel_->run(kernel_ctx_));
  for (size_t k = 0; k < outs.size(); ++k) {
    if (outs[k]->data == nullptr) {
      return InternalError(label_ + ": the kernel did not size output " + std::to_string(k));
    }
  }
  return OkStatus();
}

Status DynamicNodeStep::SizeOutput(size_t k, const Shape& shape, cpu::TensorData& d) {
  const Tensor& tensor = graph_.tensors[static_cast<size_t>(graph_.nodes[node_index_].outputs[k])];
  if (!ShapeIsValid(shape)) {
    return InvalidArgumentError(label_ + ": output '" + tensor.name + "' cannot have shape " + ShapeToString(shape));
  }
  const uint64_t bytes = static_cast<uint64_t>(NumElements(shape)) * DataTypeSize(d.type);
  // 64 bytes more, as every host buffer: kernels may read a vector past the end.
  if (buffers_[k].data() == nullptr || buffers_[k].size() < bytes + 64) {
    GLD_RETURN_IF_ERROR(buffers_[k].Allocate(bytes + 64, "dynamic tensor '" + tensor.name + "'"));
  }
  d.shape = shape;
  d.bytes = static_cast<size_t>(bytes);
  d.data = buffers_[k].data();
  return OkStatus();
}

}  // namespace gld
