#include "cpu_kernels/micro/int8_depthwise/int8_depthwise.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cpu_kernels/micro/int8_depthwise/variants.h"
#include "util/cpu_features.h"

namespace gld::cpu {

bool HasInt8Depthwise() {
#ifdef GLD_INT8_DEPTHWISE
  return HostCpuFeatures().avx512vnni;
#else
  return false;
#endif
}

bool PackInt8Depthwise(const int8_t* weights, const int32_t* bias, Int8DepthwiseState* s) {
  const int64_t c = s->channels, blocks = s->padded / 16;
  s->groups = (s->kw + 3) / 4;
  const int64_t dots = s->kh * s->groups;
  if (c <= 0 || dots <= 0 || dots > kInt8DepthwiseMaxDots) return false;
  s->weights.assign(static_cast<size_t>(blocks * dots * 64), 0);
  s->bias.assign(static_cast<size_t>(s->padded), 0);
  for (int64_t k = 0; k < c; ++k) {
    int64_t sum = 0;
    for (int64_t fy = 0; fy < s->kh; ++fy) {
      for (int64_t fx = 0; fx < s->kw; ++fx) {
        const int8_t w = weights[(fy * s->kw + fx) * c + k];
        sum += w;
        const int64_t dot = fy * s->groups + fx / 4;
        s->weights[static_cast<size_t>(((k / 16 * dots + dot) * 16 + k % 16) * 4 + fx % 4)] = w;
      }
    }
    const int64_t b = bias != nullptr ? bias[k] : 0;
    // Modulo 2^32, as the sum the kernel's lanes keep.
    s->bias[static_cast<size_t>(k)] =
        static_cast<int32_t>(static_cast<uint32_t>(b - (int64_t{s->input_zero_point} + 128) * sum));
  }
  return true;
}

void Int8RepeatBytes(const int8_t* x, int64_t n, int64_t m, int8_t* y) {
  if (m == 2) {
    for (int64_t i = 0; i < n; ++i) y[2 * i] = y[2 * i + 1] = x[i];  // vectorised by the compiler
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memset(y + i * m, x[i], static_cast<size_t>(m));
}

uint64_t NewInt8DepthwiseLoop() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Int8DepthwiseRows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y,
                       uint64_t loop) {
#ifdef GLD_INT8_DEPTHWISE
  int8_depthwise_x86::Rows(x, s, r0, r1, y, loop);
#else
  (void)x, (void)s, (void)r0, (void)r1, (void)y, (void)loop;
#endif
}

}  // namespace gld::cpu
