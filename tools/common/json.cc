#include "common/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gld::tools {

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_ += ",";
    has_element_.back() = true;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += "{";
  has_element_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  const bool any = !has_element_.empty() && has_element_.back();
  if (!has_element_.empty()) has_element_.pop_back();
  if (any) out_ += "\n" + std::string(2 * has_element_.size(), ' ');
  out_ += "}";
  if (has_element_.empty()) out_ += "\n";
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += "[";
  has_element_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  if (!has_element_.empty()) has_element_.pop_back();
  out_ += "]";
  if (has_element_.empty()) out_ += "\n";
  return *this;
}

JsonWriter& JsonWriter::Key(const std::string& key) {
  BeforeValue();
  // Object members one per line, indented by depth; array elements stay on
  // their line.
  out_ += "\n" + std::string(2 * has_element_.size(), ' ') + JsonQuote(key) + ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(const std::string& value) {
  BeforeValue();
  out_ += JsonQuote(value);
  return *this;
}

JsonWriter& JsonWriter::Number(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", value);
  // Shortest form that reads back the same double.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) {
      out_ += shorter;
      return *this;
    }
  }
  out_ += buf;
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::StringArray(const std::vector<std::string>& values) {
  BeginArray();
  for (const std::string& v : values) String(v);
  return EndArray();
}

std::string JsonWriter::str() const { return out_; }

}  // namespace gld::tools
