// <immintrin.h> for the CPU kernels written with x86 intrinsics, where
// GLD_AVX512 is defined (x86-64 GCC/Clang Linux builds; simd.h). Each such
// function carries its own target attribute and runs only where the CPU
// has that target (util/cpu_features.h).
#pragma once

#include "cpu_kernels/micro/simd.h"

#ifdef GLD_AVX512
#include <immintrin.h>
// GCC 12 reports the _mm512_undefined_*() placeholders inside the AVX-512
// intrinsics' headers as uninitialized (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__  // clang has no such group (and no such false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif
