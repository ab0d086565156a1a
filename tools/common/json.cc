#include "common/json.h"

#include <cmath>
#include <fstream>
#include <new>
#include <utility>

namespace gld::tools {

std::string JsonReportText(const JsonReport& report) {
  return report.dump(2, ' ', /*ensure_ascii=*/false, JsonReport::error_handler_t::replace) + "\n";
}

std::string JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    case nlohmann::json::value_t::binary: return "binary data";
    case nlohmann::json::value_t::discarded: return "nothing";
  }
  return "an unknown value";
}

std::string JsonIndexPath(const std::string& field, size_t index) {
  return field + "[" + std::to_string(index) + "]";
}

std::string JsonMemberPath(const std::string& field, const std::string& key) {
  return field.empty() ? key : field + "." + key;
}

StatusOr<JsonFile> JsonFile::Read(const std::string& path, const std::string& flag) {
  JsonFile file;
  file.path_ = path;
  file.flag_ = flag;
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgumentError(flag + ": cannot read '" + path + "'");
  // The parser reports a syntax error or bytes that are not UTF-8 as a
  // parse_error; std::bad_alloc (a huge document) is caught too.
  try {
    file.root_ = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgumentError(flag + ": '" + path + "' is not JSON: " + e.what());
  } catch (const std::bad_alloc&) {
    return InvalidArgumentError(flag + ": '" + path + "' is too large to read");
  }
  if (in.bad()) return InvalidArgumentError(flag + ": cannot read '" + path + "'");
  return file;
}

Status JsonFile::Error(const std::string& field, const std::string& what) const {
  return InvalidArgumentError(flag_ + ": " + path_ + ": " + (field.empty() ? "the document" : field) + ": " + what);
}

Status JsonFile::ExpectObject(const nlohmann::json& value, const std::string& field) const {
  if (value.is_object()) return OkStatus();
  return Error(field, "expected an object, got " + JsonTypeName(value));
}

Status JsonFile::ExpectArray(const nlohmann::json& value, const std::string& field) const {
  if (value.is_array()) return OkStatus();
  return Error(field, "expected an array, got " + JsonTypeName(value));
}

Status JsonFile::GetString(const nlohmann::json& object, const std::string& field, const std::string& key,
                           bool required, std::string* out) const {
  GLD_RETURN_IF_ERROR(ExpectObject(object, field));
  const std::string where = JsonMemberPath(field, key);
  auto it = object.find(key);
  if (it == object.end()) return required ? Error(where, "missing (expected a string)") : OkStatus();
  if (!it->is_string()) return Error(where, "expected a string, got " + JsonTypeName(*it));
  *out = it->get_ref<const std::string&>();
  return OkStatus();
}

Status JsonFile::GetNumber(const nlohmann::json& object, const std::string& field, const std::string& key,
                           bool required, double* out) const {
  GLD_RETURN_IF_ERROR(ExpectObject(object, field));
  const std::string where = JsonMemberPath(field, key);
  auto it = object.find(key);
  if (it == object.end()) return required ? Error(where, "missing (expected a number)") : OkStatus();
  if (!it->is_number()) return Error(where, "expected a number, got " + JsonTypeName(*it));
  const double v = it->get<double>();
  if (!std::isfinite(v)) return Error(where, "expected a finite number, got " + it->dump());
  *out = v;
  return OkStatus();
}

}  // namespace gld::tools
