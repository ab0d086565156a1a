// A small streaming JSON writer for the tools' machine-readable reports
// (gld_benchmark --json): objects, arrays, strings, numbers, booleans.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gld::tools {

class JsonWriter {
 public:
  // Keys are given before each value inside an object: Key("a").Number(1).
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(const std::string& key);
  JsonWriter& String(const std::string& value);
  // Non-finite numbers become null (JSON has no NaN or infinity).
  JsonWriter& Number(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  JsonWriter& StringArray(const std::vector<std::string>& values);

  // The document so far, with a trailing newline once the outermost value is
  // closed.
  std::string str() const;

 private:
  void BeforeValue();
  std::string out_;
  // Per open container: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

// `s` as a quoted JSON string (control characters escaped as \u00XX).
std::string JsonQuote(const std::string& s);

}  // namespace gld::tools
