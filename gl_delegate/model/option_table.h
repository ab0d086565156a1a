// The builtin options of the ops the IR reads, described once: one row per
// field of a TFLite options table. From these rows come the parser of the
// file's options table and of TFLite's C struct (model/tflite_ops.cc, the
// view over the C struct included) and the ModelBuilder's encoder
// (support/model_builder.cc); tests/model/op_options_table_test.cc walks every
// row through all three.
//
// A field row:  F(field, member, kind, default, check, c_member)
//   field     the table's field: its accessor o->field(), its builder's
//             add_field(), and the ModelBuilder's option name
//   member    the attribute it sets (graph/attributes.h)
//   kind      how the table's value becomes the attribute (Int, Bool, Float,
//             Pad, Act, MirrorMode, LstmKernel, IndexType below)
//   default   what the ModelBuilder writes when the option is not named, and
//             what the parser takes when the op carries no options table; it
//             may name `ctx` (OptionDefaults: the op's tensor counts) or be
//             kNoDefault (the ModelBuilder requires the option)
//   check     a function of checks:: below that the parsed value must pass
//   c_member  the member of TFLite's C struct (delegate tables; `_` in a
//             file-only table)
// A refused field:  R(field, kind, default, c_member): read only to refuse
// any value but its default (Unimplemented), the IR having nowhere to put it.
//
// A table row:  D(Table, Attributes, CStruct, missing, FIELDS) for a table
// the delegate also reads from TFLite's C struct, F(Table, Attributes,
// missing, FIELDS) for one read from files only (the delegate leaves such a
// node with TFLite). `missing` is kOptional, kRequired or kRequired's note.
// An op row (GLD_OPTION_OPS): the OpType and the table its options are in.
//
// Ops whose options need more than fields (vectors, strings, MediaPipe's
// raw structs) keep a named hook beside the rows' users.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gldelegate/status.hpp"
#include "gldelegate/tflite_generated.h"
#include "graph/attributes.h"

namespace gld::option_fields {

enum class Category { kInt, kBool, kFloat, kEnum };

// What a default may name: the op's shape in the model being written (the
// parser's own, when the file has no options, is all zeros and INT32).
struct OptionDefaults {
  int32_t num_inputs = 0;
  int32_t num_outputs = 0;
  tflite::TensorType index_type = tflite::TensorType::INT32;  // UNIQUE's index output
};

struct NoDefault {};
constexpr NoDefault kNoDefault{};

template <typename T, typename D>
T DefaultOf(const D& d) {
  if constexpr (std::is_same_v<D, NoDefault>) {
    return T{};
  } else {
    return static_cast<T>(d);
  }
}

constexpr const char* kOptional = nullptr;
constexpr const char* kRequired = "";

// ---- Kinds: the table's type T, how a value becomes the attribute (Read),
// how a refused field says no (Refuse), the names of enum values.

// A value the attribute holds as it is.
template <typename V, Category C>
struct Plain {
  using T = V;
  static constexpr Category kCategory = C;
  static Status Read(const char*, const char*, T v, T* out) {
    *out = v;
    return OkStatus();
  }
};
using Int = Plain<int32_t, Category::kInt>;
using Float = Plain<float, Category::kFloat>;
struct Bool : Plain<bool, Category::kBool> {
  static Status Refuse(const char*, const char* field, T) {
    return UnimplementedError(std::string(field) + " is not supported");
  }
};

// An enum of the schema: its first kCount names are its values.
template <typename E, int N, const char* const* (*NamesOf)()>
struct Enum {
  using T = E;
  static constexpr Category kCategory = Category::kEnum;
  static constexpr int kCount = N;
  static const char* const* Names() { return NamesOf(); }
};

struct Pad : Enum<tflite::Padding, 2, tflite::EnumNamesPadding> {
  static Status Read(const char*, const char*, T v, Padding* out) {
    switch (v) {
      case tflite::Padding::SAME: *out = Padding::kSame; return OkStatus();
      case tflite::Padding::VALID: *out = Padding::kValid; return OkStatus();
    }
    return InvalidArgumentError("unknown padding " + std::to_string(static_cast<int>(v)));
  }
};

struct Act : Enum<tflite::ActivationFunctionType, 6, tflite::EnumNamesActivationFunctionType> {
  static Status Read(const char*, const char*, T v, Activation* out) {
    switch (v) {
      case T::NONE: *out = Activation::kNone; return OkStatus();
      case T::RELU: *out = Activation::kRelu; return OkStatus();
      case T::RELU_N1_TO_1: *out = Activation::kReluN1To1; return OkStatus();
      case T::RELU6: *out = Activation::kRelu6; return OkStatus();
      case T::TANH: *out = Activation::kTanh; return OkStatus();
      case T::SIGN_BIT: *out = Activation::kSignBit; return OkStatus();
    }
    return InvalidArgumentError("unknown fused_activation_function " + std::to_string(static_cast<int>(v)));
  }
};

// MIRROR_PAD's mode as MirrorPadAttributes::symmetric.
struct MirrorMode : Enum<tflite::MirrorPadMode, 2, tflite::EnumNamesMirrorPadMode> {
  static Status Read(const char* table, const char* field, T v, bool* symmetric) {
    if (v == T::REFLECT || v == T::SYMMETRIC) {
      *symmetric = v == T::SYMMETRIC;
      return OkStatus();
    }
    return InvalidArgumentError("unknown " + std::string(table) + "." + field + " " +
                                std::to_string(static_cast<int>(v)));
  }
};

// FULLY_CONNECTED's weights_format: only DEFAULT is taken.
struct WeightsFormat : Enum<tflite::FullyConnectedOptionsWeightsFormat, 2, tflite::EnumNamesFullyConnectedOptionsWeightsFormat> {
  static Status Refuse(const char*, const char* field, T v) {
    return UnimplementedError(std::string(field) + " " + tflite::EnumNameFullyConnectedOptionsWeightsFormat(v) +
                              " is not supported");
  }
};

// LSTM's kernel_type as RecurrentAttributes::basic_kernel.
struct LstmKernel : Enum<tflite::LSTMKernelType, 2, tflite::EnumNamesLSTMKernelType> {
  static Status Read(const char*, const char*, T v, bool* basic) {
    *basic = v == T::BASIC;
    return OkStatus();
  }
};

// UNIQUE's idx_out_type as UniqueAttributes::idx_int64.
struct IndexType : Enum<tflite::TensorType, static_cast<int>(tflite::TensorType::MAX) + 1, tflite::EnumNamesTensorType> {
  static Status Read(const char* table, const char* field, T v, bool* int64) {
    if (v != T::INT32 && v != T::INT64) {
      return InvalidArgumentError(std::string(table) + "." + field + " must be INT32 or INT64, got " +
                                  std::to_string(static_cast<int>(v)));
    }
    *int64 = v == T::INT64;
    return OkStatus();
  }
};

template <typename Kind>
Status RefuseUnlessDefault(const char* table, const char* field, typename Kind::T v, typename Kind::T def) {
  return v == def ? OkStatus() : Kind::Refuse(table, field, v);
}

// ---- Checks of a parsed value: (table, field, value).
namespace checks {

// Strides, dilations, pooling filters and block sizes: past int16 range they
// serve no real model and only overflow index arithmetic; shape inference
// bounds each window's reach as a whole.
constexpr int32_t kMaxWindowFactor = 32767;

template <typename V>
Status Any(const char*, const char*, const V&) {
  return OkStatus();
}
inline Status Factor(const char*, const char* field, int32_t v) {
  if (v >= 1 && v <= kMaxWindowFactor) return OkStatus();
  return InvalidArgumentError(std::string(field) + " is " + std::to_string(v) + ", must be in 1.." +
                              std::to_string(kMaxWindowFactor));
}
inline Status NonNegative(const char*, const char* field, int32_t v) {
  if (v >= 0) return OkStatus();
  return InvalidArgumentError(std::string(field) + " is " + std::to_string(v));
}
inline Status Finite(const char* table, const char* field, float v) {
  if (std::isfinite(v)) return OkStatus();
  return InvalidArgumentError(std::string(table) + "." + field + " is not finite");
}
inline Status Clip(const char*, const char* field, float v) {
  if (v >= 0.f) return OkStatus();
  return InvalidArgumentError(std::string(field) + " " + std::to_string(v) + " is negative or NaN");
}
inline Status SvdfRank(const char*, const char*, int32_t v) {
  if (v >= 1) return OkStatus();
  return InvalidArgumentError("SVDF rank " + std::to_string(v) + " is below 1");
}

}  // namespace checks
}  // namespace gld::option_fields

// ---- The fields of each options table, in the order the parser reads and
// checks them (the first failing field is the one reported).
// clang-format off
// The 2-D window ops' padding, activation, strides and dilations.
#define GLD_WINDOW_FIELDS(F) \
  F(padding, padding, Pad, tflite::Padding::VALID, Any, padding) \
  F(fused_activation_function, activation, Act, tflite::ActivationFunctionType::NONE, Any, activation) \
  F(stride_w, stride_w, Int, 1, Factor, stride_width) \
  F(stride_h, stride_h, Int, 1, Factor, stride_height)
#define GLD_DILATION_FIELDS(F) \
  F(dilation_w_factor, dilation_w, Int, 1, Factor, dilation_width_factor) \
  F(dilation_h_factor, dilation_h, Int, 1, Factor, dilation_height_factor)
#define GLD_CONV_2D_FIELDS(F, R) \
  GLD_WINDOW_FIELDS(F) GLD_DILATION_FIELDS(F)
#define GLD_CONV_3D_FIELDS(F, R) \
  F(padding, padding, Pad, tflite::Padding::VALID, Any, _) \
  F(fused_activation_function, activation, Act, tflite::ActivationFunctionType::NONE, Any, _) \
  F(stride_d, stride_d, Int, 1, Factor, _) \
  F(stride_h, stride_h, Int, 1, Factor, _) \
  F(stride_w, stride_w, Int, 1, Factor, _) \
  F(dilation_d_factor, dilation_d, Int, 1, Factor, _) \
  F(dilation_h_factor, dilation_h, Int, 1, Factor, _) \
  F(dilation_w_factor, dilation_w, Int, 1, Factor, _)
// Newer converters leave depth_multiplier 0 (the kernel infers it).
#define GLD_DEPTHWISE_FIELDS(F, R) \
  GLD_WINDOW_FIELDS(F) GLD_DILATION_FIELDS(F) \
  F(depth_multiplier, depth_multiplier, Int, 1, NonNegative, depth_multiplier)
#define GLD_TRANSPOSE_CONV_FIELDS(F, R) \
  GLD_WINDOW_FIELDS(F)
#define GLD_POOL_2D_FIELDS(F, R) \
  GLD_WINDOW_FIELDS(F) \
  F(filter_width, filter_w, Int, 1, Factor, filter_width) \
  F(filter_height, filter_h, Int, 1, Factor, filter_height)
#define GLD_ACTIVATION_FIELDS(F, R) \
  F(fused_activation_function, activation, Act, tflite::ActivationFunctionType::NONE, Any, activation)
#define GLD_FULLY_CONNECTED_FIELDS(F, R) \
  GLD_ACTIVATION_FIELDS(F, R) \
  F(keep_num_dims, keep_num_dims, Bool, false, Any, keep_num_dims) \
  F(asymmetric_quantize_inputs, asymmetric_quantize_inputs, Bool, false, Any, asymmetric_quantize_inputs) \
  R(weights_format, WeightsFormat, tflite::FullyConnectedOptionsWeightsFormat::DEFAULT, weights_format)
#define GLD_CONCATENATION_FIELDS(F, R) \
  F(axis, axis, Int, 0, Any, axis) \
  GLD_ACTIVATION_FIELDS(F, R)
#define GLD_REDUCER_FIELDS(F, R) \
  F(keep_dims, keep_dims, Bool, false, Any, keep_dims)
#define GLD_RESIZE_FIELDS(F, R) \
  F(align_corners, align_corners, Bool, false, Any, align_corners) \
  F(half_pixel_centers, half_pixel_centers, Bool, false, Any, half_pixel_centers)
#define GLD_BLOCK_SIZE_FIELDS(F, R) \
  F(block_size, block_size, Int, ::gld::option_fields::kNoDefault, Factor, block_size)
#define GLD_SOFTMAX_FIELDS(F, R) \
  F(beta, beta, Float, 1.0f, Finite, beta)
#define GLD_LEAKY_RELU_FIELDS(F, R) \
  F(alpha, alpha, Float, 0.2f, Any, alpha)
#define GLD_GELU_FIELDS(F, R) \
  F(approximate, approximate, Bool, false, Any, approximate)
#define GLD_MIRROR_PAD_FIELDS(F, R) \
  F(mode, symmetric, MirrorMode, tflite::MirrorPadMode::REFLECT, Any, mode)
#define GLD_STRIDED_SLICE_FIELDS(F, R) \
  F(begin_mask, begin_mask, Int, 0, Any, begin_mask) \
  F(end_mask, end_mask, Int, 0, Any, end_mask) \
  F(ellipsis_mask, ellipsis_mask, Int, 0, Any, ellipsis_mask) \
  F(new_axis_mask, new_axis_mask, Int, 0, Any, new_axis_mask) \
  F(shrink_axis_mask, shrink_axis_mask, Int, 0, Any, shrink_axis_mask) \
  F(offset, offset, Bool, false, Any, offset)
#define GLD_GATHER_FIELDS(F, R) \
  F(axis, axis, Int, 0, Any, axis) \
  F(batch_dims, batch_dims, Int, 0, Any, batch_dims)
#define GLD_PACK_FIELDS(F, R) \
  F(axis, axis, Int, 0, Any, axis) \
  F(values_count, count, Int, ctx.num_inputs, Any, values_count)
#define GLD_UNPACK_FIELDS(F, R) \
  F(axis, axis, Int, 0, Any, axis) \
  F(num, count, Int, ctx.num_outputs, Any, num)
// TFLite's default: a new last axis.
#define GLD_ONE_HOT_FIELDS(F, R) \
  F(axis, axis, Int, -1, Any, axis)
#define GLD_SPLIT_FIELDS(F, R) \
  F(num_splits, count, Int, ctx.num_outputs, Any, num_splits)
#define GLD_CUMSUM_FIELDS(F, R) \
  F(exclusive, exclusive, Bool, false, Any, exclusive) \
  F(reverse, reverse, Bool, false, Any, reverse)
#define GLD_LRN_FIELDS(F, R) \
  F(radius, radius, Int, 5, NonNegative, radius) \
  F(bias, bias, Float, 1.0f, Any, bias) \
  F(alpha, alpha, Float, 1.0f, Any, alpha) \
  F(beta, beta, Float, 0.5f, Any, beta)
#define GLD_BATCH_MATMUL_FIELDS(F, R) \
  F(adj_x, adj_x, Bool, false, Any, adj_x) \
  F(adj_y, adj_y, Bool, false, Any, adj_y)
#define GLD_WHILE_FIELDS(F, R) \
  F(cond_subgraph_index, cond_subgraph, Int, 0, Any, _) \
  F(body_subgraph_index, body_subgraph, Int, 0, Any, _)
#define GLD_IF_FIELDS(F, R) \
  F(then_subgraph_index, then_subgraph, Int, 0, Any, _) \
  F(else_subgraph_index, else_subgraph, Int, 0, Any, _)
#define GLD_CALL_ONCE_FIELDS(F, R) \
  F(init_subgraph_index, init_subgraph, Int, 0, Any, _)
#define GLD_UNIQUE_FIELDS(F, R) \
  F(idx_out_type, idx_int64, IndexType, ctx.index_type, Any, _)
// The recurrent ops (RecurrentAttributes).
#define GLD_RECURRENT_FIELDS(F) \
  F(fused_activation_function, activation, Act, tflite::ActivationFunctionType::NONE, Any, _) \
  F(asymmetric_quantize_inputs, asymmetric_quantize_inputs, Bool, false, Any, _)
#define GLD_CLIP_FIELDS(F) \
  F(cell_clip, cell_clip, Float, 0.f, Clip, _) \
  F(proj_clip, proj_clip, Float, 0.f, Clip, _)
#define GLD_LSTM_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) GLD_CLIP_FIELDS(F) \
  F(kernel_type, basic_kernel, LstmKernel, tflite::LSTMKernelType::FULL, Any, _)
#define GLD_SEQUENCE_LSTM_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) GLD_CLIP_FIELDS(F) \
  F(time_major, time_major, Bool, false, Any, _) \
  R(diagonal_recurrent_tensors, Bool, false, _)
#define GLD_BIDIRECTIONAL_LSTM_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) GLD_CLIP_FIELDS(F) \
  F(time_major, time_major, Bool, true, Any, _) \
  F(merge_outputs, merge_outputs, Bool, false, Any, _)
#define GLD_RNN_FIELDS(F, R) GLD_RECURRENT_FIELDS(F)
#define GLD_SEQUENCE_RNN_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) \
  F(time_major, time_major, Bool, false, Any, _)
#define GLD_BIDIRECTIONAL_RNN_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) \
  F(time_major, time_major, Bool, false, Any, _) \
  F(merge_outputs, merge_outputs, Bool, false, Any, _)
#define GLD_SVDF_FIELDS(F, R) \
  GLD_RECURRENT_FIELDS(F) \
  F(rank, rank, Int, 1, SvdfRank, _)

// ---- The tables: D(Table, Attributes, CStruct, missing, FIELDS) for those
// the delegate reads from TFLite's C struct too, F(Table, Attributes,
// missing, FIELDS) for those read from files only.
#define GLD_OPTION_TABLES(D, F) \
  D(Conv2DOptions, Conv2dAttributes, TfLiteConvParams, kRequired, GLD_CONV_2D_FIELDS) \
  D(DepthwiseConv2DOptions, DepthwiseConv2dAttributes, TfLiteDepthwiseConvParams, kRequired, GLD_DEPTHWISE_FIELDS) \
  D(TransposeConvOptions, TransposeConvAttributes, TfLiteTransposeConvParams, kRequired, GLD_TRANSPOSE_CONV_FIELDS) \
  D(Pool2DOptions, Pool2dAttributes, TfLitePoolParams, kRequired, GLD_POOL_2D_FIELDS) \
  D(FullyConnectedOptions, FullyConnectedAttributes, TfLiteFullyConnectedParams, kOptional, GLD_FULLY_CONNECTED_FIELDS) \
  D(AddOptions, BinaryAttributes, TfLiteAddParams, kOptional, GLD_ACTIVATION_FIELDS) \
  D(SubOptions, BinaryAttributes, TfLiteSubParams, kOptional, GLD_ACTIVATION_FIELDS) \
  D(MulOptions, BinaryAttributes, TfLiteMulParams, kOptional, GLD_ACTIVATION_FIELDS) \
  D(DivOptions, BinaryAttributes, TfLiteDivParams, kOptional, GLD_ACTIVATION_FIELDS) \
  D(ConcatenationOptions, ConcatenationAttributes, TfLiteConcatenationParams, kOptional, GLD_CONCATENATION_FIELDS) \
  D(ReducerOptions, ReduceAttributes, TfLiteReducerParams, kOptional, GLD_REDUCER_FIELDS) \
  D(ResizeBilinearOptions, ResizeAttributes, TfLiteResizeBilinearParams, kOptional, GLD_RESIZE_FIELDS) \
  D(ResizeNearestNeighborOptions, ResizeAttributes, TfLiteResizeNearestNeighborParams, kOptional, GLD_RESIZE_FIELDS) \
  D(DepthToSpaceOptions, BlockSizeAttributes, TfLiteDepthToSpaceParams, kRequired, GLD_BLOCK_SIZE_FIELDS) \
  D(SpaceToDepthOptions, BlockSizeAttributes, TfLiteSpaceToDepthParams, kRequired, GLD_BLOCK_SIZE_FIELDS) \
  D(SoftmaxOptions, SoftmaxAttributes, TfLiteSoftmaxParams, kOptional, GLD_SOFTMAX_FIELDS) \
  D(LeakyReluOptions, LeakyReluAttributes, TfLiteLeakyReluParams, kOptional, GLD_LEAKY_RELU_FIELDS) \
  D(GeluOptions, GeluAttributes, TfLiteGeluParams, kOptional, GLD_GELU_FIELDS) \
  D(MirrorPadOptions, MirrorPadAttributes, TfLiteMirrorPaddingParams, kOptional, GLD_MIRROR_PAD_FIELDS) \
  D(StridedSliceOptions, StridedSliceAttributes, TfLiteStridedSliceParams, kOptional, GLD_STRIDED_SLICE_FIELDS) \
  D(GatherOptions, AxisAttributes, TfLiteGatherParams, kOptional, GLD_GATHER_FIELDS) \
  D(PackOptions, AxisAttributes, TfLitePackParams, kOptional, GLD_PACK_FIELDS) \
  D(UnpackOptions, AxisAttributes, TfLiteUnpackParams, kOptional, GLD_UNPACK_FIELDS) \
  D(OneHotOptions, AxisAttributes, TfLiteOneHotParams, kOptional, GLD_ONE_HOT_FIELDS) \
  D(SplitOptions, AxisAttributes, TfLiteSplitParams, kOptional, GLD_SPLIT_FIELDS) \
  D(SplitVOptions, AxisAttributes, TfLiteSplitVParams, kOptional, GLD_SPLIT_FIELDS) \
  D(CumsumOptions, AxisAttributes, TfLiteCumsumParams, kOptional, GLD_CUMSUM_FIELDS) \
  D(LocalResponseNormalizationOptions, LrnAttributes, TfLiteLocalResponseNormParams, kOptional, GLD_LRN_FIELDS) \
  D(BatchMatMulOptions, BatchMatMulAttributes, TfLiteBatchMatMulParams, kOptional, GLD_BATCH_MATMUL_FIELDS) \
  F(Conv3DOptions, Conv3dAttributes, kRequired, GLD_CONV_3D_FIELDS) \
  F(WhileOptions, WhileAttributes, kRequired, GLD_WHILE_FIELDS) \
  F(IfOptions, IfAttributes, kRequired, GLD_IF_FIELDS) \
  F(CallOnceOptions, CallOnceAttributes, kRequired, GLD_CALL_ONCE_FIELDS) \
  F(UniqueOptions, UniqueAttributes, kOptional, GLD_UNIQUE_FIELDS) \
  F(LSTMOptions, RecurrentAttributes, kOptional, GLD_LSTM_FIELDS) \
  F(UnidirectionalSequenceLSTMOptions, RecurrentAttributes, kOptional, GLD_SEQUENCE_LSTM_FIELDS) \
  F(BidirectionalSequenceLSTMOptions, RecurrentAttributes, kOptional, GLD_BIDIRECTIONAL_LSTM_FIELDS) \
  F(RNNOptions, RecurrentAttributes, kOptional, GLD_RNN_FIELDS) \
  F(SequenceRNNOptions, RecurrentAttributes, kOptional, GLD_SEQUENCE_RNN_FIELDS) \
  F(BidirectionalSequenceRNNOptions, RecurrentAttributes, kOptional, GLD_BIDIRECTIONAL_RNN_FIELDS) \
  F(SVDFOptions, RecurrentAttributes, " (the rank)", GLD_SVDF_FIELDS)

// ---- Which ops read which table.
#define GLD_OPTION_OPS(X) \
  X(kConv2d, Conv2DOptions) \
  X(kDepthwiseConv2d, DepthwiseConv2DOptions) \
  X(kTransposeConv, TransposeConvOptions) \
  X(kAveragePool2d, Pool2DOptions) \
  X(kMaxPool2d, Pool2DOptions) \
  X(kFullyConnected, FullyConnectedOptions) \
  X(kAdd, AddOptions) \
  X(kSub, SubOptions) \
  X(kMul, MulOptions) \
  X(kDiv, DivOptions) \
  X(kConcatenation, ConcatenationOptions) \
  X(kMean, ReducerOptions) \
  X(kSum, ReducerOptions) \
  X(kReduceMax, ReducerOptions) \
  X(kReduceMin, ReducerOptions) \
  X(kReduceProd, ReducerOptions) \
  X(kReduceAny, ReducerOptions) \
  X(kReduceAll, ReducerOptions) \
  X(kResizeBilinear, ResizeBilinearOptions) \
  X(kResizeNearestNeighbor, ResizeNearestNeighborOptions) \
  X(kDepthToSpace, DepthToSpaceOptions) \
  X(kSpaceToDepth, SpaceToDepthOptions) \
  X(kSoftmax, SoftmaxOptions) \
  X(kLeakyRelu, LeakyReluOptions) \
  X(kGelu, GeluOptions) \
  X(kMirrorPad, MirrorPadOptions) \
  X(kStridedSlice, StridedSliceOptions) \
  X(kGather, GatherOptions) \
  X(kPack, PackOptions) \
  X(kUnpack, UnpackOptions) \
  X(kOneHot, OneHotOptions) \
  X(kSplit, SplitOptions) \
  X(kSplitV, SplitVOptions) \
  X(kCumsum, CumsumOptions) \
  X(kLocalResponseNormalization, LocalResponseNormalizationOptions) \
  X(kBatchMatMul, BatchMatMulOptions) \
  X(kConv3d, Conv3DOptions) \
  X(kWhile, WhileOptions) \
  X(kIf, IfOptions) \
  X(kCallOnce, CallOnceOptions) \
  X(kUnique, UniqueOptions) \
  X(kLstm, LSTMOptions) \
  X(kUnidirectionalSequenceLstm, UnidirectionalSequenceLSTMOptions) \
  X(kBidirectionalSequenceLstm, BidirectionalSequenceLSTMOptions) \
  X(kRnn, RNNOptions) \
  X(kUnidirectionalSequenceRnn, SequenceRNNOptions) \
  X(kBidirectionalSequenceRnn, BidirectionalSequenceRNNOptions) \
  X(kSvdf, SVDFOptions)
// clang-format on
