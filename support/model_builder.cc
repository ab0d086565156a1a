#include "gldelegate/model_builder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <type_traits>
#include <unordered_map>

#include "gldelegate/tflite_generated.h"
#include "model/option_table.h"
#include "model/tflite_ops.h"

namespace gld {

std::string OptionValue::ToString() const {
  switch (kind_) {
    case Kind::kInt: return std::to_string(int_);
    case Kind::kFloat: return std::to_string(float_);
    case Kind::kBool: return bool_ ? "true" : "false";
    case Kind::kString: return "'" + string_ + "'";
    case Kind::kIntList: {
      std::string s = "[";
      for (size_t i = 0; i < list_.size(); ++i) s += (i ? ", " : "") + std::to_string(list_[i]);
      return s + "]";
    }
    case Kind::kFloatList: {
      std::string s = "[";
      for (size_t i = 0; i < float_list_.size(); ++i) s += (i ? ", " : "") + std::to_string(float_list_[i]);
      return s + "]";
    }
  }
  return "?";
}

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

struct TensorSpec {
  std::string name;
  ElementType type = ElementType::kFloat32;
  std::vector<int> shape;
  std::vector<int> signature;  // shape_signature; empty: none written
  QuantizationInfo quant;
  bool constant = false;
  std::vector<uint8_t> data;
  std::optional<SparsityInfo> sparsity;
};

struct OpSpec {
  int32_t builtin_code = 0;      // CUSTOM for custom ops
  std::string custom_code;
  bool known = false;            // op is in the IR (op_type valid)
  OpType op_type = OpType::kAdd;
  std::vector<int> inputs, outputs;
  OpOptions options;
};

StatusOr<tflite::TensorType> ToTensorType(ElementType t) {
  switch (t) {
    case ElementType::kFloat32: return tflite::TensorType::FLOAT32;
    case ElementType::kFloat16: return tflite::TensorType::FLOAT16;
    case ElementType::kFloat64: return tflite::TensorType::FLOAT64;
    case ElementType::kInt8: return tflite::TensorType::INT8;
    case ElementType::kUInt8: return tflite::TensorType::UINT8;
    case ElementType::kInt16: return tflite::TensorType::INT16;
    case ElementType::kInt32: return tflite::TensorType::INT32;
    case ElementType::kInt64: return tflite::TensorType::INT64;
    case ElementType::kBool: return tflite::TensorType::BOOL;
    case ElementType::kUnknown: break;
  }
  return InvalidArgumentError("tensor type unknown");
}

// Builtin op name -> code, over the whole schema enum.
bool BuiltinCodeFromName(const std::string& name, int32_t* code) {
  static const std::unordered_map<std::string, int32_t> map = [] {
    std::unordered_map<std::string, int32_t> m;
    for (tflite::BuiltinOperator op : tflite::EnumValuesBuiltinOperator()) {
      const char* n = tflite::EnumNameBuiltinOperator(op);
      if (n != nullptr && n[0] != '\0') m.emplace(n, static_cast<int32_t>(op));
    }
    return m;
  }();
  auto it = map.find(name);
  if (it == map.end()) return false;
  *code = it->second;
  return true;
}

// Reads named option values, remembering which were used so that unknown
// names can be reported.
class OptionReader {
 public:
  OptionReader(const OpOptions& options, std::string op) : options_(options), op_(std::move(op)) {}

  bool Has(const char* name) const { return Find(name) != nullptr; }

  int32_t Int(const char* name, int32_t def) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return def;
    if (v->kind() == OptionValue::Kind::kBool) return v->as_bool() ? 1 : 0;
    if (v->kind() != OptionValue::Kind::kInt || v->as_int() < std::numeric_limits<int32_t>::min() ||
        v->as_int() > std::numeric_limits<int32_t>::max()) {
      Fail(name, *v, "an int32");
      return def;
    }
    return static_cast<int32_t>(v->as_int());
  }
  float Float(const char* name, float def) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return def;
    if (v->kind() != OptionValue::Kind::kInt && v->kind() != OptionValue::Kind::kFloat) {
      Fail(name, *v, "a number");
      return def;
    }
    return static_cast<float>(v->as_float());
  }
  bool Bool(const char* name, bool def) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return def;
    if (v->kind() == OptionValue::Kind::kBool) return v->as_bool();
    if (v->kind() == OptionValue::Kind::kInt && (v->as_int() == 0 || v->as_int() == 1)) {
      return v->as_int() == 1;
    }
    Fail(name, *v, "a bool");
    return def;
  }
  std::string String(const char* name, const std::string& def) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return def;
    if (v->kind() != OptionValue::Kind::kString) {
      Fail(name, *v, "a string");
      return def;
    }
    return v->as_string();
  }
  std::optional<std::vector<int32_t>> Ints(const char* name) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (v->kind() != OptionValue::Kind::kIntList) {
      Fail(name, *v, "a list of integers");
      return std::nullopt;
    }
    return std::vector<int32_t>(v->as_int_list().begin(), v->as_int_list().end());
  }
  std::optional<std::vector<float>> Floats(const char* name) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (v->kind() == OptionValue::Kind::kIntList) {
      return std::vector<float>(v->as_int_list().begin(), v->as_int_list().end());
    }
    if (v->kind() != OptionValue::Kind::kFloatList) {
      Fail(name, *v, "a list of numbers");
      return std::nullopt;
    }
    return v->as_float_list();
  }
  // An enum by name: index into `names` (nullptr-terminated or of `count`).
  template <typename E>
  E Enum(const char* name, E def, const char* const* names, int count) {
    const OptionValue* v = Find(name);
    if (v == nullptr) return def;
    std::string allowed;
    if (v->kind() == OptionValue::Kind::kString) {
      for (int i = 0; i < count; ++i) {
        if (names[i] != nullptr && names[i][0] != '\0' && v->as_string() == names[i]) return static_cast<E>(i);
      }
    }
    for (int i = 0; i < count; ++i) {
      if (names[i] != nullptr && names[i][0] != '\0') allowed += (allowed.empty() ? "" : ", ") + std::string(names[i]);
    }
    Fail(name, *v, "one of " + allowed);
    return def;
  }
  tflite::Padding Padding(tflite::Padding def = tflite::Padding::VALID) {
    return Enum("padding", def, tflite::EnumNamesPadding(), 2);
  }
  tflite::ActivationFunctionType Activation() {
    return Enum("fused_activation_function", tflite::ActivationFunctionType::NONE,
                tflite::EnumNamesActivationFunctionType(), 6);
  }
  tflite::TensorType Type(const char* name, tflite::TensorType def) {
    return Enum(name, def, tflite::EnumNamesTensorType(),
                static_cast<int>(tflite::TensorType::MAX) + 1);
  }
  void Require(const char* name) {
    if (!Has(name) && status_.ok()) {
      status_ = InvalidArgumentError(op_ + ": option '" + std::string(name) + "' is required");
    }
  }

  // The first error, or the first option name nobody asked for.
  Status Finish() const {
    if (!status_.ok()) return status_;
    for (const auto& [name, value] : options_.values) {
      if (used_.count(name) == 0) {
        return InvalidArgumentError(op_ + ": unknown option '" + name + "' (" + value.ToString() + ")");
      }
    }
    return OkStatus();
  }

 private:
  const OptionValue* Find(const char* name) const {
    for (const auto& [n, v] : options_.values) {
      if (n == name) {
        used_.insert(n);
        return &v;
      }
    }
    return nullptr;
  }
  void Fail(const char* name, const OptionValue& v, const std::string& expected) {
    if (status_.ok()) {
      status_ = InvalidArgumentError(op_ + ": option '" + std::string(name) + "' is " + v.ToString() +
                                     ", expected " + expected);
    }
  }

  const OpOptions& options_;
  std::string op_;
  mutable std::set<std::string> used_;
  Status status_;
};

struct EncodedOptions {
  tflite::BuiltinOptions type = tflite::BuiltinOptions::NONE;
  Offset<void> table;
  std::vector<uint8_t> custom;  // custom_options bytes
  // The StableHLO ops' builtin_options_2.
  tflite::BuiltinOptions2 type2 = tflite::BuiltinOptions2::NONE;
  Offset<void> table2;
};

template <typename T>
void SetUnion(EncodedOptions* e, Offset<T> offset) {
  e->type = tflite::BuiltinOptionsTraits<T>::enum_value;
  e->table = offset.Union();
}

void PutInt32(std::vector<uint8_t>* out, int32_t v) {
  uint8_t b[4];
  std::memcpy(b, &v, 4);
  out->insert(out->end(), b, b + 4);
}

int32_t TfLitePadding(tflite::Padding p) {
  return tflite_ops::TfLitePaddingCode(p == tflite::Padding::SAME ? Padding::kSame : Padding::kValid);
}

// A field of model/option_table.h by its option name: its default when not
// named; a kNoDefault field must be named.
template <typename Kind, typename D>
typename Kind::T ReadField(OptionReader& r, const char* name, const D& def) {
  using T = typename Kind::T;
  using option_fields::Category;
  if constexpr (std::is_same_v<D, option_fields::NoDefault>) r.Require(name);
  const T d = option_fields::DefaultOf<T>(def);
  if constexpr (Kind::kCategory == Category::kInt) {
    return r.Int(name, d);
  } else if constexpr (Kind::kCategory == Category::kBool) {
    return r.Bool(name, d);
  } else if constexpr (Kind::kCategory == Category::kFloat) {
    return r.Float(name, d);
  } else {
    return r.Enum(name, d, Kind::Names(), Kind::kCount);
  }
}

// One Encode<Table> per table of model/option_table.h: each field from its
// named option through the table's builder.
#define GLD_ENCODE_FIELD(field, member, kind, def, chk, c_member) \
  b.add_##field(ReadField<option_fields::kind>(r, #field, def));
#define GLD_ENCODE_REFUSED(field, kind, def, c_member) GLD_ENCODE_FIELD(field, _, kind, def, _, c_member)
#define GLD_FILE_ENCODER(Table, Attr, missing, FIELDS)                                                     \
  void Encode##Table(OptionReader& r, [[maybe_unused]] const option_fields::OptionDefaults& ctx,          \
                     FlatBufferBuilder* fbb, EncodedOptions* e) {                                         \
    tflite::Table##Builder b(*fbb);                                                                       \
    FIELDS(GLD_ENCODE_FIELD, GLD_ENCODE_REFUSED)                                                          \
    SetUnion(e, b.Finish());                                                                              \
  }
#define GLD_DELEGATE_ENCODER(Table, Attr, CStruct, missing, FIELDS) GLD_FILE_ENCODER(Table, Attr, missing, FIELDS)
GLD_OPTION_TABLES(GLD_DELEGATE_ENCODER, GLD_FILE_ENCODER)
#undef GLD_ENCODE_FIELD
#undef GLD_ENCODE_REFUSED
#undef GLD_FILE_ENCODER
#undef GLD_DELEGATE_ENCODER

// The options of an op of GLD_OPTION_OPS; false for other ops.
bool EncodeTableOptions(OpType op, OptionReader& r, const option_fields::OptionDefaults& ctx,
                        FlatBufferBuilder* fbb, EncodedOptions* e) {
  switch (op) {
#define GLD_ENCODE_OP(op, Table) \
  case OpType::op:               \
    Encode##Table(r, ctx, fbb, e); \
    return true;
    GLD_OPTION_OPS(GLD_ENCODE_OP)
#undef GLD_ENCODE_OP
    default: return false;
  }
}

// MediaPipe's raw option structs (the custom ops Convolution2DTransposeBias,
// MaxPoolingWithArgmax2D, MaxUnpooling2D) from the builtin-style names.
void EncodeMediaPipeStruct(OpType op, OptionReader& r, std::vector<uint8_t>* out) {
  const tflite::Padding padding = r.Padding();
  const int32_t stride_w = r.Int("stride_w", 1), stride_h = r.Int("stride_h", 1);
  PutInt32(out, TfLitePadding(padding));
  PutInt32(out, stride_w);
  PutInt32(out, stride_h);
  Activation a = Activation::kNone;
  if (!option_fields::Act::Read("", "", r.Activation(), &a).ok()) a = Activation::kNone;
  if (op == OpType::kConvolution2DTransposeBias) {
    // MediaPipe writes 12 bytes; the activation only when there is one.
    if (a != Activation::kNone) PutInt32(out, tflite_ops::TfLiteActivationCode(a));
    return;
  }
  PutInt32(out, r.Int("filter_width", 1));
  PutInt32(out, r.Int("filter_height", 1));
  PutInt32(out, tflite_ops::TfLiteActivationCode(a));
  for (int i = 0; i < 4; ++i) PutInt32(out, 0);  // computed padding
}

// Hooks: options tables with vectors or strings, and those the parser does
// not read (the ModelBuilder still writes them, with defaults from the
// outputs' types).
void EncodeOtherOptions(OpType op, OptionReader& r, const std::vector<ElementType>& output_types,
                        FlatBufferBuilder* fbb, EncodedOptions* e) {
  auto set = [e](auto offset) { SetUnion(e, offset); };
  auto output_type = [&](tflite::TensorType def) {
    if (output_types.empty()) return def;
    auto t = ToTensorType(output_types[0]);
    return t.ok() ? *t : def;
  };
  switch (op) {
    case OpType::kL2Normalization: set(tflite::CreateL2NormOptions(*fbb, r.Activation())); break;
    case OpType::kBucketize: {
      auto boundaries = r.Floats("boundaries");
      set(tflite::CreateBucketizeOptions(*fbb, boundaries ? fbb->CreateVector(*boundaries) : 0));
      break;
    }
    case OpType::kReshape: {
      auto shape = r.Ints("new_shape");
      if (shape) set(tflite::CreateReshapeOptions(*fbb, fbb->CreateVector(*shape)));
      break;
    }
    case OpType::kSqueeze: {
      auto dims = r.Ints("squeeze_dims");
      set(tflite::CreateSqueezeOptions(*fbb, dims ? fbb->CreateVector(*dims) : 0));
      break;
    }
    case OpType::kVarHandle: {
      const std::string container = r.String("container", ""), shared_name = r.String("shared_name", "");
      set(tflite::CreateVarHandleOptionsDirect(*fbb, container.c_str(), shared_name.c_str()));
      break;
    }
    case OpType::kStablehloComposite: {
      const std::string name = r.String("name", "");
      e->type2 = tflite::BuiltinOptions2::StableHLOCompositeOptions;
      e->table2 = tflite::CreateStableHLOCompositeOptionsDirect(*fbb, name.c_str(),
                                                                r.Int("decomposition_subgraph_index", 0), nullptr,
                                                                tflite::CustomOptionsFormat::FLEXBUFFERS,
                                                                r.Int("version", 0))
                      .Union();
      break;
    }
    case OpType::kStablehloScatter: {
      auto longs = [&](const char* field) {
        auto v = r.Ints(field);
        return v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>{};
      };
      const auto window = longs("update_window_dims"), inserted = longs("inserted_window_dims"),
                 to_operand = longs("scatter_dims_to_operand_dims");
      e->type2 = tflite::BuiltinOptions2::StablehloScatterOptions;
      e->table2 = tflite::CreateStablehloScatterOptionsDirect(*fbb, false, &window, &inserted, &to_operand,
                                                              r.Int("index_vector_dim", 0), false,
                                                              r.Int("update_computation_subgraph_index", 0))
                      .Union();
      break;
    }
    case OpType::kArgMax:
      set(tflite::CreateArgMaxOptions(*fbb, r.Type("output_type", output_type(tflite::TensorType::INT32))));
      break;
    case OpType::kArgMin:
      set(tflite::CreateArgMinOptions(*fbb, r.Type("output_type", output_type(tflite::TensorType::INT32))));
      break;
    case OpType::kShape:
      set(tflite::CreateShapeOptions(*fbb, r.Type("out_type", output_type(tflite::TensorType::INT32))));
      break;
    case OpType::kCast:
      if (r.Has("in_data_type") || r.Has("out_data_type")) {
        auto in = r.Type("in_data_type", tflite::TensorType::FLOAT32);
        auto out = r.Type("out_data_type", output_type(tflite::TensorType::FLOAT32));
        set(tflite::CreateCastOptions(*fbb, in, out));
      }
      break;
    default:
      break;  // no options
  }
}

// Builds the options of `op` into fbb. Unknown option names are errors.
StatusOr<EncodedOptions> EncodeOptions(const OpSpec& op, const std::string& op_name,
                                       const std::vector<ElementType>& output_types,
                                       FlatBufferBuilder* fbb) {
  OptionReader r(op.options, op_name);
  EncodedOptions e;
  if (op.builtin_code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
    e.custom = op.options.custom_options;
    const bool mediapipe_struct = op.known && (op.op_type == OpType::kConvolution2DTransposeBias ||
                                               op.op_type == OpType::kMaxPoolingWithArgmax2D ||
                                               op.op_type == OpType::kMaxUnpooling2D);
    if (mediapipe_struct && e.custom.empty()) EncodeMediaPipeStruct(op.op_type, r, &e.custom);
  } else if (op.known) {  // a builtin the IR does not know has no options we could name
    option_fields::OptionDefaults ctx;
    ctx.num_inputs = static_cast<int32_t>(op.inputs.size());
    ctx.num_outputs = static_cast<int32_t>(op.outputs.size());
    // UNIQUE's index output's type, as output 1 declares it unless named.
    if (output_types.size() > 1) {
      auto t = ToTensorType(output_types[1]);
      if (t.ok() && *t == tflite::TensorType::INT64) ctx.index_type = *t;
    }
    if (!EncodeTableOptions(op.op_type, r, ctx, fbb, &e)) EncodeOtherOptions(op.op_type, r, output_types, fbb, &e);
  }
  GLD_RETURN_IF_ERROR(r.Finish());
  return e;
}

}  // namespace

struct ModelBuilder::State {
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
  std::vector<int> inputs;
  bool inputs_set = false;
  std::vector<int> outputs;
};

ModelBuilder::ModelBuilder() : state_(std::make_unique<State>()) {}
ModelBuilder::~ModelBuilder() = default;

int ModelBuilder::num_tensors() const { return static_cast<int>(state_->tensors.size()); }

int ModelBuilder::AddTensor(const std::string& name, ElementType type, std::vector<int> shape,
                            QuantizationInfo quantization) {
  TensorSpec t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  t.quant = std::move(quantization);
  state_->tensors.push_back(std::move(t));
  return static_cast<int>(state_->tensors.size()) - 1;
}

void ModelBuilder::SetShapeSignature(int tensor, std::vector<int> signature) {
  if (tensor >= 0 && static_cast<size_t>(tensor) < state_->tensors.size()) {
    state_->tensors[static_cast<size_t>(tensor)].signature = std::move(signature);
  }
}

int ModelBuilder::AddInput(const std::string& name, ElementType type, std::vector<int> shape,
                           QuantizationInfo quantization) {
  const int index = AddTensor(name, type, std::move(shape), std::move(quantization));
  if (!state_->inputs_set) state_->inputs.push_back(index);
  return index;
}

int ModelBuilder::AddConstant(const std::string& name, ElementType type, std::vector<int> shape,
                              const void* data, size_t bytes, QuantizationInfo quantization) {
  const int index = AddTensor(name, type, std::move(shape), std::move(quantization));
  TensorSpec& t = state_->tensors.back();
  t.constant = true;
  if (bytes > 0) {
    const auto* p = static_cast<const uint8_t*>(data);
    t.data.assign(p, p + bytes);
  }
  return index;
}

int ModelBuilder::AddConstantFloat(const std::string& name, std::vector<int> shape,
                                   const std::vector<float>& values) {
  return AddConstant(name, ElementType::kFloat32, std::move(shape), values.data(),
                     values.size() * sizeof(float));
}

int ModelBuilder::AddConstantInt32(const std::string& name, std::vector<int> shape,
                                   const std::vector<int32_t>& values) {
  return AddConstant(name, ElementType::kInt32, std::move(shape), values.data(),
                     values.size() * sizeof(int32_t));
}

int ModelBuilder::AddSparseConstant(const std::string& name, ElementType type,
                                    std::vector<int> shape, const SparsityInfo& sparsity,
                                    const void* values, size_t bytes,
                                    QuantizationInfo quantization) {
  const int index = AddConstant(name, type, std::move(shape), values, bytes, std::move(quantization));
  state_->tensors.back().sparsity = sparsity;
  return index;
}

Status ModelBuilder::AddOp(const std::string& op_name, std::vector<int> inputs,
                           std::vector<int> outputs, const OpOptions& options) {
  OpSpec op;
  int32_t code;
  if (BuiltinCodeFromName(op_name, &code)) {
    if (code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
      return InvalidArgumentError("AddOp: use AddCustomOp for arbitrary custom ops");
    }
    op.builtin_code = code;
    op.known = tflite_ops::OpTypeFromBuiltin(code, &op.op_type);
  } else if (OpTypeFromName(op_name, &op.op_type) && !tflite_ops::BuiltinFromOpType(op.op_type, &code)) {
    op.builtin_code = static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM);
    op.custom_code = op_name;
    op.known = true;
  } else {
    return InvalidArgumentError("AddOp: unknown op '" + op_name + "'");
  }
  if (!options.custom_options.empty() && op.custom_code.empty()) {
    return InvalidArgumentError("AddOp: " + op_name + " is a builtin op; it takes no custom_options");
  }
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.options = options;
  if (op.options.version <= 0) {
    // TFLite registers BROADCAST_TO from version 2 (1 was a custom op's).
    op.options.version = op.builtin_code == static_cast<int32_t>(tflite::BuiltinOperator::BROADCAST_TO) ? 2 : 1;
  }
  const int n = num_tensors();
  if (!allow_invalid_) {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (op.inputs[i] < -1 || op.inputs[i] >= n) {
        return InvalidArgumentError("AddOp " + op_name + ": input " + std::to_string(i) + " is tensor " +
                                    std::to_string(op.inputs[i]) + ", the builder has " +
                                    std::to_string(n) + " tensors");
      }
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      if (op.outputs[i] < 0 || op.outputs[i] >= n) {
        return InvalidArgumentError("AddOp " + op_name + ": output " + std::to_string(i) + " is tensor " +
                                    std::to_string(op.outputs[i]) + ", the builder has " +
                                    std::to_string(n) + " tensors");
      }
    }
  }
  // Encode once into a scratch builder to report option errors now.
  FlatBufferBuilder scratch;
  std::vector<ElementType> output_types;
  for (int t : op.outputs) {
    if (t >= 0 && t < n) output_types.push_back(state_->tensors[static_cast<size_t>(t)].type);
  }
  auto encoded = EncodeOptions(op, op_name, output_types, &scratch);
  if (!encoded.ok()) return encoded.status();
  state_->ops.push_back(std::move(op));
  return OkStatus();
}

Status ModelBuilder::AddCustomOp(const std::string& custom_code, std::vector<int> inputs,
                                 std::vector<int> outputs, std::vector<uint8_t> custom_options,
                                 int version) {
  if (custom_code.empty()) return InvalidArgumentError("AddCustomOp: empty custom_code");
  OpSpec op;
  op.builtin_code = static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM);
  op.custom_code = custom_code;
  int32_t code;
  op.known = OpTypeFromName(custom_code, &op.op_type) && !tflite_ops::BuiltinFromOpType(op.op_type, &code);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.options.custom_options = std::move(custom_options);
  op.options.version = version;
  state_->ops.push_back(std::move(op));
  return OkStatus();
}

void ModelBuilder::SetInputs(std::vector<int> inputs) {
  state_->inputs = std::move(inputs);
  state_->inputs_set = true;
}

void ModelBuilder::SetOutputs(std::vector<int> outputs) { state_->outputs = std::move(outputs); }

namespace {

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

Offset<void> SparseIndices(FlatBufferBuilder* fbb, const std::vector<int>& values, int bits,
                           tflite::SparseIndexVector* type) {
  if (bits == 8) {
    std::vector<uint8_t> v(values.begin(), values.end());
    fbb->ForceVectorAlignment(v.size(), sizeof(uint8_t), 4);
    auto vec = fbb->CreateVector(v);
    *type = tflite::SparseIndexVector::Uint8Vector;
    return tflite::CreateUint8Vector(*fbb, vec).Union();
  }
  if (bits == 16) {
    std::vector<uint16_t> v(values.begin(), values.end());
    fbb->ForceVectorAlignment(v.size(), sizeof(uint16_t), 4);
    auto vec = fbb->CreateVector(v);
    *type = tflite::SparseIndexVector::Uint16Vector;
    return tflite::CreateUint16Vector(*fbb, vec).Union();
  }
  *type = tflite::SparseIndexVector::Int32Vector;
  return tflite::CreateInt32Vector(*fbb, fbb->CreateVector(values)).Union();
}

// Finish's checks of what was added (skipped by set_allow_invalid).
Status CheckSpecs(const std::vector<TensorSpec>& tensors, const std::vector<int>& inputs,
                  const std::vector<int>& outputs) {
  const int n = static_cast<int>(tensors.size());
  for (int i = 0; i < n; ++i) {
    const TensorSpec& t = tensors[static_cast<size_t>(i)];
    const std::string what = "Finish: tensor " + std::to_string(i) + " '" + t.name + "'";
    int64_t elements = 1;
    for (int d : t.shape) {
      if (d < 0) return InvalidArgumentError(what + " has a negative dimension");
      elements *= d;
      if (elements > (int64_t{1} << 40)) return InvalidArgumentError(what + " is too large");
    }
    if (t.type == ElementType::kUnknown) return InvalidArgumentError(what + " has unknown type");
    const uint64_t need = static_cast<uint64_t>(elements) * ElementTypeSize(t.type);
    if (t.constant && !t.sparsity && t.data.size() != need) {
      return InvalidArgumentError("Finish: constant " + std::to_string(i) + " '" + t.name + "' has " +
                                  std::to_string(t.data.size()) + " bytes, shape needs " + std::to_string(need));
    }
  }
  for (const auto* list : {&inputs, &outputs}) {
    for (int t : *list) {
      if (t < 0 || t >= n) {
        return InvalidArgumentError("Finish: graph input/output tensor " + std::to_string(t) +
                                    " is out of range (" + std::to_string(n) + " tensors)");
      }
    }
  }
  return OkStatus();
}

// Operator codes, deduplicated; the extra subgraphs use RELU.
struct CodeKey {
  int32_t code;
  std::string custom;
  int version;
  bool operator==(const CodeKey& o) const { return code == o.code && custom == o.custom && version == o.version; }
};
struct OpCodes {
  std::vector<CodeKey> keys;
  std::vector<uint32_t> of_op;  // per op, its index in keys
  uint32_t relu = 0;
};

StatusOr<OpCodes> CollectOpCodes(const std::vector<OpSpec>& ops, const BuildOptions& options) {
  OpCodes c;
  auto index = [&c](const CodeKey& k) {
    auto it = std::find(c.keys.begin(), c.keys.end(), k);
    if (it != c.keys.end()) return static_cast<uint32_t>(it - c.keys.begin());
    c.keys.push_back(k);
    return static_cast<uint32_t>(c.keys.size() - 1);
  };
  for (const OpSpec& op : ops) c.of_op.push_back(index({op.builtin_code, op.custom_code, op.options.version}));
  if (options.extra_subgraphs > 0) c.relu = index({static_cast<int32_t>(tflite::BuiltinOperator::RELU), "", 1});
  for (const CodeKey& k : c.keys) {
    if (options.op_codes == BuildOptions::OpCodeStyle::kDeprecatedOnly &&
        k.code >= static_cast<int32_t>(tflite::BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES)) {
      return InvalidArgumentError(std::string("Finish: op ") + tflite_ops::BuiltinName(k.code) + " (code " +
                                  std::to_string(k.code) + ") does not fit deprecated_builtin_code");
    }
  }
  return c;
}

// What one build of the flatbuffer reads.
struct ModelParts {
  const std::vector<TensorSpec>& tensors;
  const std::vector<OpSpec>& ops;
  const std::vector<int>& inputs;
  const std::vector<int>& outputs;
  const BuildOptions& options;
  OpCodes codes;
  std::vector<int> tensor_buffer;                  // per tensor, its buffer (0: none)
  std::vector<const std::vector<uint8_t>*> blobs;  // buffer b + 1's bytes
};

std::vector<Offset<tflite::Buffer>> BuildBuffers(const ModelParts& m, const std::vector<uint64_t>& offsets,
                                                 FlatBufferBuilder* fbb) {
  std::vector<Offset<tflite::Buffer>> buffers;
  buffers.push_back(tflite::CreateBuffer(*fbb));
  for (size_t b = 0; b < m.blobs.size(); ++b) {
    if (m.options.buffers_after_flatbuffer) {
      buffers.push_back(tflite::CreateBuffer(*fbb, 0, offsets[b], m.blobs[b]->size()));
    } else {
      fbb->ForceVectorAlignment(m.blobs[b]->size(), sizeof(uint8_t), 16);
      auto data = fbb->CreateVector(*m.blobs[b]);
      buffers.push_back(tflite::CreateBuffer(*fbb, data));
    }
  }
  return buffers;
}

std::vector<Offset<tflite::OperatorCode>> BuildOpCodes(const ModelParts& m, FlatBufferBuilder* fbb) {
  std::vector<Offset<tflite::OperatorCode>> op_codes;
  for (const CodeKey& k : m.codes.keys) {
    auto custom = k.custom.empty() ? 0 : fbb->CreateString(k.custom);
    int8_t deprecated = static_cast<int8_t>(std::min<int32_t>(k.code, 127));
    tflite::BuiltinOperator builtin = static_cast<tflite::BuiltinOperator>(k.code);
    if (m.options.op_codes == BuildOptions::OpCodeStyle::kDeprecatedOnly) builtin = tflite::BuiltinOperator::ADD;
    if (m.options.op_codes == BuildOptions::OpCodeStyle::kBuiltinCodeOnly) deprecated = 0;
    op_codes.push_back(tflite::CreateOperatorCode(*fbb, deprecated, custom, k.version, builtin));
  }
  return op_codes;
}

Offset<tflite::SparsityParameters> BuildSparsity(const SparsityInfo& s, FlatBufferBuilder* fbb) {
  std::vector<Offset<tflite::DimensionMetadata>> dims;
  for (const SparseDimensionInfo& d : s.dim_metadata) {
    if (d.sparse_csr) {
      tflite::SparseIndexVector st, it;
      auto seg = SparseIndices(fbb, d.array_segments, s.index_bits, &st);
      auto idx = SparseIndices(fbb, d.array_indices, s.index_bits, &it);
      dims.push_back(tflite::CreateDimensionMetadata(*fbb, tflite::DimensionType::SPARSE_CSR, 0, st, seg, it, idx));
    } else {
      dims.push_back(tflite::CreateDimensionMetadata(*fbb, tflite::DimensionType::DENSE, d.dense_size));
    }
  }
  return tflite::CreateSparsityParameters(*fbb, fbb->CreateVector(s.traversal_order),
                                          s.block_map.empty() ? 0 : fbb->CreateVector(s.block_map),
                                          fbb->CreateVector(dims));
}

StatusOr<std::vector<Offset<tflite::Tensor>>> BuildTensors(const ModelParts& m, FlatBufferBuilder* fbb) {
  std::vector<Offset<tflite::Tensor>> tensors;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const TensorSpec& t = m.tensors[i];
    auto type = ToTensorType(t.type);
    if (!type.ok()) return type.status().WithContext("tensor " + std::to_string(i) + " '" + t.name + "'");
    Offset<tflite::QuantizationParameters> quant = 0;
    if (!t.quant.scale.empty()) {
      quant = tflite::CreateQuantizationParameters(
          *fbb, 0, 0, fbb->CreateVector(t.quant.scale), fbb->CreateVector(t.quant.zero_point),
          tflite::QuantizationDetails::NONE, 0, t.quant.quantized_dimension);
    }
    Offset<tflite::SparsityParameters> sparsity = t.sparsity ? BuildSparsity(*t.sparsity, fbb) : 0;
    tensors.push_back(tflite::CreateTensor(*fbb, fbb->CreateVector(t.shape), *type,
                                           static_cast<uint32_t>(m.tensor_buffer[i]), fbb->CreateString(t.name),
                                           quant, false, sparsity,
                                           t.signature.empty() ? 0 : fbb->CreateVector(t.signature)));
  }
  return tensors;
}

StatusOr<std::vector<Offset<tflite::Operator>>> BuildOperators(const ModelParts& m, FlatBufferBuilder* fbb) {
  const int n = static_cast<int>(m.tensors.size());
  std::vector<Offset<tflite::Operator>> ops;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const OpSpec& op = m.ops[i];
    std::vector<ElementType> output_types;
    for (int t : op.outputs) {
      if (t >= 0 && t < n) output_types.push_back(m.tensors[static_cast<size_t>(t)].type);
    }
    const std::string name = op.custom_code.empty() ? tflite_ops::BuiltinName(op.builtin_code) : op.custom_code;
    GLD_ASSIGN_OR_RETURN(EncodedOptions e, EncodeOptions(op, name, output_types, fbb));
    auto custom = e.custom.empty() ? 0 : fbb->CreateVector(e.custom);
    ops.push_back(tflite::CreateOperator(*fbb, m.codes.of_op[i], fbb->CreateVector(op.inputs),
                                         fbb->CreateVector(op.outputs), e.type, e.table, custom,
                                         tflite::CustomOptionsFormat::FLEXBUFFERS, 0, 0, 0, 0, e.type2, e.table2));
  }
  return ops;
}

// Extra subgraph `extra` (from 1): one RELU from extra_in to extra_out.
Offset<tflite::SubGraph> BuildExtraSubgraph(const ModelParts& m, int extra, FlatBufferBuilder* fbb) {
  std::vector<int> one = {1};
  std::vector<Offset<tflite::Tensor>> et = {
      tflite::CreateTensor(*fbb, fbb->CreateVector(one), tflite::TensorType::FLOAT32, 0,
                           fbb->CreateString("extra_in")),
      tflite::CreateTensor(*fbb, fbb->CreateVector(one), tflite::TensorType::FLOAT32, 0,
                           fbb->CreateString("extra_out"))};
  std::vector<int> in = {0}, out = {1};
  std::vector<Offset<tflite::Operator>> eops = {
      tflite::CreateOperator(*fbb, m.codes.relu, fbb->CreateVector(in), fbb->CreateVector(out))};
  return tflite::CreateSubGraph(*fbb, fbb->CreateVector(et), fbb->CreateVector(in), fbb->CreateVector(out),
                                fbb->CreateVector(eops), fbb->CreateString("extra_" + std::to_string(extra)));
}

Offset<flatbuffers::Vector<Offset<tflite::SignatureDef>>> BuildSignatures(const ModelParts& m,
                                                                          FlatBufferBuilder* fbb) {
  const int n = static_cast<int>(m.tensors.size());
  std::string key = m.options.signature_key;
  if (key.empty() && m.options.main_subgraph_index != 0) key = "serving_default";
  if (key.empty()) return 0;
  auto maps = [&](const std::vector<int>& io, const std::vector<std::string>& names) {
    std::vector<Offset<tflite::TensorMap>> v;
    for (size_t i = 0; i < io.size(); ++i) {
      const std::string& name =
          i < names.size() ? names[i]
                           : (io[i] >= 0 && io[i] < n ? m.tensors[static_cast<size_t>(io[i])].name : std::string());
      v.push_back(tflite::CreateTensorMap(*fbb, fbb->CreateString(name), static_cast<uint32_t>(io[i])));
    }
    return fbb->CreateVector(v);
  };
  auto ins = maps(m.inputs, m.options.signature_input_names);
  auto outs = maps(m.outputs, m.options.signature_output_names);
  auto sig = tflite::CreateSignatureDef(*fbb, ins, outs, fbb->CreateString(key),
                                        static_cast<uint32_t>(m.options.main_subgraph_index));
  return fbb->CreateVector(std::vector<Offset<tflite::SignatureDef>>{sig});
}

// One build of the model; `offsets` place the buffers written after it.
Status BuildModel(const ModelParts& m, const std::vector<uint64_t>& offsets, FlatBufferBuilder* fbb) {
  auto buffers = BuildBuffers(m, offsets, fbb);
  auto op_codes = BuildOpCodes(m, fbb);
  GLD_ASSIGN_OR_RETURN(auto tensors, BuildTensors(m, fbb));
  GLD_ASSIGN_OR_RETURN(auto ops, BuildOperators(m, fbb));
  auto main = tflite::CreateSubGraph(*fbb, fbb->CreateVector(tensors), fbb->CreateVector(m.inputs),
                                     fbb->CreateVector(m.outputs), fbb->CreateVector(ops),
                                     fbb->CreateString(m.options.subgraph_name));
  std::vector<Offset<tflite::SubGraph>> subgraphs;
  for (int g = 0, extra = 0; g <= m.options.extra_subgraphs; ++g) {
    subgraphs.push_back(g == m.options.main_subgraph_index ? main : BuildExtraSubgraph(m, ++extra, fbb));
  }
  auto sigs = BuildSignatures(m, fbb);
  auto model = tflite::CreateModel(*fbb, 3, fbb->CreateVector(op_codes), fbb->CreateVector(subgraphs),
                                   fbb->CreateString(m.options.description), fbb->CreateVector(buffers), 0, 0,
                                   sigs);
  tflite::FinishModelBuffer(*fbb, model);
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<uint8_t>> ModelBuilder::Finish(const BuildOptions& options) const {
  const State& s = *state_;
  if (options.extra_subgraphs < 0 || options.main_subgraph_index < 0 ||
      options.main_subgraph_index > options.extra_subgraphs) {
    return InvalidArgumentError("Finish: main_subgraph_index " + std::to_string(options.main_subgraph_index) +
                                " with " + std::to_string(options.extra_subgraphs) + " extra subgraphs");
  }
  if (!allow_invalid_) GLD_RETURN_IF_ERROR(CheckSpecs(s.tensors, s.inputs, s.outputs));
  ModelParts m{s.tensors, s.ops, s.inputs, s.outputs, options, {}, {}, {}};
  GLD_ASSIGN_OR_RETURN(m.codes, CollectOpCodes(s.ops, options));
  // Constant blobs: buffer i + 1 for each constant tensor.
  m.tensor_buffer.assign(s.tensors.size(), 0);
  for (size_t i = 0; i < s.tensors.size(); ++i) {
    if (s.tensors[i].constant) {
      m.blobs.push_back(&s.tensors[i].data);
      m.tensor_buffer[i] = static_cast<int>(m.blobs.size());
    }
  }

  std::vector<uint64_t> offsets(m.blobs.size(), 2);  // placeholders > 1: same layout
  FlatBufferBuilder fbb(1024);
  GLD_RETURN_IF_ERROR(BuildModel(m, offsets, &fbb));
  if (!options.buffers_after_flatbuffer) {
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }
  // Data after the flatbuffer, each blob 16-byte aligned. The offsets do not
  // change the flatbuffer's layout, so a second build with the real ones has
  // the same size.
  size_t end = fbb.GetSize();
  for (size_t b = 0; b < m.blobs.size(); ++b) {
    offsets[b] = AlignUp(end, 16);
    end = offsets[b] + m.blobs[b]->size();  // no padding after the last blob
  }
  const size_t first_size = fbb.GetSize();
  FlatBufferBuilder fbb2(first_size + 64);
  GLD_RETURN_IF_ERROR(BuildModel(m, offsets, &fbb2));
  if (fbb2.GetSize() != first_size) return InternalError("Finish: flatbuffer size changed between passes");
  std::vector<uint8_t> out(end, 0);
  std::memcpy(out.data(), fbb2.GetBufferPointer(), fbb2.GetSize());
  for (size_t b = 0; b < m.blobs.size(); ++b) {
    if (!m.blobs[b]->empty()) std::memcpy(out.data() + offsets[b], m.blobs[b]->data(), m.blobs[b]->size());
  }
  return out;
}

Status ModelBuilder::WriteFile(const std::string& path, const BuildOptions& options) const {
  GLD_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Finish(options));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return NotFoundError("cannot create '" + path + "': " + std::strerror(errno));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = std::fclose(f) == 0;
  if (written != bytes.size() || !closed) {
    return DataLossError("error writing '" + path + "': " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace gld
