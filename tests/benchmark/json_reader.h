// A strict little JSON reader for the benchmark tests: parses a whole
// document (RFC 8259 values; \u escapes of ASCII only) and fails on anything
// else, so a test that reads gld_benchmark's --json also checks it is JSON.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gld::testing {

struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  bool Has(const std::string& key) const { return kind == kObject && object.count(key) != 0; }
  const JsonValue& operator[](const std::string& key) const { return object.at(key); }
};

class JsonReader {
 public:
  // nullopt (with `error` set) when `text` is not one JSON value.
  static std::optional<JsonValue> Parse(const std::string& text, std::string* error) {
    JsonReader r(text);
    JsonValue v;
    if (!r.Value(&v, 0)) {
      *error = r.error_ + " at offset " + std::to_string(r.pos_);
      return std::nullopt;
    }
    r.Space();
    if (r.pos_ != text.size()) {
      *error = "trailing characters at offset " + std::to_string(r.pos_);
      return std::nullopt;
    }
    return v;
  }

 private:
  explicit JsonReader(const std::string& s) : s_(s) {}

  void Space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool Fail(const std::string& what) {
    error_ = what;
    return false;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  bool String(std::string* out) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a string");
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) return Fail("unfinished escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return Fail("short \\u escape");
          const long code = std::strtol(s_.substr(pos_, 4).c_str(), nullptr, 16);
          if (code >= 0x80) return Fail("non-ASCII \\u escape");
          *out += static_cast<char>(code);
          pos_ += 4;
          break;
        }
        default: return Fail("bad escape");
      }
    }
    if (pos_ >= s_.size()) return Fail("unterminated string");
    ++pos_;
    return true;
  }
  bool Number(double* out) {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return Fail("bad number");
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1]))) {
      return Fail("leading zero");
    }
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return Fail("bad fraction");
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return Fail("bad exponent");
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    *out = std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr);
    return true;
  }
  bool Value(JsonValue* v, int depth) {
    if (depth > 64) return Fail("nested too deep");
    Space();
    if (pos_ >= s_.size()) return Fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v->kind = JsonValue::kObject;
      Space();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      while (true) {
        Space();
        std::string key;
        if (!String(&key)) return false;
        if (v->object.count(key)) return Fail("duplicate key '" + key + "'");
        Space();
        if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':'");
        ++pos_;
        if (!Value(&v->object[key], depth + 1)) return false;
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++pos_;
      v->kind = JsonValue::kArray;
      Space();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      while (true) {
        v->array.emplace_back();
        if (!Value(&v->array.back(), depth + 1)) return false;
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v->kind = JsonValue::kString;
      return String(&v->string);
    }
    if (Literal("true")) {
      v->kind = JsonValue::kBool;
      v->boolean = true;
      return true;
    }
    if (Literal("false")) {
      v->kind = JsonValue::kBool;
      return true;
    }
    if (Literal("null")) {
      v->kind = JsonValue::kNull;
      return true;
    }
    v->kind = JsonValue::kNumber;
    return Number(&v->number);
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace gld::testing
