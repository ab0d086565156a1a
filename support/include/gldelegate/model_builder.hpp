// Writes .tflite models (TFLite schema "TFL3") from code: tensors,
// constants and ops with their options by TFLite field name. The files are
// valid for gldelegate and for TFLite/LiteRT alike, which makes the builder
// the tool for op tests and small hand-made models.
//
//   gld::ModelBuilder b;
//   int x = b.AddInput("x", gld::ElementType::kFloat32, {1, 8, 8, 3});
//   int w = b.AddConstantFloat("w", {4, 3, 3, 3}, weights);
//   int y = b.AddTensor("y", gld::ElementType::kFloat32, {1, 4, 4, 4});
//   GLD_RETURN_IF_ERROR(b.AddOp("CONV_2D", {x, w, -1}, {y},
//                               {{"padding", "SAME"}, {"stride_w", 2}, {"stride_h", 2},
//                                {"fused_activation_function", "RELU"}}));
//   b.SetOutputs({y});
//   auto bytes = b.Finish();
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/status.hpp"

namespace gld {

// One option value: integer, float, bool, name ("SAME", "RELU6", "INT32",
// "SYMMETRIC"), integer list (new_shape, squeeze_dims) or float list
// (BUCKETIZE's boundaries).
class OptionValue {
 public:
  enum class Kind { kInt, kFloat, kBool, kString, kIntList, kFloatList };
  OptionValue(int v) : kind_(Kind::kInt), int_(v) {}  // NOLINT: implicit by design
  OptionValue(int64_t v) : kind_(Kind::kInt), int_(v) {}  // NOLINT
  OptionValue(float v) : kind_(Kind::kFloat), float_(v) {}  // NOLINT
  OptionValue(double v) : kind_(Kind::kFloat), float_(v) {}  // NOLINT
  OptionValue(bool v) : kind_(Kind::kBool), bool_(v) {}  // NOLINT
  OptionValue(const char* v) : kind_(Kind::kString), string_(v) {}  // NOLINT
  OptionValue(std::string v) : kind_(Kind::kString), string_(std::move(v)) {}  // NOLINT
  OptionValue(std::vector<int> v) : kind_(Kind::kIntList), list_(std::move(v)) {}  // NOLINT
  OptionValue(std::vector<float> v) : kind_(Kind::kFloatList), float_list_(std::move(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t as_int() const { return int_; }
  double as_float() const { return kind_ == Kind::kInt ? static_cast<double>(int_) : float_; }
  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return string_; }
  const std::vector<int>& as_int_list() const { return list_; }
  const std::vector<float>& as_float_list() const { return float_list_; }
  std::string ToString() const;

 private:
  Kind kind_;
  int64_t int_ = 0;
  double float_ = 0;
  bool bool_ = false;
  std::string string_;
  std::vector<int> list_;
  std::vector<float> float_list_;
};

struct OpOptions {
  OpOptions() = default;
  OpOptions(std::initializer_list<std::pair<std::string, OptionValue>> v)  // NOLINT
      : values(v) {}

  // Builtin options by TFLite field name (Conv2DOptions.stride_w -> "stride_w").
  // Custom ops Convolution2DTransposeBias, MaxPoolingWithArgmax2D and
  // MaxUnpooling2D also take padding/stride_*/filter_*/ fused_activation_function,
  // packed into MediaPipe's raw option struct.
  std::vector<std::pair<std::string, OptionValue>> values;
  // Raw custom_options bytes (custom ops); written as they are.
  std::vector<uint8_t> custom_options;
  // OperatorCode.version; 0: the lowest version TFLite registers for the op
  // (1, but 2 for BROADCAST_TO).
  int version = 0;
};

// TFLite's sparse encoding of a constant (see the schema's
// SparsityParameters): dimensions in traversal order, DENSE ones with their
// size, SPARSE_CSR ones with segments and indices.
struct SparseDimensionInfo {
  bool sparse_csr = false;
  int dense_size = 0;
  std::vector<int> array_segments, array_indices;
};
struct SparsityInfo {
  std::vector<int> traversal_order;
  std::vector<int> block_map;
  std::vector<SparseDimensionInfo> dim_metadata;
  int index_bits = 32;  // 8, 16 or 32: Uint8Vector / Uint16Vector / Int32Vector
};

struct BuildOptions {
  // Store constant data after the flatbuffer (Buffer.offset/size), as
  // converters do for models over 2 GB.
  bool buffers_after_flatbuffer = false;
  enum class OpCodeStyle {
    kBoth,            // builtin_code, plus deprecated_builtin_code = min(code, 127)
    kDeprecatedOnly,  // only the old byte field (codes < 127 only)
    kBuiltinCodeOnly, // only the int32 field
  };
  OpCodeStyle op_codes = OpCodeStyle::kBoth;
  // Trivial extra subgraphs ("extra_1", ...: one RELU each).
  int extra_subgraphs = 0;
  // Index of the main subgraph among all (0 .. extra_subgraphs). When it is
  // not 0 and signature_key is empty, a signature "serving_default" is added
  // so that readers find it.
  int main_subgraph_index = 0;
  // Non-empty: write a signature def with this key for the main subgraph.
  std::string signature_key;
  // Signature names of the inputs/outputs (in SetInputs/SetOutputs order);
  // empty: the tensor names.
  std::vector<std::string> signature_input_names, signature_output_names;
  std::string subgraph_name = "main";
  std::string description = "gldelegate ModelBuilder";
};

class ModelBuilder {
 public:
  ModelBuilder();
  ~ModelBuilder();
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  // Each returns the new tensor's index. Mistakes (a data size that does not
  // match the shape, ...) are reported by Finish.
  int AddInput(const std::string& name, ElementType type, std::vector<int> shape,
               QuantizationInfo quantization = {});
  int AddTensor(const std::string& name, ElementType type, std::vector<int> shape,
                QuantizationInfo quantization = {});
  int AddConstant(const std::string& name, ElementType type, std::vector<int> shape,
                  const void* data, size_t bytes, QuantizationInfo quantization = {});
  int AddConstantFloat(const std::string& name, std::vector<int> shape,
                       const std::vector<float>& values);
  int AddConstantInt32(const std::string& name, std::vector<int> shape,
                       const std::vector<int32_t>& values);
  // A sparse constant: `values` holds the stored (non-zero) values only.
  int AddSparseConstant(const std::string& name, ElementType type, std::vector<int> shape,
                        const SparsityInfo& sparsity, const void* values, size_t bytes,
                        QuantizationInfo quantization = {});

  // Writes `signature` as the tensor's shape_signature (-1: a dimension the
  // model takes at any size, as converters write a free batch dimension).
  void SetShapeSignature(int tensor, std::vector<int> signature);

  // `op_name` is a TFLite builtin name ("CONV_2D") or one of the custom ops
  // gldelegate knows ("Convolution2DTransposeBias"); -1 marks an absent
  // optional input. Unknown ops and option names are errors.
  Status AddOp(const std::string& op_name, std::vector<int> inputs, std::vector<int> outputs,
               const OpOptions& options = {});
  // Any custom op, by custom_code, with raw custom_options.
  Status AddCustomOp(const std::string& custom_code, std::vector<int> inputs,
                     std::vector<int> outputs, std::vector<uint8_t> custom_options = {},
                     int version = 1);

  // Graph inputs default to the AddInput tensors, in order.
  void SetInputs(std::vector<int> inputs);
  void SetOutputs(std::vector<int> outputs);

  // Skip the builder's own checks (tensor indices, shapes, data sizes) so
  // that malformed models can be written for reader tests.
  void set_allow_invalid(bool allow) { allow_invalid_ = allow; }

  int num_tensors() const;

  StatusOr<std::vector<uint8_t>> Finish(const BuildOptions& options = {}) const;
  Status WriteFile(const std::string& path, const BuildOptions& options = {}) const;

  struct State;

 private:
  std::unique_ptr<State> state_;
  bool allow_invalid_ = false;
};

}  // namespace gld
