// The public op listing: which backends can run each op.
#include "cpu_kernels/kernel_interface.h"
#include "gldelegate/gldelegate.hpp"
#include "graph/graph.h"
#include "runtime/gpu_backend.h"

namespace gld {

std::vector<OpSupport> SupportedOps() {
  std::vector<OpType> gpu_ops = GpuBackendOps();
  std::vector<OpSupport> out;
  for (OpType op : AllOpTypes()) {
    OpSupport s;
    s.op = OpTypeName(op);
    s.cpu = cpu::FindCpuKernel(op) != nullptr;
    for (OpType g : gpu_ops) s.gl = s.gl || g == op;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gld
