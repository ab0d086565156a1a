// MediaPipe custom ops: MaxPoolingWithArgmax2D, MaxUnpooling2D,
// TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix
// (versions 1 and 2 where MediaPipe has both), with MediaPipe's semantics.
#include <cmath>
#include <limits>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/activation.h"

namespace gld::cpu {

namespace {

Status AllFloat(const KernelContext& ctx) {
  for (const TensorData* t : ctx.inputs) {
    if (t) GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "input"));
  }
  for (const TensorData* t : ctx.outputs) GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "output"));
  return OkStatus();
}

}  // namespace

// Outputs: max values (fused activation applied) and, per output element, the
// argmax position inside its window as float (ky * filter_w + kx + 0.1).
Status RunMaxPoolingWithArgmax2D(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 2));
  GLD_RETURN_IF_ERROR(AllFloat(ctx));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  TensorData& idx = *ctx.outputs[1];
  if (in.shape.size() != 4 || out.shape.size() != 4 || idx.shape != out.shape || out.shape[0] != in.shape[0] ||
      out.shape[3] != in.shape[3]) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and outputs " + ShapeToString(out.shape) + ", " +
                                ShapeToString(idx.shape) + " do not match");
  }
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckKernelGeometry(ctx, MakePoolGeometry(*a, in.shape, &geometry), geometry, out.shape));
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  float* yi = idx.as<float>();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t y0 = oy * a->stride_h - pad_t, x0 = ox * a->stride_w - pad_l;
        const int64_t ky0 = std::max<int64_t>(0, -y0), ky1 = std::min<int64_t>(a->filter_h, ih - y0);
        const int64_t kx0 = std::max<int64_t>(0, -x0), kx1 = std::min<int64_t>(a->filter_w, iw - x0);
        for (int64_t c = 0; c < ch; ++c) {
          float best = std::numeric_limits<float>::lowest();
          int64_t by = 0, bx = 0;
          for (int64_t ky = ky0; ky < ky1; ++ky)
            for (int64_t kx = kx0; kx < kx1; ++kx) {
              const float v = x[((n * ih + y0 + ky) * iw + x0 + kx) * ch + c];
              if (v > best) {
                best = v;
                by = ky;
                bx = kx;
              }
            }
          const int64_t o = ((n * oh + oy) * ow + ox) * ch + c;
          y[o] = ApplyActivation(a->activation, best);
          yi[o] = static_cast<float>(by * a->filter_w + bx) + 0.1f;
        }
      }
  return OkStatus();
}

// Inputs: values and argmax indices (as MaxPoolingWithArgmax2D makes them);
// output size = input size * filter; every other output element is 0.
Status RunMaxUnpooling2D(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  GLD_RETURN_IF_ERROR(AllFloat(ctx));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& indices = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (in.shape.size() != 4 || indices.shape != in.shape || out.shape.size() != 4 || out.shape[0] != in.shape[0] ||
      out.shape[3] != in.shape[3]) {
    return KernelError(ctx, "inputs " + ShapeToString(in.shape) + ", " + ShapeToString(indices.shape) +
                                " and output " + ShapeToString(out.shape) + " do not match");
  }
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->filter_h <= 0 || a->filter_w <= 0) {
    return KernelError(ctx, "filter and strides must be positive");
  }
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const ConvGeometry geometry = MaxUnpoolingGeometry(*a, in.shape, out.shape);
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const float* x = in.as<float>();
  const float* xi = indices.as<float>();
  float* y = out.as<float>();
  std::fill(y, y + out.num_elements(), 0.f);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t iy = 0; iy < ih; ++iy)
      for (int64_t ix = 0; ix < iw; ++ix)
        for (int64_t c = 0; c < ch; ++c) {
          const int64_t i = ((n * ih + iy) * iw + ix) * ch + c;
          const float fv = xi[i];
          if (!(fv >= 0.f) || fv >= 1073741824.f) continue;  // NaN, negative or absurd index
          const int64_t k = static_cast<int64_t>(fv);
          const int64_t oy = iy * a->stride_h - pad_t + k / a->filter_w;
          const int64_t ox = ix * a->stride_w - pad_l + k % a->filter_w;
          if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
          y[((n * oh + oy) * ow + ox) * ch + c] = x[i];
        }
  return OkStatus();
}

// Inputs: data [B, H, W, C] and a 4x4 row-major matrix per batch (or one
// for all) mapping output (x, y) to input coordinates. Version 2 samples
// with aligned corners (pixel centres). Samples outside the input are 0.
Status RunTransformTensorBilinear(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  GLD_RETURN_IF_ERROR(AllFloat(ctx));
  const TransformTensorBilinearAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TransformTensorBilinearAttributes& opts = *a;
  const TensorData& in = *ctx.inputs[0];
  const TensorData& mat = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (in.shape.size() != 4 || out.shape.size() != 4 || out.shape[0] != in.shape[0] || out.shape[3] != in.shape[3]) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) +
                                " do not match");
  }
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const int64_t mats = mat.num_elements() / 16;
  if (mat.num_elements() % 16 != 0 || mats < 1 || (mats != 1 && mats != batch)) {
    return KernelError(ctx, "matrix input " + ShapeToString(mat.shape) + " must hold one 4x4 matrix (or one per batch)");
  }
  const float* x = in.as<float>();
  float* y = out.as<float>();
  for (int64_t n = 0; n < batch; ++n) {
    const float* m = mat.as<float>() + (mats == 1 ? 0 : n * 16);
    float xt[4] = {m[0], m[1], m[2], m[3]};
    float yt[4] = {m[4], m[5], m[6], m[7]};
    if (opts.align_corners) {
      xt[3] += xt[0] * 0.5f + xt[1] * 0.5f - 0.5f;
      yt[3] += yt[0] * 0.5f + yt[1] * 0.5f - 0.5f;
    }
    const float* xb = x + n * ih * iw * ch;
    auto read = [&](int64_t h, int64_t w, int64_t c) -> float {
      return (h < 0 || w < 0 || h >= ih || w >= iw) ? 0.f : xb[(h * iw + w) * ch + c];
    };
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        const float fx = static_cast<float>(ox), fy = static_cast<float>(oy);
        const float tx = xt[0] * fx + xt[1] * fy + xt[3];
        const float ty = yt[0] * fx + yt[1] * fy + yt[3];
        float* o = y + ((n * oh + oy) * ow + ox) * ch;
        const bool outside = !(tx >= 0.f) || tx > static_cast<float>(iw - 1) || !(ty >= 0.f) ||
                             ty > static_cast<float>(ih - 1);
        if (outside) {
          std::fill(o, o + ch, 0.f);
          continue;
        }
        const float x0f = std::floor(tx), y0f = std::floor(ty);
        const int64_t x0 = static_cast<int64_t>(x0f), y0 = static_cast<int64_t>(y0f);
        const float right = tx - x0f, lower = ty - y0f;
        for (int64_t c = 0; c < ch; ++c) {
          const float upper_v = (1.f - right) * read(y0, x0, c) + right * read(y0, x0 + 1, c);
          const float lower_v = (1.f - right) * read(y0 + 1, x0, c) + right * read(y0 + 1, x0 + 1, c);
          o[c] = lower * lower_v + (1.f - lower) * upper_v;
        }
      }
  }
  return OkStatus();
}

// Version 1: landmarks [B, H, W, C] (C = n * dimensions), x and y mapped by
// the matrix's first two rows with its translation scaled by `scale`.
// Version 2: landmarks [B, N, dimensions]. z (dimension 3) is copied.
Status RunTransformLandmarks(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  GLD_RETURN_IF_ERROR(AllFloat(ctx));
  const TransformLandmarksAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TransformLandmarksAttributes& opts = *a;
  const TensorData& in = *ctx.inputs[0];
  const TensorData& mat = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  const size_t want_rank = opts.version == 1 ? 4 : 3;
  if (in.shape.size() != want_rank || out.shape != in.shape) {
    return KernelError(ctx, "landmarks must be " + std::to_string(want_rank) + "-D and match the output, got " +
                                ShapeToString(in.shape) + " and " + ShapeToString(out.shape));
  }
  const int64_t dims = opts.version == 1 ? opts.dimensions : in.shape.back();
  if (dims != 2 && dims != 3) return KernelError(ctx, "landmark dimensions " + std::to_string(dims) + " (must be 2 or 3)");
  if (in.shape.back() % dims != 0) {
    return KernelError(ctx, "last dimension " + std::to_string(in.shape.back()) + " is not a multiple of " +
                                std::to_string(dims));
  }
  if (mat.num_elements() < 16) return KernelError(ctx, "matrix input " + ShapeToString(mat.shape) + " is not 4x4");
  const float* m = mat.as<float>();
  const float scale = opts.version == 1 ? opts.scale : 1.f;
  const float xt[4] = {m[0], m[1], m[2], m[3] * scale};
  const float yt[4] = {m[4], m[5], m[6], m[7] * scale};
  const float* x = in.as<float>();
  float* y = out.as<float>();
  const int64_t count = in.num_elements() / dims;
  for (int64_t i = 0; i < count; ++i) {
    const float lx = x[i * dims], ly = x[i * dims + 1];
    y[i * dims] = xt[0] * lx + xt[1] * ly + xt[3];
    y[i * dims + 1] = yt[0] * lx + yt[1] * ly + yt[3];
    if (dims == 3) y[i * dims + 2] = x[i * dims + 2];
  }
  return OkStatus();
}

namespace {

struct Mat3 {
  float v[9];
  float at(int r, int c) const { return v[r * 3 + c]; }
  Mat3 operator*(const Mat3& o) const {
    Mat3 r{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        float s = 0.f;
        for (int k = 0; k < 3; ++k) s += at(i, k) * o.at(k, j);
        r.v[i * 3 + j] = s;
      }
    return r;
  }
};

struct Mat4 {
  float v[16];
  float at(int r, int c) const { return v[r * 4 + c]; }
  Mat4 operator*(const Mat4& o) const {
    Mat4 r{};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float s = 0.f;
        for (int k = 0; k < 4; ++k) s += at(i, k) * o.at(k, j);
        r.v[i * 4 + j] = s;
      }
    return r;
  }
};

}  // namespace

// Landmarks (x, y, z triples) -> the 4x4 matrix that maps crop coordinates
// back to the image, from the rotation between two landmarks and the
// bounding box of a subset of them (MediaPipe's two versions).
Status RunLandmarks2TransformMatrix(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  GLD_RETURN_IF_ERROR(AllFloat(ctx));
  const Landmarks2TransformMatrixAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const Landmarks2TransformMatrixAttributes& o = *a;
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (out.num_elements() != 16) return KernelError(ctx, "output " + ShapeToString(out.shape) + " is not 4x4");
  const int64_t landmarks = in.num_elements() / 3;
  auto check = [&](int32_t i) { return i >= 0 && i < landmarks; };
  bool ok = check(o.left_rotation_idx) && check(o.right_rotation_idx);
  for (const auto& p : o.subset) ok = ok && check(p.first) && check(p.second);
  if (!ok) {
    return KernelError(ctx, "a landmark index is out of range for " + std::to_string(landmarks) + " landmarks");
  }
  const float* l = in.as<float>();
  auto lx = [&](int32_t i) { return l[i * 3]; };
  auto ly = [&](int32_t i) { return l[i * 3 + 1]; };
  float* y = out.as<float>();
  if (o.version == 1) {
    const float alpha = -std::atan((ly(o.right_rotation_idx) - ly(o.left_rotation_idx)) /
                                   (lx(o.right_rotation_idx) - lx(o.left_rotation_idx)));
    const float ca_ = std::cos(alpha), sa = std::sin(alpha);
    float max_x = -100000.f, max_y = -100000.f, min_x = 100000.f, min_y = 100000.f;
    for (const auto& p : o.subset) {
      for (int32_t i : {p.first, p.second}) {
        const float rx = lx(i) * ca_ - ly(i) * sa;
        const float ry = lx(i) * sa + ly(i) * ca_;
        max_x = std::max(max_x, rx);
        max_y = std::max(max_y, ry);
        min_x = std::min(min_x, rx);
        min_y = std::min(min_y, ry);
      }
    }
    const float range = static_cast<float>(o.landmarks_range);
    const float bw = (max_x - min_x) * o.bbox_size_multiplier, bh = (max_y - min_y) * o.bbox_size_multiplier;
    const Mat3 scale{{bw / range, 0, 0, 0, bh / range, 0, 0, 0, 1}};
    const float mx = (max_x + min_x) / 2.f, my = (max_y + min_y) / 2.f;
    const float cn = std::cos(-alpha), sn = std::sin(-alpha);
    const float rmx = mx * cn - my * sn, rmy = mx * sn + my * cn;
    const Mat3 rotation{{cn, -sn, (rmx / range) * 2.f - 1.f, sn, cn, (rmy / range) * 2.f - 1.f, 0, 0, 1}};
    const Mat3 to_relative{{2.f / (static_cast<float>(o.output_w) - 1.f), 0, -1, 0,
                            2.f / (static_cast<float>(o.output_h) - 1.f), -1, 0, 0, 1}};
    const float aw = (static_cast<float>(o.input_w) - 1.f) / 2.f, ah = (static_cast<float>(o.input_h) - 1.f) / 2.f;
    const Mat3 to_absolute{{aw, 0, aw, 0, ah, ah, 0, 0, 1}};
    const Mat3 itm = to_absolute * rotation * scale * to_relative;
    const float r[16] = {itm.at(0, 0), itm.at(0, 1), 0, itm.at(0, 2), itm.at(1, 0), itm.at(1, 1), 0, itm.at(1, 2),
                         itm.at(2, 0), itm.at(2, 1), itm.at(2, 2), 0, 0, 0, 0, 1};
    std::copy(r, r + 16, y);
    return OkStatus();
  }
  // Version 2.
  const float rotation = o.target_rotation_radians - std::atan2(ly(o.right_rotation_idx) - ly(o.left_rotation_idx),
                                                                lx(o.right_rotation_idx) - lx(o.left_rotation_idx));
  const float cr = std::cos(rotation), sr = std::sin(rotation);
  float max_x = 0, max_y = 0, min_x = 0, min_y = 0;
  bool first = true;
  for (const auto& p : o.subset) {
    for (int32_t i : {p.first, p.second}) {
      const float rx = cr * lx(i) - sr * ly(i);
      const float ry = sr * lx(i) + cr * ly(i);
      if (first) {
        max_x = min_x = rx;
        max_y = min_y = ry;
        first = false;
      } else {
        max_x = std::max(max_x, rx);
        max_y = std::max(max_y, ry);
        min_x = std::min(min_x, rx);
        min_y = std::min(min_y, ry);
      }
    }
  }
  const float crop_w = max_x - min_x, crop_h = max_y - min_y;
  // Centre of the rotated box, rotated back (1 as the third coordinate).
  const float cx = (min_x + max_x) / 2.f, cy = (min_y + max_y) / 2.f;
  const float cb = std::cos(-rotation), sb = std::sin(-rotation);
  const float crop_x = cb * cx - sb * cy;
  const float crop_y = sb * cx + cb * cy;
  const float r = -rotation;
  const Mat4 identity{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  const Mat4 shift{{1, 0, 0, crop_x, 0, 1, 0, crop_y, 0, 0, 1, 0, 0, 0, 0, 1}};
  const Mat4 rot{{std::cos(r), -std::sin(r), 0, 0, std::sin(r), std::cos(r), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  const float scale_x = o.scale_x * crop_w / static_cast<float>(o.output_width);
  const float scale_y = o.scale_y * crop_h / static_cast<float>(o.output_height);
  const Mat4 scale{{scale_x, 0, 0, 0, 0, scale_y, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  const float sx = -(static_cast<float>(o.output_width) / 2.f), sy = -(static_cast<float>(o.output_height) / 2.f);
  const Mat4 shift2{{1, 0, 0, sx, 0, 1, 0, sy, 0, 0, 1, 0, 0, 0, 0, 1}};
  const Mat4 t = identity * shift * rot * scale * shift2;
  std::copy(t.v, t.v + 16, y);
  return OkStatus();
}

}  // namespace gld::cpu
