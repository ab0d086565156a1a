// PAD, PADV2 (constant value) and MIRROR_PAD (REFLECT / SYMMETRIC), any rank
// and element type. Paddings are input 1, shape [rank, 2], int32 or int64.
#include <algorithm>
#include <cstring>

#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {

Status ReadPaddings(const KernelContext& ctx, const TensorData& in, const TensorData& paddings,
                    std::vector<int64_t>* before, std::vector<int64_t>* after) {
  std::vector<int64_t> p;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, paddings, "paddings", &p));
  const size_t rank = in.shape.size();
  if (p.size() != rank * 2) {
    return KernelError(ctx, "paddings " + ShapeToString(paddings.shape) + " do not match input rank " +
                                std::to_string(rank));
  }
  before->resize(rank);
  after->resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    (*before)[d] = p[2 * d];
    (*after)[d] = p[2 * d + 1];
    if ((*before)[d] < 0 || (*after)[d] < 0) {
      return KernelError(ctx, "negative padding " + std::to_string(p[2 * d]) + ", " + std::to_string(p[2 * d + 1]) +
                                  " in dimension " + std::to_string(d));
    }
  }
  return OkStatus();
}

Status CheckPaddedShape(const KernelContext& ctx, const TensorData& in, const TensorData& out,
                        const std::vector<int64_t>& before, const std::vector<int64_t>& after) {
  bool ok = out.shape.size() == in.shape.size() && out.type == in.type;
  for (size_t d = 0; ok && d < in.shape.size(); ++d) ok = out.shape[d] == in.shape[d] + before[d] + after[d];
  if (!ok) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " " + DataTypeName(out.type) +
                                " does not match padded input " + ShapeToString(in.shape) + " " +
                                DataTypeName(in.type));
  }
  return OkStatus();
}

// Bytes of one element holding the pad value.
Status PadValueBytes(const KernelContext& ctx, const TensorData& in, std::vector<uint8_t>* value) {
  const size_t es = DataTypeSize(in.type);
  value->assign(es, 0);
  const TensorData* v = OptionalInput(ctx, 2);
  if (v != nullptr) {
    if (v->type != in.type || v->num_elements() < 1) {
      return KernelError(ctx, "constant value must be one " + std::string(DataTypeName(in.type)) + " element");
    }
    std::memcpy(value->data(), v->data, es);
    return OkStatus();
  }
  // Quantized integer tensors pad with the zero point (the real value 0).
  const Tensor* t = OutputTensor(ctx, 0);
  if (t != nullptr && !t->quant.zero_point.empty()) {
    const int64_t zp = t->quant.zero_point[0];
    if (in.type == DataType::kInt8) {
      (*value)[0] = static_cast<uint8_t>(static_cast<int8_t>(zp));
    } else if (in.type == DataType::kUInt8) {
      (*value)[0] = static_cast<uint8_t>(zp);
    } else if (in.type == DataType::kInt16) {
      const int16_t z = static_cast<int16_t>(zp);
      std::memcpy(value->data(), &z, sizeof(z));
    }
  }
  return OkStatus();
}

Status RunConstantPad(KernelContext& ctx, bool v2) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, v2 ? 3 : 2, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  std::vector<int64_t> before, after;
  GLD_RETURN_IF_ERROR(ReadPaddings(ctx, in, *ctx.inputs[1], &before, &after));
  GLD_RETURN_IF_ERROR(CheckPaddedShape(ctx, in, out, before, after));
  std::vector<uint8_t> value;
  GLD_RETURN_IF_ERROR(PadValueBytes(ctx, in, &value));
  const size_t es = value.size();
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  const bool zero = std::all_of(value.begin(), value.end(), [](uint8_t b) { return b == 0; });
  // count elements of the pad value at p: one memset where a byte repeats,
  // else the first element copied in doubling runs.
  auto fill = [&](uint8_t* p, int64_t count) {
    if (count <= 0) return;
    if (zero || es == 1) {
      std::memset(p, zero ? 0 : value[0], static_cast<size_t>(count) * es);
      return;
    }
    std::memcpy(p, value.data(), es);
    for (int64_t done = 1; done < count;) {
      const int64_t n = std::min(done, count - done);
      std::memcpy(p + done * static_cast<int64_t>(es), p, static_cast<size_t>(n) * es);
      done += n;
    }
  };
  if (in.shape.empty()) {
    std::memcpy(dst, in.data, es);
    return OkStatus();
  }
  if (out.num_elements() == 0) return OkStatus();
  // The trailing dimensions without padding are part of each row: the last
  // padded dimension times them (a channel-last image padded in H and W has
  // rows of W * C elements, not C). Without any padding the tensor is one row.
  Shape ishape = in.shape, oshape = out.shape;
  size_t rank = ishape.size();
  int64_t inner = 1;
  while (rank > 1 && before[rank - 1] == 0 && after[rank - 1] == 0) {
    inner *= ishape[rank - 1];
    --rank;
  }
  ishape.resize(rank);
  oshape.resize(rank);
  ishape[rank - 1] *= inner;
  oshape[rank - 1] *= inner;
  const int64_t lead = before[rank - 1] * inner, trail = after[rank - 1] * inner;
  // Each output row is written once, front to back: the pad value where the
  // row lies in the padding of an outer dimension, otherwise leading pad, the
  // input row, trailing pad. Row indices step like an odometer from the
  // chunk's first row.
  const int64_t ow = oshape[rank - 1], iw = ishape[rank - 1];
  const int64_t rows = out.num_elements() / ow;
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  const int64_t row_bytes = ow * static_cast<int64_t>(es);
  const int64_t ebytes = static_cast<int64_t>(es);
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, 16384 / row_bytes), [&](int64_t b, int64_t e) {
    std::vector<int64_t> index(rank - 1);
    int64_t rest = b;
    for (size_t d = rank - 1; d-- > 0;) {
      index[d] = rest % oshape[d];
      rest /= oshape[d];
    }
    for (int64_t r = b; r < e; ++r) {
      uint8_t* row = dst + r * row_bytes;
      bool inside = iw > 0;
      int64_t src_row = 0;
      for (size_t d = 0; d + 1 < rank && inside; ++d) {
        const int64_t i = index[d] - before[d];
        inside = i >= 0 && i < ishape[d];
        src_row = src_row * ishape[d] + i;
      }
      if (inside) {
        fill(row, lead);
        std::memcpy(row + lead * ebytes, src + src_row * iw * ebytes, static_cast<size_t>(iw) * es);
        fill(row + (lead + iw) * ebytes, trail);
      } else {
        fill(row, ow);
      }
      for (size_t d = rank - 1; d-- > 0;) {
        if (++index[d] < oshape[d]) break;
        index[d] = 0;
      }
    }
  });
  return OkStatus();
}

}  // namespace

Status RunPad(KernelContext& ctx) { return RunConstantPad(ctx, false); }
Status RunPadV2(KernelContext& ctx) { return RunConstantPad(ctx, true); }

Status RunMirrorPad(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  bool symmetric = false;
  if (const auto* a = std::get_if<MirrorPadAttributes>(&ctx.node->attributes)) symmetric = a->symmetric;
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  std::vector<int64_t> before, after;
  GLD_RETURN_IF_ERROR(ReadPaddings(ctx, in, *ctx.inputs[1], &before, &after));
  GLD_RETURN_IF_ERROR(CheckPaddedShape(ctx, in, out, before, after));
  const size_t rank = in.shape.size();
  // Source index along each dimension for every output index.
  std::vector<std::vector<int64_t>> map(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = in.shape[d];
    const int64_t limit = symmetric ? n : n - 1;
    if (before[d] > limit || after[d] > limit) {
      return KernelError(ctx, "padding " + std::to_string(std::max(before[d], after[d])) + " in dimension " +
                                  std::to_string(d) + " exceeds " + std::to_string(limit) + " for size " +
                                  std::to_string(n) + (symmetric ? " (SYMMETRIC)" : " (REFLECT)"));
    }
    map[d].resize(static_cast<size_t>(out.shape[d]));
    for (int64_t o = 0; o < out.shape[d]; ++o) {
      int64_t i = o - before[d];
      if (i < 0) i = symmetric ? -i - 1 : -i;
      if (i >= n) i = symmetric ? 2 * n - 1 - i : 2 * n - 2 - i;
      map[d][static_cast<size_t>(o)] = i;
    }
  }
  const size_t es = DataTypeSize(in.type);
  const std::vector<int64_t> istrides = Strides(in.shape);
  const int64_t total = out.num_elements();
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  ParallelForGrain(ctx, total, 16384, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t rem = o;
      int64_t off = 0;
      for (size_t d = rank; d-- > 0;) {
        const int64_t i = rem % out.shape[d];
        rem /= out.shape[d];
        off += map[d][static_cast<size_t>(i)] * istrides[d];
      }
      std::memcpy(dst + o * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es), es);
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
