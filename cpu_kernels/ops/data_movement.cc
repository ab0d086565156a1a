// Ops that move elements without arithmetic, as strided copies: TRANSPOSE,
// SLICE, STRIDED_SLICE, REVERSE_V2, BROADCAST_TO, TILE; SHAPE and RANGE.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

// Ranks CopyStrided counts rows over (its index array's size).
constexpr size_t kMaxCopyRank = 16;

// dst (row-major over out_shape) = src[start + sum_d i_d * strides[d]];
// strides in elements, may be negative or zero.
void CopyStrided(const KernelContext& ctx, const uint8_t* src, int64_t start, const std::vector<int64_t>& strides,
                 const Shape& out_shape, uint8_t* dst, size_t es) {
  const int64_t total = NumElements(out_shape);
  if (total == 0) return;
  const size_t rank = out_shape.size();
  if (rank == 0) {
    std::memcpy(dst, src + start * static_cast<int64_t>(es), es);
    return;
  }
  if (rank > kMaxCopyRank) {
    // Ranks beyond the row counters' array: one element at a time.
    for (int64_t i = 0; i < total; ++i) {
      int64_t rem = i, off = start;
      for (size_t d = rank; d-- > 0;) {
        off += (rem % out_shape[d]) * strides[d];
        rem /= out_shape[d];
      }
      std::memcpy(dst + i * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es), es);
    }
    return;
  }
  const int64_t inner = out_shape[rank - 1];
  const int64_t istride = strides[rank - 1];
  const int64_t rows = total / inner;
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    // The row's index over the outer dimensions, divided out once per chunk
    // and then counted up (a division per dimension and row cost more than
    // the copy of a 32-value row: attention's head transposes).
    int64_t idx[kMaxCopyRank] = {};
    int64_t off = start;
    {
      int64_t rem = b;
      for (size_t d = rank - 1; d-- > 0;) {
        idx[d] = rem % out_shape[d];
        rem /= out_shape[d];
        off += idx[d] * strides[d];
      }
    }
    for (int64_t r = b; r < e; ++r) {
      if (r > b) {
        for (size_t d = rank - 1; d-- > 0;) {
          off += strides[d];
          if (++idx[d] < out_shape[d]) break;
          off -= idx[d] * strides[d];
          idx[d] = 0;
        }
      }
      uint8_t* o = dst + r * inner * static_cast<int64_t>(es);
      if (istride == 1) {
        CopyBytes(o, src + off * static_cast<int64_t>(es), inner * static_cast<int64_t>(es));
      } else if (es == 4) {
        const uint32_t* s = reinterpret_cast<const uint32_t*>(src) + off;
        uint32_t* d = reinterpret_cast<uint32_t*>(o);
        for (int64_t i = 0; i < inner; ++i) d[i] = s[i * istride];
      } else {
        for (int64_t i = 0; i < inner; ++i) {
          std::memcpy(o + i * static_cast<int64_t>(es), src + (off + i * istride) * static_cast<int64_t>(es), es);
        }
      }
    }
  });
}

// o[r * o_stride + c] = s[r + c * s_stride]: a tile element by element.
template <typename T>
void TransposeTileElements(const T* s, int64_t s_stride, T* o, int64_t o_stride, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) o[r * o_stride + c] = s[r + c * s_stride];
  }
}

typedef uint8_t Uint8x16 __attribute__((vector_size(16)));

// TransposeWords for bytes: 16 x 16 blocks as sixteen 16-byte loads, four
// rounds of the same byte interleave (row i with row i + 8: after four, the
// block is transposed) and sixteen stores; the edges element by element.
GLD_MULTIVERSION void TransposeTileBytes(const uint8_t* s, int64_t s_stride, uint8_t* o, int64_t o_stride, int64_t rows,
                                         int64_t cols) {
  if (rows == 16 && cols == 16) {
    Uint8x16 v[16], t[16];
    for (int j = 0; j < 16; ++j) std::memcpy(&v[j], s + j * s_stride, sizeof(Uint8x16));
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 8; ++i) {
        t[2 * i] = __builtin_shufflevector(v[i], v[i + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        t[2 * i + 1] =
            __builtin_shufflevector(v[i], v[i + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      }
      for (int i = 0; i < 16; ++i) v[i] = t[i];
    }
    for (int i = 0; i < 16; ++i) std::memcpy(o + i * o_stride, &v[i], sizeof(Uint8x16));
    return;
  }
  TransposeTileElements(s, s_stride, o, o_stride, rows, cols);
}

void TransposeTileOf(const uint32_t* s, int64_t s_stride, uint32_t* o, int64_t o_stride, int64_t rows, int64_t cols) {
  TransposeWords(s, s_stride, o, o_stride, rows, cols);
}
void TransposeTileOf(const uint8_t* s, int64_t s_stride, uint8_t* o, int64_t o_stride, int64_t rows, int64_t cols) {
  TransposeTileBytes(s, s_stride, o, o_stride, rows, cols);
}
// Elements of 8 and 16 bytes: a run of two or four floats that stays whole
// (MobileViT's unfold into 2 x 2 patches), element by element within a tile.
struct Bytes16 {
  uint64_t lo, hi;
};
void TransposeTileOf(const uint64_t* s, int64_t s_stride, uint64_t* o, int64_t o_stride, int64_t rows, int64_t cols) {
  TransposeTileElements(s, s_stride, o, o_stride, rows, cols);
}
void TransposeTileOf(const Bytes16* s, int64_t s_stride, Bytes16* o, int64_t o_stride, int64_t rows, int64_t cols) {
  TransposeTileElements(s, s_stride, o, o_stride, rows, cols);
}

// The same strided copy over fewer dimensions: unit dimensions dropped, and
// output dimensions d, d + 1 merged where the input steps over them as one
// (strides[d] == strides[d + 1] * shape[d + 1]). A converter's NCHW -> NHWC
// TRANSPOSE of [1, 3, 64, 64] becomes a [4096, 3] transpose of a [3, 4096]
// matrix, whose rows are long, instead of 64 x 64 short ones.
void CoalesceStridedDims(Shape* shape, std::vector<int64_t>* strides) {
  Shape s;
  std::vector<int64_t> st;
  for (size_t d = 0; d < shape->size(); ++d) {
    const int64_t n = (*shape)[d], stride = (*strides)[d];
    if (n == 1) continue;
    if (!s.empty() && st.back() == stride * n) {
      s.back() *= n;
      st.back() = stride;
      continue;
    }
    s.push_back(n);
    st.push_back(stride);
  }
  if (s.empty()) {
    s.push_back(1);
    st.push_back(1);
  }
  *shape = std::move(s);
  *strides = std::move(st);
}

// out[r * o_stride + c] = s[r + c * s_stride] for c < C: the transpose of a
// few long input rows (a C-channel plane image into C-channel pixels), the
// channel count a constant so that the compiler unrolls and vectorizes it.
template <int C, typename T>
void InterleaveRows(const T* s, int64_t s_stride, T* o, int64_t o_stride, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int c = 0; c < C; ++c) o[r * o_stride + c] = s[r + c * s_stride];
  }
}

typedef uint32_t Uint32x4 __attribute__((vector_size(16)));

// InterleaveRows of three planes of words into packed three-word pixels (an
// RGB image's NCHW -> NHWC, the first node of a converted PyTorch CNN):
// four pixels from three 16-byte loads, four shuffles and three stores (SSE
// or NEON), where the element loop stores one word a cycle.
GLD_MULTIVERSION void InterleaveThreeWords(const uint32_t* s, int64_t s_stride, uint32_t* o, int64_t rows) {
  const uint32_t* p0 = s;
  const uint32_t* p1 = s + s_stride;
  const uint32_t* p2 = s + 2 * s_stride;
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    Uint32x4 a, b, c;
    std::memcpy(&a, p0 + r, sizeof(a));
    std::memcpy(&b, p1 + r, sizeof(b));
    std::memcpy(&c, p2 + r, sizeof(c));
    const Uint32x4 ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);  // a0 b0 a1 b1
    const Uint32x4 ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);  // a2 b2 a3 b3
    const Uint32x4 mid = __builtin_shufflevector(ab_lo, ab_hi, 3, 4, 5, 0);  // b1 a2 b2 -
    const Uint32x4 v0 = __builtin_shufflevector(ab_lo, c, 0, 1, 4, 2);  // a0 b0 c0 a1
    const Uint32x4 v1 = __builtin_shufflevector(mid, c, 0, 5, 1, 2);  // b1 c1 a2 b2
    const Uint32x4 v2 = __builtin_shufflevector(ab_hi, c, 6, 2, 3, 7);  // c2 a3 b3 c3
    std::memcpy(o + 3 * r, &v0, sizeof(v0));
    std::memcpy(o + 3 * r + 4, &v1, sizeof(v1));
    std::memcpy(o + 3 * r + 8, &v2, sizeof(v2));
  }
  for (; r < rows; ++r) {
    o[3 * r] = p0[r];
    o[3 * r + 1] = p1[r];
    o[3 * r + 2] = p2[r];
  }
}

// out[r * o_stride + c] = s[r + c * R] for r < R: the other way round (C-channel
// pixels into C planes, R the channel count).
template <int R, typename T>
void DeinterleaveRows(const T* s, T* o, int64_t o_stride, int64_t cols) {
  for (int r = 0; r < R; ++r) {
    for (int64_t c = 0; c < cols; ++c) o[r * o_stride + c] = s[r + c * R];
  }
}

// The TRANSPOSE of TransposeTiled whose read or write side has at most four
// values in a row (the converter's image transposes of 1-4 channels), as
// InterleaveRows / DeinterleaveRows over chunks of a row; false otherwise.
// outer_offsets(o, &in_off, &out_off): where outer index o starts.
template <typename T, typename OuterOffsets>
bool TransposeFewChannels(const KernelContext& ctx, const T* src, int64_t rows, int64_t cols, int64_t col_stride,
                          int64_t row_out_stride, int64_t outer, const OuterOffsets& outer_offsets, T* dst) {
  const bool interleave = cols <= 4 && row_out_stride == cols;
  const bool deinterleave = rows <= 4 && col_stride == rows;
  if (!interleave && !deinterleave) return false;
  constexpr int64_t kChunk = 1024;
  const int64_t length = interleave ? rows : cols;
  const int64_t chunks = (length + kChunk - 1) / kChunk;
  ParallelForGrain(ctx, outer * chunks, std::max<int64_t>(1, 16 / std::max<int64_t>(interleave ? cols : rows, 1)),
                   [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t i0 = (item % chunks) * kChunk, n = std::min(length, i0 + kChunk) - i0;
      int64_t in_off = 0, out_off = 0;
      outer_offsets(item / chunks, &in_off, &out_off);
      const T* s = src + in_off;
      T* d = dst + out_off;
      if (interleave) {
        s += i0;
        d += i0 * row_out_stride;
        switch (cols) {
          case 1: InterleaveRows<1>(s, col_stride, d, row_out_stride, n); break;
          case 2: InterleaveRows<2>(s, col_stride, d, row_out_stride, n); break;
          case 3:
            if constexpr (std::is_same_v<T, uint32_t>) {
              InterleaveThreeWords(s, col_stride, d, n);  // row_out_stride == cols == 3
            } else {
              InterleaveRows<3>(s, col_stride, d, row_out_stride, n);
            }
            break;
          default: InterleaveRows<4>(s, col_stride, d, row_out_stride, n); break;
        }
      } else {
        s += i0 * col_stride;
        d += i0;
        switch (rows) {
          case 1: DeinterleaveRows<1>(s, d, row_out_stride, n); break;
          case 2: DeinterleaveRows<2>(s, d, row_out_stride, n); break;
          case 3: DeinterleaveRows<3>(s, d, row_out_stride, n); break;
          default: DeinterleaveRows<4>(s, d, row_out_stride, n); break;
        }
      }
    }
  });
  return true;
}

// A TRANSPOSE of 4-byte or 1-byte elements (T) whose output's last
// dimension is not the input's: output dimension p is read along the input's last (stride 1),
// the output's last with stride strides[rank - 1]. Runs tiles of 16 x 16
// (rows of p by columns of the last) so that both the reads and the writes
// stay on a few cache lines, instead of one strided gather per output row
// (attention's [1, 2, 128, 128] swap of the last two: 33 -> 6 us). False
// for other shapes.
template <typename T>
bool TransposeTiled(const KernelContext& ctx, const T* src, const std::vector<int64_t>& strides, const Shape& out_shape,
                    T* dst) {
  const size_t rank = out_shape.size();
  if (rank < 2 || strides[rank - 1] == 1) return false;
  size_t p = rank;
  for (size_t d = 0; d + 1 < rank; ++d) {
    if (strides[d] == 1 && out_shape[d] > 1) p = d;
  }
  if (p == rank) return false;
  constexpr int64_t kTile = 16;
  const int64_t cols = out_shape[rank - 1], rows = out_shape[p];
  const int64_t col_stride = strides[rank - 1];
  const std::vector<int64_t> out_strides = Strides(out_shape);
  const int64_t row_out_stride = out_strides[p];
  // Every other output dimension is an outer index.
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < rank; ++d) {
    if (d != p) outer *= out_shape[d];
  }
  // Where outer index o (over every output dimension but p and the last) starts.
  auto outer_offsets = [&](int64_t o, int64_t* in_off, int64_t* out_off) {
    for (size_t d = rank - 1; d-- > 0;) {
      if (d == p) continue;
      const int64_t i = o % out_shape[d];
      o /= out_shape[d];
      *in_off += i * strides[d];
      *out_off += i * out_strides[d];
    }
  };
  if (TransposeFewChannels(ctx, src, rows, cols, col_stride, row_out_stride, outer, outer_offsets, dst)) return true;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t items = outer * row_tiles;
  ParallelForGrain(ctx, items, std::max<int64_t>(1, 16384 / (kTile * std::max<int64_t>(cols, 1))),
                   [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      int64_t in_off = 0, out_off = 0;
      outer_offsets(item / row_tiles, &in_off, &out_off);
      const int64_t r0 = (item % row_tiles) * kTile, r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        TransposeTileOf(src + in_off + r0 + c0 * col_stride, col_stride, dst + out_off + r0 * row_out_stride + c0,
                        row_out_stride, r1 - r0, c1 - c0);
      }
    }
  });
  return true;
}

Status CheckTypeMatch(const KernelContext& ctx, const TensorData& in, const TensorData& out) {
  if (in.type != out.type) {
    return KernelError(ctx, std::string("input type ") + DataTypeName(in.type) + " != output type " +
                                DataTypeName(out.type));
  }
  return OkStatus();
}

}  // namespace

// A TRANSPOSE's coalesced output dims and their input strides (KeptPlan:
// from its first run when its perm is a constant).
struct TransposePlanState final : KernelState {
  Shape shape;
  std::vector<int64_t> strides;
  // When the last dimension stays last and holds 8 or 16 bytes: the same
  // transpose of those runs as single elements (wide_bytes; 0 otherwise),
  // the last dimension dropped, the strides counted in runs.
  size_t wide_bytes = 0;
  Shape wide_shape;
  std::vector<int64_t> wide_strides;
};

Status MakeTransposePlan(const KernelContext& ctx, const TensorData& in, const TensorData& out, Shape* shape,
                         std::vector<int64_t>* strides) {
  std::vector<int64_t> perm;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "perm", &perm));
  const size_t rank = in.shape.size();
  if (perm.size() != rank || out.shape.size() != rank) {
    return KernelError(ctx, "perm of " + std::to_string(perm.size()) + " values for input " + ShapeToString(in.shape));
  }
  const std::vector<int64_t> is = Strides(in.shape);
  strides->assign(rank, 0);
  std::vector<bool> seen(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    int32_t p = 0;
    if (!NormalizeAxis(perm[d], static_cast<int64_t>(rank), &p) || seen[static_cast<size_t>(p)] ||
        out.shape[d] != in.shape[static_cast<size_t>(p)]) {
      return KernelError(ctx, "invalid perm for input " + ShapeToString(in.shape) + " and output " +
                                  ShapeToString(out.shape));
    }
    seen[static_cast<size_t>(p)] = true;
    (*strides)[d] = is[static_cast<size_t>(p)];
  }
  *shape = out.shape;
  CoalesceStridedDims(shape, strides);
  return OkStatus();
}

// TransposePlanState's wide view of a plan (the input's innermost run of
// `run` elements is every other dimension's stride unit).
void MakeWideTranspose(TransposePlanState* plan, size_t element_bytes) {
  const size_t rank = plan->shape.size();
  if (rank < 3 || plan->strides[rank - 1] != 1) return;
  const int64_t run = plan->shape[rank - 1];
  const size_t bytes = static_cast<size_t>(run) * element_bytes;
  if (bytes != 8 && bytes != 16) return;
  for (size_t d = 0; d + 1 < rank; ++d) {
    if (plan->strides[d] % run != 0) return;
  }
  plan->wide_bytes = bytes;
  plan->wide_shape.assign(plan->shape.begin(), plan->shape.end() - 1);
  plan->wide_strides.resize(rank - 1);
  for (size_t d = 0; d + 1 < rank; ++d) plan->wide_strides[d] = plan->strides[d] / run;
}

Status RunTranspose(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  TransposePlanState own;
  GLD_ASSIGN_OR_RETURN(const TransposePlanState* kept, KeptPlan(ctx, 1, &own, [&](TransposePlanState* plan) {
                         GLD_RETURN_IF_ERROR(MakeTransposePlan(ctx, in, out, &plan->shape, &plan->strides));
                         MakeWideTranspose(plan, DataTypeSize(in.type));
                         return OkStatus();
                       }));
  const Shape& shape = kept->shape;
  const std::vector<int64_t>& strides = kept->strides;
  if (kept->wide_bytes == 8 &&
      TransposeTiled(ctx, static_cast<const uint64_t*>(in.data), kept->wide_strides, kept->wide_shape,
                     static_cast<uint64_t*>(out.data))) {
    return OkStatus();
  }
  if (kept->wide_bytes == 16 &&
      TransposeTiled(ctx, static_cast<const Bytes16*>(in.data), kept->wide_strides, kept->wide_shape,
                     static_cast<Bytes16*>(out.data))) {
    return OkStatus();
  }
  if (DataTypeSize(in.type) == 4 &&
      TransposeTiled(ctx, static_cast<const uint32_t*>(in.data), strides, shape, static_cast<uint32_t*>(out.data))) {
    return OkStatus();
  }
  if (DataTypeSize(in.type) == 1 &&
      TransposeTiled(ctx, static_cast<const uint8_t*>(in.data), strides, shape, static_cast<uint8_t*>(out.data))) {
    return OkStatus();
  }
  CopyStrided(ctx, static_cast<const uint8_t*>(in.data), 0, strides, shape, static_cast<uint8_t*>(out.data),
              DataTypeSize(in.type));
  return OkStatus();
}

Status RunSlice(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  std::vector<int64_t> begin, size;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "begin", &begin));
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[2], "size", &size));
  const size_t rank = in.shape.size();
  if (begin.size() != rank || size.size() != rank || out.shape.size() != rank) {
    return KernelError(ctx, "begin/size do not match input rank " + std::to_string(rank));
  }
  const std::vector<int64_t> is = Strides(in.shape);
  int64_t start = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = size[d] == -1 ? in.shape[d] - begin[d] : size[d];
    if (begin[d] < 0 || n < 0 || begin[d] + n > in.shape[d] || n != out.shape[d]) {
      return KernelError(ctx, "slice out of bounds in dimension " + std::to_string(d) + " of " + ShapeToString(in.shape));
    }
    start += begin[d] * is[d];
  }
  CopyStrided(ctx, static_cast<const uint8_t*>(in.data), start, is, out.shape, static_cast<uint8_t*>(out.data),
              DataTypeSize(in.type));
  return OkStatus();
}

namespace {

// A strided slice as a strided copy: the first element and, per output
// dimension, the count and the step (in elements) through the input.
struct StridedCopy {
  int64_t start = 0;
  Shape counts;
  std::vector<int64_t> steps;
};

Status PlanStridedSlice(const KernelContext& ctx, StridedCopy* copy) {
  const StridedSliceAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[0];
  std::vector<int64_t> begin, end, strides;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "begin", &begin));
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[2], "end", &end));
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[3], "strides", &strides));
  StridedSliceSpec spec;
  std::string error;
  if (!ComputeStridedSlice(in.shape, begin, end, strides, *attrs, &spec, &error)) return KernelError(ctx, error);
  const TensorData& out = *ctx.outputs[0];
  if (spec.output_shape != out.shape) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " should be " + ShapeToString(spec.output_shape));
  }
  const std::vector<int64_t> is = Strides(in.shape);
  copy->start = 0;
  copy->counts.assign(in.shape.size(), 0);
  copy->steps.assign(in.shape.size(), 0);
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (spec.count[d] > 0) copy->start += spec.start[d] * is[d];
    copy->counts[d] = static_cast<int32_t>(spec.count[d]);
    copy->steps[d] = spec.stride[d] * is[d];
  }
  return OkStatus();
}

// The copy of a node whose begin, end and strides are constants, planned
// once for the input and output shapes it was prepared with.
struct StridedSliceState final : KernelState {
  Shape in_shape, out_shape;
  StridedCopy copy;
};

}  // namespace

Status PrepareStridedSlice(KernelContext& ctx) {
  // Anything amiss is left for the run to report.
  if (ctx.state == nullptr || ctx.inputs.size() != 4 || ctx.outputs.size() != 1 || ctx.inputs[0] == nullptr ||
      ctx.outputs[0] == nullptr || !ctx.InputIsConstant(1) || !ctx.InputIsConstant(2) || !ctx.InputIsConstant(3)) {
    return OkStatus();
  }
  auto state = std::make_unique<StridedSliceState>();
  if (!PlanStridedSlice(ctx, &state->copy).ok()) return OkStatus();
  state->in_shape = ctx.inputs[0]->shape;
  state->out_shape = ctx.outputs[0]->shape;
  *ctx.state = std::move(state);
  return OkStatus();
}

Status RunStridedSlice(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 4, 4, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  const auto* state = StateAs<const StridedSliceState>(ctx);
  StridedCopy planned;
  const StridedCopy* copy = &planned;
  if (state != nullptr && state->in_shape == in.shape && state->out_shape == out.shape) {
    copy = &state->copy;
  } else {
    GLD_RETURN_IF_ERROR(PlanStridedSlice(ctx, &planned));
  }
  CopyStrided(ctx, static_cast<const uint8_t*>(in.data), copy->start, copy->steps, copy->counts,
              static_cast<uint8_t*>(out.data), DataTypeSize(in.type));
  return OkStatus();
}

Status RunReverseV2(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  if (in.shape != out.shape) return KernelError(ctx, "output shape differs from input shape");
  std::vector<int64_t> axes;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "axis", &axes));
  const size_t rank = in.shape.size();
  std::vector<int64_t> strides = Strides(in.shape);
  std::vector<bool> flip(rank, false);
  for (int64_t a : axes) {
    int32_t d = 0;
    if (!NormalizeAxis(a, static_cast<int64_t>(rank), &d)) {
      return KernelError(ctx, "axis " + std::to_string(a) + " out of range for " + ShapeToString(in.shape));
    }
    flip[static_cast<size_t>(d)] = true;
  }
  int64_t start = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (flip[d] && in.shape[d] > 0) {
      start += (in.shape[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  }
  CopyStrided(ctx, static_cast<const uint8_t*>(in.data), start, strides, out.shape, static_cast<uint8_t*>(out.data),
              DataTypeSize(in.type));
  return OkStatus();
}

Status RunBroadcastTo(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  Shape b;
  if (in.shape.size() > out.shape.size() || !BroadcastShapes(in.shape, out.shape, &b) || b != out.shape) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " does not broadcast to " + ShapeToString(out.shape));
  }
  const size_t rank = out.shape.size();
  const size_t lead = rank - in.shape.size();
  const std::vector<int64_t> is = Strides(in.shape);
  std::vector<int64_t> strides(rank, 0);
  for (size_t d = lead; d < rank; ++d) strides[d] = in.shape[d - lead] == 1 ? 0 : is[d - lead];
  CopyStrided(ctx, static_cast<const uint8_t*>(in.data), 0, strides, out.shape, static_cast<uint8_t*>(out.data),
              DataTypeSize(in.type));
  return OkStatus();
}

Status RunTile(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTypeMatch(ctx, in, out));
  std::vector<int64_t> mult;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "multiples", &mult));
  const size_t rank = in.shape.size();
  if (mult.size() != rank || out.shape.size() != rank) {
    return KernelError(ctx, "multiples do not match input rank " + std::to_string(rank));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (mult[d] < 0 || in.shape[d] * mult[d] != out.shape[d]) {
      return KernelError(ctx, "output " + ShapeToString(out.shape) + " is not input " + ShapeToString(in.shape) +
                                  " tiled by the multiples");
    }
  }
  const int64_t total = out.num_elements();
  if (total == 0) return OkStatus();
  if (rank == 0) {
    std::memcpy(out.data, in.data, DataTypeSize(in.type));
    return OkStatus();
  }
  // Row-wise: each output row (fixed outer indices) copies one input row
  // mult[last] times.
  const size_t es = DataTypeSize(in.type);
  const std::vector<int64_t> is = Strides(in.shape);
  const int64_t inner = in.shape[rank - 1];
  const int64_t out_inner = out.shape[rank - 1];
  const int64_t rows = total / out_inner;
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rem = r, off = 0;
    for (size_t d = rank - 1; d-- > 0;) {
      off += ((rem % out.shape[d]) % in.shape[d]) * is[d];
      rem /= out.shape[d];
    }
    for (int64_t m = 0; m < mult[rank - 1]; ++m) {
      std::memcpy(dst + (r * out_inner + m * inner) * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es),
                  static_cast<size_t>(inner) * es);
    }
  }
  return OkStatus();
}

namespace {
// RANGE's values: start, then start + delta added once per element (as
// TFLite accumulates), as many as shape inference counted.
template <typename T>
void RangeT(const KernelContext& ctx, TensorData& out) {
  const T start = *ctx.inputs[0]->as<T>();
  const T delta = *ctx.inputs[2]->as<T>();
  T* o = out.as<T>();
  T v = start;
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    o[i] = v;
    if constexpr (std::is_integral_v<T>) {  // wrapping, never undefined
      v = static_cast<T>(static_cast<std::make_unsigned_t<T>>(v) + static_cast<std::make_unsigned_t<T>>(delta));
    } else {
      v = v + delta;
    }
  }
}
}  // namespace

Status RunRange(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  TensorData& out = *ctx.outputs[0];
  for (size_t i = 0; i < 3; ++i) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[i], out.type, "start, limit and delta"));
    if (ctx.inputs[i]->num_elements() != 1) return KernelError(ctx, "start, limit and delta must be scalars");
  }
  // The count the values give (as shape inference counts it): a shape the
  // file fixed for values not known before the run must hold it.
  double count = 0;
  if (out.type == DataType::kFloat32) {
    const float st = *ctx.inputs[0]->as<float>(), li = *ctx.inputs[1]->as<float>(), de = *ctx.inputs[2]->as<float>();
    if (!std::isfinite(st) || !std::isfinite(li) || !std::isfinite(de) || de == 0.0f) {
      return KernelError(ctx, "start " + std::to_string(st) + ", limit " + std::to_string(li) + " and delta " +
                                  std::to_string(de) + " give no count of values (each must be finite, delta not 0)");
    }
    count = std::ceil(std::fabs((li - st) / de));
  } else {
    std::vector<int64_t> v[3];
    for (size_t i = 0; i < 3; ++i) GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[i], "start, limit and delta", &v[i]));
    const double span = std::fabs(static_cast<double>(v[1][0]) - static_cast<double>(v[0][0]));
    const double step = std::fabs(static_cast<double>(v[2][0]));
    count = std::floor((span + step - 1) / step);
  }
  if (count != static_cast<double>(out.num_elements())) {
    return KernelError(ctx, "start, limit and delta give " + std::to_string(static_cast<int64_t>(count)) +
                                " values in this run, but the output holds " + ShapeToString(out.shape));
  }
  switch (out.type) {
    case DataType::kFloat32: RangeT<float>(ctx, out); break;
    case DataType::kInt32: RangeT<int32_t>(ctx, out); break;
    case DataType::kInt64: RangeT<int64_t>(ctx, out); break;
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(out.type) + " is not supported");
  }
  return OkStatus();
}

Status RunShape(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (out.num_elements() != static_cast<int64_t>(in.shape.size())) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " cannot hold rank " + std::to_string(in.shape.size()));
  }
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (out.type == DataType::kInt32) {
      out.as<int32_t>()[d] = in.shape[d];
    } else if (out.type == DataType::kInt64) {
      out.as<int64_t>()[d] = in.shape[d];
    } else {
      return KernelError(ctx, std::string("output must be int32 or int64, got ") + DataTypeName(out.type));
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
