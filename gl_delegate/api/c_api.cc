// The C API over the C++ API.
#include "gldelegate/gldelegate.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "api/c_custom_op.h"
#include "gldelegate/gldelegate.hpp"
#include "util/raw_enum.h"
#include "gldelegate/options.hpp"

struct GldModel {
  std::shared_ptr<const gld::Model> model;
};

struct GldInterpreter {
  std::unique_ptr<gld::Interpreter> interpreter;
  // Backing storage for GldTensorInfo.dims (int32 copies of the shapes) and
  // the shape signatures; refilled by GldInterpreterAllocateTensors.
  std::vector<std::vector<int32_t>> input_dims, output_dims;
  std::vector<std::vector<int32_t>> input_signature, output_signature;
  bool dynamic_outputs = false;  // an output's shape_signature has a -1: its shape may change per invoke

  void CopyDims() {
    auto copy = [](const std::vector<gld::TensorInfo>& infos, std::vector<std::vector<int32_t>>* dims,
                   std::vector<std::vector<int32_t>>* signature) {
      dims->clear();
      signature->clear();
      for (const auto& info : infos) {
        dims->emplace_back(info.shape.begin(), info.shape.end());
        signature->emplace_back(info.shape_signature.begin(), info.shape_signature.end());
      }
    };
    copy(interpreter->inputs(), &input_dims, &input_signature);
    copy(interpreter->outputs(), &output_dims, &output_signature);
    dynamic_outputs = false;
    for (const auto& s : output_signature) dynamic_outputs = dynamic_outputs || std::count(s.begin(), s.end(), -1) > 0;
  }
  // The rows GldInterpreterGetProfile handed out last, and their strings.
  std::vector<gld::ProfileRow> profile;
  std::vector<GldProfileRow> profile_rows;
  // The events GldInterpreterGetTrace handed out last, and their strings.
  std::vector<gld::TraceEvent> trace;
  std::vector<std::vector<GldTraceArg>> trace_args;
  std::vector<GldTraceEvent> trace_events;
};

namespace {

thread_local std::string g_last_error;

GldStatus ToC(gld::StatusCode code) {
  switch (code) {
    case gld::StatusCode::kOk: return GLD_OK;
    case gld::StatusCode::kInvalidArgument: return GLD_INVALID_ARGUMENT;
    case gld::StatusCode::kNotFound: return GLD_NOT_FOUND;
    case gld::StatusCode::kUnimplemented: return GLD_UNIMPLEMENTED;
    case gld::StatusCode::kFailedPrecondition: return GLD_FAILED_PRECONDITION;
    case gld::StatusCode::kUnavailable: return GLD_UNAVAILABLE;
    case gld::StatusCode::kDataLoss: return GLD_DATA_LOSS;
    case gld::StatusCode::kOutOfRange: return GLD_OUT_OF_RANGE;
    case gld::StatusCode::kInternal: return GLD_INTERNAL;
    case gld::StatusCode::kCancelled: return GLD_CANCELLED;
  }
  return GLD_INTERNAL;
}

GldStatus Report(const gld::Status& s) {
  if (s.ok()) return GLD_OK;
  g_last_error = s.ToString();
  return ToC(s.code());
}

GldStatus Fail(GldStatus code, const std::string& message) {
  g_last_error = std::string(GldStatusName(code)) + ": " + message;
  return code;
}

// Runs fn, turning an escaping exception (e.g. std::bad_alloc) into a status.
template <typename Fn>
GldStatus Guard(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return Fail(GLD_INTERNAL, std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return Fail(GLD_INTERNAL, "unexpected exception");
  }
}

void FillInfo(const gld::TensorInfo& info, const std::vector<int32_t>& dims, GldTensorInfo* out) {
  out->name = info.name.c_str();
  out->type = static_cast<GldElementType>(info.type);
  out->num_dims = static_cast<int32_t>(dims.size());
  out->dims = dims.data();
  out->bytes = info.bytes;
  out->num_scales = static_cast<int32_t>(info.quantization.scale.size());
  out->scales = info.quantization.scale.data();
  out->zero_points = info.quantization.zero_point.data();
  out->index = info.index;
}

// ---- Values between C and gld::Options / gld::InterpreterReport, by type ----

template <typename T>
constexpr bool kIsEnum = std::is_enum_v<T>;

// C -> C++ (the Gld enums have gld's numbers: the static_asserts below).
template <typename CEnum, typename Enum, typename = std::enable_if_t<kIsEnum<CEnum> && kIsEnum<Enum>>>
void FromC(const CEnum& value, Enum* out) {
  *out = static_cast<Enum>(gld::RawEnum(value));
}
void FromC(int32_t value, int* out) { *out = value; }
void FromC(int32_t value, bool* out) { *out = value != 0; }
void FromC(const char* value, std::string* out) { *out = value == nullptr ? "" : value; }

// C++ -> C.
template <typename Enum, typename CEnum, typename = std::enable_if_t<kIsEnum<Enum> && kIsEnum<CEnum>>>
void ToCValue(Enum value, CEnum* out) {
  *out = static_cast<CEnum>(static_cast<int>(value));
}
void ToCValue(int value, int32_t* out) { *out = value; }
void ToCValue(bool value, int32_t* out) { *out = value ? 1 : 0; }
void ToCValue(uint64_t value, uint64_t* out) { *out = value; }
void ToCValue(const std::string& value, const char** out) { *out = value.c_str(); }

// Sets one option after gld::CheckOption; a bad value leaves `options` as it was.
template <typename T, typename CValue>
GldStatus SetOption(GldOptions* options, const char* function, const char* member, T gld::Options::*field,
                    const CValue& value) {
  return Guard([&] {
    if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null options");
    T previous = std::move(options->options.*field);
    FromC(value, &(options->options.*field));
    gld::Status s = gld::CheckOption(options->options, member);
    if (s.ok()) return GLD_OK;
    options->options.*field = std::move(previous);
    return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": " + s.message());
  });
}

template <typename T, typename CValue>
GldStatus GetOption(const GldOptions* options, const char* function, T gld::Options::*field, CValue* out) {
  if (options == nullptr || out == nullptr) return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null argument");
  ToCValue(options->options.*field, out);
  return GLD_OK;
}

using StringList = std::vector<std::string>;

GldStatus AddListItem(GldOptions* options, const char* function, StringList gld::Options::*field, const char* item) {
  return Guard([&] {
    if (options == nullptr || item == nullptr) return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null argument");
    (options->options.*field).emplace_back(item);
    return GLD_OK;
  });
}

GldStatus GetListCount(const GldOptions* options, const char* function, StringList gld::Options::*field,
                       int32_t* out_count) {
  if (options == nullptr || out_count == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null argument");
  }
  *out_count = static_cast<int32_t>((options->options.*field).size());
  return GLD_OK;
}

GldStatus GetListItem(const GldOptions* options, const char* function, StringList gld::Options::*field,
                      int32_t index, const char** out) {
  if (options == nullptr || out == nullptr) return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null argument");
  const StringList& list = options->options.*field;
  if (index < 0 || static_cast<size_t>(index) >= list.size()) {
    return Fail(GLD_OUT_OF_RANGE, std::string(function) + ": index " + std::to_string(index) + " is out of range (" +
                                      std::to_string(list.size()) + ")");
  }
  *out = list[static_cast<size_t>(index)].c_str();
  return GLD_OK;
}

}  // namespace

static_assert(static_cast<int>(gld::GlLimits::kMinimum) == GLD_GL_LIMITS_MINIMUM,
              "GldGlLimits mirrors gld::GlLimits");
static_assert(static_cast<int>(gld::ContextMode::kCurrent) == GLD_CONTEXT_CURRENT,
              "GldContextMode mirrors gld::ContextMode");
static_assert(static_cast<int>(gld::ContextMode::kCurrentIfAny) == GLD_CONTEXT_CURRENT_IF_ANY,
              "GldContextMode mirrors gld::ContextMode");
static_assert(static_cast<int>(gld::Backend::kGl) == GLD_BACKEND_GL && static_cast<int>(gld::Backend::kCpu) == GLD_BACKEND_CPU,
              "GldBackend mirrors gld::Backend");
static_assert(static_cast<int>(gld::Precision::kFp16) == GLD_PRECISION_FP16 &&
                  static_cast<int>(gld::Precision::kFp16Mediump) == GLD_PRECISION_FP16_MEDIUMP,
              "GldPrecision mirrors gld::Precision");
static_assert(static_cast<int>(gld::ElementType::kBool) == GLD_TYPE_BOOL, "GldElementType mirrors gld::ElementType");
static_assert(static_cast<int>(gld::ElementType::kInt8) == GLD_TYPE_INT8, "GldElementType mirrors gld::ElementType");

// report.inc covers GldReport: every field, in its order.
namespace {
struct ReportFromTable {
#define GLD_REPORT_FIELD(field, python_key) decltype(GldReport::field) field;
#include "gldelegate/report.inc"
#undef GLD_REPORT_FIELD
};
}  // namespace
static_assert(sizeof(ReportFromTable) == sizeof(GldReport), "report.inc lists every field of GldReport");
#define GLD_REPORT_FIELD(field, python_key)                                   \
  static_assert(offsetof(ReportFromTable, field) == offsetof(GldReport, field), \
                "report.inc lists GldReport's fields in its order: " #field);
#include "gldelegate/report.inc"
#undef GLD_REPORT_FIELD

void gld::SetCLastError(const gld::Status& s) { Report(s); }

namespace {
// A GldGlLayout as gld::GlLayout (outside extern "C": it returns a C++ type).
// Reads the enum's bytes as an int (gld::RawEnum): a C caller may pass any int.
gld::StatusOr<gld::GlLayout> ToLayout(const GldGlLayout* layout, const char* function) {
  const int32_t raw = gld::RawEnum(*layout);
  if (raw == GLD_LAYOUT_BHWC) return gld::GlLayout::kBhwc;
  if (raw == GLD_LAYOUT_PHWC4) return gld::GlLayout::kPhwc4;
  return gld::InvalidArgumentError(std::string(function) + ": unknown layout " + std::to_string(raw));
}
}  // namespace

extern "C" {

const char* GldVersion(void) { return gld::VersionString(); }

const char* GldLastErrorMessage(void) { return g_last_error.c_str(); }

const char* GldStatusName(GldStatus status) {
  switch (status) {
    case GLD_OK: return "OK";
    case GLD_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case GLD_NOT_FOUND: return "NOT_FOUND";
    case GLD_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case GLD_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case GLD_UNAVAILABLE: return "UNAVAILABLE";
    case GLD_DATA_LOSS: return "DATA_LOSS";
    case GLD_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case GLD_INTERNAL: return "INTERNAL";
    case GLD_CANCELLED: return "CANCELLED";
  }
  return "UNKNOWN";
}

GldStatus GldModelCreateFromFile(const char* path, GldModel** out_model) {
  return Guard([&] {
    if (path == nullptr || out_model == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldModelCreateFromFile: null argument");
    *out_model = nullptr;
    auto model = gld::Model::FromFile(path);
    if (!model.ok()) return Report(model.status());
    *out_model = new GldModel{std::move(model).value()};
    return GLD_OK;
  });
}

GldStatus GldModelCreateFromBuffer(const void* data, size_t size, GldModel** out_model) {
  return Guard([&] {
    if (out_model == nullptr || (data == nullptr && size > 0)) {
      return Fail(GLD_INVALID_ARGUMENT, "GldModelCreateFromBuffer: null argument");
    }
    *out_model = nullptr;
    auto model = gld::Model::FromBuffer(data, size);
    if (!model.ok()) return Report(model.status());
    *out_model = new GldModel{std::move(model).value()};
    return GLD_OK;
  });
}

void GldModelDelete(GldModel* model) { delete model; }

GldOptions* GldOptionsCreate(void) {
  try {
    return new GldOptions();
  } catch (...) {
    return nullptr;
  }
}

void GldOptionsDelete(GldOptions* options) { delete options; }

// The setters and getters of options.inc's rows, each checked by
// gld::CheckOption: GldOptionsSet<c_name>, GldOptionsGet<c_name> (LIST:
// GldOptionsAdd<c_name>, GldOptionsGet<c_name>Count, GldOptionsGet<c_name>).
#define GLD_C_OPTION_SET_GET(field, c_name, c_type)                                            \
  GldStatus GldOptionsSet##c_name(GldOptions* options, c_type value) {                        \
    return SetOption(options, "GldOptionsSet" #c_name, #field, &gld::Options::field, value);  \
  }                                                                                           \
  GldStatus GldOptionsGet##c_name(const GldOptions* options, c_type* out) {                   \
    return GetOption(options, "GldOptionsGet" #c_name, &gld::Options::field, out);            \
  }
#define GLD_C_OPTION_ENUM(field, c_name) GLD_C_OPTION_SET_GET(field, c_name, Gld##c_name)
#define GLD_C_OPTION_INT(field, c_name) GLD_C_OPTION_SET_GET(field, c_name, int32_t)
#define GLD_C_OPTION_BOOL(field, c_name) GLD_C_OPTION_SET_GET(field, c_name, int32_t)
#define GLD_C_OPTION_STRING(field, c_name) GLD_C_OPTION_SET_GET(field, c_name, const char*)
#define GLD_C_OPTION_LIST(field, c_name)                                                             \
  GldStatus GldOptionsAdd##c_name(GldOptions* options, const char* item) {                          \
    return AddListItem(options, "GldOptionsAdd" #c_name, &gld::Options::field, item);               \
  }                                                                                                 \
  GldStatus GldOptionsGet##c_name##Count(const GldOptions* options, int32_t* out_count) {           \
    return GetListCount(options, "GldOptionsGet" #c_name "Count", &gld::Options::field, out_count); \
  }                                                                                                 \
  GldStatus GldOptionsGet##c_name(const GldOptions* options, int32_t index, const char** out) {     \
    return GetListItem(options, "GldOptionsGet" #c_name, &gld::Options::field, index, out);         \
  }
// The two pointers share GldOptionsSetShareContext/GldOptionsGetShareContext (below).
#define GLD_C_OPTION_POINTER(field, c_name)
#define GLD_OPTION(field, kind, c_name, ...) GLD_C_OPTION_##kind(field, c_name)
#include "gldelegate/options.inc"
#undef GLD_OPTION

GldStatus GldOptionsSetShareContext(GldOptions* options, void* egl_display, void* egl_context) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetShareContext: null options");
  gld::Options candidate = options->options;
  candidate.share_egl_display = egl_display;
  candidate.share_egl_context = egl_context;
  gld::Status s = gld::CheckOption(candidate, "share_egl_context");
  if (!s.ok()) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetShareContext: " + s.message());
  options->options.share_egl_display = egl_display;
  options->options.share_egl_context = egl_context;
  return GLD_OK;
}

GldStatus GldOptionsGetShareContext(const GldOptions* options, void** out_egl_display, void** out_egl_context) {
  if (options == nullptr || out_egl_display == nullptr || out_egl_context == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsGetShareContext: null argument");
  }
  *out_egl_display = options->options.share_egl_display;
  *out_egl_context = options->options.share_egl_context;
  return GLD_OK;
}

namespace {

// GldInterpreterCreate's and GldInterpreterCreateForSignature's work; `key`
// null for the model's first subgraph.
GldStatus CreateInterpreter(const GldModel* model, const GldOptions* options, const char* key,
                            GldInterpreter** out_interpreter) {
  gld::Options defaults;
  const gld::Options& o = options != nullptr ? options->options : defaults;
  auto interp =
      key != nullptr ? gld::Interpreter::Create(*model->model, o, key) : gld::Interpreter::Create(*model->model, o);
  if (!interp.ok()) return Report(interp.status());
  auto out = std::make_unique<GldInterpreter>();
  out->interpreter = std::move(interp).value();
  out->CopyDims();
  *out_interpreter = out.release();
  return GLD_OK;
}

}  // namespace

GldStatus GldInterpreterCreate(const GldModel* model, const GldOptions* options, GldInterpreter** out_interpreter) {
  return Guard([&] {
    if (model == nullptr || out_interpreter == nullptr) {
      return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterCreate: null argument");
    }
    *out_interpreter = nullptr;
    return CreateInterpreter(model, options, nullptr, out_interpreter);
  });
}

GldStatus GldInterpreterCreateForSignature(const GldModel* model, const GldOptions* options,
                                           const char* signature_key, GldInterpreter** out_interpreter) {
  return Guard([&] {
    if (model == nullptr || signature_key == nullptr || out_interpreter == nullptr) {
      return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterCreateForSignature: null argument");
    }
    *out_interpreter = nullptr;
    return CreateInterpreter(model, options, signature_key, out_interpreter);
  });
}

int32_t GldModelGetSignatureCount(const GldModel* model) {
  return model == nullptr ? 0 : static_cast<int32_t>(model->model->signatures().size());
}

const char* GldModelGetSignatureKey(const GldModel* model, int32_t index) {
  if (model == nullptr || index < 0) return nullptr;
  const auto& sigs = model->model->signatures();
  return static_cast<size_t>(index) < sigs.size() ? sigs[static_cast<size_t>(index)].key.c_str() : nullptr;
}

void GldInterpreterDelete(GldInterpreter* interpreter) { delete interpreter; }

int32_t GldInterpreterGetInputCount(const GldInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->interpreter->inputs().size());
}

int32_t GldInterpreterGetOutputCount(const GldInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->interpreter->outputs().size());
}

GldStatus GldInterpreterGetInputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info) {
  if (interpreter == nullptr || out_info == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetInputInfo: null argument");
  const auto& inputs = interpreter->interpreter->inputs();
  if (index < 0 || static_cast<size_t>(index) >= inputs.size()) {
    return Fail(GLD_OUT_OF_RANGE, "input index " + std::to_string(index) + " is out of range: the model has " +
                                      std::to_string(inputs.size()) + " input(s)");
  }
  FillInfo(inputs[index], interpreter->input_dims[index], out_info);
  return GLD_OK;
}

GldStatus GldInterpreterGetOutputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info) {
  if (interpreter == nullptr || out_info == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetOutputInfo: null argument");
  const auto& outputs = interpreter->interpreter->outputs();
  if (index < 0 || static_cast<size_t>(index) >= outputs.size()) {
    return Fail(GLD_OUT_OF_RANGE, "output index " + std::to_string(index) + " is out of range: the model has " +
                                      std::to_string(outputs.size()) + " output(s)");
  }
  FillInfo(outputs[index], interpreter->output_dims[index], out_info);
  return GLD_OK;
}

namespace {

GldStatus GetSignature(const GldInterpreter* interpreter, bool input, int32_t index, int32_t* out_num_dims,
                       const int32_t** out_dims) {
  const char* call = input ? "GldInterpreterGetInputShapeSignature" : "GldInterpreterGetOutputShapeSignature";
  if (interpreter == nullptr || out_num_dims == nullptr || out_dims == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, std::string(call) + ": null argument");
  }
  const auto& signatures = input ? interpreter->input_signature : interpreter->output_signature;
  if (index < 0 || static_cast<size_t>(index) >= signatures.size()) {
    return Fail(GLD_OUT_OF_RANGE, std::string(input ? "input" : "output") + " index " + std::to_string(index) +
                                      " is out of range: the model has " + std::to_string(signatures.size()) +
                                      (input ? " input(s)" : " output(s)"));
  }
  *out_num_dims = static_cast<int32_t>(signatures[static_cast<size_t>(index)].size());
  *out_dims = signatures[static_cast<size_t>(index)].data();
  return GLD_OK;
}

}  // namespace

GldStatus GldInterpreterGetInputShapeSignature(const GldInterpreter* interpreter, int32_t index, int32_t* out_num_dims,
                                               const int32_t** out_dims) {
  return GetSignature(interpreter, true, index, out_num_dims, out_dims);
}

GldStatus GldInterpreterGetOutputShapeSignature(const GldInterpreter* interpreter, int32_t index,
                                                int32_t* out_num_dims, const int32_t** out_dims) {
  return GetSignature(interpreter, false, index, out_num_dims, out_dims);
}

GldStatus GldInterpreterResizeInputTensor(GldInterpreter* interpreter, int32_t index, const int32_t* dims,
                                          int32_t num_dims) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterResizeInputTensor: null interpreter");
  if (num_dims < 0 || (num_dims > 0 && dims == nullptr)) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterResizeInputTensor: num_dims is " + std::to_string(num_dims) +
                                          (num_dims > 0 ? " and dims is null" : ""));
  }
  return Guard([&] {
    std::vector<int> shape(dims, dims + num_dims);
    return Report(interpreter->interpreter->ResizeInput(index, shape));
  });
}

GldStatus GldInterpreterAllocateTensors(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterAllocateTensors: null interpreter");
  return Guard([&] {
    GldStatus s = Report(interpreter->interpreter->AllocateTensors());
    interpreter->CopyDims();
    return s;
  });
}

GldStatus GldInterpreterSetInput(GldInterpreter* interpreter, int32_t index, const void* data, size_t bytes) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterSetInput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->SetInput(index, data, bytes)); });
}

GldStatus GldInterpreterInvoke(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterInvoke: null interpreter");
  return Guard([&] {
    GldStatus s = Report(interpreter->interpreter->Invoke());
    // Dynamic tensors: the outputs' shapes are those of this run.
    if (interpreter->dynamic_outputs) interpreter->CopyDims();
    return s;
  });
}

GldStatus GldInterpreterGetOutput(const GldInterpreter* interpreter, int32_t index, void* data, size_t bytes) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetOutput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->GetOutput(index, data, bytes)); });
}

GldStatus GldInterpreterGetReport(const GldInterpreter* interpreter, GldReport* out) {
  if (interpreter == nullptr || out == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetReport: null argument");
  const gld::InterpreterReport& r = interpreter->interpreter->report();
  *out = GldReport{};
#define GLD_REPORT_FIELD(field, python_key) ToCValue(r.field, &out->field);
#include "gldelegate/report.inc"
#undef GLD_REPORT_FIELD
  return GLD_OK;
}

int32_t GldInterpreterGetNodeCount(const GldInterpreter* interpreter) {
  return interpreter == nullptr ? 0 : static_cast<int32_t>(interpreter->interpreter->report().nodes.size());
}

GldStatus GldInterpreterGetNodePlacement(const GldInterpreter* interpreter, int32_t index, GldNodePlacement* out) {
  if (interpreter == nullptr || out == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetNodePlacement: null argument");
  }
  const auto& nodes = interpreter->interpreter->report().nodes;
  if (index < 0 || static_cast<size_t>(index) >= nodes.size()) {
    return Fail(GLD_OUT_OF_RANGE, "node index " + std::to_string(index) + " is out of range: the interpreter has " +
                                      std::to_string(nodes.size()) + " node(s)");
  }
  const gld::PlacementInfo& n = nodes[static_cast<size_t>(index)];
  out->index = n.index;
  out->op = n.op.c_str();
  out->label = n.label.c_str();
  out->on_gpu = n.on_gpu ? 1 : 0;
  out->segment = n.segment;
  out->reason = n.reason.c_str();
  return GLD_OK;
}

GldStatus GldInterpreterGetProfile(GldInterpreter* interpreter, const GldProfileRow** out_rows, int32_t* out_count) {
  if (interpreter == nullptr || out_rows == nullptr || out_count == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetProfile: null argument");
  }
  return Guard([&] {
    interpreter->profile = interpreter->interpreter->profile();
    interpreter->profile_rows.clear();
    for (const gld::ProfileRow& p : interpreter->profile) {
      interpreter->profile_rows.push_back(GldProfileRow{p.name.c_str(), p.op.c_str(), p.backend.c_str(), p.time_us,
                                                        p.count, p.timing.c_str()});
    }
    *out_rows = interpreter->profile_rows.data();
    *out_count = static_cast<int32_t>(interpreter->profile_rows.size());
    return GLD_OK;
  });
}

GldStatus GldInterpreterGetTrace(GldInterpreter* interpreter, const GldTraceEvent** out_events, int32_t* out_count) {
  if (interpreter == nullptr || out_events == nullptr || out_count == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetTrace: null argument");
  }
  return Guard([&] {
    interpreter->trace = interpreter->interpreter->trace();
    interpreter->trace_args.assign(interpreter->trace.size(), {});
    interpreter->trace_events.clear();
    for (size_t i = 0; i < interpreter->trace.size(); ++i) {
      const gld::TraceEvent& e = interpreter->trace[i];
      std::vector<GldTraceArg>& args = interpreter->trace_args[i];
      for (const gld::TraceArg& a : e.args) {
        args.push_back(GldTraceArg{a.name.c_str(), a.is_number ? nullptr : a.text.c_str(), a.number});
      }
      interpreter->trace_events.push_back(GldTraceEvent{e.phase, e.name.c_str(), e.category.c_str(), e.ts_us,
                                                        e.dur_us, e.pid, e.tid, args.data(),
                                                        static_cast<int32_t>(args.size())});
    }
    *out_events = interpreter->trace_events.data();
    *out_count = static_cast<int32_t>(interpreter->trace_events.size());
    return GLD_OK;
  });
}

GldStatus GldInterpreterCancel(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return GLD_INVALID_ARGUMENT;  // no error text: async-signal-safe
  interpreter->interpreter->Cancel();
  return GLD_OK;
}

GldStatus GldInterpreterResetVariables(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterResetVariables: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->ResetVariables()); });
}

GldStatus GldInterpreterResetProfile(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterResetProfile: null interpreter");
  interpreter->interpreter->ResetProfile();
  return GLD_OK;
}

// ---- Zero-copy GL I/O ----

GldStatus GldInterpreterBindInputBuffer(GldInterpreter* interpreter, int32_t index, uint32_t buffer,
                                        GldGlLayout layout) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterBindInputBuffer: null interpreter");
  return Guard([&] {
    gld::StatusOr<gld::GlLayout> l = ToLayout(&layout, "GldInterpreterBindInputBuffer");
    return Report(l.ok() ? interpreter->interpreter->BindInputBuffer(index, buffer, *l) : l.status());
  });
}

GldStatus GldInterpreterBindInputTexture(GldInterpreter* interpreter, int32_t index, uint32_t texture,
                                         const float* scale, const float* offset) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterBindInputTexture: null interpreter");
  gld::TextureInput input;
  input.texture = texture;
  if (scale != nullptr) std::copy(scale, scale + 4, input.scale);
  if (offset != nullptr) std::copy(offset, offset + 4, input.offset);
  return Guard([&] { return Report(interpreter->interpreter->BindInputTexture(index, input)); });
}

GldStatus GldInterpreterBindOutputBuffer(GldInterpreter* interpreter, int32_t index, uint32_t buffer,
                                         GldGlLayout layout) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterBindOutputBuffer: null interpreter");
  return Guard([&] {
    gld::StatusOr<gld::GlLayout> l = ToLayout(&layout, "GldInterpreterBindOutputBuffer");
    return Report(l.ok() ? interpreter->interpreter->BindOutputBuffer(index, buffer, *l) : l.status());
  });
}

GldStatus GldInterpreterKeepOutputOnGpu(GldInterpreter* interpreter, int32_t index) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterKeepOutputOnGpu: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->KeepOutputOnGpu(index)); });
}

GldStatus GldInterpreterGetOutputGlBuffer(const GldInterpreter* interpreter, int32_t index, uint32_t* out_buffer) {
  if (interpreter == nullptr || out_buffer == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetOutputGlBuffer: null argument");
  }
  return Guard([&] {
    gld::StatusOr<uint32_t> buffer = interpreter->interpreter->OutputGlBuffer(index);
    if (!buffer.ok()) return Report(buffer.status());
    *out_buffer = *buffer;
    return GLD_OK;
  });
}

GldStatus GldInterpreterUnbindInput(GldInterpreter* interpreter, int32_t index) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterUnbindInput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->UnbindInput(index)); });
}

GldStatus GldInterpreterUnbindOutput(GldInterpreter* interpreter, int32_t index) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterUnbindOutput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->UnbindOutput(index)); });
}

GldStatus GldInterpreterBindInputHostBuffer(GldInterpreter* interpreter, int32_t index, void* data, size_t bytes) {
  if (interpreter == nullptr || data == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterBindInputHostBuffer: null argument");
  }
  return Guard([&] { return Report(interpreter->interpreter->BindInputHostBuffer(index, data, bytes)); });
}

GldStatus GldInterpreterBindOutputHostBuffer(GldInterpreter* interpreter, int32_t index, void* data, size_t bytes) {
  if (interpreter == nullptr || data == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterBindOutputHostBuffer: null argument");
  }
  return Guard([&] { return Report(interpreter->interpreter->BindOutputHostBuffer(index, data, bytes)); });
}

GldStatus GldInterpreterInvokeAsync(GldInterpreter* interpreter, void** out_fence) {
  if (interpreter == nullptr || out_fence == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterInvokeAsync: null argument");
  }
  return Guard([&] { return Report(interpreter->interpreter->InvokeAsync(out_fence)); });
}

GldStatus GldInterpreterGetTransferBytes(const GldInterpreter* interpreter, uint64_t* out_uploaded,
                                         uint64_t* out_downloaded) {
  if (interpreter == nullptr || out_uploaded == nullptr || out_downloaded == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetTransferBytes: null argument");
  }
  return Guard([&] {
    const gld::TransferStats stats = interpreter->interpreter->transfer_stats();
    *out_uploaded = stats.uploaded_bytes;
    *out_downloaded = stats.downloaded_bytes;
    return GLD_OK;
  });
}

namespace {
// Entry `index` of one of transfer_stats()'s per-tensor lists.
GldStatus TensorTransferBytes(const GldInterpreter* interpreter, int32_t index, uint64_t* out_bytes, bool output,
                              const char* function) {
  if (interpreter == nullptr || out_bytes == nullptr) {
    return Fail(GLD_INVALID_ARGUMENT, std::string(function) + ": null argument");
  }
  return Guard([&] {
    const gld::TransferStats stats = interpreter->interpreter->transfer_stats();
    const std::vector<uint64_t>& list = output ? stats.output_downloaded_bytes : stats.input_uploaded_bytes;
    if (index < 0 || static_cast<size_t>(index) >= list.size()) {
      return Fail(GLD_OUT_OF_RANGE, std::string(function) + ": " + (output ? "output" : "input") + " index " +
                                        std::to_string(index) + " is out of range (" +
                                        std::to_string(list.size()) + ")");
    }
    *out_bytes = list[static_cast<size_t>(index)];
    return GLD_OK;
  });
}
}  // namespace

GldStatus GldInterpreterGetInputUploadedBytes(const GldInterpreter* interpreter, int32_t index, uint64_t* out_bytes) {
  return TensorTransferBytes(interpreter, index, out_bytes, false, "GldInterpreterGetInputUploadedBytes");
}

GldStatus GldInterpreterGetOutputDownloadedBytes(const GldInterpreter* interpreter, int32_t index,
                                                 uint64_t* out_bytes) {
  return TensorTransferBytes(interpreter, index, out_bytes, true, "GldInterpreterGetOutputDownloadedBytes");
}

// ---- Custom ops ----

GldStatus GldOptionsAddCustomOp(GldOptions* options, const GldCustomOp* op) {
  return Guard([&] {
    if (options == nullptr || op == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsAddCustomOp: null argument");
    return Report(gld::AddCCustomOp(&options->options, *op));
  });
}

GldStatus GldCustomOptionsGetNumber(const uint8_t* options, size_t options_size, const char* key, double* out) {
  return Guard([&] {
    if (key == nullptr || out == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldCustomOptionsGetNumber: null argument");
    auto map = gld::CustomOptionsMap::Parse(options, options_size);
    if (!map.ok()) return Report(map.status());
    auto v = map->Float(key);
    if (!v.ok()) return Report(v.status());
    *out = *v;
    return GLD_OK;
  });
}

GldStatus GldOptionsLoadCustomOps(GldOptions* options, const char* path) {
  return Guard([&] {
    if (options == nullptr || path == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsLoadCustomOps: null argument");
    return Report(gld::LoadCustomOpLibrary(path, &options->options));
  });
}

}  // extern "C"
