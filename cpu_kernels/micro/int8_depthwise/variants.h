// The per-architecture forms of the int8 depthwise rows, for the dispatch in
// int8_depthwise.cc: x86.cc (AVX-512 VNNI), where GLD_AVX512 is defined. A
// form for another architecture adds its file and its block here. Internal
// to micro/int8_depthwise/.
#pragma once

#include <cstdint>

#include "cpu_kernels/micro/int8_depthwise/int8_depthwise.h"
#include "cpu_kernels/micro/x86_intrinsics.h"

#ifdef GLD_AVX512
#define GLD_INT8_DEPTHWISE 1
#define GLD_DW_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

#ifdef GLD_INT8_DEPTHWISE
namespace gld::cpu::int8_depthwise_x86 {

// Output rows [r0, r1) of the layer (Int8DepthwiseRows).
GLD_DW_TARGET void Rows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y,
                        uint64_t loop);

}  // namespace gld::cpu::int8_depthwise_x86
#endif
