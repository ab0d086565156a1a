// DEQUANTIZE (int8/uint8/int16/int32/float16 -> float32, per-tensor or
// per-channel) and QUANTIZE (float32 -> int8/uint8/int16, integer
// requantization, and the "float view": a float32 output carrying quant
// params is rounded to its grid and clamped to its integer type's range).
#include <cmath>
#include <cstring>

#include "cpu_kernels/kernels.h"
#include "graph/dequantize.h"

namespace gld::cpu {

namespace {

// Per-element (scale, zero point) lookup for a tensor's quant params.
struct QuantView {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int64_t inner = 1;     // elements per step of the quantized dimension
  int64_t channels = 1;  // size of the quantized dimension (1 if per-tensor)

  size_t Channel(int64_t i) const {
    return scale.size() == 1 ? 0 : static_cast<size_t>((i / inner) % channels);
  }
  AffineQuantization Affine() const {
    AffineQuantization a;
    a.scale = scale.data();
    a.zero_point = zero_point.data();
    a.channels = scale.size() == 1 ? 1 : channels;
    a.inner = inner;
    return a;
  }
};

Status MakeQuantView(const KernelContext& ctx, const Tensor* t, const Shape& shape, const char* what,
                     QuantView* v) {
  if (t == nullptr || t->quant.scale.empty()) {
    return KernelError(ctx, std::string(what) + " has no quantization parameters");
  }
  const QuantizationParams& q = t->quant;
  v->scale = q.scale;
  v->zero_point = q.zero_point;
  if (v->zero_point.empty()) v->zero_point.assign(v->scale.size(), 0);
  if (v->zero_point.size() != v->scale.size()) {
    return KernelError(ctx, std::string(what) + " has " + std::to_string(q.scale.size()) + " scales but " +
                                std::to_string(q.zero_point.size()) + " zero points");
  }
  if (v->scale.size() > 1) {
    const int32_t qd = q.quantized_dimension;
    if (qd < 0 || static_cast<size_t>(qd) >= shape.size() ||
        static_cast<size_t>(shape[static_cast<size_t>(qd)]) != v->scale.size()) {
      return KernelError(ctx, std::string(what) + " has " + std::to_string(v->scale.size()) +
                                  " scales for quantized dimension " + std::to_string(qd) + " of shape " +
                                  ShapeToString(shape));
    }
    v->channels = shape[static_cast<size_t>(qd)];
    v->inner = 1;
    for (size_t d = static_cast<size_t>(qd) + 1; d < shape.size(); ++d) v->inner *= shape[d];
  }
  return OkStatus();
}

// round(x / scale) + zero_point, clamped to [lo, hi]; TFLite rounds half away
// from zero.
inline int64_t QuantizeValue(float x, float scale, int64_t zp, int64_t lo, int64_t hi) {
  const float r = std::round(x / scale);
  double v = static_cast<double>(r) + static_cast<double>(zp);
  if (!(v >= static_cast<double>(lo))) v = static_cast<double>(lo);  // also NaN
  if (v > static_cast<double>(hi)) v = static_cast<double>(hi);
  return static_cast<int64_t>(v);
}

// Reads element i of a tensor as a real number: float types directly,
// integer types through `in_q` (when given).
Status ReadReal(const KernelContext& ctx, const TensorData& in, const QuantView* in_q, std::vector<float>* real) {
  const int64_t n = in.num_elements();
  real->resize(static_cast<size_t>(n));
  switch (in.type) {
    case DataType::kFloat32: std::memcpy(real->data(), in.data, static_cast<size_t>(n) * sizeof(float)); return OkStatus();
    case DataType::kFloat16: {
      const uint16_t* h = in.as<uint16_t>();
      HalfToFloatArray(h, real->data(), n);
      return OkStatus();
    }
    default: break;
  }
  if (in_q == nullptr) return KernelError(ctx, "integer input without quantization parameters");
  switch (in.type) {
    case DataType::kInt8: DequantizeAffine<int8_t>(in.data, 0, n, in_q->Affine(), real->data()); break;
    case DataType::kUInt8: DequantizeAffine<uint8_t>(in.data, 0, n, in_q->Affine(), real->data()); break;
    case DataType::kInt16: DequantizeAffine<int16_t>(in.data, 0, n, in_q->Affine(), real->data()); break;
    case DataType::kInt32: DequantizeAffine<int32_t>(in.data, 0, n, in_q->Affine(), real->data()); break;
    default: return KernelUnimplemented(ctx, std::string("input type ") + DataTypeName(in.type));
  }
  return OkStatus();
}

}  // namespace

Status RunDequantize(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) +
                                " differ in size");
  }
  const int64_t n = in.num_elements();
  float* y = out.as<float>();
  switch (in.type) {
    case DataType::kFloat32:  // float view: already real values
      if (n > 0 && out.data != in.data) std::memcpy(y, in.data, static_cast<size_t>(n) * sizeof(float));
      return OkStatus();
    case DataType::kFloat16: {
      const uint16_t* h = in.as<uint16_t>();
      ParallelForGrain(ctx, n, 16384, [&](int64_t b, int64_t e) {
        HalfToFloatArray(h + b, y + b, e - b);
      });
      return OkStatus();
    }
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kInt32: {
      QuantView v;
      GLD_RETURN_IF_ERROR(MakeQuantView(ctx, InputTensor(ctx, 0), in.shape, "input", &v));
      std::vector<float> real;
      GLD_RETURN_IF_ERROR(ReadReal(ctx, in, &v, &real));
      std::memcpy(y, real.data(), real.size() * sizeof(float));
      return OkStatus();
    }
    default:
      return KernelUnimplemented(ctx, std::string("input type ") + DataTypeName(in.type));
  }
}

Status RunQuantize(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) +
                                " differ in size");
  }
  QuantView out_q;
  GLD_RETURN_IF_ERROR(MakeQuantView(ctx, OutputTensor(ctx, 0), out.shape, "output", &out_q));
  // The integer grid: the output's own type, or in float view (a float32
  // output with quant params) the type the model stores it in.
  const DataType grid = QuantizedGridType(OutputTensor(ctx, 0)->quant, out.type);
  int64_t lo = 0, hi = 0;
  if (!IntegerTypeRange(grid, &lo, &hi)) {
    return KernelUnimplemented(ctx, std::string("output type ") + DataTypeName(out.type));
  }
  QuantView in_q;
  const bool int_in = in.type != DataType::kFloat32 && in.type != DataType::kFloat16;
  if (int_in) GLD_RETURN_IF_ERROR(MakeQuantView(ctx, InputTensor(ctx, 0), in.shape, "input", &in_q));
  std::vector<float> real;
  GLD_RETURN_IF_ERROR(ReadReal(ctx, in, int_in ? &in_q : nullptr, &real));
  const int64_t n = in.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = out_q.Channel(i);
    const int64_t q = QuantizeValue(real[static_cast<size_t>(i)], out_q.scale[c], out_q.zero_point[c], lo, hi);
    switch (out.type) {
      case DataType::kFloat32:
        out.as<float>()[i] = static_cast<float>(q - out_q.zero_point[c]) * out_q.scale[c];
        break;
      case DataType::kInt8: out.as<int8_t>()[i] = static_cast<int8_t>(q); break;
      case DataType::kUInt8: out.as<uint8_t>()[i] = static_cast<uint8_t>(q); break;
      case DataType::kInt16: out.as<int16_t>()[i] = static_cast<int16_t>(q); break;
      case DataType::kInt32: out.as<int32_t>()[i] = static_cast<int32_t>(q); break;
      default: break;
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
