#include "model/tflite_ops.h"

#include "model/mediapipe_options.h"
#include "model/tflite_abi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
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

// The options table an options source stands for: the table itself, or
// the flatbuffer table a view over TFLite's C struct reads like (its Table).
template <typename O, typename = void>
struct TableOf {
  using type = O;
};
template <typename O>
struct TableOf<O, std::void_t<typename O::Table>> {
  using type = typename O::Table;
};

template <typename O>
Status Missing() {
  using T = typename TableOf<O>::type;
  return InvalidArgumentError(std::string("missing ") +
                              tflite::EnumNameBuiltinOptions(tflite::BuiltinOptionsTraits<T>::enum_value));
}

// Each parser below reads an op's options through `o`: the file's options
// table (tflite::Conv2DOptions, ...) or a view over the C struct TFLite's
// interpreter hands a delegate (TfLiteConvParams, ...) with the table's
// accessors; null when the op has none. One parser, two sources: the model
// reader and the TFLite delegate map options the same way.
template <typename O>
Status ActivationOnly(const O* o, Attributes* out) {
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
Status BinaryWithoutOptionsData(const void*, Attributes* out) {
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

template <typename O>
Status ParseConv2d(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
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

template <typename O>
Status ParseConv3d(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
  Conv3dAttributes a;
  GLD_ASSIGN_OR_RETURN(a.padding, ToPadding(o->padding()));
  GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  a.stride_d = o->stride_d();
  a.stride_h = o->stride_h();
  a.stride_w = o->stride_w();
  a.dilation_d = o->dilation_d_factor();
  a.dilation_h = o->dilation_h_factor();
  a.dilation_w = o->dilation_w_factor();
  GLD_RETURN_IF_ERROR(CheckFactor("stride_d", a.stride_d));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_h", a.stride_h));
  GLD_RETURN_IF_ERROR(CheckFactor("stride_w", a.stride_w));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_d_factor", a.dilation_d));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_h_factor", a.dilation_h));
  GLD_RETURN_IF_ERROR(CheckFactor("dilation_w_factor", a.dilation_w));
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseDepthwiseConv2d(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
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

template <typename O>
Status ParseTransposeConv(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
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

template <typename O>
Status ParsePool2d(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
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

template <typename O>
Status ParseFullyConnected(const O* o, Attributes* out) {
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

template <typename O>
Status ParseConcatenation(const O* o, Attributes* out) {
  ConcatenationAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseReshape(const O* o, Attributes* out) {
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

template <typename O>
Status ParseReducer(const O* o, Attributes* out) {
  ReduceAttributes a;
  if (o != nullptr) a.keep_dims = o->keep_dims();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseResizeBilinear(const O* o, Attributes* out) {
  ResizeAttributes a;
  if (o != nullptr) {
    a.align_corners = o->align_corners();
    a.half_pixel_centers = o->half_pixel_centers();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseResizeNearestNeighbor(const O* o, Attributes* out) {
  ResizeAttributes a;
  if (o != nullptr) {
    a.align_corners = o->align_corners();
    a.half_pixel_centers = o->half_pixel_centers();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseDepthToSpace(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
  BlockSizeAttributes a;
  a.block_size = o->block_size();
  GLD_RETURN_IF_ERROR(CheckFactor("block_size", a.block_size));
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseSpaceToDepth(const O* o, Attributes* out) {
  if (o == nullptr) return Missing<O>();
  BlockSizeAttributes a;
  a.block_size = o->block_size();
  GLD_RETURN_IF_ERROR(CheckFactor("block_size", a.block_size));
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseSoftmax(const O* o, Attributes* out) {
  SoftmaxAttributes a;
  if (o != nullptr) a.beta = o->beta();
  if (!std::isfinite(a.beta)) return InvalidArgumentError("SoftmaxOptions.beta is not finite");
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseLeakyRelu(const O* o, Attributes* out) {
  LeakyReluAttributes a;
  if (o != nullptr) a.alpha = o->alpha();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseGelu(const O* o, Attributes* out) {
  GeluAttributes a;
  if (o != nullptr) a.approximate = o->approximate();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseMirrorPad(const O* o, Attributes* out) {
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

template <typename O>
Status ParseStridedSlice(const O* o, Attributes* out) {
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

template <typename O>
Status ParseGather(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.batch_dims = o->batch_dims();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParsePack(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.count = o->values_count();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseUnpack(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) {
    a.axis = o->axis();
    a.count = o->num();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseOneHot(const O* o, Attributes* out) {
  AxisAttributes a;
  a.axis = -1;  // TFLite's default: a new last axis
  if (o != nullptr) a.axis = o->axis();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseSplit(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) a.count = o->num_splits();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseSplitV(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) a.count = o->num_splits();
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseCumsum(const O* o, Attributes* out) {
  AxisAttributes a;
  if (o != nullptr) {
    a.exclusive = o->exclusive();
    a.reverse = o->reverse();
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseBucketize(const O* o, Attributes* out) {
  BucketizeAttributes a;
  if (o != nullptr && o->boundaries() != nullptr) {
    a.boundaries.assign(o->boundaries()->begin(), o->boundaries()->end());
  }
  *out = std::move(a);
  return OkStatus();
}

template <typename O>
Status ParseUnique(const O* o, Attributes* out) {
  UniqueAttributes a;
  if (o != nullptr) {
    if (o->idx_out_type() != tflite::TensorType::INT32 && o->idx_out_type() != tflite::TensorType::INT64) {
      return InvalidArgumentError("UniqueOptions.idx_out_type must be INT32 or INT64, got " +
                                  std::to_string(static_cast<int>(o->idx_out_type())));
    }
    a.idx_int64 = o->idx_out_type() == tflite::TensorType::INT64;
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseSqueeze(const O* o, Attributes* out) {
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

template <typename O>
Status ParseLocalResponseNormalization(const O* o, Attributes* out) {
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

template <typename O>
Status ParseBatchMatMul(const O* o, Attributes* out) {
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

// ---- The recurrent ops' options (RecurrentAttributes), read from the file
// only: the delegate does not take nodes that update variables.

Status CheckClip(const char* what, float clip) {
  if (!(clip >= 0.f)) return InvalidArgumentError(std::string(what) + " " + std::to_string(clip) + " is negative or NaN");
  return OkStatus();
}

template <typename O>
Status ParseLstmOptions(const O* o, Attributes* out) {
  RecurrentAttributes a;
  if (o != nullptr) {
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
    a.cell_clip = o->cell_clip();
    a.proj_clip = o->proj_clip();
    GLD_RETURN_IF_ERROR(CheckClip("cell_clip", a.cell_clip));
    GLD_RETURN_IF_ERROR(CheckClip("proj_clip", a.proj_clip));
    a.asymmetric_quantize_inputs = o->asymmetric_quantize_inputs();
    if constexpr (std::is_same_v<O, tflite::LSTMOptions>) {
      a.basic_kernel = o->kernel_type() == tflite::LSTMKernelType::BASIC;
    } else if constexpr (std::is_same_v<O, tflite::UnidirectionalSequenceLSTMOptions>) {
      a.time_major = o->time_major();
      if (o->diagonal_recurrent_tensors()) return UnimplementedError("diagonal_recurrent_tensors is not supported");
    } else {
      a.time_major = o->time_major();
      a.merge_outputs = o->merge_outputs();
    }
  } else if constexpr (std::is_same_v<O, tflite::BidirectionalSequenceLSTMOptions>) {
    a.time_major = true;  // the table's default
  }
  *out = a;
  return OkStatus();
}

template <typename O>
Status ParseRnnOptions(const O* o, Attributes* out) {
  RecurrentAttributes a;
  if (o != nullptr) {
    GLD_ASSIGN_OR_RETURN(a.activation, ToActivation(o->fused_activation_function()));
    a.asymmetric_quantize_inputs = o->asymmetric_quantize_inputs();
    if constexpr (std::is_same_v<O, tflite::SequenceRNNOptions>) {
      a.time_major = o->time_major();
    } else if constexpr (std::is_same_v<O, tflite::BidirectionalSequenceRNNOptions>) {
      a.time_major = o->time_major();
      a.merge_outputs = o->merge_outputs();
    } else if constexpr (std::is_same_v<O, tflite::SVDFOptions>) {
      a.rank = o->rank();
      if (a.rank < 1) return InvalidArgumentError("SVDF rank " + std::to_string(a.rank) + " is below 1");
    }
  } else if constexpr (std::is_same_v<O, tflite::SVDFOptions>) {
    return InvalidArgumentError("missing SVDFOptions (the rank)");
  }
  *out = a;
  return OkStatus();
}

// Options tables read from the file alone (no C struct view).
template <typename T>
struct FileOnly {
  using Table = T;
};

// ---- Views of TFLite's C option structs (model/tflite_abi.h) with the
// accessors of the matching flatbuffer table, for the parsers above.

tflite::Padding FromCPadding(TfLitePadding p) {
  // C: 1 SAME, 2 VALID (0 unknown); the schema: 0 SAME, 1 VALID. Unknown
  // stays out of the schema's range, so ToPadding refuses it.
  return static_cast<tflite::Padding>(static_cast<int>(p) - 1);
}
tflite::ActivationFunctionType FromCActivation(TfLiteFusedActivation a) {
  // The same numbers (C adds 6, sigmoid, which ToActivation refuses).
  return static_cast<tflite::ActivationFunctionType>(static_cast<int>(a));
}

// A fixed C array seen as the flatbuffer vector the parsers read.
struct IntSpan {
  const int32_t* data;
  uint32_t count;
  uint32_t size() const { return count; }
  const int32_t* begin() const { return data; }
  const int32_t* end() const { return data + count; }
};

#define GLD_VIEW(View, CStruct, TableType)   \
  struct View {                              \
    using Table = tflite::TableType;         \
    using C = CStruct;                       \
    const CStruct* p;
#define GLD_ACT tflite::ActivationFunctionType fused_activation_function() const { return FromCActivation(p->activation); }
#define GLD_PAD tflite::Padding padding() const { return FromCPadding(p->padding); }
#define GLD_STRIDES                                   \
  int32_t stride_w() const { return p->stride_width; } \
  int32_t stride_h() const { return p->stride_height; }
#define GLD_FIELD(type, name, expr) type name() const { return expr; }

GLD_VIEW(ConvView, TfLiteConvParams, Conv2DOptions)
  GLD_PAD GLD_ACT GLD_STRIDES
  GLD_FIELD(int32_t, dilation_w_factor, p->dilation_width_factor)
  GLD_FIELD(int32_t, dilation_h_factor, p->dilation_height_factor)
};
GLD_VIEW(DepthwiseView, TfLiteDepthwiseConvParams, DepthwiseConv2DOptions)
  GLD_PAD GLD_ACT GLD_STRIDES
  GLD_FIELD(int32_t, dilation_w_factor, p->dilation_width_factor)
  GLD_FIELD(int32_t, dilation_h_factor, p->dilation_height_factor)
  GLD_FIELD(int32_t, depth_multiplier, p->depth_multiplier)
};
GLD_VIEW(TransposeConvView, TfLiteTransposeConvParams, TransposeConvOptions)
  GLD_PAD GLD_ACT GLD_STRIDES
};
GLD_VIEW(PoolView, TfLitePoolParams, Pool2DOptions)
  GLD_PAD GLD_ACT GLD_STRIDES
  GLD_FIELD(int32_t, filter_width, p->filter_width)
  GLD_FIELD(int32_t, filter_height, p->filter_height)
};
GLD_VIEW(FullyConnectedView, TfLiteFullyConnectedParams, FullyConnectedOptions)
  GLD_ACT
  GLD_FIELD(bool, keep_num_dims, p->keep_num_dims)
  GLD_FIELD(tflite::FullyConnectedOptionsWeightsFormat, weights_format,
            static_cast<tflite::FullyConnectedOptionsWeightsFormat>(p->weights_format))
};
GLD_VIEW(AddView, TfLiteAddParams, AddOptions) GLD_ACT };
GLD_VIEW(SubView, TfLiteSubParams, SubOptions) GLD_ACT };
GLD_VIEW(MulView, TfLiteMulParams, MulOptions) GLD_ACT };
GLD_VIEW(DivView, TfLiteDivParams, DivOptions) GLD_ACT };
GLD_VIEW(ConcatenationView, TfLiteConcatenationParams, ConcatenationOptions)
  GLD_ACT GLD_FIELD(int32_t, axis, p->axis)
};
GLD_VIEW(ReshapeView, TfLiteReshapeParams, ReshapeOptions)
  mutable IntSpan span{nullptr, 0};
  // No dimensions: TFLite's struct cannot tell an absent new_shape from an
  // empty one; the shape input decides then.
  const IntSpan* new_shape() const {
    if (p->num_dimensions <= 0) return nullptr;
    span = {p->shape, static_cast<uint32_t>(std::min(p->num_dimensions, 8))};
    return &span;
  }
};
GLD_VIEW(ReducerView, TfLiteReducerParams, ReducerOptions) GLD_FIELD(bool, keep_dims, p->keep_dims) };
GLD_VIEW(ResizeBilinearView, TfLiteResizeBilinearParams, ResizeBilinearOptions)
  GLD_FIELD(bool, align_corners, p->align_corners)
  GLD_FIELD(bool, half_pixel_centers, p->half_pixel_centers)
};
GLD_VIEW(ResizeNearestView, TfLiteResizeNearestNeighborParams, ResizeNearestNeighborOptions)
  GLD_FIELD(bool, align_corners, p->align_corners)
  GLD_FIELD(bool, half_pixel_centers, p->half_pixel_centers)
};
GLD_VIEW(DepthToSpaceView, TfLiteDepthToSpaceParams, DepthToSpaceOptions) GLD_FIELD(int32_t, block_size, p->block_size) };
GLD_VIEW(SpaceToDepthView, TfLiteSpaceToDepthParams, SpaceToDepthOptions) GLD_FIELD(int32_t, block_size, p->block_size) };
GLD_VIEW(SoftmaxView, TfLiteSoftmaxParams, SoftmaxOptions) GLD_FIELD(float, beta, p->beta) };
GLD_VIEW(LeakyReluView, TfLiteLeakyReluParams, LeakyReluOptions) GLD_FIELD(float, alpha, p->alpha) };
GLD_VIEW(GeluView, TfLiteGeluParams, GeluOptions) GLD_FIELD(bool, approximate, p->approximate) };
GLD_VIEW(MirrorPadView, TfLiteMirrorPaddingParams, MirrorPadOptions)
  // C: 1 REFLECT, 2 SYMMETRIC; the schema: 0, 1.
  GLD_FIELD(tflite::MirrorPadMode, mode, static_cast<tflite::MirrorPadMode>(static_cast<int>(p->mode) - 1))
};
GLD_VIEW(StridedSliceView, TfLiteStridedSliceParams, StridedSliceOptions)
  GLD_FIELD(int32_t, begin_mask, p->begin_mask)
  GLD_FIELD(int32_t, end_mask, p->end_mask)
  GLD_FIELD(int32_t, ellipsis_mask, p->ellipsis_mask)
  GLD_FIELD(int32_t, new_axis_mask, p->new_axis_mask)
  GLD_FIELD(int32_t, shrink_axis_mask, p->shrink_axis_mask)
  GLD_FIELD(bool, offset, p->offset)
};
GLD_VIEW(GatherView, TfLiteGatherParams, GatherOptions)
  GLD_FIELD(int32_t, axis, p->axis)
  GLD_FIELD(int32_t, batch_dims, p->batch_dims)
};
GLD_VIEW(PackView, TfLitePackParams, PackOptions)
  GLD_FIELD(int32_t, axis, p->axis)
  GLD_FIELD(int32_t, values_count, p->values_count)
};
GLD_VIEW(UnpackView, TfLiteUnpackParams, UnpackOptions)
  GLD_FIELD(int32_t, axis, p->axis)
  GLD_FIELD(int32_t, num, p->num)
};
GLD_VIEW(OneHotView, TfLiteOneHotParams, OneHotOptions) GLD_FIELD(int32_t, axis, p->axis) };
GLD_VIEW(SplitView, TfLiteSplitParams, SplitOptions) GLD_FIELD(int32_t, num_splits, p->num_splits) };
GLD_VIEW(SplitVView, TfLiteSplitVParams, SplitVOptions) GLD_FIELD(int32_t, num_splits, p->num_splits) };
GLD_VIEW(CumsumView, TfLiteCumsumParams, CumsumOptions)
  GLD_FIELD(bool, exclusive, p->exclusive)
  GLD_FIELD(bool, reverse, p->reverse)
};
GLD_VIEW(SqueezeView, TfLiteSqueezeParams, SqueezeOptions)
  mutable IntSpan span{nullptr, 0};
  const IntSpan* squeeze_dims() const {
    span = {p->squeeze_dims,
                                            static_cast<uint32_t>(std::clamp(p->num_squeeze_dims, 0, 8))};
    return &span;
  }
};
GLD_VIEW(LrnView, TfLiteLocalResponseNormParams, LocalResponseNormalizationOptions)
  GLD_FIELD(int32_t, radius, p->radius)
  GLD_FIELD(float, bias, p->bias)
  GLD_FIELD(float, alpha, p->alpha)
  GLD_FIELD(float, beta, p->beta)
};
GLD_VIEW(BatchMatMulView, TfLiteBatchMatMulParams, BatchMatMulOptions)
  GLD_FIELD(bool, adj_x, p->adj_x)
  GLD_FIELD(bool, adj_y, p->adj_y)
};
#undef GLD_VIEW
#undef GLD_ACT
#undef GLD_PAD
#undef GLD_STRIDES
#undef GLD_FIELD

// Control flow and resource variables: read from the file's options only
// (the TFLite delegate never takes these nodes: no backend of a delegate
// partition runs another subgraph).
// (Templates over the options table, as GLD_FILE_ONLY instantiates them.)
template <typename O>
Status ParseWhile(const O* o, Attributes* out) {
  if (o == nullptr) return InvalidArgumentError("missing WhileOptions");
  *out = WhileAttributes{o->cond_subgraph_index(), o->body_subgraph_index()};
  return OkStatus();
}
template <typename O>
Status ParseIf(const O* o, Attributes* out) {
  if (o == nullptr) return InvalidArgumentError("missing IfOptions");
  *out = IfAttributes{o->then_subgraph_index(), o->else_subgraph_index()};
  return OkStatus();
}
template <typename O>
Status ParseCallOnce(const O* o, Attributes* out) {
  if (o == nullptr) return InvalidArgumentError("missing CallOnceOptions");
  *out = CallOnceAttributes{o->init_subgraph_index()};
  return OkStatus();
}
template <typename O>
Status ParseVarHandle(const O* o, Attributes* out) {
  VarHandleAttributes a;
  if (o != nullptr && o->container() != nullptr) a.container = o->container()->str();
  if (o != nullptr && o->shared_name() != nullptr) a.shared_name = o->shared_name()->str();
  *out = std::move(a);
  return OkStatus();
}

using BuiltinParser = Status (*)(const tflite::Operator& op, Attributes* out);
using BuiltinDataParser = Status (*)(const void* builtin_data, Attributes* out);
using CustomParser = Status (*)(const uint8_t* data, size_t size, int version, Attributes* out);

// Parser over the file's options table View::Table.
template <typename View, Status (*Parse)(const typename View::Table*, Attributes*)>
Status FromTable(const tflite::Operator& op, Attributes* out) {
  GLD_ASSIGN_OR_RETURN(const typename View::Table* o, GetOptions<typename View::Table>(op, false));
  return Parse(o, out);
}
// The same parser over TFLite's C struct View::C.
template <typename View, Status (*Parse)(const View*, Attributes*)>
Status FromStruct(const void* builtin_data, Attributes* out) {
  if (builtin_data == nullptr) return Parse(nullptr, out);
  const View view{static_cast<const typename View::C*>(builtin_data)};
  return Parse(&view, out);
}

// How each op's options become its attributes: a builtin op's options table
// (from a file) or C struct (from TFLite's interpreter, for the delegate), or
// a custom op's custom_options bytes. An op without a row has no options
// the IR uses; a binary row of the elementwise table without one gets
// BinaryAttributes without an activation (FindOptionParser). Encoding lives beside the builder (support/model_builder.cc).
struct OptionParser {
  OpType op;
  BuiltinParser builtin;
  BuiltinDataParser builtin_data;
  CustomParser custom;
};

#define GLD_BUILTIN(op, Parse, View) \
  { op, FromTable<View, Parse<typename View::Table>>, FromStruct<View, Parse<View>>, nullptr }
#define GLD_NO_OPTIONS(op) \
  { op, BinaryWithoutOptions, BinaryWithoutOptionsData, nullptr }
#define GLD_CUSTOM(op, Parse) \
  { op, nullptr, nullptr, Parse }
#define GLD_FILE_ONLY(op, Parse, Table) \
  { op, FromTable<FileOnly<tflite::Table>, Parse<tflite::Table>>, nullptr, nullptr }

// clang-format off
const OptionParser kOptionParsers[] = {
    GLD_BUILTIN(OpType::kConv2d, ParseConv2d, ConvView),
    GLD_BUILTIN(OpType::kDepthwiseConv2d, ParseDepthwiseConv2d, DepthwiseView),
    GLD_BUILTIN(OpType::kTransposeConv, ParseTransposeConv, TransposeConvView),
    GLD_BUILTIN(OpType::kAveragePool2d, ParsePool2d, PoolView),
    GLD_BUILTIN(OpType::kMaxPool2d, ParsePool2d, PoolView),
    GLD_BUILTIN(OpType::kFullyConnected, ParseFullyConnected, FullyConnectedView),
    GLD_BUILTIN(OpType::kAdd, ActivationOnly, AddView),
    GLD_BUILTIN(OpType::kSub, ActivationOnly, SubView),
    GLD_BUILTIN(OpType::kMul, ActivationOnly, MulView),
    GLD_BUILTIN(OpType::kDiv, ActivationOnly, DivView),
    GLD_NO_OPTIONS(OpType::kEqual),
    GLD_NO_OPTIONS(OpType::kNotEqual),
    GLD_NO_OPTIONS(OpType::kLess),
    GLD_NO_OPTIONS(OpType::kLessEqual),
    GLD_NO_OPTIONS(OpType::kGreater),
    GLD_NO_OPTIONS(OpType::kGreaterEqual),
    GLD_NO_OPTIONS(OpType::kLogicalAnd),
    GLD_NO_OPTIONS(OpType::kLogicalOr),
    GLD_BUILTIN(OpType::kConcatenation, ParseConcatenation, ConcatenationView),
    GLD_BUILTIN(OpType::kReshape, ParseReshape, ReshapeView),
    GLD_BUILTIN(OpType::kMean, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kSum, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kReduceMax, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kReduceMin, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kReduceProd, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kReduceAny, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kReduceAll, ParseReducer, ReducerView),
    GLD_BUILTIN(OpType::kResizeBilinear, ParseResizeBilinear, ResizeBilinearView),
    GLD_BUILTIN(OpType::kResizeNearestNeighbor, ParseResizeNearestNeighbor, ResizeNearestView),
    GLD_BUILTIN(OpType::kDepthToSpace, ParseDepthToSpace, DepthToSpaceView),
    GLD_BUILTIN(OpType::kSpaceToDepth, ParseSpaceToDepth, SpaceToDepthView),
    GLD_BUILTIN(OpType::kSoftmax, ParseSoftmax, SoftmaxView),
    GLD_BUILTIN(OpType::kLeakyRelu, ParseLeakyRelu, LeakyReluView),
    GLD_BUILTIN(OpType::kGelu, ParseGelu, GeluView),
    GLD_BUILTIN(OpType::kMirrorPad, ParseMirrorPad, MirrorPadView),
    GLD_BUILTIN(OpType::kStridedSlice, ParseStridedSlice, StridedSliceView),
    GLD_BUILTIN(OpType::kGather, ParseGather, GatherView),
    GLD_BUILTIN(OpType::kPack, ParsePack, PackView),
    GLD_BUILTIN(OpType::kUnpack, ParseUnpack, UnpackView),
    GLD_BUILTIN(OpType::kOneHot, ParseOneHot, OneHotView),
    GLD_BUILTIN(OpType::kSplit, ParseSplit, SplitView),
    GLD_BUILTIN(OpType::kSplitV, ParseSplitV, SplitVView),
    GLD_BUILTIN(OpType::kCumsum, ParseCumsum, CumsumView),
    GLD_BUILTIN(OpType::kSqueeze, ParseSqueeze, SqueezeView),
    GLD_BUILTIN(OpType::kLocalResponseNormalization, ParseLocalResponseNormalization, LrnView),
    GLD_BUILTIN(OpType::kBatchMatMul, ParseBatchMatMul, BatchMatMulView),
    GLD_FILE_ONLY(OpType::kLstm, ParseLstmOptions, LSTMOptions),
    GLD_FILE_ONLY(OpType::kUnidirectionalSequenceLstm, ParseLstmOptions, UnidirectionalSequenceLSTMOptions),
    GLD_FILE_ONLY(OpType::kBidirectionalSequenceLstm, ParseLstmOptions, BidirectionalSequenceLSTMOptions),
    GLD_FILE_ONLY(OpType::kRnn, ParseRnnOptions, RNNOptions),
    GLD_FILE_ONLY(OpType::kUnidirectionalSequenceRnn, ParseRnnOptions, SequenceRNNOptions),
    GLD_FILE_ONLY(OpType::kBidirectionalSequenceRnn, ParseRnnOptions, BidirectionalSequenceRNNOptions),
    GLD_FILE_ONLY(OpType::kSvdf, ParseRnnOptions, SVDFOptions),
    GLD_FILE_ONLY(OpType::kWhile, ParseWhile, WhileOptions),
    GLD_FILE_ONLY(OpType::kIf, ParseIf, IfOptions),
    GLD_FILE_ONLY(OpType::kCallOnce, ParseCallOnce, CallOnceOptions),
    GLD_FILE_ONLY(OpType::kVarHandle, ParseVarHandle, VarHandleOptions),
    GLD_FILE_ONLY(OpType::kConv3d, ParseConv3d, Conv3DOptions),
    GLD_FILE_ONLY(OpType::kBucketize, ParseBucketize, BucketizeOptions),
    GLD_FILE_ONLY(OpType::kUnique, ParseUnique, UniqueOptions),
    GLD_CUSTOM(OpType::kConvolution2DTransposeBias, ParseConvolution2DTransposeBias),
    GLD_CUSTOM(OpType::kMaxPoolingWithArgmax2D, ParseMediaPipePool2d),
    GLD_CUSTOM(OpType::kMaxUnpooling2D, ParseMediaPipePool2d),
    GLD_CUSTOM(OpType::kTransformTensorBilinear, ParseTransformTensorBilinear),
    GLD_CUSTOM(OpType::kTransformLandmarks, ParseTransformLandmarks),
    GLD_CUSTOM(OpType::kLandmarks2TransformMatrix, ParseLandmarks2TransformMatrix),
};
// clang-format on
#undef GLD_BUILTIN
#undef GLD_NO_OPTIONS
#undef GLD_CUSTOM
#undef GLD_FILE_ONLY

const OptionParser* FindOptionParser(OpType op) {
  for (const OptionParser& p : kOptionParsers) {
    if (p.op == op) return &p;
  }
  static const OptionParser kBinaryElementwise = {OpType::kCustom, BinaryWithoutOptions,
                                                  BinaryWithoutOptionsData, nullptr};
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

Status ParseBuiltinData(OpType type, const void* builtin_data, Attributes* out) {
  *out = std::monostate{};
  const OptionParser* p = FindOptionParser(type);
  if (p == nullptr || (p->builtin_data == nullptr && p->builtin == nullptr)) return OkStatus();
  if (p->builtin_data == nullptr) {  // GLD_FILE_ONLY: no view of TFLite's C struct
    return UnimplementedError(std::string(OpTypeName(type)) + "'s options are read from model files only");
  }
  return p->builtin_data(builtin_data, out);
}

Status CheckArity(const Node& node) {
  const OpInfo& arity = GetOpInfo(node.op);
  auto expected = [](int min, int max) {
    return std::to_string(min) + (max == min ? std::string() : max < 0 ? std::string(" or more") : " to " + std::to_string(max));
  };
  const int ni = static_cast<int>(node.inputs.size()), no = static_cast<int>(node.outputs.size());
  if (ni < arity.min_inputs || (arity.max_inputs >= 0 && ni > arity.max_inputs)) {
    return InvalidArgumentError("has " + std::to_string(ni) + " inputs, expected " +
                                expected(arity.min_inputs, arity.max_inputs));
  }
  if (no < arity.min_outputs || (arity.max_outputs >= 0 && no > arity.max_outputs)) {
    return InvalidArgumentError("has " + std::to_string(no) + " outputs, expected " +
                                expected(arity.min_outputs, arity.max_outputs));
  }
  return OkStatus();
}

OpType CustomOpType(const std::string& custom_name) {
  // A custom_code the op table does not name is an app's custom op
  // (OpType::kCustom): whether one is registered is the Interpreter's
  // question (Options::custom_ops).
  OpType op;
  int32_t ignored;
  if (!OpTypeFromName(custom_name, &op) || BuiltinFromOpType(op, &ignored)) return OpType::kCustom;
  // The library's own ops that passes make (GLD_LAYER_NORM) are no file's
  // ops: a custom_code naming one is an app's op like any other.
  if (op == OpType::kLayerNorm) return OpType::kCustom;
  return op;
}

Status SetCustomNodeAttributes(const std::string& custom_name, int version, const uint8_t* data, size_t size,
                               Node* node) {
  auto custom = [&] {
    CustomAttributes a;
    a.name = custom_name;
    a.version = version;
    if (size > 0) a.options = std::make_shared<const std::vector<uint8_t>>(data, data + size);
    return a;
  };
  if (node->op == OpType::kCustom) {
    node->attributes = custom();
    return OkStatus();
  }
  GLD_RETURN_IF_ERROR(ParseCustomOptions(node->op, data, size, version, &node->attributes));
  if (IsLibraryCustomOp(node->op)) {
    // A custom node an app may take over; the library's row otherwise.
    CustomAttributes a = custom();
    a.library = std::make_shared<const LibraryCustomOp>(LibraryCustomOp{node->op, std::move(node->attributes)});
    node->op = OpType::kCustom;
    node->attributes = std::move(a);
  }
  return OkStatus();
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
