// The C API over the C++ API.
#include "gldelegate/gldelegate.h"

#include <algorithm>
#include <exception>
#include <cstring>
#include <string>
#include <vector>

#include "api/c_custom_op.h"
#include "gldelegate/gldelegate.hpp"

struct GldModel {
  std::shared_ptr<const gld::Model> model;
};

struct GldInterpreter {
  std::unique_ptr<gld::Interpreter> interpreter;
  // Backing storage for GldTensorInfo.dims (int32 copies of the shapes).
  std::vector<std::vector<int32_t>> input_dims, output_dims;
  // The rows GldInterpreterGetProfile handed out last, and their strings.
  std::vector<gld::ProfileRow> profile;
  std::vector<GldProfileRow> profile_rows;
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

}  // namespace

static_assert(static_cast<int>(gld::ContextMode::kCurrent) == GLD_CONTEXT_CURRENT,
              "GldContextMode mirrors gld::ContextMode");
static_assert(static_cast<int>(gld::ElementType::kBool) == GLD_TYPE_BOOL, "GldElementType mirrors gld::ElementType");
static_assert(static_cast<int>(gld::ElementType::kInt8) == GLD_TYPE_INT8, "GldElementType mirrors gld::ElementType");

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

GldStatus GldOptionsSetBackend(GldOptions* options, GldBackend backend) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetBackend: null options");
  switch (backend) {
    case GLD_BACKEND_AUTO: options->options.backend = gld::Backend::kAuto; return GLD_OK;
    case GLD_BACKEND_GL: options->options.backend = gld::Backend::kGl; return GLD_OK;
    case GLD_BACKEND_CPU: options->options.backend = gld::Backend::kCpu; return GLD_OK;
  }
  return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetBackend: unknown backend " + std::to_string(static_cast<int>(backend)));
}

GldStatus GldOptionsSetPrecision(GldOptions* options, GldPrecision precision) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetPrecision: null options");
  switch (precision) {
    case GLD_PRECISION_FP32: options->options.precision = gld::Precision::kFp32; return GLD_OK;
    case GLD_PRECISION_FP16: options->options.precision = gld::Precision::kFp16; return GLD_OK;
    case GLD_PRECISION_FP16_MEDIUMP: options->options.precision = gld::Precision::kFp16Mediump; return GLD_OK;
  }
  return Fail(GLD_INVALID_ARGUMENT,
              "GldOptionsSetPrecision: unknown precision " + std::to_string(static_cast<int>(precision)));
}

GldStatus GldOptionsSetNumThreads(GldOptions* options, int32_t num_threads) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetNumThreads: null options");
  if (num_threads < 1 && num_threads != -1) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetNumThreads: num_threads must be -1 (every core) or >= 1, got " +
                                          std::to_string(num_threads));
  }
  options->options.num_threads = num_threads;
  return GLD_OK;
}

GldStatus GldOptionsSetLogLevel(GldOptions* options, const char* level) {
  return Guard([&] {
    if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetLogLevel: null options");
    options->options.log_level = level == nullptr ? "" : level;
    return GLD_OK;
  });
}

GldStatus GldOptionsAddGpuDenyOp(GldOptions* options, const char* op) {
  return Guard([&] {
    if (options == nullptr || op == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsAddGpuDenyOp: null argument");
    options->options.gpu_deny_ops.emplace_back(op);
    return GLD_OK;
  });
}

GldStatus GldOptionsSetCacheDir(GldOptions* options, const char* dir) {
  return Guard([&] {
    if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetCacheDir: null options");
    options->options.cache_dir = dir == nullptr ? "" : dir;
    return GLD_OK;
  });
}

GldStatus GldOptionsSetModelToken(GldOptions* options, const char* token) {
  return Guard([&] {
    if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetModelToken: null options");
    options->options.model_token = token == nullptr ? "" : token;
    return GLD_OK;
  });
}

GldStatus GldOptionsSetMaxDelegatedPartitions(GldOptions* options, int32_t max_partitions) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetMaxDelegatedPartitions: null options");
  if (max_partitions < 0) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetMaxDelegatedPartitions: must be >= 0 (0: no limit), got " +
                                          std::to_string(max_partitions));
  }
  options->options.max_delegated_partitions = max_partitions;
  return GLD_OK;
}

GldStatus GldOptionsSetMinNodesPerPartition(GldOptions* options, int32_t min_nodes) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetMinNodesPerPartition: null options");
  if (min_nodes < 0) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetMinNodesPerPartition: must be >= 0, got " + std::to_string(min_nodes));
  }
  options->options.min_nodes_per_partition = min_nodes;
  return GLD_OK;
}

GldStatus GldOptionsSetTuneWorkgroups(GldOptions* options, int32_t enable) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetTuneWorkgroups: null options");
  options->options.tune_workgroups = enable != 0;
  return GLD_OK;
}

GldStatus GldOptionsSetEglDevice(GldOptions* options, int32_t device) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetEglDevice: null options");
  if (device < -1) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetEglDevice: device must be >= 0, or -1 for the default; got " +
                                          std::to_string(device));
  }
  options->options.egl_device = device;
  return GLD_OK;
}

GldStatus GldOptionsSetProfiling(GldOptions* options, int32_t enable) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetProfiling: null options");
  options->options.enable_profiling = enable != 0;
  return GLD_OK;
}

GldStatus GldOptionsSetContextMode(GldOptions* options, GldContextMode mode) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetContextMode: null options");
  switch (mode) {
    case GLD_CONTEXT_PRIVATE: options->options.context = gld::ContextMode::kPrivate; return GLD_OK;
    case GLD_CONTEXT_CURRENT_IF_ANY: options->options.context = gld::ContextMode::kCurrentIfAny; return GLD_OK;
    case GLD_CONTEXT_CURRENT: options->options.context = gld::ContextMode::kCurrent; return GLD_OK;
  }
  return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetContextMode: unknown mode " + std::to_string(static_cast<int>(mode)));
}

GldStatus GldOptionsSetShareContext(GldOptions* options, void* egl_display, void* egl_context) {
  if (options == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetShareContext: null options");
  if ((egl_display == nullptr) != (egl_context == nullptr)) {
    return Fail(GLD_INVALID_ARGUMENT, "GldOptionsSetShareContext: give both the EGLDisplay and the EGLContext, or neither");
  }
  options->options.share_egl_display = egl_display;
  options->options.share_egl_context = egl_context;
  return GLD_OK;
}

GldStatus GldInterpreterCreate(const GldModel* model, const GldOptions* options, GldInterpreter** out_interpreter) {
  return Guard([&] {
    if (model == nullptr || out_interpreter == nullptr) {
      return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterCreate: null argument");
    }
    *out_interpreter = nullptr;
    gld::Options defaults;
    auto interp = gld::Interpreter::Create(*model->model, options != nullptr ? options->options : defaults);
    if (!interp.ok()) return Report(interp.status());
    auto out = std::make_unique<GldInterpreter>();
    out->interpreter = std::move(interp).value();
    for (const auto& info : out->interpreter->inputs()) out->input_dims.emplace_back(info.shape.begin(), info.shape.end());
    for (const auto& info : out->interpreter->outputs()) {
      out->output_dims.emplace_back(info.shape.begin(), info.shape.end());
    }
    *out_interpreter = out.release();
    return GLD_OK;
  });
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

GldStatus GldInterpreterSetInput(GldInterpreter* interpreter, int32_t index, const void* data, size_t bytes) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterSetInput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->SetInput(index, data, bytes)); });
}

GldStatus GldInterpreterInvoke(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterInvoke: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->Invoke()); });
}

GldStatus GldInterpreterGetOutput(const GldInterpreter* interpreter, int32_t index, void* data, size_t bytes) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetOutput: null interpreter");
  return Guard([&] { return Report(interpreter->interpreter->GetOutput(index, data, bytes)); });
}

GldStatus GldInterpreterGetReport(const GldInterpreter* interpreter, GldReport* out) {
  if (interpreter == nullptr || out == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterGetReport: null argument");
  const gld::InterpreterReport& r = interpreter->interpreter->report();
  *out = GldReport{};
  out->backend = r.backend == gld::Backend::kGl ? GLD_BACKEND_GL : GLD_BACKEND_CPU;
  out->precision = r.precision == gld::Precision::kFp16 ? GLD_PRECISION_FP16 : GLD_PRECISION_FP32;
  out->placement_line = r.placement_line.c_str();
  out->original_nodes = r.original_nodes;
  out->total_nodes = r.total_nodes;
  out->gpu_nodes = r.gpu_nodes;
  out->segments = r.segments;
  out->dispatches = r.dispatches;
  out->gpu_bytes_planned = r.gpu_bytes_planned;
  out->cpu_bytes_planned = r.cpu_bytes_planned;
  out->gl_renderer = r.gl_renderer.c_str();
  out->gl_context = r.gl_context.c_str();
  out->cache_hits = r.cache_hits;
  out->cache_misses = r.cache_misses;
  out->cache_file = r.cache_file.c_str();
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

GldStatus GldInterpreterResetProfile(GldInterpreter* interpreter) {
  if (interpreter == nullptr) return Fail(GLD_INVALID_ARGUMENT, "GldInterpreterResetProfile: null interpreter");
  interpreter->interpreter->ResetProfile();
  return GLD_OK;
}

// ---- Zero-copy GL I/O ----

namespace {
// Takes the enum by address and reads its bytes as an int: a C caller may
// pass any int, and loading a value outside GldGlLayout's range as the enum
// type is undefined in C++.
gld::StatusOr<gld::GlLayout> ToLayout(const GldGlLayout* layout, const char* function) {
  int32_t raw = 0;
  static_assert(sizeof(GldGlLayout) == sizeof(raw), "GldGlLayout is an int");
  std::memcpy(&raw, layout, sizeof(raw));
  if (raw == GLD_LAYOUT_BHWC) return gld::GlLayout::kBhwc;
  if (raw == GLD_LAYOUT_PHWC4) return gld::GlLayout::kPhwc4;
  return gld::InvalidArgumentError(std::string(function) + ": unknown layout " + std::to_string(raw));
}
}  // namespace

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
