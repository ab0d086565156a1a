// The part of TFLite's C ABI that a delegate sees: the context, nodes,
// registrations, tensors and the builtin option structs of the ops the
// library maps. No TFLite headers are packaged for Debian or PyPI, so the
// layouts are declared here, from TFLite's documented C headers
// (tensorflow/lite/core/c/common.h, c_api_types.h and builtin_op_data.h):
// member order and types only, written for this project.
//
// Checked against: TensorFlow 2.20 / LiteRT's ai-edge-litert 2.3.0 (the
// Python wheel's interpreter, on x86-64 and aarch64 Linux, LP64). The
// structs are "semi-ABI stable" in TFLite: fields are only ever added at the
// end, so a newer host keeps these prefixes. Where the host reads a whole
// struct we hand it (TfLiteRegistration by value in
// ReplaceNodeSubsetsWithDelegateKernels, TfLiteDelegate), every field up to
// the end is declared and the sizes are asserted below; of the others we
// read a prefix only. The delegate's Prepare also checks at run time what it
// can (the execution plan's size against the tensor count, each tensor's
// type and dims) and refuses cleanly when they look wrong.
//
// These are TFLite's own names in the global namespace (a C ABI has no
// namespaces); only the delegate's sources include this header, never an
// installed one (gldelegate/tflite_delegate.h forward-declares
// TfLiteDelegate only).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef enum TfLiteStatus { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;

// c_api_types.h: the element types (values fixed by TFLite).
typedef enum TfLiteType {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
  kTfLiteFloat64 = 11,
  kTfLiteComplex128 = 12,
  kTfLiteUInt64 = 13,
  kTfLiteResource = 14,
  kTfLiteVariant = 15,
  kTfLiteUInt32 = 16,
  kTfLiteUInt16 = 17,
  kTfLiteInt4 = 18,
  kTfLiteBFloat16 = 19,
} TfLiteType;

// A size followed by `size` values (a flexible array member in C).
typedef struct TfLiteIntArray {
  int size;
  int data[1];
} TfLiteIntArray;
typedef struct TfLiteFloatArray {
  int size;
  float data[1];
} TfLiteFloatArray;

typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

typedef enum TfLiteQuantizationType {
  kTfLiteNoQuantization = 0,
  kTfLiteAffineQuantization = 1,
} TfLiteQuantizationType;

typedef struct TfLiteQuantization {
  TfLiteQuantizationType type;
  void* params;  // TfLiteAffineQuantization* when type is affine
} TfLiteQuantization;

typedef struct TfLiteAffineQuantization {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

typedef enum TfLiteAllocationType {
  kTfLiteMemNone = 0,
  kTfLiteMmapRo,  // read-only: the model's constants
  kTfLiteArenaRw,
  kTfLiteArenaRwPersistent,
  kTfLiteDynamic,
  kTfLitePersistentRo,
  kTfLiteCustom,
  kTfLiteVariantObject,
} TfLiteAllocationType;

typedef enum TfLiteDimensionType { kTfLiteDimDense = 0, kTfLiteDimSparseCSR = 1 } TfLiteDimensionType;

typedef struct TfLiteDimensionMetadata {
  TfLiteDimensionType format;
  int dense_size;
  TfLiteIntArray* array_segments;
  TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

typedef struct TfLiteSparsity {
  TfLiteIntArray* traversal_order;
  TfLiteIntArray* block_map;
  TfLiteDimensionMetadata* dim_metadata;
  int dim_metadata_size;
} TfLiteSparsity;

struct TfLiteDelegate;
struct TfLiteRegistration;
struct TfLiteContext;

// The tensor as TFLite's interpreter (not TFLite Micro) lays it out.
typedef struct TfLiteTensor {
  TfLiteType type;
  void* data;  // a union of pointers in TFLite
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  TfLiteAllocationType allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  struct TfLiteDelegate* delegate;
  int buffer_handle;
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  TfLiteSparsity* sparsity;
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;

typedef struct TfLiteNode {
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
  struct TfLiteDelegate* delegate;
  bool might_have_side_effect;
} TfLiteNode;

typedef struct TfLiteRegistration {
  void* (*init)(struct TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(struct TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(struct TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(struct TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const struct TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  void* registration_external;  // TfLiteOperator*
  void* (*async_kernel)(struct TfLiteContext* context, TfLiteNode* node);
  uint64_t inplace_operator;
} TfLiteRegistration;

// What a delegate kernel's init receives as `buffer` (length 0).
typedef struct TfLiteDelegateParams {
  struct TfLiteDelegate* delegate;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

typedef struct TfLiteContext {
  size_t tensors_size;
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context, TfLiteIntArray** execution_plan);
  TfLiteTensor* tensors;
  void* impl_;
  // Takes ownership of new_size (freed with free()).
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor* tensor, TfLiteIntArray* new_size);
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);
  TfLiteStatus (*AddTensors)(struct TfLiteContext*, int tensors_to_add, int* first_new_tensor_index);
  TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext*, int node_index, TfLiteNode** node,
                                         TfLiteRegistration** registration);
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext*, TfLiteRegistration registration,
                                                        const TfLiteIntArray* nodes_to_replace,
                                                        struct TfLiteDelegate* delegate);
  int recommended_num_threads;
  void* (*GetExternalContext)(struct TfLiteContext*, int);
  void (*SetExternalContext)(struct TfLiteContext*, int, void*);
  bool allow_fp32_relax_to_fp16;
  void* profiler;
  // Later members (AllocatePersistentBuffer, ..., PreviewDelegatePartitioning,
  // GetTensor, ...) are not used.
} TfLiteContext;

typedef enum TfLiteDelegateFlags {
  kTfLiteDelegateFlagsNone = 0,
  kTfLiteDelegateFlagsAllowDynamicTensors = 1,
  kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
} TfLiteDelegateFlags;

typedef struct TfLiteDelegate {
  void* data_;
  TfLiteStatus (*Prepare)(TfLiteContext* context, struct TfLiteDelegate* delegate);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int buffer_handle,
                                       TfLiteTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int buffer_handle,
                                     TfLiteTensor* tensor);
  void (*FreeBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, int* handle);
  int64_t flags;
  void* opaque_delegate_builder;  // must be null: Prepare above is used then
} TfLiteDelegate;

// builtin_op_data.h: the options structs (a prefix of each is read).
typedef enum TfLitePadding { kTfLitePaddingUnknown = 0, kTfLitePaddingSame, kTfLitePaddingValid } TfLitePadding;
typedef enum TfLiteFusedActivation {
  kTfLiteActNone = 0,
  kTfLiteActRelu,
  kTfLiteActReluN1To1,
  kTfLiteActRelu6,
  kTfLiteActTanh,
  kTfLiteActSignBit,
  kTfLiteActSigmoid,
} TfLiteFusedActivation;
typedef enum TfLiteMirrorPaddingMode {
  kTfLiteMirrorPaddingUnknown = 0,
  kTfLiteMirrorPaddingReflect,
  kTfLiteMirrorPaddingSymmetric,
} TfLiteMirrorPaddingMode;

typedef struct TfLiteConvParams {
  TfLitePadding padding;
  int stride_width, stride_height;
  TfLiteFusedActivation activation;
  int dilation_width_factor, dilation_height_factor;
} TfLiteConvParams;
typedef struct TfLiteDepthwiseConvParams {
  TfLitePadding padding;
  int stride_width, stride_height;
  int depth_multiplier;
  TfLiteFusedActivation activation;
  int dilation_width_factor, dilation_height_factor;
} TfLiteDepthwiseConvParams;
typedef struct TfLiteTransposeConvParams {
  TfLitePadding padding;
  int stride_width, stride_height;
  TfLiteFusedActivation activation;
} TfLiteTransposeConvParams;
typedef struct TfLitePoolParams {
  TfLitePadding padding;
  int stride_width, stride_height;
  int filter_width, filter_height;
  TfLiteFusedActivation activation;
} TfLitePoolParams;
typedef struct TfLiteFullyConnectedParams {
  TfLiteFusedActivation activation;
  int weights_format;  // 0: default
  bool keep_num_dims;
  bool asymmetric_quantize_inputs;
} TfLiteFullyConnectedParams;
typedef struct TfLiteAddParams {
  TfLiteFusedActivation activation;
  bool pot_scale_int16;
} TfLiteAddParams;
typedef struct TfLiteSubParams {
  TfLiteFusedActivation activation;
  bool pot_scale_int16;
} TfLiteSubParams;
typedef struct TfLiteMulParams {
  TfLiteFusedActivation activation;
} TfLiteMulParams;
typedef struct TfLiteDivParams {
  TfLiteFusedActivation activation;
} TfLiteDivParams;
typedef struct TfLiteConcatenationParams {
  int axis;
  TfLiteFusedActivation activation;
} TfLiteConcatenationParams;
typedef struct TfLiteReshapeParams {
  int32_t shape[8];
  int num_dimensions;
} TfLiteReshapeParams;
typedef struct TfLiteReducerParams {
  bool keep_dims;
} TfLiteReducerParams;
typedef struct TfLiteResizeBilinearParams {
  bool align_corners;
  bool half_pixel_centers;
} TfLiteResizeBilinearParams;
typedef struct TfLiteResizeNearestNeighborParams {
  bool align_corners;
  bool half_pixel_centers;
} TfLiteResizeNearestNeighborParams;
typedef struct TfLiteDepthToSpaceParams {
  int block_size;
} TfLiteDepthToSpaceParams;
typedef struct TfLiteSpaceToDepthParams {
  int block_size;
} TfLiteSpaceToDepthParams;
typedef struct TfLiteSoftmaxParams {
  float beta;
} TfLiteSoftmaxParams;
typedef struct TfLiteLeakyReluParams {
  float alpha;
} TfLiteLeakyReluParams;
typedef struct TfLiteGeluParams {
  bool approximate;
} TfLiteGeluParams;
typedef struct TfLiteMirrorPaddingParams {
  TfLiteMirrorPaddingMode mode;
} TfLiteMirrorPaddingParams;
typedef struct TfLiteStridedSliceParams {
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  bool offset;
} TfLiteStridedSliceParams;
typedef struct TfLiteGatherParams {
  int axis;
  int batch_dims;
} TfLiteGatherParams;
typedef struct TfLitePackParams {
  int values_count;
  int axis;
} TfLitePackParams;
typedef struct TfLiteUnpackParams {
  int num;
  int axis;
} TfLiteUnpackParams;
typedef struct TfLiteOneHotParams {
  int axis;
} TfLiteOneHotParams;
typedef struct TfLiteSplitParams {
  int num_splits;
} TfLiteSplitParams;
typedef struct TfLiteSplitVParams {
  int num_splits;
} TfLiteSplitVParams;
typedef struct TfLiteCumsumParams {
  bool exclusive;
  bool reverse;
} TfLiteCumsumParams;
typedef struct TfLiteSqueezeParams {
  int32_t squeeze_dims[8];
  int num_squeeze_dims;
} TfLiteSqueezeParams;
typedef struct TfLiteLocalResponseNormParams {
  int radius;
  float bias, alpha, beta;
} TfLiteLocalResponseNormParams;
typedef struct TfLiteBatchMatMulParams {
  bool adj_x, adj_y;
  bool asymmetric_quantize_inputs;
} TfLiteBatchMatMulParams;

}  // extern "C"

// What the host reads or copies whole, and the offsets the delegate reads.
#if defined(__LP64__) || defined(_WIN64)
static_assert(sizeof(TfLiteRegistration) == 88, "TfLiteRegistration: 5 pointers, code, name, version, 3 more");
static_assert(offsetof(TfLiteRegistration, builtin_code) == 40, "TfLiteRegistration::builtin_code");
static_assert(offsetof(TfLiteRegistration, custom_name) == 48, "TfLiteRegistration::custom_name");
static_assert(offsetof(TfLiteRegistration, version) == 56, "TfLiteRegistration::version");
static_assert(offsetof(TfLiteRegistration, inplace_operator) == 80, "TfLiteRegistration::inplace_operator");
static_assert(sizeof(TfLiteDelegate) == 56, "TfLiteDelegate");
static_assert(offsetof(TfLiteDelegate, flags) == 40, "TfLiteDelegate::flags");
static_assert(sizeof(TfLiteTensor) == 112, "TfLiteTensor");
static_assert(offsetof(TfLiteTensor, dims) == 16, "TfLiteTensor::dims");
static_assert(offsetof(TfLiteTensor, allocation_type) == 32, "TfLiteTensor::allocation_type");
static_assert(offsetof(TfLiteTensor, bytes) == 40, "TfLiteTensor::bytes");
static_assert(offsetof(TfLiteTensor, name) == 56, "TfLiteTensor::name");
static_assert(offsetof(TfLiteTensor, is_variable) == 77, "TfLiteTensor::is_variable");
static_assert(offsetof(TfLiteTensor, quantization) == 80, "TfLiteTensor::quantization");
static_assert(offsetof(TfLiteTensor, sparsity) == 96, "TfLiteTensor::sparsity");
static_assert(sizeof(TfLiteNode) == 80, "TfLiteNode");
static_assert(offsetof(TfLiteNode, builtin_data) == 40, "TfLiteNode::builtin_data");
static_assert(offsetof(TfLiteNode, custom_initial_data_size) == 56, "TfLiteNode::custom_initial_data_size");
static_assert(offsetof(TfLiteContext, tensors) == 16, "TfLiteContext::tensors");
static_assert(offsetof(TfLiteContext, ReportError) == 40, "TfLiteContext::ReportError");
static_assert(offsetof(TfLiteContext, GetNodeAndRegistration) == 56, "TfLiteContext::GetNodeAndRegistration");
static_assert(offsetof(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels) == 64,
              "TfLiteContext::ReplaceNodeSubsetsWithDelegateKernels");
static_assert(offsetof(TfLiteContext, allow_fp32_relax_to_fp16) == 96, "TfLiteContext::allow_fp32_relax_to_fp16");
static_assert(sizeof(TfLiteDelegateParams) == 32, "TfLiteDelegateParams");
static_assert(sizeof(TfLiteReshapeParams) == 36 && sizeof(TfLiteSqueezeParams) == 36, "fixed 8-entry arrays");
#endif
