// Numpy-style broadcasting iteration for binary (and ternary) elementwise ops.
// Shapes are aligned at the innermost dimension and coalesced, so the work
// becomes runs along one dimension where each operand steps by 0 or 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

// A short list of dims or strides, held inline up to kInline entries (a plan
// is built on every run of a node; most have rank <= 6), on the heap beyond.
class DimList {
 public:
  static constexpr size_t kInline = 8;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    size_ = 0;
    heap_.clear();
  }
  void push_back(int64_t v) {
    if (size_ < kInline && heap_.empty()) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_, inline_ + size_);
    heap_.push_back(v);
    ++size_;
  }
  int64_t& operator[](size_t i) { return heap_.empty() ? inline_[i] : heap_[i]; }
  int64_t operator[](size_t i) const { return heap_.empty() ? inline_[i] : heap_[i]; }
  int64_t& back() { return (*this)[size_ - 1]; }
  int64_t back() const { return (*this)[size_ - 1]; }

 private:
  int64_t inline_[kInline] = {};
  std::vector<int64_t> heap_;
  size_t size_ = 0;
};

// Up to 3 operands broadcast into `out`. After Build():
//   dims: coalesced output dims (outermost first, at least one),
//   strides[k][d]: element stride of operand k along dims[d] (0 = broadcast).
struct BroadcastPlan {
  static constexpr size_t kMaxOperands = 3;
  DimList dims;
  DimList strides[kMaxOperands];
  size_t count = 0;  // operands

  // False when an operand shape does not broadcast to `out` (or there are
  // more than kMaxOperands).
  bool Build(std::initializer_list<const Shape*> operands, const Shape& out);

  int64_t inner() const { return dims.back(); }
  int64_t outer() const {
    int64_t n = 1;
    for (size_t i = 0; i + 1 < dims.size(); ++i) n *= dims[i];
    return n;
  }
  // Offsets of each operand at the start of outer run `o` (o < outer()).
  void Offsets(int64_t o, int64_t* offs) const;
};

// The operands' offsets at outer run `o`, then at each run after it (Next):
// the outer index counted up dimension by dimension, where Offsets divides
// it out at every run (group norm's x - mean over [1, 8, 8, 4, 2]: 256 runs
// of 2 values).
class BroadcastCursor {
 public:
  BroadcastCursor(const BroadcastPlan& plan, int64_t o) : plan_(plan) {
    for (size_t d = 0; d + 1 < plan.dims.size(); ++d) idx_.push_back(0);
    for (size_t d = idx_.size(); d-- > 0 && o != 0;) {  // no division by an empty dim at run 0
      idx_[d] = o % plan.dims[d];
      o /= plan.dims[d];
      for (size_t k = 0; k < plan.count; ++k) offs[k] += idx_[d] * plan.strides[k][d];
    }
  }
  void Next() {
    for (size_t d = idx_.size(); d-- > 0;) {
      for (size_t k = 0; k < plan_.count; ++k) offs[k] += plan_.strides[k][d];
      if (++idx_[d] < plan_.dims[d]) return;
      for (size_t k = 0; k < plan_.count; ++k) offs[k] -= idx_[d] * plan_.strides[k][d];
      idx_[d] = 0;
    }
  }
  int64_t offs[BroadcastPlan::kMaxOperands] = {};

 private:
  const BroadcastPlan& plan_;
  DimList idx_;
};

inline void BroadcastPlan::Offsets(int64_t o, int64_t* offs) const {
  const BroadcastCursor at(*this, o);
  for (size_t k = 0; k < count; ++k) offs[k] = at.offs[k];
}

// Runs fn(a_offset, a_step, b_offset, b_step, out_offset, n) over every run of
// the broadcast of shapes a and b into out (steps are 0 or 1), splitting the
// work across threads. The plan must be built for {a, b}.
template <typename Fn>
void ForEachBinaryRun(const KernelContext& ctx, const BroadcastPlan& plan, Fn fn) {
  const int64_t inner = plan.inner();
  const int64_t outer = plan.outer();
  const int64_t sa = plan.strides[0].back(), sb = plan.strides[1].back();
  if (outer == 1) {
    ParallelForGrain(ctx, inner, 16384, [&](int64_t b, int64_t e) {
      fn(b * sa, sa, b * sb, sb, b, e - b);
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1));
  ParallelForGrain(ctx, outer, grain, [&](int64_t b, int64_t e) {
    BroadcastCursor at(plan, b);
    for (int64_t o = b; o < e; ++o, at.Next()) fn(at.offs[0], sa, at.offs[1], sb, o * inner, inner);
  });
}

// out[i] = op(a[i * sa], b[i * sb]) for i < n, with specialised loops so the
// common step patterns vectorize.
template <typename A, typename B, typename O, typename Op>
inline void BinaryRun(const A* a, int64_t sa, const B* b, int64_t sb, O* out, int64_t n, Op op) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const A av = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = op(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = op(a[i * sa], b[i * sb]);
  }
}

// Rows shorter than this are repeated into longer runs (BroadcastBinary).
inline constexpr int64_t kShortRow = 64;

// For `rows` rows of `inner` elements and one row `row` that every row pairs
// with: calls fn(repeated, r0, n) over runs of whole rows starting at row r0,
// n elements long, where `repeated` holds `row` n / inner times in a row.
// Runs are split across threads. A run holds no more rows than there are (a
// decode step's [1, 2, 1, 8] * [1, 8] filled 128 copies of the row, about
// 1 us, for 2 rows).
template <typename T, typename Fn>
void RepeatedRowRuns(const KernelContext& ctx, int64_t rows, int64_t inner, const T* row, Fn fn) {
  constexpr int64_t kRun = 1024;  // values per run, at most: the repeated row is on the stack
  const int64_t per_run = std::max<int64_t>(1, std::min(rows, kRun / inner));  // rows per run
  // On the stack (a node runs at every invoke; the callers' rows are under
  // 256 values); not a std::vector: T may be bool.
  std::unique_ptr<T[]> heap;
  T stack[kRun];
  T* repeated = stack;
  if (per_run * inner > kRun) {
    heap.reset(new T[static_cast<size_t>(per_run * inner)]);
    repeated = heap.get();
  }
  for (int64_t r = 0; r < per_run; ++r) std::copy(row, row + inner, repeated + r * inner);
  const int64_t runs = (rows + per_run - 1) / per_run;
  ParallelForGrain(ctx, runs, std::max<int64_t>(1, 16384 / (per_run * inner)), [&](int64_t b, int64_t e) {
    for (int64_t run = b; run < e; ++run) {
      const int64_t r0 = run * per_run;
      fn(static_cast<const T*>(repeated), r0, std::min(per_run, rows - r0) * inner);
    }
  });
}

// When plan (built for {a, b}) pairs every row of `inner` < short_row
// elements of one operand with the single row of the other: calls
// fn(a run, b run, output offset, n) over long runs of whole rows, the
// single row repeated (RepeatedRowRuns), and returns true; false otherwise.
template <typename A, typename B, typename Fn>
bool RepeatedShortRowRuns(const KernelContext& ctx, const BroadcastPlan& plan, int64_t short_row, const A* pa,
                          const B* pb, Fn fn) {
  if (plan.dims.size() != 2 || plan.inner() >= short_row) return false;
  const int64_t inner = plan.inner();
  const auto& sa = plan.strides[0];
  const auto& sb = plan.strides[1];
  const bool a_whole = sa[0] == inner && sa[1] == 1, b_whole = sb[0] == inner && sb[1] == 1;
  if (a_whole && sb[0] == 0 && sb[1] == 1) {
    RepeatedRowRuns(ctx, plan.outer(), inner, pb,
                    [&](const B* row, int64_t r0, int64_t n) { fn(pa + r0 * inner, row, r0 * inner, n); });
    return true;
  }
  if (b_whole && sa[0] == 0 && sa[1] == 1) {
    RepeatedRowRuns(ctx, plan.outer(), inner, pa,
                    [&](const A* row, int64_t r0, int64_t n) { fn(row, pb + r0 * inner, r0 * inner, n); });
    return true;
  }
  return false;
}

// Whole-tensor binary op with broadcasting: checks that out has the broadcast
// shape of a and b (unless ctx.io_checked: a, b and out must then be the
// node's own tensors, whose shapes an earlier run checked), then runs op
// over every element.
template <typename A, typename B, typename O, typename Op>
Status BroadcastBinary(const KernelContext& ctx, const TensorData& a, const TensorData& b, TensorData& out,
                       Op op) {
  // One element each (a loop counter, a condition): the broadcast is all 1s
  // of the larger rank; no shape is built, no plan, no dispatch.
  if (a.num_elements() == 1 && b.num_elements() == 1 && out.num_elements() == 1 &&
      out.shape.size() == std::max(a.shape.size(), b.shape.size())) {
    *out.as<O>() = op(*a.as<A>(), *b.as<B>());
    return OkStatus();
  }
  // Checked by an earlier run of the same buffers (KernelContext::io_checked):
  // the check builds a shape.
  Shape expected;
  if (!ctx.io_checked && (!BroadcastShapes(a.shape, b.shape, &expected) || expected != out.shape)) {
    return KernelError(ctx, "shapes " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape) +
                                " do not broadcast to output " + ShapeToString(out.shape));
  }
  if (out.num_elements() == 0) return OkStatus();
  // One element against a tensor laid out as the output (1 - z in a GRU
  // cell): one strided run per chunk, no plan.
  const int64_t n = out.num_elements();
  if ((a.num_elements() == 1 && b.num_elements() == n) || (b.num_elements() == 1 && a.num_elements() == n)) {
    const int64_t sa = a.num_elements() == 1 ? 0 : 1, sb = b.num_elements() == 1 ? 0 : 1;
    const A* pa = a.as<A>();
    const B* pb = b.as<B>();
    O* po = out.as<O>();
    ParallelForGrain(ctx, n, 16384, [&](int64_t begin, int64_t end) {
      BinaryRun(pa + begin * sa, sa, pb + begin * sb, sb, po + begin, end - begin, op);
    });
    return OkStatus();
  }
  BroadcastPlan plan;
  if (!plan.Build({&a.shape, &b.shape}, out.shape)) {
    return KernelError(ctx, "cannot broadcast " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape));
  }
  const A* pa = a.as<A>();
  const B* pb = b.as<B>();
  O* po = out.as<O>();
  // A row (a per-channel vector such as PRELU's alpha) against a whole tensor
  // whose rows are short: one run per row would spend more on each run's
  // setup than on its elements, so the row is repeated to a long run.
  if (RepeatedShortRowRuns(ctx, plan, kShortRow, pa, pb, [&](const A* ra, const B* rb, int64_t at, int64_t n) {
        BinaryRun(ra, 1, rb, 1, po + at, n, op);
      })) {
    return OkStatus();
  }
  ForEachBinaryRun(ctx, plan, [&](int64_t oa, int64_t sa, int64_t ob, int64_t sb, int64_t oo, int64_t n) {
    BinaryRun(pa + oa, sa, pb + ob, sb, po + oo, n, op);
  });
  return OkStatus();
}

}  // namespace gld::cpu
