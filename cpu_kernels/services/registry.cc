// FindCpuKernel's table, built from kernel_list.inc, and FindNodeKernel.
#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {

const CpuKernel kKernels[] = {
#define GLD_CPU_KERNEL(Name) {OpType::k##Name, Run##Name},
#define GLD_CPU_KERNEL_PREPARED(Name) {OpType::k##Name, Run##Name, Prepare##Name},
#include "cpu_kernels/ops/kernel_list.inc"
#undef GLD_CPU_KERNEL_PREPARED
#undef GLD_CPU_KERNEL
};

}  // namespace

const CpuKernel* FindCpuKernel(OpType op) {
  for (const CpuKernel& k : kKernels) {
    if (k.op == op) return &k;
  }
  return nullptr;
}

const CpuKernel* FindNodeKernel(const Graph& graph, const Node& node) {
  if (const CpuKernel* k = FindIntegerKernel(graph, node)) return k;
  return FindCpuKernel(node.op);
}

}  // namespace gld::cpu
