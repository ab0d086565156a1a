// The declarations of every CPU kernel in kernel_list.inc. Internal to
// cpu_kernels/.
#pragma once

#include "cpu_kernels/kernel_util.h"

namespace gld::cpu {

#define GLD_CPU_KERNEL(Name) Status Run##Name(KernelContext& ctx);
#define GLD_CPU_KERNEL_PREPARED(Name) Status Run##Name(KernelContext& ctx); Status Prepare##Name(KernelContext& ctx);
#include "cpu_kernels/kernel_list.inc"
#undef GLD_CPU_KERNEL_PREPARED
#undef GLD_CPU_KERNEL

}  // namespace gld::cpu
