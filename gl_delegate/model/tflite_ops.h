// The mapping between TFLite operators and the IR: op codes and option
// tables -> typed attributes, one parser per op (arity and optional inputs
// are the op table's, graph/op_list.inc).
//
// The attributes an op gets after loading are those its row in
// kOptionParsers (tflite_ops.cc) fills in; an op without a row gets
// std::monostate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gldelegate/status.hpp"
#include "gldelegate/tflite_generated.h"
#include "graph/graph.h"

namespace gld::tflite_ops {

// Builtin op code -> OpType; false when the IR has no such op.
bool OpTypeFromBuiltin(int32_t code, OpType* op);
// OpType -> builtin op code; false for custom ops.
bool BuiltinFromOpType(OpType op, int32_t* code);
// MediaPipe's flexbuffer-configured ops (TransformTensorBilinear,
// TransformLandmarks, Landmarks2TransformMatrix): the reader makes them
// custom nodes (OpType::kCustom) that an app's registration of the name may
// take over, else the library's own rows of the op table run them
// (CustomAttributes::library).
bool IsLibraryCustomOp(OpType op);
// "CONV_2D"; nullptr for a code outside the schema's enum.
const char* BuiltinName(int32_t code);

// Fills *out from the operator's builtin_options. Messages do not name the
// node; the caller adds that.
Status ParseBuiltinOptions(OpType type, const tflite::Operator& op, Attributes* out);
// Fills *out from the builtin_data TFLite's interpreter gives a node (the C
// options struct of model/tflite_abi.h for `type`'s op; may be null when the
// op has none), through the same parser as ParseBuiltinOptions. Unimplemented
// for ops whose options only the file's table gives (the recurrent and
// control-flow ops, CONV_3D, BUCKETIZE, UNIQUE): the delegate leaves them
// with TFLite.
Status ParseBuiltinData(OpType type, const void* builtin_data, Attributes* out);
// Fills *out for a custom op from its custom_options bytes.
Status ParseCustomOptions(OpType type, const uint8_t* data, size_t size, int version,
                          Attributes* out);

// The node's input and output counts against its op's row (op_list.inc):
// "has 1 inputs, expected 2 to 3". Messages do not name the node.
Status CheckArity(const Node& node);
// The op a custom_code names: a row of the op table that no builtin code
// has (MediaPipe's ops), else OpType::kCustom (an app's custom op).
OpType CustomOpType(const std::string& custom_name);
// A custom node's attributes from its custom_options bytes, node->op being
// CustomOpType(custom_name): CustomAttributes for an app's op; the parsed
// attributes for an op of the table; for the library's own custom ops
// (IsLibraryCustomOp) a kCustom node an app's registration may take over,
// holding the parsed op. Messages do not name the node.
Status SetCustomNodeAttributes(const std::string& custom_name, int version, const uint8_t* data, size_t size,
                               Node* node);

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
