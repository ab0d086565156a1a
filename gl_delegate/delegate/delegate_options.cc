#include "delegate/delegate_options.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <type_traits>

#include "gldelegate/options.hpp"

namespace gld::delegate {
namespace {

// A value string as the field's type: one overload per kind of options.inc.
template <typename Enum, typename = std::enable_if_t<std::is_enum_v<Enum>>>
Status FromString(const std::string& key, const std::string& value, Enum* out) {
  return ParseEnum(value, out);
}

Status FromString(const std::string& key, const std::string& value, int* out) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX) {
    return InvalidArgumentError(key + " takes an integer, got '" + value + "'");
  }
  *out = static_cast<int>(v);
  return OkStatus();
}

Status ParseBool(const std::string& key, const std::string& value, bool* out) {
  if (value == "1" || value == "true" || value == "True" || value == "yes") {
    *out = true;
  } else if (value == "0" || value == "false" || value == "False" || value == "no") {
    *out = false;
  } else {
    return InvalidArgumentError(key + " takes 1/true or 0/false, got '" + value + "'");
  }
  return OkStatus();
}

Status FromString(const std::string& key, const std::string& value, bool* out) { return ParseBool(key, value, out); }

Status FromString(const std::string&, const std::string& value, std::string* out) {
  *out = value;
  return OkStatus();
}

Status FromString(const std::string&, const std::string& value, std::vector<std::string>* out) {
  // Empty items are kept ("ADD,,MUL", ",,,") for gld::CheckOption to
  // refuse; only an empty value is an empty list.
  out->clear();
  if (value.find_first_not_of(" \t") == std::string::npos) return OkStatus();
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out->push_back(b == std::string::npos ? std::string() : item.substr(b, e - b + 1));
    start = comma + 1;
  }
  return OkStatus();
}

Status FromString(const std::string& key, const std::string&, void**) {
  return InvalidArgumentError(key + " is a pointer, which a string cannot carry; set it through "
                                    "GldTfLiteDelegateCreate's GldOptions");
}

}  // namespace

std::string DelegateOptionKeys() {
  std::string keys;
#define GLD_OPTION(field, ...) keys += std::string(keys.empty() ? "" : ", ") + #field;
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return keys + ", serialization_dir, is_precision_loss_allowed, inference_preference";
}

Status SetDelegateOption(Options* options, const std::string& key, const std::string& value,
                         std::vector<std::string>* notes) {
  if (key == "serialization_dir") return SetDelegateOption(options, "cache_dir", value, notes);
  if (key == "is_precision_loss_allowed") {
    bool allowed = false;
    GLD_RETURN_IF_ERROR(ParseBool(key, value, &allowed));
    options->precision = allowed ? Precision::kFp16 : Precision::kFp32;
    return OkStatus();
  }
  if (key == "inference_preference") {
    int ignored = 0;
    GLD_RETURN_IF_ERROR(FromString(key, value, &ignored));
    notes->push_back("inference_preference=" + value + " is accepted and ignored (gldelegate plans one way)");
    return OkStatus();
  }
  Options candidate = *options;
#define GLD_OPTION(field, ...)                                           \
  if (key == #field) {                                                   \
    GLD_RETURN_IF_ERROR(FromString(key, value, &candidate.field));      \
    GLD_RETURN_IF_ERROR(CheckOption(candidate, #field));                 \
    *options = std::move(candidate);                                     \
    return OkStatus();                                                   \
  }
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return InvalidArgumentError("unknown option '" + key + "' (gldelegate takes " + DelegateOptionKeys() + ")");
}

}  // namespace gld::delegate
