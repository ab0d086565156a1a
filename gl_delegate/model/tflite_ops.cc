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

Status CheckPositive(const char* field, int32_t value) {
  if (value >= 1) return OkStatus();
  return InvalidArgumentError(std::string(field) + " is " + std::to_string(value) +
                              ", must be >= 1");
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

Status BinaryWithoutOptions(Attributes* out) {
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

}  // namespace

bool OpTypeFromBuiltin(int32_t code, OpType* op) {
  if (code < 0 || code >= kNumBuiltinCodes) return false;
  int v = Tables().op_of_code[code];
  if (v == 0) return false;
  *op = static_cast<OpType>(v - 1);
  return true;
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

Arity OpArity(OpType op) {
  switch (op) {
    case OpType::kAdd: case OpType::kSub: case OpType::kMul: case OpType::kDiv:
    case OpType::kMaximum: case OpType::kMinimum: case OpType::kPow:
    case OpType::kSquaredDifference: case OpType::kFloorDiv: case OpType::kFloorMod:
    case OpType::kEqual: case OpType::kNotEqual: case OpType::kLess:
    case OpType::kLessEqual: case OpType::kGreater: case OpType::kGreaterEqual:
    case OpType::kLogicalAnd: case OpType::kLogicalOr: case OpType::kPrelu:
    case OpType::kBatchMatMul: case OpType::kArgMax: case OpType::kArgMin:
    case OpType::kBroadcastTo: case OpType::kCumsum: case OpType::kExpandDims:
    case OpType::kFill: case OpType::kGather: case OpType::kGatherNd:
    case OpType::kMean: case OpType::kSum: case OpType::kReduceMax:
    case OpType::kReduceMin: case OpType::kReduceProd: case OpType::kMirrorPad:
    case OpType::kPad: case OpType::kResizeBilinear: case OpType::kResizeNearestNeighbor:
    case OpType::kReverseV2: case OpType::kTile: case OpType::kTranspose:
    case OpType::kMaxUnpooling2D: case OpType::kTransformTensorBilinear:
    case OpType::kTransformLandmarks:
      return {2, 2, 1, 1};
    case OpType::kAddN: case OpType::kConcatenation: case OpType::kPack:
      return {1, -1, 1, 1};
    case OpType::kBatchToSpaceNd: case OpType::kSpaceToBatchNd: case OpType::kSelect:
    case OpType::kSelectV2: case OpType::kSlice: case OpType::kConvolution2DTransposeBias:
      return {3, 3, 1, 1};
    case OpType::kConv2d: case OpType::kDepthwiseConv2d: case OpType::kFullyConnected:
      return {2, 3, 1, 1};
    case OpType::kTransposeConv:
      return {3, 4, 1, 1};
    case OpType::kOneHot: case OpType::kStridedSlice:
      return {4, 4, 1, 1};
    case OpType::kPadV2:
      return {2, 3, 1, 1};
    case OpType::kReshape:
      return {1, 2, 1, 1};
    case OpType::kSplit:
      return {2, 2, 1, -1};
    case OpType::kSplitV:
      return {3, 3, 1, -1};
    case OpType::kUnpack:
      return {1, 1, 1, -1};
    case OpType::kMaxPoolingWithArgmax2D:
      return {1, 1, 2, 2};
    default:
      return {1, 1, 1, 1};
  }
}

bool InputMayBeAbsent(OpType op, size_t index) {
  switch (op) {
    case OpType::kConv2d: case OpType::kDepthwiseConv2d: case OpType::kFullyConnected:
      return index == 2;  // bias
    case OpType::kTransposeConv:
      return index == 3;  // bias
    case OpType::kReshape:
      return index == 1;  // shape (then ReshapeOptions.new_shape)
    case OpType::kPadV2:
      return index == 2;  // constant_values
    default:
      return false;
  }
}

Status ParseBuiltinOptions(OpType type, const tflite::Operator& op, Attributes* out) {
  *out = std::monostate{};
  switch (type) {
    case OpType::kConv2d: {
      GLD_OPTIONS(o, Conv2DOptions, true);
      Conv2dAttributes a;
      GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
      GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
      a.stride_w = o->stride_w();
      a.stride_h = o->stride_h();
      a.dilation_w = o->dilation_w_factor();
      a.dilation_h = o->dilation_h_factor();
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      GLD_RETURN_IF_ERROR(CheckPositive("dilation_w_factor", a.dilation_w));
      GLD_RETURN_IF_ERROR(CheckPositive("dilation_h_factor", a.dilation_h));
      *out = a;
      return OkStatus();
    }
    case OpType::kDepthwiseConv2d: {
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
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      GLD_RETURN_IF_ERROR(CheckPositive("dilation_w_factor", a.dilation_w));
      GLD_RETURN_IF_ERROR(CheckPositive("dilation_h_factor", a.dilation_h));
      if (a.depth_multiplier < 0) {
        return InvalidArgumentError("depth_multiplier is " + std::to_string(a.depth_multiplier));
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kTransposeConv: {
      GLD_OPTIONS(o, TransposeConvOptions, true);
      TransposeConvAttributes a;
      GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
      GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
      a.stride_w = o->stride_w();
      a.stride_h = o->stride_h();
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      *out = a;
      return OkStatus();
    }
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d: {
      GLD_OPTIONS(o, Pool2DOptions, true);
      Pool2dAttributes a;
      GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
      GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
      a.stride_w = o->stride_w();
      a.stride_h = o->stride_h();
      a.filter_w = o->filter_width();
      a.filter_h = o->filter_height();
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      GLD_RETURN_IF_ERROR(CheckPositive("filter_width", a.filter_w));
      GLD_RETURN_IF_ERROR(CheckPositive("filter_height", a.filter_h));
      *out = a;
      return OkStatus();
    }
    case OpType::kFullyConnected: {
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
    case OpType::kAdd: return ActivationOnly<tflite::AddOptions>(op, out);
    case OpType::kSub: return ActivationOnly<tflite::SubOptions>(op, out);
    case OpType::kMul: return ActivationOnly<tflite::MulOptions>(op, out);
    case OpType::kDiv: return ActivationOnly<tflite::DivOptions>(op, out);
    case OpType::kMaximum: case OpType::kMinimum: case OpType::kPow:
    case OpType::kSquaredDifference: case OpType::kFloorDiv: case OpType::kFloorMod:
    case OpType::kEqual: case OpType::kNotEqual: case OpType::kLess:
    case OpType::kLessEqual: case OpType::kGreater: case OpType::kGreaterEqual:
    case OpType::kLogicalAnd: case OpType::kLogicalOr:
      return BinaryWithoutOptions(out);
    case OpType::kConcatenation: {
      GLD_OPTIONS(o, ConcatenationOptions, false);
      ConcatenationAttributes a;
      if (o != nullptr) {
        a.axis = o->axis();
        GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kReshape: {
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
    case OpType::kMean: case OpType::kSum: case OpType::kReduceMax:
    case OpType::kReduceMin: case OpType::kReduceProd: {
      GLD_OPTIONS(o, ReducerOptions, false);
      ReduceAttributes a;
      if (o != nullptr) a.keep_dims = o->keep_dims();
      *out = a;
      return OkStatus();
    }
    case OpType::kResizeBilinear: {
      GLD_OPTIONS(o, ResizeBilinearOptions, false);
      ResizeAttributes a;
      if (o != nullptr) {
        a.align_corners = o->align_corners();
        a.half_pixel_centers = o->half_pixel_centers();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kResizeNearestNeighbor: {
      GLD_OPTIONS(o, ResizeNearestNeighborOptions, false);
      ResizeAttributes a;
      if (o != nullptr) {
        a.align_corners = o->align_corners();
        a.half_pixel_centers = o->half_pixel_centers();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kDepthToSpace: {
      GLD_OPTIONS(o, DepthToSpaceOptions, true);
      BlockSizeAttributes a;
      a.block_size = o->block_size();
      GLD_RETURN_IF_ERROR(CheckPositive("block_size", a.block_size));
      *out = a;
      return OkStatus();
    }
    case OpType::kSpaceToDepth: {
      GLD_OPTIONS(o, SpaceToDepthOptions, true);
      BlockSizeAttributes a;
      a.block_size = o->block_size();
      GLD_RETURN_IF_ERROR(CheckPositive("block_size", a.block_size));
      *out = a;
      return OkStatus();
    }
    case OpType::kSoftmax: {
      GLD_OPTIONS(o, SoftmaxOptions, false);
      SoftmaxAttributes a;
      if (o != nullptr) a.beta = o->beta();
      if (!std::isfinite(a.beta)) return InvalidArgumentError("SoftmaxOptions.beta is not finite");
      *out = a;
      return OkStatus();
    }
    case OpType::kLeakyRelu: {
      GLD_OPTIONS(o, LeakyReluOptions, false);
      LeakyReluAttributes a;
      if (o != nullptr) a.alpha = o->alpha();
      *out = a;
      return OkStatus();
    }
    case OpType::kGelu: {
      GLD_OPTIONS(o, GeluOptions, false);
      GeluAttributes a;
      if (o != nullptr) a.approximate = o->approximate();
      *out = a;
      return OkStatus();
    }
    case OpType::kMirrorPad: {
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
    case OpType::kStridedSlice: {
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
    case OpType::kGather: {
      GLD_OPTIONS(o, GatherOptions, false);
      AxisAttributes a;
      if (o != nullptr) {
        a.axis = o->axis();
        a.batch_dims = o->batch_dims();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kPack: {
      GLD_OPTIONS(o, PackOptions, false);
      AxisAttributes a;
      if (o != nullptr) {
        a.axis = o->axis();
        a.count = o->values_count();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kUnpack: {
      GLD_OPTIONS(o, UnpackOptions, false);
      AxisAttributes a;
      if (o != nullptr) {
        a.axis = o->axis();
        a.count = o->num();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kOneHot: {
      GLD_OPTIONS(o, OneHotOptions, false);
      AxisAttributes a;
      a.axis = -1;  // TFLite's default: a new last axis
      if (o != nullptr) a.axis = o->axis();
      *out = a;
      return OkStatus();
    }
    case OpType::kSplit: {
      GLD_OPTIONS(o, SplitOptions, false);
      AxisAttributes a;
      if (o != nullptr) a.count = o->num_splits();
      *out = a;
      return OkStatus();
    }
    case OpType::kSplitV: {
      GLD_OPTIONS(o, SplitVOptions, false);
      AxisAttributes a;
      if (o != nullptr) a.count = o->num_splits();
      *out = a;
      return OkStatus();
    }
    case OpType::kCumsum: {
      GLD_OPTIONS(o, CumsumOptions, false);
      AxisAttributes a;
      if (o != nullptr) {
        a.exclusive = o->exclusive();
        a.reverse = o->reverse();
      }
      *out = a;
      return OkStatus();
    }
    case OpType::kSqueeze: {
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
    case OpType::kLocalResponseNormalization: {
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
    case OpType::kBatchMatMul: {
      GLD_OPTIONS(o, BatchMatMulOptions, false);
      BatchMatMulAttributes a;
      if (o != nullptr) {
        a.adj_x = o->adj_x();
        a.adj_y = o->adj_y();
      }
      *out = a;
      return OkStatus();
    }
    default:
      // Ops without options we use. Their options (if any) are not read.
      return OkStatus();
  }
}

Status ParseCustomOptions(OpType type, const uint8_t* data, size_t size, int version,
                          Attributes* out) {
  *out = std::monostate{};
  switch (type) {
    case OpType::kConvolution2DTransposeBias: {
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
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      *out = a;
      return OkStatus();
    }
    case OpType::kMaxPoolingWithArgmax2D:
    case OpType::kMaxUnpooling2D: {
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
      GLD_RETURN_IF_ERROR(CheckPositive("stride_w", a.stride_w));
      GLD_RETURN_IF_ERROR(CheckPositive("stride_h", a.stride_h));
      GLD_RETURN_IF_ERROR(CheckPositive("filter_w", a.filter_w));
      GLD_RETURN_IF_ERROR(CheckPositive("filter_h", a.filter_h));
      *out = a;
      return OkStatus();
    }
    case OpType::kTransformTensorBilinear: {
      TransformTensorBilinearAttributes a;
      GLD_RETURN_IF_ERROR(ParseTransformTensorBilinearOptions(data, size, version, &a));
      *out = a;
      return OkStatus();
    }
    case OpType::kTransformLandmarks: {
      TransformLandmarksAttributes a;
      GLD_RETURN_IF_ERROR(ParseTransformLandmarksOptions(data, size, version, &a));
      *out = a;
      return OkStatus();
    }
    case OpType::kLandmarks2TransformMatrix: {
      Landmarks2TransformMatrixAttributes a;
      GLD_RETURN_IF_ERROR(ParseLandmarks2TransformMatrixOptions(data, size, version, &a));
      *out = std::move(a);
      return OkStatus();
    }
    default:
      return InternalError(std::string("no custom options parser for ") + OpTypeName(type));
  }
}

}  // namespace gld::tflite_ops
