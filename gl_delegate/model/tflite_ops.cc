#include "model/tflite_ops.h"

#include "model/mediapipe_options.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gld::tflite_ops {
namespace {

using tflite::BuiltinOptions;

constexpr int kNumBuiltinCodes = static_cast<int>(tflite::BuiltinOperator::MAX) + 1;

// Builtin code -> OpType index + 1 (0: not in the IR), built by name: the IR
// spells builtins exactly as the schema does.
struct CodeTables {
  int16_t op_of_code[kNumBuiltinCodes] = {};
  std::vector<int32_t> code_of_op;  // -1 for custom ops
  CodeTables() {
    code_of_op.assign(AllOpTypes().size(), -1);
    for (int code = 0; code < kNumBuiltinCodes; ++code) {
      const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
      OpType op;
      if (name == nullptr || name[0] == '\0' || !OpTypeFromName(name, &op)) continue;
      op_of_code[code] = static_cast<int16_t>(static_cast<int>(op) + 1);
      code_of_op[static_cast<size_t>(op)] = code;
    }
  }
};

const CodeTables& Tables() {
  static const CodeTables tables;
  return tables;
}

StatusOr<Activation> ToActivation(tflite::ActivationFunctionType a) {
  switch (a) {
    case tflite::ActivationFunctionType::NONE: return Activation::kNone;
    case tflite::ActivationFunctionType::RELU: return Activation::kRelu;
    case tflite::ActivationFunctionType::RELU_N1_TO_1: return Activation::kReluN1To1;
    case tflite::ActivationFunctionType::RELU6: return Activation::kRelu6;
    case tflite::ActivationFunctionType::TANH: return Activation::kTanh;
    case tflite::ActivationFunctionType::SIGN_BIT: return Activation::kSignBit;
  }
  return InvalidArgumentError("unknown fused_activation_function " +
                              std::to_string(static_cast<int>(a)));
}

StatusOr<Padding> ToPadding(tflite::Padding p) {
  switch (p) {
    case tflite::Padding::SAME: return Padding::kSame;
    case tflite::Padding::VALID: return Padding::kValid;
  }
  return InvalidArgumentError("unknown padding " + std::to_string(static_cast<int>(p)));
}

// Strides, dilations, pooling filters and block sizes: past int16 range they
// serve no real model and only overflow index arithmetic; shape inference
// bounds each window's reach as a whole.
constexpr int32_t kMaxWindowFactor = 32767;

Status CheckFactor(const char* field, int32_t value) {
  if (value >= 1 && value <= kMaxWindowFactor) return OkStatus();
  return InvalidArgumentError(std::string(field) + " is " + std::to_string(value) + ", must be in 1.." +
                              std::to_string(kMaxWindowFactor));
}

// The operator's options as table T. Absent options: nullptr, or an error
// when `required`. Options of another type are always an error.
template <typename T>
StatusOr<const T*> GetOptions(const tflite::Operator& op, bool required) {
  constexpr BuiltinOptions expected = tflite::BuiltinOptionsTraits<T>::enum_value;
  const BuiltinOptions actual = op.builtin_options_type();
  if (actual == BuiltinOptions::NONE || op.builtin_options() == nullptr) {
    if (required) {
      return InvalidArgumentError(std::string("missing ") + tflite::EnumNameBuiltinOptions(expected));
    }
    return static_cast<const T*>(nullptr);
  }
  if (actual != expected) {
    const char* name = tflite::EnumNameBuiltinOptions(actual);
    return InvalidArgumentError(std::string("has builtin options ") +
                                (name && name[0] ? name : ("#" + std::to_string(static_cast<int>(actual))).c_str()) +
                                ", expected " + tflite::EnumNameBuiltinOptions(expected));
  }
  return static_cast<const T*>(op.builtin_options());
}

#define GLD_OPTIONS(var, Type, required) \
  GLD_ASSIGN_OR_RETURN(const tflite::Type* var, GetOptions<tflite::Type>(op, required))

template <typename T>
Status ActivationOnly(const tflite::Operator& op, Attributes* out) {
  GLD_ASSIGN_OR_RETURN(const T* o, GetOptions<T>(op, false));
  BinaryAttributes a;
  if (o != nullptr) {
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  }
  *out = a;
  return OkStatus();
}

Status BinaryWithoutOptions(const tflite::Operator&, Attributes* out) {
  *out = BinaryAttributes{};
  return OkStatus();
}

int32_t ReadInt32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

StatusOr<Padding> FromTfLitePadding(int32_t code) {
  if (code == 1) return Padding::kSame;
  if (code == 2) return Padding::kValid;
  return InvalidArgumentError("custom options padding " + std::to_string(code) +
                              " is not SAME (1) or VALID (2)");
}

StatusOr<Activation> FromTfLiteActivation(int32_t code) {
  switch (code) {
    case 0: return Activation::kNone;
    case 1: return Activation::kRelu;
    case 2: return Activation::kReluN1To1;
    case 3: return Activation::kRelu6;
    case 4: return Activation::kTanh;
    case 5: return Activation::kSignBit;
    case 6: return Activation::kSigmoid;
  }
  return InvalidArgumentError("custom options activation " + std::to_string(code) + " is unknown");
}

Status ParseConv2d(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, Conv2DOptions, true);
  Conv2dAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
  GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  a.stride_w = o->stride_w();
  a.stride_h = o->stride_h();
  a.dilation_w = o->dilation_w_factor();
  a.dilation_h = o->dilation_h_factor();
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_w_factor", a.dilation_w));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_h_factor", a.dilation_h));
  *out = a;
  return OkStatus();
}

Status ParseDepthwiseConv2d(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, DepthwiseConv2DOptions, true);
  DepthwiseConv2dAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
  GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  a.stride_w = o->stride_w();
  a.stride_h = o->stride_h();
  a.dilation_w = o->dilation_w_factor();
  a.dilation_h = o->dilation_h_factor();
  // Newer converters leave depth_multiplier 0 (the kernel infers it).
  a.depth_multiplier = o->depth_multiplier();
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_w_factor", a.dilation_w));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_h_factor", a.dilation_h));
  if (a.depth_multiplier < 0) {
    return InvalidArgumentError("depth_multiplier is " + std::to_string(a.depth_multiplier));
  }
  *out = a;
  return OkStatus();
}

Status ParseTransposeConv(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, TransposeConvOptions, true);
  TransposeConvAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
  GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  a.stride_w = o->stride_w();
  a.stride_h = o->stride_h();
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  *out = a;
  return OkStatus();
}

Status ParsePool2d(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, Pool2DOptions, true);
  Pool2dAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
  GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  a.stride_w = o->stride_w();
  a.stride_h = o->stride_h();
  a.filter_w = o->filter_width();
  a.filter_h = o->filter_height();
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  GLD_RETURN_IF_ERROR(CheckFactor("filter_width", a.filter_w));
  GLD_RETURN_IF_ERROR(CheckFactor("filter_height", a.filter_h));
  *out = a;
  return OkStatus();
}

Status ParseFullyConnected(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, FullyConnectedOptions, false);
  FullyConnectedAttributes a;
  if (o != nullptr) {
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
    a.keep_num_dims = o->keep_num_dims();
    if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
      return UnimplementedError(std::string("weights_format ") +
                                tflite::EnumNameFullyConnectedOptionsWeightsFormat(o->weights_format()) +
                                " is not supported");
    }
  }
  *out = a;
  return OkStatus();
}

Status ParseConcatenation(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, ConcatenationOptions, false);
  ConcatenationAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  }
  *out = a;
  return OkStatus();
}

Status ParseReshape(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, ReshapeOptions, false);
  ReshapeAttributes a;
  if (o != nullptr && o->new_shape() != nullptr) {
    if (o->new_shape()->size() > 64) {
      return InvalidArgumentError("ReshapeOptions.new_shape has " +
                                  std::to_string(o->new_shape()->size()) + " entries");
    }
    a.new_shape.assign(o->new_shape()->begin(), o->new_shape()->end());
    a.has_new_shape = true;
  }
  *out = a;
  return OkStatus();
}

Status ParseReducer(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, ReducerOptions, false);
  ReduceAttributes a;
  if (o != nullptr) a.keep_dims = o->keep_dims();
  *out = a;
  return OkStatus();
}

Status ParseResizeBilinear(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, ResizeBilinearOptions, false);
  ResizeAttributes a;
  if (o != nullptr) {
    a.align_corners = o->align_corners();
    a.half_pixel_centers = o->half_pixel_centers();
  }
  *out = a;
  return OkStatus();
}

Status ParseResizeNearestNeighbor(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, ResizeNearestNeighborOptions, false);
  ResizeAttributes a;
  if (o != nullptr) {
    a.align_corners = o->align_corners();
    a.half_pixel_centers = o->half_pixel_centers();
  }
  *out = a;
  return OkStatus();
}

Status ParseDepthToSpace(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, DepthToSpaceOptions, true);
  BlockSizeAttributes a;
  a.block_size = o->block_size();
  GLD_RETURN_IF_ERROR(CheckFactor("block_size", a.block_size));
  *out = a;
  return OkStatus();
}

Status ParseSpaceToDepth(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, SpaceToDepthOptions, true);
  BlockSizeAttributes a;
  a.block_size = o->block_size();
  GLD_RETURN_IF_ERROR(CheckFactor("block_size", a.block_size));
  *out = a;
  return OkStatus();
}

Status ParseSoftmax(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, SoftmaxOptions, false);
  SoftmaxAttributes a;
  if (o != nullptr) a.beta = o->beta();
  if (!std::isfinite(a.beta)) return InvalidArgumentError("SoftmaxOptions.beta is not finite");
  *out = a;
  return OkStatus();
}

Status ParseLeakyRelu(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, LeakyReluOptions, false);
  LeakyReluAttributes a;
  if (o != nullptr) a.alpha = o->alpha();
  *out = a;
  return OkStatus();
}

Status ParseGelu(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, GeluOptions, false);
  GeluAttributes a;
  if (o != nullptr) a.approximate = o->approximate();
  *out = a;
  return OkStatus();
}

Status ParseMirrorPad(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, MirrorPadOptions, false);
  MirrorPadAttributes a;
  if (o != nullptr) {
    switch (o->mode()) {
      case tflite::MirrorPadMode::REFLECT: a.symmetric = false; break;
      case tflite::MirrorPadMode::SYMMETRIC: a.symmetric = true; break;
      default:
        return InvalidArgumentError("unknown MirrorPadOptions.mode " +
                                    std::to_string(static_cast<int>(o->mode())));
    }
  }
  *out = a;
  return OkStatus();
}

Status ParseStridedSlice(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, StridedSliceOptions, false);
  StridedSliceAttributes a;
  if (o != nullptr) {
    a.begin_mask = o->begin_mask();
    a.end_mask = o->end_mask();
    a.ellipsis_mask = o->ellipsis_mask();
    a.new_axis_mask = o->new_axis_mask();
    a.shrink_axis_mask = o->shrink_axis_mask();
    a.offset = o->offset();
  }
  *out = a;
  return OkStatus();
}

Status ParseGather(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, GatherOptions, false);
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.batch_dims = o->batch_dims();
  }
  *out = a;
  return OkStatus();
}

Status ParsePack(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, PackOptions, false);
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.count = o->values_count();
  }
  *out = a;
  return OkStatus();
}

Status ParseUnpack(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, UnpackOptions, false);
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.count = o->num();
  }
  *out = a;
  return OkStatus();
}

Status ParseOneHot(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, OneHotOptions, false);
  AxisAttributes a;
  a.axis = -1;  // TFLite's default: a new last axis
  if (o != nullptr) a.axis = o->axis();
  *out = a;
  return OkStatus();
}

Status ParseSplit(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, SplitOptions, false);
  AxisAttributes a;
  if (o != nullptr) a.count = o->num_splits();
  *out = a;
  return OkStatus();
}

Status ParseSplitV(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, SplitVOptions, false);
  AxisAttributes a;
  if (o != nullptr) a.count = o->num_splits();
  *out = a;
  return OkStatus();
}

Status ParseCumsum(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, CumsumOptions, false);
  AxisAttributes a;
  if (o != nullptr) {
    a.exclusive = o->exclusive();
    a.reverse = o->reverse();
  }
  *out = a;
  return OkStatus();
}

Status ParseSqueeze(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, SqueezeOptions, false);
  SqueezeAttributes a;
  if (o != nullptr && o->squeeze_dims() != nullptr) {
    if (o->squeeze_dims()->size() > 64) {
      return InvalidArgumentError("SqueezeOptions.squeeze_dims has " +
                                  std::to_string(o->squeeze_dims()->size()) + " entries");
    }
    a.squeeze_dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  }
  *out = a;
  return OkStatus();
}

Status ParseLocalResponseNormalization(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, LocalResponseNormalizationOptions, false);
  LrnAttributes a;
  if (o != nullptr) {
    a.radius = o->radius();
    a.bias = o->bias();
    a.alpha = o->alpha();
    a.beta = o->beta();
  }
  if (a.radius < 0) return InvalidArgumentError("radius is " + std::to_string(a.radius));
  *out = a;
  return OkStatus();
}

Status ParseBatchMatMul(const tflite::Operator& op, Attributes* out) {
  GLD_OPTIONS(o, BatchMatMulOptions, false);
  BatchMatMulAttributes a;
  if (o != nullptr) {
    a.adj_x = o->adj_x();
    a.adj_y = o->adj_y();
  }
  *out = a;
  return OkStatus();
}

Status ParseConvolution2DTransposeBias(const uint8_t* data, size_t size, int, Attributes* out) {
  if (size < 12) {
    return InvalidArgumentError("custom options hold " + std::to_string(size) +
                                " bytes, need 12 (padding, stride_w, stride_h)");
  }
  TransposeConvAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, FromTfLitePadding(ReadInt32(data)));
  a.stride_w = ReadInt32(data + 4);
  a.stride_h = ReadInt32(data + 8);
  if (size >= 16) {
    GLD_ASSIGN_OR_RETURN(a.activation, FromTfLiteActivation(ReadInt32(data + 12)));
  }
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  *out = a;
  return OkStatus();
}

Status ParseMediaPipePool2d(const uint8_t* data, size_t size, int, Attributes* out) {
  if (size < 20) {
    return InvalidArgumentError(
        "custom options hold " + std::to_string(size) +
        " bytes, need 20 (padding, stride_w, stride_h, filter_w, filter_h)");
  }
  Pool2dAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, FromTfLitePadding(ReadInt32(data)));
  a.stride_w = ReadInt32(data + 4);
  a.stride_h = ReadInt32(data + 8);
  a.filter_w = ReadInt32(data + 12);
  a.filter_h = ReadInt32(data + 16);
  if (size >= 24) {
    GLD_ASSIGN_OR_RETURN(a.activation, FromTfLiteActivation(ReadInt32(data + 20)));
  }
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  GLD_RETURN_IF_ERROR(CheckFactor("filter_w", a.filter_w));
  GLD_RETURN_IF_ERROR(CheckFactor("filter_h", a.filter_h));
  *out = a;
  return OkStatus();
}

Status ParseTransformTensorBilinear(const uint8_t* data, size_t size, int version, Attributes* out) {
  TransformTensorBilinearAttributes a;
  GLD_RETURN_IF_ERROR(ParseTransformTensorBilinearOptions(data, size, version, &a));
  *out = a;
  return OkStatus();
}

Status ParseTransformLandmarks(const uint8_t* data, size_t size, int version, Attributes* out) {
  TransformLandmarksAttributes a;
  GLD_RETURN_IF_ERROR(ParseTransformLandmarksOptions(data, size, version, &a));
  *out = a;
  return OkStatus();
}

Status ParseLandmarks2TransformMatrix(const uint8_t* data, size_t size, int version, Attributes* out) {
  Landmarks2TransformMatrixAttributes a;
  GLD_RETURN_IF_ERROR(ParseLandmarks2TransformMatrixOptions(data, size, version, &a));
  *out = std::move(a);
  return OkStatus();
}

using BuiltinParser = Status (*)(const tflite::Operator& op, Attributes* out);
using CustomParser = Status (*)(const uint8_t* data, size_t size, int version, Attributes* out);

// How each op's options become its attributes: a builtin op's options table
// or a custom op's custom_options bytes. An op without a row has no options
// the IR uses; a binary row of the elementwise table without one gets
// BinaryAttributes without an activation (FindOptionParser). Encoding lives beside the builder (support/model_builder.cc).
struct OptionParser {
  OpType op;
  BuiltinParser builtin;
  CustomParser custom;
};

// clang-format off
const OptionParser kOptionParsers[] = {
    {OpType::kConv2d, ParseConv2d, nullptr},
    {OpType::kDepthwiseConv2d, ParseDepthwiseConv2d, nullptr},
    {OpType::kTransposeConv, ParseTransposeConv, nullptr},
    {OpType::kAveragePool2d, ParsePool2d, nullptr},
    {OpType::kMaxPool2d, ParsePool2d, nullptr},
    {OpType::kFullyConnected, ParseFullyConnected, nullptr},
    {OpType::kAdd, ActivationOnly<tflite::AddOptions>, nullptr},
    {OpType::kSub, ActivationOnly<tflite::SubOptions>, nullptr},
    {OpType::kMul, ActivationOnly<tflite::MulOptions>, nullptr},
    {OpType::kDiv, ActivationOnly<tflite::DivOptions>, nullptr},
    {OpType::kEqual, BinaryWithoutOptions, nullptr},
    {OpType::kNotEqual, BinaryWithoutOptions, nullptr},
    {OpType::kLess, BinaryWithoutOptions, nullptr},
    {OpType::kLessEqual, BinaryWithoutOptions, nullptr},
    {OpType::kGreater, BinaryWithoutOptions, nullptr},
    {OpType::kGreaterEqual, BinaryWithoutOptions, nullptr},
    {OpType::kLogicalAnd, BinaryWithoutOptions, nullptr},
    {OpType::kLogicalOr, BinaryWithoutOptions, nullptr},
    {OpType::kConcatenation, ParseConcatenation, nullptr},
    {OpType::kReshape, ParseReshape, nullptr},
    {OpType::kMean, ParseReducer, nullptr},
    {OpType::kSum, ParseReducer, nullptr},
    {OpType::kReduceMax, ParseReducer, nullptr},
    {OpType::kReduceMin, ParseReducer, nullptr},
    {OpType::kReduceProd, ParseReducer, nullptr},
    {OpType::kResizeBilinear, ParseResizeBilinear, nullptr},
    {OpType::kResizeNearestNeighbor, ParseResizeNearestNeighbor, nullptr},
    {OpType::kDepthToSpace, ParseDepthToSpace, nullptr},
    {OpType::kSpaceToDepth, ParseSpaceToDepth, nullptr},
    {OpType::kSoftmax, ParseSoftmax, nullptr},
    {OpType::kLeakyRelu, ParseLeakyRelu, nullptr},
    {OpType::kGelu, ParseGelu, nullptr},
    {OpType::kMirrorPad, ParseMirrorPad, nullptr},
    {OpType::kStridedSlice, ParseStridedSlice, nullptr},
    {OpType::kGather, ParseGather, nullptr},
    {OpType::kPack, ParsePack, nullptr},
    {OpType::kUnpack, ParseUnpack, nullptr},
    {OpType::kOneHot, ParseOneHot, nullptr},
    {OpType::kSplit, ParseSplit, nullptr},
    {OpType::kSplitV, ParseSplitV, nullptr},
    {OpType::kCumsum, ParseCumsum, nullptr},
    {OpType::kSqueeze, ParseSqueeze, nullptr},
    {OpType::kLocalResponseNormalization, ParseLocalResponseNormalization, nullptr},
    {OpType::kBatchMatMul, ParseBatchMatMul, nullptr},
    {OpType::kConvolution2DTransposeBias, nullptr, ParseConvolution2DTransposeBias},
    {OpType::kMaxPoolingWithArgmax2D, nullptr, ParseMediaPipePool2d},
    {OpType::kMaxUnpooling2D, nullptr, ParseMediaPipePool2d},
    {OpType::kTransformTensorBilinear, nullptr, ParseTransformTensorBilinear},
    {OpType::kTransformLandmarks, nullptr, ParseTransformLandmarks},
    {OpType::kLandmarks2TransformMatrix, nullptr, ParseLandmarks2TransformMatrix},
};
// clang-format on

const OptionParser* FindOptionParser(OpType op) {
  for (const OptionParser& p : kOptionParsers) {
    if (p.op == op) return &p;
  }
  static const OptionParser kBinaryElementwise = {OpType::kCustom, BinaryWithoutOptions, nullptr};
  return ElementwiseArity(op) == 2 ? &kBinaryElementwise : nullptr;
}

}  // namespace

bool OpTypeFromBuiltin(int32_t code, OpType* op) {
  if (code < 0 || code >= kNumBuiltinCodes) return false;
  int v = Tables().op_of_code[code];
  if (v == 0) return false;
  *op = static_cast<OpType>(v - 1);
  return true;
}

bool IsLibraryCustomOp(OpType op) {
  return op == OpType::kTransformTensorBilinear || op == OpType::kTransformLandmarks ||
         op == OpType::kLandmarks2TransformMatrix;
}

bool BuiltinFromOpType(OpType op, int32_t* code) {
  size_t i = static_cast<size_t>(op);
  const auto& t = Tables().code_of_op;
  if (i >= t.size() || t[i] < 0) return false;
  *code = t[i];
  return true;
}

const char* BuiltinName(int32_t code) {
  if (code < 0 || code >= kNumBuiltinCodes) return nullptr;
  const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
  return (name != nullptr && name[0] != '\0') ? name : nullptr;
}

int32_t TfLitePaddingCode(Padding p) { return p == Padding::kSame ? 1 : 2; }

int32_t TfLiteActivationCode(Activation a) {
  switch (a) {
    case Activation::kNone: return 0;
    case Activation::kRelu: return 1;
    case Activation::kReluN1To1: return 2;
    case Activation::kRelu6: return 3;
    case Activation::kTanh: return 4;
    case Activation::kSignBit: return 5;
    case Activation::kSigmoid: return 6;
  }
  return 0;
}

Status ParseBuiltinOptions(OpType type, const tflite::Operator& op, Attributes* out) {
  *out = std::monostate{};
  const OptionParser* p = FindOptionParser(type);
  // Ops without options we use: their options (if any) are not read.
  if (p == nullptr || p->builtin == nullptr) return OkStatus();
  return p->builtin(op, out);
}

Status ParseCustomOptions(OpType type, const uint8_t* data, size_t size, int version,
                          Attributes* out) {
  *out = std::monostate{};
  const OptionParser* p = FindOptionParser(type);
  if (p == nullptr || p->custom == nullptr) {
    return InternalError(std::string("no custom options parser for ") + OpTypeName(type));
  }
  return p->custom(data, size, version, out);
}

}  // namespace gld::tflite_ops
