#include "cpu_kernels/ops/broadcast.h"

namespace gld::cpu {

bool BroadcastPlan::Build(std::initializer_list<const Shape*> operands, const Shape& out) {
  const size_t rank = out.size();
  count = operands.size();
  if (count > kMaxOperands) return false;
  // Full-rank strides of every operand (0 where it broadcasts).
  // (On the stack for the usual few operands of rank <= 8: a plan is built
  // on every run.)
  constexpr size_t kSmall = 32;
  int64_t small[kSmall] = {};
  std::vector<int64_t> large;
  int64_t* flat = small;
  if (count * rank > kSmall) {
    large.assign(count * rank, 0);
    flat = large.data();
  }
  auto full = [&](size_t k) { return flat + k * rank; };
  for (size_t k = 0; k < count; ++k) {
    const Shape& s = *operands.begin()[k];
    if (s.size() > rank) return false;
    const size_t lead = rank - s.size();
    int64_t stride = 1;
    for (size_t d = rank; d-- > lead;) {
      const int32_t dim = s[d - lead];
      if (dim == out[d]) {
        full(k)[d] = dim == 1 ? 0 : stride;
      } else if (dim == 1) {
        full(k)[d] = 0;
      } else {
        return false;
      }
      stride *= dim;
    }
  }
  // Coalesce: drop size-1 dims, merge a dim into the next inner one when every
  // operand is contiguous across them (or broadcasts along both).
  dims.clear();
  for (size_t k = 0; k < count; ++k) strides[k].clear();
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < count && merge; ++k) {
      const int64_t prev = strides[k].back();
      const int64_t cur = full(k)[d];
      merge = prev == cur * out[d];
    }
    if (merge) {
      dims.back() *= out[d];
      for (size_t k = 0; k < count; ++k) strides[k].back() = full(k)[d];
    } else {
      dims.push_back(out[d]);
      for (size_t k = 0; k < count; ++k) strides[k].push_back(full(k)[d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t k = 0; k < count; ++k) strides[k].push_back(0);
  }
  return true;
}

}  // namespace gld::cpu
