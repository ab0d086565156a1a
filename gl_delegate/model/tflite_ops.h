// The mapping between TFLite operators and the IR: op codes, arity, optional
// inputs, and option tables -> typed attributes (see op_list.inc).
//
// Attributes per op after loading:
//   Conv2dAttributes            CONV_2D
//   DepthwiseConv2dAttributes   DEPTHWISE_CONV_2D
//   TransposeConvAttributes     TRANSPOSE_CONV, Convolution2DTransposeBias
//   Pool2dAttributes            AVERAGE_POOL_2D, MAX_POOL_2D,
//                               MaxPoolingWithArgmax2D, MaxUnpooling2D
//   FullyConnectedAttributes    FULLY_CONNECTED
//   BinaryAttributes            ADD SUB MUL DIV (fused activation from the
//                               file), and with activation NONE: MAXIMUM
//                               MINIMUM POW SQUARED_DIFFERENCE FLOOR_DIV
//                               FLOOR_MOD EQUAL NOT_EQUAL LESS LESS_EQUAL
//                               GREATER GREATER_EQUAL LOGICAL_AND LOGICAL_OR
//   ConcatenationAttributes     CONCATENATION
//   ReshapeAttributes           RESHAPE
//   ReduceAttributes            MEAN SUM REDUCE_MAX REDUCE_MIN REDUCE_PROD
//   ResizeAttributes            RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
//   BlockSizeAttributes         DEPTH_TO_SPACE, SPACE_TO_DEPTH
//   SoftmaxAttributes           SOFTMAX
//   LeakyReluAttributes         LEAKY_RELU
//   GeluAttributes              GELU
//   MirrorPadAttributes         MIRROR_PAD
//   StridedSliceAttributes      STRIDED_SLICE
//   AxisAttributes              GATHER (axis, batch_dims), PACK (axis,
//                               count = values_count), UNPACK (axis, count =
//                               num), ONE_HOT (axis), SPLIT/SPLIT_V (count =
//                               num_splits), CUMSUM (exclusive, reverse)
//   SqueezeAttributes           SQUEEZE
//   LrnAttributes               LOCAL_RESPONSE_NORMALIZATION
//   BatchMatMulAttributes       BATCH_MATMUL
//   TransformTensorBilinearAttributes, TransformLandmarksAttributes,
//   Landmarks2TransformMatrixAttributes: the MediaPipe ops of those names
//                               (flexbuffer custom options)
//   std::monostate              every other op
#pragma once

#include <cstddef>
#include <cstdint>

#include "gldelegate/status.hpp"
#include "gldelegate/tflite_generated.h"
#include "graph/graph.h"

namespace gld::tflite_ops {

// Builtin op code -> OpType; false when the IR has no such op.
bool OpTypeFromBuiltin(int32_t code, OpType* op);
// OpType -> builtin op code; false for custom ops.
bool BuiltinFromOpType(OpType op, int32_t* code);
// "CONV_2D"; nullptr for a code outside the schema's enum.
const char* BuiltinName(int32_t code);

struct Arity {
  int min_inputs, max_inputs;    // max -1: unbounded
  int min_outputs, max_outputs;
};
Arity OpArity(OpType op);
// True when input `index` of `op` may be -1 (absent optional input).
bool InputMayBeAbsent(OpType op, size_t index);

// Fills *out from the operator's builtin_options. Messages do not name the
// node; the caller adds that.
Status ParseBuiltinOptions(OpType type, const tflite::Operator& op, Attributes* out);
// Fills *out for a custom op from its custom_options bytes.
Status ParseCustomOptions(OpType type, const uint8_t* data, size_t size, int version,
                          Attributes* out);

// Raw MediaPipe option structs (custom_options of Convolution2DTransposeBias,
// MaxPoolingWithArgmax2D, MaxUnpooling2D): little-endian int32 fields in the
// order of TFLite's C structs; padding uses TfLitePadding (1 SAME, 2 VALID),
// activation TfLiteFusedActivation (0 none, 1 relu, 2 relu_n1_to_1, 3 relu6,
// 4 tanh, 5 sign_bit, 6 sigmoid).
//   Convolution2DTransposeBias: padding, stride_w, stride_h [, activation]
//     (selfie_segmentation.tflite stores 12 bytes: 1, 2, 2 = SAME, 2x2)
//   MaxPoolingWithArgmax2D / MaxUnpooling2D: padding, stride_w, stride_h,
//     filter_w, filter_h [, activation [, computed padding: 4 x int32]]
int32_t TfLitePaddingCode(Padding p);
int32_t TfLiteActivationCode(Activation a);

}  // namespace gld::tflite_ops
