#include "runtime/step.h"

#include <new>

#include "util/thread_pool.h"

namespace gld {

CpuNodeStep::CpuNodeStep(const Graph& graph, size_t node_index, const cpu::CpuKernel* kernel)
    : node_(&graph.nodes[node_index]),
      node_index_(node_index),
      kernel_(kernel),
      label_(graph.NodeLabel(node_index)),
      serial_(cpu::EstimateNodeWork(graph, node_index) < cpu::kParallelMinWork) {}

std::vector<int> CpuNodeStep::host_inputs() const {
  std::vector<int> v;
  for (int t : node_->inputs) {
    if (t != kNoTensor) v.push_back(t);
  }
  return v;
}

std::vector<int> CpuNodeStep::host_outputs() const { return node_->outputs; }

cpu::KernelContext& CpuNodeStep::KernelContextFor(StepContext& ctx) {
  cpu::KernelContext& k = kernel_ctx_;
  // A kernel may clear its state pointer for one run (see xnnpack_op.h).
  k.state = &state_;
  if (ctx_tensors_ == ctx.tensors && ctx_pool_ == ctx.pool && ctx_threads_ == ctx.num_threads && k.node != nullptr) {
    return k;
  }
  k.graph = ctx.graph;
  k.node = node_;
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
  ctx_tensors_ = ctx.tensors;
  ctx_pool_ = ctx.pool;
  ctx_threads_ = ctx.num_threads;
  return k;
}

Status CpuNodeStep::CallKernel(cpu::KernelFn fn, StepContext& ctx) {
  cpu::KernelContext& k = KernelContextFor(ctx);
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
  // Kernels usually name the node already; add the label only when missing.
  if (s.message().rfind(label_, 0) == 0) return s;
  return s.WithContext(label_);
}

Status CpuNodeStep::Prepare(StepContext& ctx) {
  if (kernel_->prepare == nullptr) return OkStatus();
  return CallKernel(kernel_->prepare, ctx);
}

Status CpuNodeStep::Run(StepContext& ctx) { return CallKernel(kernel_->run, ctx); }

}  // namespace gld
