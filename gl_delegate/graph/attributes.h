// Typed attributes of IR nodes. Tensor-valued parameters (axes, paddings,
// shapes, begin/end of slices) stay graph inputs, as in TFLite; only the
// scalar options of an op live here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gld {

struct CustomOp;  // gldelegate/custom_op.hpp
struct LibraryCustomOp;  // graph/graph.h

enum class Padding : uint8_t { kSame, kValid };

// TFLite's fused activation functions.
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6, kTanh, kSignBit, kSigmoid };

const char* ActivationName(Activation a);

// Zero rows and columns added around a convolution's input before its
// `padding` applies: a PAD that transforms/merge_pad.cc merged into it.
// Never set by the file.
struct ExplicitPadding {
  int32_t top = 0, bottom = 0, left = 0, right = 0;
};

struct Conv2dAttributes {
  Padding padding = Padding::kValid;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Activation activation = Activation::kNone;
  ExplicitPadding explicit_padding = {};
};

// CONV_3D: an NDHWC input, a DHWIO filter ([kd, kh, kw, in, out]), an
// optional bias.
struct Conv3dAttributes {
  Padding padding = Padding::kValid;
  int32_t stride_d = 1, stride_h = 1, stride_w = 1;
  int32_t dilation_d = 1, dilation_h = 1, dilation_w = 1;
  Activation activation = Activation::kNone;
};

struct DepthwiseConv2dAttributes {
  Padding padding = Padding::kValid;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  int32_t depth_multiplier = 1;
  Activation activation = Activation::kNone;
  ExplicitPadding explicit_padding = {};
};

// TRANSPOSE_CONV (inputs: output_shape, weights OHWI, input[, bias]) and the
// MediaPipe Convolution2DTransposeBias (inputs: input, weights OHWI, bias).
struct TransposeConvAttributes {
  Padding padding = Padding::kValid;
  int32_t stride_h = 1, stride_w = 1;
  Activation activation = Activation::kNone;
};

// AVERAGE_POOL_2D, MAX_POOL_2D, MaxPoolingWithArgmax2D, MaxUnpooling2D.
struct Pool2dAttributes {
  Padding padding = Padding::kValid;
  int32_t stride_h = 1, stride_w = 1;
  int32_t filter_h = 1, filter_w = 1;
  Activation activation = Activation::kNone;
};

struct FullyConnectedAttributes {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
  // TFLite's hybrid kernel (float input, int8 weights) then quantizes the
  // input with a zero point; carried from the options, read by no kernel.
  bool asymmetric_quantize_inputs = false;
};

// ADD, SUB, MUL, DIV and other binary ops with a fused activation.
struct BinaryAttributes {
  Activation activation = Activation::kNone;
};

struct ConcatenationAttributes {
  int32_t axis = 0;  // may be negative, as in the file
  Activation activation = Activation::kNone;
};

struct ReshapeAttributes {
  // From ReshapeOptions.new_shape when the file has it and no shape input.
  std::vector<int32_t> new_shape;
  bool has_new_shape = false;
};

// MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD (axes are input 1).
struct ReduceAttributes {
  bool keep_dims = false;
};

// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR (size is input 1).
struct ResizeAttributes {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// DEPTH_TO_SPACE, SPACE_TO_DEPTH.
struct BlockSizeAttributes {
  int32_t block_size = 1;
};

struct SoftmaxAttributes {
  float beta = 1.0f;
};

struct LeakyReluAttributes {
  float alpha = 0.2f;
};

struct GeluAttributes {
  bool approximate = false;
};

struct MirrorPadAttributes {
  bool symmetric = false;  // false: REFLECT
};

struct StridedSliceAttributes {
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0;
  int32_t new_axis_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
};

struct AxisAttributes {  // GATHER (axis, batch_dims), PACK/UNPACK (axis, values_count), ONE_HOT, CUMSUM...
  int32_t axis = 0;
  int32_t batch_dims = 0;
  int32_t count = 0;      // PACK values_count, UNPACK num, SPLIT num_splits
  bool exclusive = false; // CUMSUM
  bool reverse = false;   // CUMSUM
};

struct SqueezeAttributes {
  std::vector<int32_t> squeeze_dims;
};

struct LrnAttributes {
  int32_t radius = 5;
  float bias = 1.0f, alpha = 1.0f, beta = 0.5f;
};

struct BatchMatMulAttributes {
  bool adj_x = false, adj_y = false;
};

struct CastAttributes {};

// BUCKETIZE: ascending boundaries; an element's bucket is the number of
// boundaries at or below it.
struct BucketizeAttributes {
  std::vector<float> boundaries;
};

// UNIQUE: the type of the index output (UniqueOptions.idx_out_type).
struct UniqueAttributes {
  bool idx_int64 = false;  // false: int32
};

// GLD_LAYER_NORM (a pass's op): (x - mean) * rsqrt(variance + epsilon) *
// gamma + beta over the last axis.
struct LayerNormAttributes {
  float epsilon = 0.0f;
};

// GLD_RMS_NORM (a pass's op, from an odml.rms_norm composite):
// x * rsqrt(mean(x * x) + epsilon) * gamma over the last axis.
struct RmsNormAttributes {
  float epsilon = 0.0f;
};

// GLD_SCALED_DOT_PRODUCT_ATTENTION (a pass's op, from an
// odml.scaled_dot_product_attention composite): q [B, T, N, H], k and v
// [B, S, K, H] (K divides N: head n reads K-head n / (N / K)), an optional
// additive mask broadcast to [B, N, T, S];
// out[b, t, n] = softmax_s(scale * q[b, t, n] . k[b, s] + mask[b, n, t, s]) v.
struct AttentionAttributes {
  float scale = 1.0f;
};

// MediaPipe's TransformTensorBilinear. Version 2 samples pixel centres
// (aligned corners).
struct TransformTensorBilinearAttributes {
  int32_t output_height = 0, output_width = 0;
  bool align_corners = false;
};

// MediaPipe's TransformLandmarks.
struct TransformLandmarksAttributes {
  int32_t version = 1;
  int32_t dimensions = 0;  // version 1; version 2 takes the input's last dimension
  float scale = 1.f;
};

// MediaPipe's Landmarks2TransformMatrix; each version reads its own fields.
struct Landmarks2TransformMatrixAttributes {
  int32_t version = 1;
  // version 1
  int32_t input_h = 0, input_w = 0, output_h = 0, output_w = 0;
  int32_t dimensions = 0, landmarks_range = 0;
  float bbox_size_multiplier = 0.f;
  // version 2
  float target_rotation_radians = 0.f;
  int32_t output_height = 0, output_width = 0;
  float scale_x = 0.f, scale_y = 0.f;
  // both
  int32_t left_rotation_idx = 0, right_rotation_idx = 0;
  std::vector<std::pair<int32_t, int32_t>> subset;  // pairs of landmark indices
};

// The recurrent ops' options: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN and SVDF (each reads the fields its options
// table has).
struct RecurrentAttributes {
  // The LSTMs' cell and output activation (TANH as converters write it);
  // the RNNs' and SVDF's fused activation.
  Activation activation = Activation::kNone;
  float cell_clip = 0.f;  // 0: no clipping
  float proj_clip = 0.f;  // 0: no clipping
  bool time_major = false;
  bool merge_outputs = false;  // the bidirectional ops: one output, forward then backward features
  bool asymmetric_quantize_inputs = false;
  bool basic_kernel = false;  // LSTM kernel_type BASIC (5 inputs, 4 outputs)
  int32_t rank = 1;           // SVDF
};

// WHILE, IF, CALL_ONCE: the subgraphs the node calls, by their index among
// the model file's subgraphs (Graph::subgraphs; the reader checks them).
struct WhileAttributes {
  int32_t cond_subgraph = 0, body_subgraph = 0;
};
struct IfAttributes {
  int32_t then_subgraph = 0, else_subgraph = 0;
};
struct CallOnceAttributes {
  int32_t init_subgraph = 0;
};
// STABLEHLO_COMPOSITE: the composite's name ("odml.rms_norm"), the
// subgraph that computes it (the pass inline_composites puts its nodes in
// the node's place) and the numeric (and boolean) entries of its attribute
// map ({"epsilon", 1e-5}), which fuse_composites reads; entries of other
// kinds (strings, vectors) are left out.
struct CompositeAttributes {
  std::string name;
  int32_t decomposition_subgraph = 0;
  int32_t version = 0;
  std::vector<std::pair<std::string, double>> numbers;
};
// STABLEHLO_SCATTER (StableHLO's scatter without batching dims). The update
// computation is a subgraph; the reader runs only the form the converter
// emits for index_copy and index_put: it returns the update (no nodes).
struct ScatterAttributes {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  int32_t update_subgraph = 0;
};
// VAR_HANDLE: the variable's name; one (container, shared_name) is one
// variable of an interpreter, whichever subgraph names it.
struct VarHandleAttributes {
  std::string container, shared_name;
};

// A custom op the table does not name (OpType::kCustom): what the file
// says of it, and the app's registration an Interpreter found for it in
// Options::custom_ops (nullptr: none, or not looked up yet).
struct CustomAttributes {
  std::string name;  // custom_code
  int32_t version = 1;
  std::shared_ptr<const std::vector<uint8_t>> options;  // custom_options bytes; may be null
  std::shared_ptr<const CustomOp> op;
  // A custom op the library runs itself (MediaPipe's transform ops): the op
  // of the table it becomes when no registration of the app's takes its
  // name (BindCustomOps). Null for the others.
  std::shared_ptr<const LibraryCustomOp> library;
};

using Attributes =
    std::variant<std::monostate, Conv2dAttributes, DepthwiseConv2dAttributes,
                 TransposeConvAttributes, Pool2dAttributes, FullyConnectedAttributes,
                 BinaryAttributes, ConcatenationAttributes, ReshapeAttributes,
                 ReduceAttributes, ResizeAttributes, BlockSizeAttributes,
                 SoftmaxAttributes, LeakyReluAttributes, GeluAttributes,
                 MirrorPadAttributes, StridedSliceAttributes, AxisAttributes,
                 SqueezeAttributes, LrnAttributes, BatchMatMulAttributes, LayerNormAttributes,
                 RmsNormAttributes, AttentionAttributes,
                 TransformTensorBilinearAttributes, TransformLandmarksAttributes,
                 Landmarks2TransformMatrixAttributes, CustomAttributes, RecurrentAttributes,
                 WhileAttributes, IfAttributes, CallOnceAttributes, VarHandleAttributes,
                 Conv3dAttributes, BucketizeAttributes, UniqueAttributes, CompositeAttributes,
                 ScatterAttributes>;

}  // namespace gld
