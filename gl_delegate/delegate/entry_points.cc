// The delegate's C entries: GldTfLiteDelegateCreate / Delete / Cancel
// (gldelegate/tflite_delegate.h) and TFLite's external delegate interface,
// tflite_plugin_create_delegate / tflite_plugin_destroy_delegate.
#include "gldelegate/tflite_delegate.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "api/c_custom_op.h"
#include "delegate/delegate_options.h"
#include "delegate/tflite_delegate.h"
#include "gldelegate/options.hpp"
#include "util/logging.h"

namespace {

// Options from the external interface's strings; the first error stops.
gld::StatusOr<gld::Options> PluginOptions(char** keys, char** values, size_t count) {
  gld::Options options;
  std::vector<std::string> notes;
  for (size_t i = 0; i < count; ++i) {
    if (keys == nullptr || values == nullptr || keys[i] == nullptr || values[i] == nullptr) {
      return gld::InvalidArgumentError("option " + std::to_string(i) + " has a null key or value");
    }
    GLD_RETURN_IF_ERROR(gld::delegate::SetDelegateOption(&options, keys[i], values[i], &notes));
  }
  GLD_RETURN_IF_ERROR(gld::CheckOptions(options));
  GLD_RETURN_IF_ERROR(gld::ConfigureLogging(options.log_level));
  for (const std::string& note : notes) gld::Log().warn("gldelegate: {}", note);
  return options;
}

}  // namespace

extern "C" {

TfLiteDelegate* tflite_plugin_create_delegate(char** options_keys, char** options_values, size_t num_options,
                                              void (*report_error)(const char*)) {
  // LiteRT's Python load_delegate passes the count as a C int: only its low
  // 32 bits are meaningful.
  const size_t count = static_cast<uint32_t>(num_options);
  gld::Status status;
  try {
    auto options = PluginOptions(options_keys, options_values, count);
    if (options.ok()) return (new gld::delegate::GlTfLiteDelegate(std::move(options).value()))->tflite();
    status = options.status();
  } catch (const std::exception& e) {
    status = gld::InternalError(std::string("unexpected exception: ") + e.what());
  }
  const std::string message = "gldelegate: " + status.message();
  if (report_error != nullptr) report_error(message.c_str());
  else gld::Log().error("{}", message);
  return nullptr;
}

void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate) {
  delete gld::delegate::GlTfLiteDelegate::From(delegate);
}

TfLiteDelegate* GldTfLiteDelegateCreate(const GldOptions* options) {
  try {
    gld::Options o = options != nullptr ? options->options : gld::Options{};
    gld::Status s = gld::CheckOptions(o);
    if (!s.ok()) {
      gld::SetCLastError(s);
      return nullptr;
    }
    return (new gld::delegate::GlTfLiteDelegate(std::move(o)))->tflite();
  } catch (const std::exception& e) {
    gld::SetCLastError(gld::InternalError(std::string("unexpected exception: ") + e.what()));
    return nullptr;
  }
}

void GldTfLiteDelegateDelete(TfLiteDelegate* delegate) { delete gld::delegate::GlTfLiteDelegate::From(delegate); }

GldStatus GldTfLiteDelegateCancel(TfLiteDelegate* delegate) {
  gld::delegate::GlTfLiteDelegate* self = gld::delegate::GlTfLiteDelegate::From(delegate);
  if (self == nullptr) {
    gld::SetCLastError(gld::InvalidArgumentError("GldTfLiteDelegateCancel: not a gldelegate delegate (or null)"));
    return GLD_INVALID_ARGUMENT;
  }
  self->cancel_flag()->store(true, std::memory_order_relaxed);
  return GLD_OK;
}

}  // extern "C"
