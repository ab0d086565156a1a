// Ops whose outputs are chosen, ordered or counted elements of their input:
// TOPK_V2, UNIQUE, WHERE, BUCKETIZE, NON_MAX_SUPPRESSION_V4 / V5, with
// TFLite's semantics. UNIQUE and WHERE size their value-sized output
// through KernelContext::SizeOutput once they have counted.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {

// ---- TOPK_V2: the k largest of each last-axis row, largest first; equal
// values keep their order (the lower index first), as TFLite's TopContainer.
template <typename T>
void TopkRows(const TensorData& in, int32_t k, T* values, int32_t* indices) {
  const int64_t n = in.shape.back();
  const int64_t rows = n > 0 ? in.num_elements() / n : 0;
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = in.as<T>() + r * n;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [x](int32_t a, int32_t b) {
      return x[a] > x[b] || (x[a] == x[b] && a < b);
    });
    for (int32_t i = 0; i < k; ++i) {
      values[r * k + i] = x[order[static_cast<size_t>(i)]];
      indices[r * k + i] = order[static_cast<size_t>(i)];
    }
  }
}

// ---- UNIQUE: distinct values in order of first appearance, and for each
// element the position of its value among them.
template <typename T, typename I>
Status UniqueT(KernelContext& ctx) {
  const TensorData& in = *ctx.inputs[0];
  const T* x = in.as<T>();
  const int64_t n = in.num_elements();
  std::vector<T> distinct;
  std::vector<I> idx(static_cast<size_t>(n));
  std::unordered_map<T, I> seen;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, fresh] = seen.emplace(x[i], static_cast<I>(distinct.size()));
    if (fresh) distinct.push_back(x[i]);
    idx[static_cast<size_t>(i)] = it->second;
  }
  GLD_RETURN_IF_ERROR(ctx.SizeOutput(0, {static_cast<int32_t>(distinct.size())}));
  if (!distinct.empty()) std::memcpy(ctx.outputs[0]->data, distinct.data(), distinct.size() * sizeof(T));
  if (n > 0) std::memcpy(ctx.outputs[1]->data, idx.data(), idx.size() * sizeof(I));
  return OkStatus();
}

template <typename T>
Status UniqueIndex(KernelContext& ctx) {
  if (ctx.outputs[1]->type == DataType::kInt64) return UniqueT<T, int64_t>(ctx);
  if (ctx.outputs[1]->type == DataType::kInt32) return UniqueT<T, int32_t>(ctx);
  return KernelError(ctx, std::string("index output must be int32 or int64, got ") +
                              DataTypeName(ctx.outputs[1]->type));
}

// ---- WHERE: the coordinates of the non-zero (true) elements, row-major.
template <typename T>
Status WhereT(KernelContext& ctx) {
  const TensorData& in = *ctx.inputs[0];
  const T* x = in.as<T>();
  const int64_t n = in.num_elements();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += x[i] != T(0) ? 1 : 0;
  const auto rank = static_cast<int32_t>(in.shape.size());
  GLD_RETURN_IF_ERROR(ctx.SizeOutput(0, {static_cast<int32_t>(count), rank}));
  int64_t* out = ctx.outputs[0]->as<int64_t>();
  const std::vector<int64_t> strides = Strides(in.shape);
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] == T(0)) continue;
    int64_t rem = i;
    for (int32_t d = 0; d < rank; ++d) {
      *out++ = rem / strides[static_cast<size_t>(d)];
      rem %= strides[static_cast<size_t>(d)];
    }
  }
  return OkStatus();
}

// ---- BUCKETIZE: the number of boundaries at or below each value.
template <typename T>
void BucketizeT(const TensorData& in, const std::vector<float>& boundaries, int32_t* out) {
  const T* x = in.as<T>();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const auto v = static_cast<double>(x[i]);
    out[i] = static_cast<int32_t>(
        std::upper_bound(boundaries.begin(), boundaries.end(), v,
                         [](double value, float b) { return value < static_cast<double>(b); }) -
        boundaries.begin());
  }
}

// ---- NON_MAX_SUPPRESSION: greedy selection by score, boxes [y1, x1, y2,
// x2] in any corner order; V5's soft suppression scales a candidate's score
// by exp(-0.5 iou^2 / sigma) for each selected box it overlaps below the
// IoU threshold, and puts it back in the queue while it stays above the
// score threshold (TFLite's reference kernel, after TensorFlow's).
float Iou(const float* boxes, int32_t i, int32_t j) {
  const float* a = boxes + 4 * static_cast<int64_t>(i);
  const float* b = boxes + 4 * static_cast<int64_t>(j);
  const float ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]);
  const float ax0 = std::min(a[1], a[3]), ax1 = std::max(a[1], a[3]);
  const float by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]);
  const float bx0 = std::min(b[1], b[3]), bx1 = std::max(b[1], b[3]);
  const float area_a = (ay1 - ay0) * (ax1 - ax0);
  const float area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0.f || area_b <= 0.f) return 0.f;
  const float ih = std::max(std::min(ay1, by1) - std::max(ay0, by0), 0.f);
  const float iw = std::max(std::min(ax1, bx1) - std::max(ax0, bx0), 0.f);
  const float inter = ih * iw;
  const float uni = area_a + area_b - inter;
  return uni == 0.f ? 0.f : inter / uni;
}

struct Candidate {
  int32_t index;
  float score;
  int32_t suppress_begin;
  bool operator<(const Candidate& o) const { return score < o.score; }
};

Status RunNonMaxSuppression(KernelContext& ctx, bool soft) {
  const size_t n_in = soft ? 6 : 5;
  GLD_RETURN_IF_ERROR(CheckIo(ctx, n_in, n_in, soft ? 3 : 2));
  for (size_t i : {size_t{0}, size_t{1}, size_t{3}, size_t{4}}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[i], DataType::kFloat32, "boxes, scores and thresholds"));
  }
  if (soft) GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.inputs[5], DataType::kFloat32, "soft_nms_sigma"));
  const TensorData& boxes = *ctx.inputs[0];
  const float* scores = ctx.inputs[1]->as<float>();
  const auto num_boxes = static_cast<int32_t>(boxes.shape[0]);
  const int32_t max_out = *ctx.inputs[2]->as<int32_t>();
  const float iou_threshold = *ctx.inputs[3]->as<float>();
  const float score_threshold = *ctx.inputs[4]->as<float>();
  const float sigma = soft ? *ctx.inputs[5]->as<float>() : 0.f;
  if (max_out < 0) return KernelError(ctx, "max_output_size " + std::to_string(max_out) + " is negative");
  TensorData& selected = *ctx.outputs[0];
  if (selected.num_elements() != max_out) {
    return KernelError(ctx, "selected_indices " + ShapeToString(selected.shape) + " does not hold max_output_size " +
                                std::to_string(max_out));
  }
  std::priority_queue<Candidate> queue;
  for (int32_t i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  }
  int32_t* sel = selected.as<int32_t>();
  float* sel_scores = soft ? ctx.outputs[1]->as<float>() : nullptr;
  const int32_t limit = std::min(static_cast<int32_t>(queue.size()), max_out);
  const float scale = sigma > 0.f ? -0.5f / sigma : 0.f;
  int32_t count = 0;
  while (count < limit && !queue.empty()) {
    Candidate c = queue.top();
    const float original = c.score;
    queue.pop();
    bool hard = false;
    for (int32_t j = count - 1; j >= c.suppress_begin; --j) {
      const float iou = Iou(boxes.as<float>(), c.index, sel[j]);
      if (iou >= iou_threshold) {
        hard = true;
        break;
      }
      if (sigma > 0.f) c.score = c.score * std::exp(scale * iou * iou);
      if (c.score <= score_threshold) break;
    }
    c.suppress_begin = count;
    if (hard) continue;
    if (c.score == original) {
      sel[count] = c.index;
      if (sel_scores != nullptr) sel_scores[count] = c.score;
      ++count;
    }
    if (c.score > score_threshold) queue.push(c);
  }
  for (int32_t i = count; i < max_out; ++i) {
    sel[i] = 0;
    if (sel_scores != nullptr) sel_scores[i] = 0.f;
  }
  *ctx.outputs[soft ? 2 : 1]->as<int32_t>() = count;
  return OkStatus();
}

}  // namespace

Status RunTopkV2(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 2));
  const TensorData& in = *ctx.inputs[0];
  TensorData& values = *ctx.outputs[0];
  TensorData& indices = *ctx.outputs[1];
  if (in.shape.empty()) return KernelError(ctx, "input must have at least one dimension");
  const int32_t k = values.shape.empty() ? 0 : values.shape.back();
  Shape want = in.shape;
  want.back() = k;
  if (values.shape != want || indices.shape != want || values.type != in.type ||
      indices.type != DataType::kInt32 || *ctx.inputs[1]->as<int32_t>() != k) {
    return KernelError(ctx, "outputs " + ShapeToString(values.shape) + " / " + ShapeToString(indices.shape) +
                                " do not hold the top k of " + ShapeToString(in.shape));
  }
  int32_t* idx = indices.as<int32_t>();
  switch (in.type) {
    case DataType::kFloat32: TopkRows(in, k, values.as<float>(), idx); break;
    case DataType::kInt32: TopkRows(in, k, values.as<int32_t>(), idx); break;
    case DataType::kInt64: TopkRows(in, k, values.as<int64_t>(), idx); break;
    case DataType::kInt8: TopkRows(in, k, values.as<int8_t>(), idx); break;
    case DataType::kUInt8: TopkRows(in, k, values.as<uint8_t>(), idx); break;
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(in.type) + " is not supported");
  }
  return OkStatus();
}

Status RunUnique(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 2, /*sized_by_kernel=*/0));
  if (ctx.inputs[0]->shape.size() != 1 || ctx.outputs[1]->shape != ctx.inputs[0]->shape) {
    return KernelError(ctx, "input must be 1-D and the index output of its shape, got " +
                                ShapeToString(ctx.inputs[0]->shape) + " and " + ShapeToString(ctx.outputs[1]->shape));
  }
  switch (ctx.inputs[0]->type) {
    case DataType::kFloat32: return UniqueIndex<float>(ctx);
    case DataType::kInt32: return UniqueIndex<int32_t>(ctx);
    case DataType::kInt64: return UniqueIndex<int64_t>(ctx);
    case DataType::kInt16: return UniqueIndex<int16_t>(ctx);
    case DataType::kInt8: return UniqueIndex<int8_t>(ctx);
    case DataType::kUInt8: return UniqueIndex<uint8_t>(ctx);
    default:
      return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(ctx.inputs[0]->type) + " is not supported");
  }
}

Status RunWhere(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1, /*sized_by_kernel=*/0));
  if (ctx.outputs[0]->type != DataType::kInt64) return KernelError(ctx, "output must be int64");
  switch (ctx.inputs[0]->type) {
    case DataType::kBool: return WhereT<bool>(ctx);
    case DataType::kFloat32: return WhereT<float>(ctx);
    case DataType::kInt32: return WhereT<int32_t>(ctx);
    case DataType::kInt64: return WhereT<int64_t>(ctx);
    case DataType::kInt8: return WhereT<int8_t>(ctx);
    case DataType::kUInt8: return WhereT<uint8_t>(ctx);
    default:
      return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(ctx.inputs[0]->type) + " is not supported");
  }
}

Status RunBucketize(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const BucketizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (out.type != DataType::kInt32 || out.shape != in.shape) {
    return KernelError(ctx, "output must be int32 of the input's shape " + ShapeToString(in.shape));
  }
  switch (in.type) {
    case DataType::kFloat32: BucketizeT<float>(in, a->boundaries, out.as<int32_t>()); break;
    case DataType::kInt32: BucketizeT<int32_t>(in, a->boundaries, out.as<int32_t>()); break;
    case DataType::kInt64: BucketizeT<int64_t>(in, a->boundaries, out.as<int32_t>()); break;
    default: return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(in.type) + " is not supported");
  }
  return OkStatus();
}

Status RunNonMaxSuppressionV4(KernelContext& ctx) { return RunNonMaxSuppression(ctx, false); }
Status RunNonMaxSuppressionV5(KernelContext& ctx) { return RunNonMaxSuppression(ctx, true); }

}  // namespace gld::cpu
