#include "gldelegate/model_builder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "gldelegate/tflite_generated.h"
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

// Builds the options of `op` into fbb. Unknown option names are errors.
StatusOr<EncodedOptions> EncodeOptions(const OpSpec& op, const std::string& op_name,
                                       const std::vector<ElementType>& output_types,
                                       FlatBufferBuilder* fbb) {
  OptionReader r(op.options, op_name);
  EncodedOptions e;
  auto set = [&e](auto offset) { SetUnion(&e, offset); };
  auto output_type = [&](tflite::TensorType def) {
    if (output_types.empty()) return def;
    auto t = ToTensorType(output_types[0]);
    return t.ok() ? *t : def;
  };
  const int num_outputs = static_cast<int>(op.outputs.size());
  const int num_inputs = static_cast<int>(op.inputs.size());

  if (op.builtin_code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
    e.custom = op.options.custom_options;
    const bool mediapipe_struct = op.known && (op.op_type == OpType::kConvolution2DTransposeBias ||
                                               op.op_type == OpType::kMaxPoolingWithArgmax2D ||
                                               op.op_type == OpType::kMaxUnpooling2D);
    if (mediapipe_struct && e.custom.empty()) {
      const tflite::Padding padding = r.Padding();
      const int32_t stride_w = r.Int("stride_w", 1), stride_h = r.Int("stride_h", 1);
      PutInt32(&e.custom, TfLitePadding(padding));
      PutInt32(&e.custom, stride_w);
      PutInt32(&e.custom, stride_h);
      const tflite::ActivationFunctionType act = r.Activation();
      Activation a = Activation::kNone;
      switch (act) {
        case tflite::ActivationFunctionType::RELU: a = Activation::kRelu; break;
        case tflite::ActivationFunctionType::RELU_N1_TO_1: a = Activation::kReluN1To1; break;
        case tflite::ActivationFunctionType::RELU6: a = Activation::kRelu6; break;
        case tflite::ActivationFunctionType::TANH: a = Activation::kTanh; break;
        case tflite::ActivationFunctionType::SIGN_BIT: a = Activation::kSignBit; break;
        default: break;
      }
      if (op.op_type == OpType::kConvolution2DTransposeBias) {
        // MediaPipe writes 12 bytes; the activation only when there is one.
        if (a != Activation::kNone) PutInt32(&e.custom, tflite_ops::TfLiteActivationCode(a));
      } else {
        PutInt32(&e.custom, r.Int("filter_width", 1));
        PutInt32(&e.custom, r.Int("filter_height", 1));
        PutInt32(&e.custom, tflite_ops::TfLiteActivationCode(a));
        for (int i = 0; i < 4; ++i) PutInt32(&e.custom, 0);  // computed padding
      }
    }
    GLD_RETURN_IF_ERROR(r.Finish());
    return e;
  }

  if (!op.known) {
    // A builtin the IR does not know: no options we could name.
    GLD_RETURN_IF_ERROR(r.Finish());
    return e;
  }

  switch (op.op_type) {
    case OpType::kConv2d: {
      auto padding = r.Padding();
      auto sw = r.Int("stride_w", 1), sh = r.Int("stride_h", 1);
      auto act = r.Activation();
      auto dw = r.Int("dilation_w_factor", 1), dh = r.Int("dilation_h_factor", 1);
      set(tflite::CreateConv2DOptions(*fbb, padding, sw, sh, act, dw, dh));
      break;
    }
    case OpType::kConv3d: {
      auto padding = r.Padding();
      auto sd = r.Int("stride_d", 1), sw = r.Int("stride_w", 1), sh = r.Int("stride_h", 1);
      auto act = r.Activation();
      auto dd = r.Int("dilation_d_factor", 1), dw = r.Int("dilation_w_factor", 1), dh = r.Int("dilation_h_factor", 1);
      set(tflite::CreateConv3DOptions(*fbb, padding, sd, sw, sh, act, dd, dw, dh));
      break;
    }
    case OpType::kBucketize: {
      auto boundaries = r.Floats("boundaries");
      set(tflite::CreateBucketizeOptions(*fbb, boundaries ? fbb->CreateVector(*boundaries) : 0));
      break;
    }
    case OpType::kUnique: {
      // The index output's type, as output 1 declares it unless named.
      tflite::TensorType idx = tflite::TensorType::INT32;
      if (output_types.size() > 1) {
        auto t = ToTensorType(output_types[1]);
        if (t.ok() && *t == tflite::TensorType::INT64) idx = *t;
      }
      set(tflite::CreateUniqueOptions(*fbb, r.Type("idx_out_type", idx)));
      break;
    }
    case OpType::kDepthwiseConv2d: {
      auto padding = r.Padding();
      auto sw = r.Int("stride_w", 1), sh = r.Int("stride_h", 1);
      auto dm = r.Int("depth_multiplier", 1);
      auto act = r.Activation();
      auto dw = r.Int("dilation_w_factor", 1), dh = r.Int("dilation_h_factor", 1);
      set(tflite::CreateDepthwiseConv2DOptions(*fbb, padding, sw, sh, dm, act, dw, dh));
      break;
    }
    case OpType::kTransposeConv: {
      auto padding = r.Padding();
      auto sw = r.Int("stride_w", 1), sh = r.Int("stride_h", 1);
      auto act = r.Activation();
      set(tflite::CreateTransposeConvOptions(*fbb, padding, sw, sh, act));
      break;
    }
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d: {
      auto padding = r.Padding();
      auto sw = r.Int("stride_w", 1), sh = r.Int("stride_h", 1);
      auto fw = r.Int("filter_width", 1), fh = r.Int("filter_height", 1);
      auto act = r.Activation();
      set(tflite::CreatePool2DOptions(*fbb, padding, sw, sh, fw, fh, act));
      break;
    }
    case OpType::kFullyConnected: {
      auto act = r.Activation();
      static const char* const kFormats[] = {"DEFAULT", "SHUFFLED4x16INT8"};
      auto format = r.Enum("weights_format", tflite::FullyConnectedOptionsWeightsFormat::DEFAULT, kFormats, 2);
      auto keep = r.Bool("keep_num_dims", false);
      set(tflite::CreateFullyConnectedOptions(*fbb, act, format, keep));
      break;
    }
    case OpType::kAdd: set(tflite::CreateAddOptions(*fbb, r.Activation())); break;
    case OpType::kSub: set(tflite::CreateSubOptions(*fbb, r.Activation())); break;
    case OpType::kMul: set(tflite::CreateMulOptions(*fbb, r.Activation())); break;
    case OpType::kDiv: set(tflite::CreateDivOptions(*fbb, r.Activation())); break;
    case OpType::kL2Normalization: set(tflite::CreateL2NormOptions(*fbb, r.Activation())); break;
    case OpType::kConcatenation: {
      auto axis = r.Int("axis", 0);
      set(tflite::CreateConcatenationOptions(*fbb, axis, r.Activation()));
      break;
    }
    case OpType::kReshape: {
      auto shape = r.Ints("new_shape");
      if (shape) set(tflite::CreateReshapeOptions(*fbb, fbb->CreateVector(*shape)));
      break;
    }
    case OpType::kMean: case OpType::kSum: case OpType::kReduceMax:
    case OpType::kReduceMin: case OpType::kReduceProd: case OpType::kReduceAny: case OpType::kReduceAll:
      set(tflite::CreateReducerOptions(*fbb, r.Bool("keep_dims", false)));
      break;
    case OpType::kResizeBilinear: {
      auto ac = r.Bool("align_corners", false), hp = r.Bool("half_pixel_centers", false);
      set(tflite::CreateResizeBilinearOptions(*fbb, ac, hp));
      break;
    }
    case OpType::kResizeNearestNeighbor: {
      auto ac = r.Bool("align_corners", false), hp = r.Bool("half_pixel_centers", false);
      set(tflite::CreateResizeNearestNeighborOptions(*fbb, ac, hp));
      break;
    }
    case OpType::kDepthToSpace:
      r.Require("block_size");
      set(tflite::CreateDepthToSpaceOptions(*fbb, r.Int("block_size", 0)));
      break;
    case OpType::kSpaceToDepth:
      r.Require("block_size");
      set(tflite::CreateSpaceToDepthOptions(*fbb, r.Int("block_size", 0)));
      break;
    case OpType::kSoftmax: set(tflite::CreateSoftmaxOptions(*fbb, r.Float("beta", 1.0f))); break;
    case OpType::kLeakyRelu: set(tflite::CreateLeakyReluOptions(*fbb, r.Float("alpha", 0.2f))); break;
    case OpType::kGelu: set(tflite::CreateGeluOptions(*fbb, r.Bool("approximate", false))); break;
    case OpType::kMirrorPad:
      set(tflite::CreateMirrorPadOptions(
          *fbb, r.Enum("mode", tflite::MirrorPadMode::REFLECT, tflite::EnumNamesMirrorPadMode(), 2)));
      break;
    case OpType::kStridedSlice: {
      auto b = r.Int("begin_mask", 0), en = r.Int("end_mask", 0), el = r.Int("ellipsis_mask", 0);
      auto na = r.Int("new_axis_mask", 0), sa = r.Int("shrink_axis_mask", 0);
      auto off = r.Bool("offset", false);
      set(tflite::CreateStridedSliceOptions(*fbb, b, en, el, na, sa, off));
      break;
    }
    case OpType::kGather: {
      auto axis = r.Int("axis", 0), bd = r.Int("batch_dims", 0);
      set(tflite::CreateGatherOptions(*fbb, axis, bd));
      break;
    }
    case OpType::kPack: {
      auto count = r.Int("values_count", num_inputs), axis = r.Int("axis", 0);
      set(tflite::CreatePackOptions(*fbb, count, axis));
      break;
    }
    case OpType::kUnpack: {
      auto num = r.Int("num", num_outputs), axis = r.Int("axis", 0);
      set(tflite::CreateUnpackOptions(*fbb, num, axis));
      break;
    }
    case OpType::kOneHot: set(tflite::CreateOneHotOptions(*fbb, r.Int("axis", -1))); break;
    case OpType::kSplit: set(tflite::CreateSplitOptions(*fbb, r.Int("num_splits", num_outputs))); break;
    case OpType::kSplitV: set(tflite::CreateSplitVOptions(*fbb, r.Int("num_splits", num_outputs))); break;
    case OpType::kCumsum: {
      auto ex = r.Bool("exclusive", false), rev = r.Bool("reverse", false);
      set(tflite::CreateCumsumOptions(*fbb, ex, rev));
      break;
    }
    case OpType::kSqueeze: {
      auto dims = r.Ints("squeeze_dims");
      set(tflite::CreateSqueezeOptions(*fbb, dims ? fbb->CreateVector(*dims) : 0));
      break;
    }
    case OpType::kLocalResponseNormalization: {
      auto radius = r.Int("radius", 5);
      auto bias = r.Float("bias", 1.0f), alpha = r.Float("alpha", 1.0f), beta = r.Float("beta", 0.5f);
      set(tflite::CreateLocalResponseNormalizationOptions(*fbb, radius, bias, alpha, beta));
      break;
    }
    case OpType::kWhile:
      set(tflite::CreateWhileOptions(*fbb, r.Int("cond_subgraph_index", 0), r.Int("body_subgraph_index", 0)));
      break;
    case OpType::kIf:
      set(tflite::CreateIfOptions(*fbb, r.Int("then_subgraph_index", 0), r.Int("else_subgraph_index", 0)));
      break;
    case OpType::kCallOnce:
      set(tflite::CreateCallOnceOptions(*fbb, r.Int("init_subgraph_index", 0)));
      break;
    case OpType::kVarHandle: {
      const std::string container = r.String("container", ""), shared_name = r.String("shared_name", "");
      set(tflite::CreateVarHandleOptionsDirect(*fbb, container.c_str(), shared_name.c_str()));
      break;
    }
    case OpType::kBatchMatMul: {
      auto ax = r.Bool("adj_x", false), ay = r.Bool("adj_y", false);
      set(tflite::CreateBatchMatMulOptions(*fbb, ax, ay));
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
    // The recurrent ops (graph/attributes.h RecurrentAttributes).
    case OpType::kLstm:
    case OpType::kUnidirectionalSequenceLstm:
    case OpType::kBidirectionalSequenceLstm: {
      auto act = r.Activation();
      auto cell = r.Float("cell_clip", 0.f), proj = r.Float("proj_clip", 0.f);
      auto asym = r.Bool("asymmetric_quantize_inputs", false);
      if (op.op_type == OpType::kLstm) {
        static const char* const kKernels[] = {"FULL", "BASIC"};
        auto kernel = r.Enum("kernel_type", tflite::LSTMKernelType::FULL, kKernels, 2);
        set(tflite::CreateLSTMOptions(*fbb, act, cell, proj, kernel, asym));
      } else if (op.op_type == OpType::kUnidirectionalSequenceLstm) {
        auto time_major = r.Bool("time_major", false);
        set(tflite::CreateUnidirectionalSequenceLSTMOptions(*fbb, act, cell, proj, time_major, asym));
      } else {
        auto merge = r.Bool("merge_outputs", false), time_major = r.Bool("time_major", true);
        set(tflite::CreateBidirectionalSequenceLSTMOptions(*fbb, act, cell, proj, merge, time_major, asym));
      }
      break;
    }
    case OpType::kRnn:
    case OpType::kUnidirectionalSequenceRnn:
    case OpType::kBidirectionalSequenceRnn: {
      auto act = r.Activation();
      auto asym = r.Bool("asymmetric_quantize_inputs", false);
      if (op.op_type == OpType::kRnn) {
        set(tflite::CreateRNNOptions(*fbb, act, asym));
      } else if (op.op_type == OpType::kUnidirectionalSequenceRnn) {
        set(tflite::CreateSequenceRNNOptions(*fbb, r.Bool("time_major", false), act, asym));
      } else {
        auto time_major = r.Bool("time_major", false), merge = r.Bool("merge_outputs", false);
        set(tflite::CreateBidirectionalSequenceRNNOptions(*fbb, time_major, act, merge, asym));
      }
      break;
    }
    case OpType::kSvdf: {
      auto rank = r.Int("rank", 1);
      auto act = r.Activation();
      set(tflite::CreateSVDFOptions(*fbb, rank, act, r.Bool("asymmetric_quantize_inputs", false)));
      break;
    }
    default:
      break;  // no options
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

}  // namespace

StatusOr<std::vector<uint8_t>> ModelBuilder::Finish(const BuildOptions& options) const {
  const State& s = *state_;
  const int n = num_tensors();
  if (options.extra_subgraphs < 0 || options.main_subgraph_index < 0 ||
      options.main_subgraph_index > options.extra_subgraphs) {
    return InvalidArgumentError("Finish: main_subgraph_index " +
                                std::to_string(options.main_subgraph_index) + " with " +
                                std::to_string(options.extra_subgraphs) + " extra subgraphs");
  }
  if (!allow_invalid_) {
    for (int i = 0; i < n; ++i) {
      const TensorSpec& t = s.tensors[static_cast<size_t>(i)];
      int64_t elements = 1;
      for (int d : t.shape) {
        if (d < 0) {
          return InvalidArgumentError("Finish: tensor " + std::to_string(i) + " '" + t.name +
                                      "' has a negative dimension");
        }
        elements *= d;
        if (elements > (int64_t{1} << 40)) {
          return InvalidArgumentError("Finish: tensor " + std::to_string(i) + " '" + t.name + "' is too large");
        }
      }
      if (t.type == ElementType::kUnknown) {
        return InvalidArgumentError("Finish: tensor " + std::to_string(i) + " '" + t.name + "' has unknown type");
      }
      const uint64_t need = static_cast<uint64_t>(elements) * ElementTypeSize(t.type);
      if (t.constant && !t.sparsity && t.data.size() != need) {
        return InvalidArgumentError("Finish: constant " + std::to_string(i) + " '" + t.name + "' has " +
                                    std::to_string(t.data.size()) + " bytes, shape needs " +
                                    std::to_string(need));
      }
    }
    for (const auto* list : {&s.inputs, &s.outputs}) {
      for (int t : *list) {
        if (t < 0 || t >= n) {
          return InvalidArgumentError("Finish: graph input/output tensor " + std::to_string(t) +
                                      " is out of range (" + std::to_string(n) + " tensors)");
        }
      }
    }
  }

  // Operator codes, deduplicated; the extra subgraphs use RELU.
  struct CodeKey {
    int32_t code;
    std::string custom;
    int version;
    bool operator==(const CodeKey& o) const {
      return code == o.code && custom == o.custom && version == o.version;
    }
  };
  std::vector<CodeKey> codes;
  auto code_index = [&codes](const CodeKey& k) {
    auto it = std::find(codes.begin(), codes.end(), k);
    if (it != codes.end()) return static_cast<uint32_t>(it - codes.begin());
    codes.push_back(k);
    return static_cast<uint32_t>(codes.size() - 1);
  };
  std::vector<uint32_t> op_code_index;
  for (const OpSpec& op : s.ops) op_code_index.push_back(code_index({op.builtin_code, op.custom_code, op.options.version}));
  const uint32_t relu_code = options.extra_subgraphs > 0
                                 ? code_index({static_cast<int32_t>(tflite::BuiltinOperator::RELU), "", 1})
                                 : 0;
  for (const CodeKey& k : codes) {
    if (options.op_codes == BuildOptions::OpCodeStyle::kDeprecatedOnly &&
        k.code >= static_cast<int32_t>(tflite::BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES)) {
      return InvalidArgumentError(std::string("Finish: op ") + tflite_ops::BuiltinName(k.code) +
                                  " (code " + std::to_string(k.code) +
                                  ") does not fit deprecated_builtin_code");
    }
  }

  // Constant blobs: buffer i + 1 for each constant tensor.
  std::vector<int> tensor_buffer(static_cast<size_t>(n), 0);
  std::vector<const std::vector<uint8_t>*> blobs;
  for (int i = 0; i < n; ++i) {
    const TensorSpec& t = s.tensors[static_cast<size_t>(i)];
    if (t.constant) {
      blobs.push_back(&t.data);
      tensor_buffer[static_cast<size_t>(i)] = static_cast<int>(blobs.size());
    }
  }

  auto build = [&](const std::vector<uint64_t>& offsets,
                   FlatBufferBuilder* fbb) -> Status {
    // Buffers.
    std::vector<Offset<tflite::Buffer>> buffers;
    buffers.push_back(tflite::CreateBuffer(*fbb));
    for (size_t b = 0; b < blobs.size(); ++b) {
      if (options.buffers_after_flatbuffer) {
        buffers.push_back(tflite::CreateBuffer(*fbb, 0, offsets[b], blobs[b]->size()));
      } else {
        fbb->ForceVectorAlignment(blobs[b]->size(), sizeof(uint8_t), 16);
        auto data = fbb->CreateVector(*blobs[b]);
        buffers.push_back(tflite::CreateBuffer(*fbb, data));
      }
    }
    // Operator codes.
    std::vector<Offset<tflite::OperatorCode>> op_codes;
    for (const CodeKey& k : codes) {
      auto custom = k.custom.empty() ? 0 : fbb->CreateString(k.custom);
      int8_t deprecated = static_cast<int8_t>(std::min<int32_t>(k.code, 127));
      tflite::BuiltinOperator builtin = static_cast<tflite::BuiltinOperator>(k.code);
      if (options.op_codes == BuildOptions::OpCodeStyle::kDeprecatedOnly) builtin = tflite::BuiltinOperator::ADD;
      if (options.op_codes == BuildOptions::OpCodeStyle::kBuiltinCodeOnly) deprecated = 0;
      op_codes.push_back(tflite::CreateOperatorCode(*fbb, deprecated, custom, k.version, builtin));
    }
    // Main subgraph.
    std::vector<Offset<tflite::Tensor>> tensors;
    for (int i = 0; i < n; ++i) {
      const TensorSpec& t = s.tensors[static_cast<size_t>(i)];
      auto type = ToTensorType(t.type);
      if (!type.ok()) return type.status().WithContext("tensor " + std::to_string(i) + " '" + t.name + "'");
      Offset<tflite::QuantizationParameters> quant = 0;
      if (!t.quant.scale.empty()) {
        quant = tflite::CreateQuantizationParameters(
            *fbb, 0, 0, fbb->CreateVector(t.quant.scale), fbb->CreateVector(t.quant.zero_point),
            tflite::QuantizationDetails::NONE, 0, t.quant.quantized_dimension);
      }
      Offset<tflite::SparsityParameters> sparsity = 0;
      if (t.sparsity) {
        std::vector<Offset<tflite::DimensionMetadata>> dims;
        for (const SparseDimensionInfo& d : t.sparsity->dim_metadata) {
          if (d.sparse_csr) {
            tflite::SparseIndexVector st, it;
            auto seg = SparseIndices(fbb, d.array_segments, t.sparsity->index_bits, &st);
            auto idx = SparseIndices(fbb, d.array_indices, t.sparsity->index_bits, &it);
            dims.push_back(tflite::CreateDimensionMetadata(*fbb, tflite::DimensionType::SPARSE_CSR, 0,
                                                           st, seg, it, idx));
          } else {
            dims.push_back(tflite::CreateDimensionMetadata(*fbb, tflite::DimensionType::DENSE, d.dense_size));
          }
        }
        sparsity = tflite::CreateSparsityParameters(
            *fbb, fbb->CreateVector(t.sparsity->traversal_order),
            t.sparsity->block_map.empty() ? 0 : fbb->CreateVector(t.sparsity->block_map),
            fbb->CreateVector(dims));
      }
      tensors.push_back(tflite::CreateTensor(*fbb, fbb->CreateVector(t.shape), *type,
                                             static_cast<uint32_t>(tensor_buffer[static_cast<size_t>(i)]),
                                             fbb->CreateString(t.name), quant, false, sparsity,
                                             t.signature.empty() ? 0 : fbb->CreateVector(t.signature)));
    }
    std::vector<Offset<tflite::Operator>> ops;
    for (size_t i = 0; i < s.ops.size(); ++i) {
      const OpSpec& op = s.ops[i];
      std::vector<ElementType> output_types;
      for (int t : op.outputs) {
        if (t >= 0 && t < n) output_types.push_back(s.tensors[static_cast<size_t>(t)].type);
      }
      const std::string name = op.custom_code.empty() ? tflite_ops::BuiltinName(op.builtin_code) : op.custom_code;
      GLD_ASSIGN_OR_RETURN(EncodedOptions e, EncodeOptions(op, name, output_types, fbb));
      auto custom = e.custom.empty() ? 0 : fbb->CreateVector(e.custom);
      ops.push_back(tflite::CreateOperator(*fbb, op_code_index[i], fbb->CreateVector(op.inputs),
                                           fbb->CreateVector(op.outputs), e.type, e.table, custom));
    }
    auto main = tflite::CreateSubGraph(*fbb, fbb->CreateVector(tensors), fbb->CreateVector(s.inputs),
                                       fbb->CreateVector(s.outputs), fbb->CreateVector(ops),
                                       fbb->CreateString(options.subgraph_name));
    std::vector<Offset<tflite::SubGraph>> subgraphs;
    for (int g = 0, extra = 0; g <= options.extra_subgraphs; ++g) {
      if (g == options.main_subgraph_index) {
        subgraphs.push_back(main);
        continue;
      }
      ++extra;
      std::vector<int> one = {1};
      std::vector<Offset<tflite::Tensor>> et = {
          tflite::CreateTensor(*fbb, fbb->CreateVector(one), tflite::TensorType::FLOAT32, 0,
                               fbb->CreateString("extra_in")),
          tflite::CreateTensor(*fbb, fbb->CreateVector(one), tflite::TensorType::FLOAT32, 0,
                               fbb->CreateString("extra_out"))};
      std::vector<int> in = {0}, out = {1};
      std::vector<Offset<tflite::Operator>> eops = {
          tflite::CreateOperator(*fbb, relu_code, fbb->CreateVector(in), fbb->CreateVector(out))};
      subgraphs.push_back(tflite::CreateSubGraph(*fbb, fbb->CreateVector(et), fbb->CreateVector(in),
                                                 fbb->CreateVector(out), fbb->CreateVector(eops),
                                                 fbb->CreateString("extra_" + std::to_string(extra))));
    }
    // Signature.
    Offset<flatbuffers::Vector<Offset<tflite::SignatureDef>>> sigs = 0;
    std::string key = options.signature_key;
    if (key.empty() && options.main_subgraph_index != 0) key = "serving_default";
    if (!key.empty()) {
      auto maps = [&](const std::vector<int>& io, const std::vector<std::string>& names) {
        std::vector<Offset<tflite::TensorMap>> v;
        for (size_t i = 0; i < io.size(); ++i) {
          const std::string& name =
              i < names.size() ? names[i]
                               : (io[i] >= 0 && io[i] < n ? s.tensors[static_cast<size_t>(io[i])].name : std::string());
          v.push_back(tflite::CreateTensorMap(*fbb, fbb->CreateString(name), static_cast<uint32_t>(io[i])));
        }
        return fbb->CreateVector(v);
      };
      auto ins = maps(s.inputs, options.signature_input_names);
      auto outs = maps(s.outputs, options.signature_output_names);
      auto sig = tflite::CreateSignatureDef(*fbb, ins, outs, fbb->CreateString(key),
                                            static_cast<uint32_t>(options.main_subgraph_index));
      sigs = fbb->CreateVector(std::vector<Offset<tflite::SignatureDef>>{sig});
    }
    auto model = tflite::CreateModel(*fbb, 3, fbb->CreateVector(op_codes), fbb->CreateVector(subgraphs),
                                     fbb->CreateString(options.description), fbb->CreateVector(buffers),
                                     0, 0, sigs);
    tflite::FinishModelBuffer(*fbb, model);
    return OkStatus();
  };

  std::vector<uint64_t> offsets(blobs.size(), 2);  // placeholders > 1: same layout
  FlatBufferBuilder fbb(1024);
  GLD_RETURN_IF_ERROR(build(offsets, &fbb));
  if (!options.buffers_after_flatbuffer) {
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }
  // Data after the flatbuffer, each blob 16-byte aligned. The offsets do not
  // change the flatbuffer's layout, so a second build with the real ones has
  // the same size.
  size_t end = fbb.GetSize();
  for (size_t b = 0; b < blobs.size(); ++b) {
    offsets[b] = AlignUp(end, 16);
    end = offsets[b] + blobs[b]->size();  // no padding after the last blob
  }
  const size_t first_size = fbb.GetSize();
  FlatBufferBuilder fbb2(first_size + 64);
  GLD_RETURN_IF_ERROR(build(offsets, &fbb2));
  if (fbb2.GetSize() != first_size) return InternalError("Finish: flatbuffer size changed between passes");
  std::vector<uint8_t> out(end, 0);
  std::memcpy(out.data(), fbb2.GetBufferPointer(), fbb2.GetSize());
  for (size_t b = 0; b < blobs.size(); ++b) {
    if (!blobs[b]->empty()) std::memcpy(out.data() + offsets[b], blobs[b]->data(), blobs[b]->size());
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
