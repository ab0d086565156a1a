#include "model/tflite_ops.h"

#include "model/mediapipe_options.h"
#include "model/option_table.h"
#include "model/tflite_abi.h"

#include <flatbuffers/flexbuffers.h>

#include <algorithm>
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

using option_fields::DefaultOf;
using option_fields::kOptional;
using option_fields::kRequired;
namespace checks = option_fields::checks;

// The operator's options as table T; nullptr when it has none. Options of
// another type are an error.
template <typename T>
StatusOr<const T*> GetOptions(const tflite::Operator& op) {
  constexpr BuiltinOptions expected = tflite::BuiltinOptionsTraits<T>::enum_value;
  const BuiltinOptions actual = op.builtin_options_type();
  if (actual == BuiltinOptions::NONE || op.builtin_options() == nullptr) return static_cast<const T*>(nullptr);
  if (actual != expected) {
    const char* name = tflite::EnumNameBuiltinOptions(actual);
    return InvalidArgumentError(std::string("has builtin options ") +
                                (name && name[0] ? name : ("#" + std::to_string(static_cast<int>(actual))).c_str()) +
                                ", expected " + tflite::EnumNameBuiltinOptions(expected));
  }
  return static_cast<const T*>(op.builtin_options());
}

Status BinaryWithoutOptions(const tflite::Operator&, Attributes* out) {
  *out = BinaryAttributes{};
  return OkStatus();
}
Status BinaryWithoutOptionsData(const void*, Attributes* out) {
  *out = BinaryAttributes{};
  return OkStatus();
}

// ---- TFLite's C option structs (model/tflite_abi.h) read as the matching
// flatbuffer table's values.

tflite::Padding FromC(TfLitePadding p) {
  // C: 1 SAME, 2 VALID (0 unknown); the schema: 0 SAME, 1 VALID. Unknown
  // stays out of the schema's range, so the parser refuses it.
  return static_cast<tflite::Padding>(static_cast<int>(p) - 1);
}
tflite::ActivationFunctionType FromC(TfLiteFusedActivation a) {
  // The same numbers (C adds 6, sigmoid, which the parser refuses).
  return static_cast<tflite::ActivationFunctionType>(static_cast<int>(a));
}
tflite::MirrorPadMode FromC(TfLiteMirrorPaddingMode m) {
  // C: 1 REFLECT, 2 SYMMETRIC; the schema: 0, 1.
  return static_cast<tflite::MirrorPadMode>(static_cast<int>(m) - 1);
}
template <typename V>
V FromC(V v) {
  return v;
}

// A Spec's view over TFLite's C struct; void for a table read from files only.
template <typename Spec>
struct ViewOf {
  using type = void;
};

// ---- The tables of model/option_table.h made into parsers. Each op's Spec
// reads its fields through `o`: the file's options table or its View over
// TFLite's C struct, which has the table's accessors; null when the op has
// none (then each field takes its default). One parser, two sources: the
// model reader and the TFLite delegate map options the same way.
#define GLD_PARSE_FIELD(field, member, kind, def, chk, c_member)                                          \
  {                                                                                                      \
    using K = option_fields::kind;                                                                        \
    const K::T v = o != nullptr ? static_cast<K::T>(o->field()) : DefaultOf<K::T>(def);                  \
    GLD_RETURN_IF_ERROR(K::Read(kTable, #field, v, &a->member));                                          \
    GLD_RETURN_IF_ERROR(checks::chk(kTable, #field, a->member));                                          \
  }
#define GLD_PARSE_REFUSED(field, kind, def, c_member)                                                     \
  {                                                                                                      \
    using K = option_fields::kind;                                                                        \
    const K::T v = o != nullptr ? static_cast<K::T>(o->field()) : DefaultOf<K::T>(def);                  \
    GLD_RETURN_IF_ERROR(option_fields::RefuseUnlessDefault<K>(kTable, #field, v, DefaultOf<K::T>(def)));  \
  }
#define GLD_FILE_SPEC(Table, Attr, missing, FIELDS)                    \
  struct Table##Spec {                                                 \
    using Options = tflite::Table;                                     \
    using Attrs = Attr;                                                \
    static constexpr const char* kTable = #Table;                      \
    static constexpr const char* kMissing = missing;                   \
    template <typename O>                                              \
    static Status Read(const O* o, Attr* a) {                          \
      [[maybe_unused]] const option_fields::OptionDefaults ctx{};      \
      FIELDS(GLD_PARSE_FIELD, GLD_PARSE_REFUSED)                       \
      return OkStatus();                                               \
    }                                                                  \
  };
#define GLD_VIEW_FIELD(field, member, kind, def, chk, c_member) \
  option_fields::kind::T field() const { return static_cast<option_fields::kind::T>(FromC(p->c_member)); }
#define GLD_VIEW_REFUSED(field, kind, def, c_member) GLD_VIEW_FIELD(field, _, kind, def, _, c_member)
#define GLD_DELEGATE_SPEC(Table, Attr, CStruct, missing, FIELDS) \
  GLD_FILE_SPEC(Table, Attr, missing, FIELDS)                    \
  struct Table##View {                                           \
    using C = CStruct;                                           \
    const CStruct* p;                                            \
    FIELDS(GLD_VIEW_FIELD, GLD_VIEW_REFUSED)                     \
  };                                                             \
  template <>                                                    \
  struct ViewOf<Table##Spec> {                                   \
    using type = Table##View;                                    \
  };
GLD_OPTION_TABLES(GLD_DELEGATE_SPEC, GLD_FILE_SPEC)
#undef GLD_PARSE_FIELD
#undef GLD_PARSE_REFUSED
#undef GLD_FILE_SPEC
#undef GLD_VIEW_FIELD
#undef GLD_VIEW_REFUSED
#undef GLD_DELEGATE_SPEC

template <typename Spec, typename O>
Status ParseWithSpec(const O* o, Attributes* out) {
  if (o == nullptr && Spec::kMissing != nullptr) {
    return InvalidArgumentError(std::string("missing ") + Spec::kTable + Spec::kMissing);
  }
  typename Spec::Attrs a;
  GLD_RETURN_IF_ERROR(Spec::Read(o, &a));
  *out = std::move(a);
  return OkStatus();
}

// ---- Hooks: options that are more than fields (a vector, strings) or not
// a builtin table (MediaPipe's custom options). Each reads `o` as above.

// A C struct's array of at most 8 dimensions seen as the flatbuffer vector
// the hooks read.
struct IntSpan {
  const int32_t* data;
  uint32_t count;
  const IntSpan* Set(const int32_t* d, int n) {
    data = d;
    count = static_cast<uint32_t>(std::clamp(n, 0, 8));
    return this;
  }
  uint32_t size() const { return count; }
  const int32_t* begin() const { return data; }
  const int32_t* end() const { return data + count; }
};

// A vector of at most 64 dimensions (an axis list, a shape).
template <typename V>
Status ReadDims(const char* what, const V* v, std::vector<int32_t>* out) {
  if (v->size() > 64) return InvalidArgumentError(std::string(what) + " has " + std::to_string(v->size()) + " entries");
  out->assign(v->begin(), v->end());
  return OkStatus();
}

template <typename O>
Status ParseReshape(const O* o, Attributes* out) {
  ReshapeAttributes a;
  const auto* dims = o != nullptr ? o->new_shape() : nullptr;
  a.has_new_shape = dims != nullptr;
  if (dims != nullptr) GLD_RETURN_IF_ERROR(ReadDims("ReshapeOptions.new_shape", dims, &a.new_shape));
  *out = std::move(a);
  return OkStatus();
}
// A view over RESHAPE's or SQUEEZE's C struct: at most 8 dimensions.
template <typename T, typename CStruct>
struct DimsView {
  using Table = T;
  using C = CStruct;
  const C* p;
  mutable IntSpan span{nullptr, 0};
};
struct ReshapeView : DimsView<tflite::ReshapeOptions, TfLiteReshapeParams> {
  // No dimensions: TFLite's struct cannot tell an absent new_shape from an
  // empty one; the shape input decides then.
  const IntSpan* new_shape() const { return p->num_dimensions <= 0 ? nullptr : span.Set(p->shape, p->num_dimensions); }
};

template <typename O>
Status ParseSqueeze(const O* o, Attributes* out) {
  SqueezeAttributes a;
  const auto* dims = o != nullptr ? o->squeeze_dims() : nullptr;
  if (dims != nullptr) GLD_RETURN_IF_ERROR(ReadDims("SqueezeOptions.squeeze_dims", dims, &a.squeeze_dims));
  *out = std::move(a);
  return OkStatus();
}
struct SqueezeView : DimsView<tflite::SqueezeOptions, TfLiteSqueezeParams> {
  const IntSpan* squeeze_dims() const { return span.Set(p->squeeze_dims, p->num_squeeze_dims); }
};

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
Status ParseVarHandle(const O* o, Attributes* out) {
  VarHandleAttributes a;
  if (o != nullptr && o->container() != nullptr) a.container = o->container()->str();
  if (o != nullptr && o->shared_name() != nullptr) a.shared_name = o->shared_name()->str();
  *out = std::move(a);
  return OkStatus();
}

// The StableHLO ops' options live in the operator's second union
// (builtin_options_2); a file gives them or the op cannot run.
template <typename T>
StatusOr<const T*> GetOptions2(const tflite::Operator& op) {
  const T* o = op.builtin_options_2_as<T>();
  if (o == nullptr) {
    return InvalidArgumentError(std::string("has no ") + tflite::EnumNameBuiltinOptions2(
                                    tflite::BuiltinOptions2Traits<T>::enum_value) + " (builtin_options_2)");
  }
  return o;
}

// The numeric and boolean entries of a composite's attribute map (a
// flexbuffer); the others (strings, vectors) are skipped.
Status ReadCompositeNumbers(const tflite::StableHLOCompositeOptions* o, CompositeAttributes* a) {
  const flatbuffers::Vector<uint8_t>* bytes = o->composite_attributes();
  if (bytes == nullptr || bytes->size() == 0) return OkStatus();
  if (o->composite_attributes_format() != tflite::CustomOptionsFormat::FLEXBUFFERS || bytes->size() < 3 ||
      !flexbuffers::VerifyBuffer(bytes->data(), bytes->size())) {
    return InvalidArgumentError("composite '" + a->name + "': its attributes are not a valid flexbuffer");
  }
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes->data(), bytes->size());
  if (!root.IsMap()) return InvalidArgumentError("composite '" + a->name + "': its attributes are not a map");
  const flexbuffers::Map map = root.AsMap();
  const flexbuffers::TypedVector keys = map.Keys();
  const flexbuffers::Vector values = map.Values();
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
    const flexbuffers::Reference v = values[i];
    if (v.IsNumeric() || v.IsBool()) a->numbers.emplace_back(keys[i].AsKey(), v.AsDouble());
  }
  return OkStatus();
}

Status ParseComposite(const tflite::Operator& op, Attributes* out) {
  GLD_ASSIGN_OR_RETURN(const tflite::StableHLOCompositeOptions* o, GetOptions2<tflite::StableHLOCompositeOptions>(op));
  CompositeAttributes a;
  if (o->name() != nullptr) a.name = o->name()->str();
  a.decomposition_subgraph = o->decomposition_subgraph_index();
  a.version = o->version();
  GLD_RETURN_IF_ERROR(ReadCompositeNumbers(o, &a));
  *out = std::move(a);
  return OkStatus();
}

Status ParseStablehloScatter(const tflite::Operator& op, Attributes* out) {
  GLD_ASSIGN_OR_RETURN(const tflite::StablehloScatterOptions* o, GetOptions2<tflite::StablehloScatterOptions>(op));
  ScatterAttributes a;
  auto dims = [](const flatbuffers::Vector<int64_t>* v, std::vector<int64_t>* d) {
    if (v != nullptr) d->assign(v->begin(), v->end());
  };
  dims(o->update_window_dims(), &a.update_window_dims);
  dims(o->inserted_window_dims(), &a.inserted_window_dims);
  dims(o->scatter_dims_to_operand_dims(), &a.scatter_dims_to_operand_dims);
  a.index_vector_dim = o->index_vector_dim();
  a.update_subgraph = o->update_computation_subgraph_index();
  *out = std::move(a);
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

// MediaPipe's raw structs: int32 padding, stride_w, stride_h, then
// (pooling) filter_w, filter_h, and an activation when the bytes go on.
template <typename A>
Status ReadMediaPipeWindow(const uint8_t* data, size_t size, size_t activation_at, A* a) {
  GLD_ASSIGN_OR_RETURN(a->padding, FromTfLitePadding(ReadInt32(data)));
  a->stride_w = ReadInt32(data + 4);
  a->stride_h = ReadInt32(data + 8);
  if (size >= activation_at + 4) {
    GLD_ASSIGN_OR_RETURN(a->activation, FromTfLiteActivation(ReadInt32(data + activation_at)));
  }
  GLD_RETURN_IF_ERROR(checks::Factor("", "stride_w", a->stride_w));
  return checks::Factor("", "stride_h", a->stride_h);
}

Status ParseConvolution2DTransposeBias(const uint8_t* data, size_t size, int, Attributes* out) {
  if (size < 12) {
    return InvalidArgumentError("custom options hold " + std::to_string(size) +
                                " bytes, need 12 (padding, stride_w, stride_h)");
  }
  TransposeConvAttributes a;
  GLD_RETURN_IF_ERROR(ReadMediaPipeWindow(data, size, 12, &a));
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
  a.filter_w = ReadInt32(data + 12);
  a.filter_h = ReadInt32(data + 16);
  GLD_RETURN_IF_ERROR(ReadMediaPipeWindow(data, size, 20, &a));
  GLD_RETURN_IF_ERROR(checks::Factor("", "filter_w", a.filter_w));
  GLD_RETURN_IF_ERROR(checks::Factor("", "filter_h", a.filter_h));
  *out = a;
  return OkStatus();
}

// The transform ops' flexbuffer options (model/mediapipe_options.cc).
template <typename A, Status (*Parse)(const uint8_t*, size_t, int, A*)>
Status ParseFlexOptions(const uint8_t* data, size_t size, int version, Attributes* out) {
  A a;
  GLD_RETURN_IF_ERROR(Parse(data, size, version, &a));
  *out = std::move(a);
  return OkStatus();
}

using BuiltinParser = Status (*)(const tflite::Operator& op, Attributes* out);
using BuiltinDataParser = Status (*)(const void* builtin_data, Attributes* out);
using CustomParser = Status (*)(const uint8_t* data, size_t size, int version, Attributes* out);

// How each op's options become its attributes: a builtin op's options table
// (from a file) or C struct (from TFLite's interpreter, for the delegate), or
// a custom op's custom_options bytes. An op without a row has no options
// the IR uses; a binary row of the elementwise table without one gets
// BinaryAttributes without an activation (FindOptionParser). Encoding lives
// beside the builder (support/model_builder.cc).
struct OptionParser {
  OpType op;
  BuiltinParser builtin;
  BuiltinDataParser builtin_data;
  CustomParser custom;
};

// Parser over the file's options table; Parse reads a Table*.
template <typename Table, Status (*Parse)(const Table*, Attributes*)>
Status FromTable(const tflite::Operator& op, Attributes* out) {
  GLD_ASSIGN_OR_RETURN(const Table* o, GetOptions<Table>(op));
  return Parse(o, out);
}
// The same parser over TFLite's C struct View::C; Parse reads a View*.
template <typename View, Status (*Parse)(const View*, Attributes*)>
Status FromStruct(const void* builtin_data, Attributes* out) {
  if (builtin_data == nullptr) return Parse(nullptr, out);
  const View view{static_cast<const typename View::C*>(builtin_data)};
  return Parse(&view, out);
}

// A row of option_table.h's GLD_OPTION_OPS.
template <typename Spec>
OptionParser TableRow(OpType op) {
  using View = typename ViewOf<Spec>::type;
  using Options = typename Spec::Options;
  if constexpr (std::is_void_v<View>) {
    return {op, FromTable<Options, ParseWithSpec<Spec, Options>>, nullptr, nullptr};
  } else {
    return {op, FromTable<Options, ParseWithSpec<Spec, Options>>, FromStruct<View, ParseWithSpec<Spec, View>>,
            nullptr};
  }
}

#define GLD_TABLE_ROW(op, Table) TableRow<Table##Spec>(OpType::op),
#define GLD_HOOK(op, Parse, View) \
  { op, FromTable<View::Table, Parse<View::Table>>, FromStruct<View, Parse<View>>, nullptr }
#define GLD_NO_OPTIONS(op) \
  { op, BinaryWithoutOptions, BinaryWithoutOptionsData, nullptr }
#define GLD_CUSTOM(op, Parse) \
  { op, nullptr, nullptr, Parse }
#define GLD_FILE_HOOK(op, Parse, Table) \
  { op, FromTable<tflite::Table, Parse<tflite::Table>>, nullptr, nullptr }

// clang-format off
const OptionParser kOptionParsers[] = {
    GLD_OPTION_OPS(GLD_TABLE_ROW)
    GLD_HOOK(OpType::kReshape, ParseReshape, ReshapeView),
    GLD_HOOK(OpType::kSqueeze, ParseSqueeze, SqueezeView),
    GLD_FILE_HOOK(OpType::kBucketize, ParseBucketize, BucketizeOptions),
    GLD_FILE_HOOK(OpType::kVarHandle, ParseVarHandle, VarHandleOptions),
    {OpType::kStablehloComposite, ParseComposite, nullptr, nullptr},
    {OpType::kStablehloScatter, ParseStablehloScatter, nullptr, nullptr},
    GLD_NO_OPTIONS(OpType::kEqual),
    GLD_NO_OPTIONS(OpType::kNotEqual),
    GLD_NO_OPTIONS(OpType::kLess),
    GLD_NO_OPTIONS(OpType::kLessEqual),
    GLD_NO_OPTIONS(OpType::kGreater),
    GLD_NO_OPTIONS(OpType::kGreaterEqual),
    GLD_NO_OPTIONS(OpType::kLogicalAnd),
    GLD_NO_OPTIONS(OpType::kLogicalOr),
    GLD_CUSTOM(OpType::kConvolution2DTransposeBias, ParseConvolution2DTransposeBias),
    GLD_CUSTOM(OpType::kMaxPoolingWithArgmax2D, ParseMediaPipePool2d),
    GLD_CUSTOM(OpType::kMaxUnpooling2D, ParseMediaPipePool2d),
    GLD_CUSTOM(OpType::kTransformTensorBilinear,
               (ParseFlexOptions<TransformTensorBilinearAttributes, ParseTransformTensorBilinearOptions>)),
    GLD_CUSTOM(OpType::kTransformLandmarks,
               (ParseFlexOptions<TransformLandmarksAttributes, ParseTransformLandmarksOptions>)),
    GLD_CUSTOM(OpType::kLandmarks2TransformMatrix,
               (ParseFlexOptions<Landmarks2TransformMatrixAttributes, ParseLandmarks2TransformMatrixOptions>)),
};
// clang-format on
#undef GLD_TABLE_ROW
#undef GLD_HOOK
#undef GLD_NO_OPTIONS
#undef GLD_CUSTOM
#undef GLD_FILE_HOOK

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
  // The library's own ops that passes make (GLD_LAYER_NORM, GLD_RMS_NORM,
  // ...) are no file's ops: a custom_code naming one is an app's op like any
  // other.
  if (IsPassOp(op)) return OpType::kCustom;
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
