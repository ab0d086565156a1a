#include "gldelegate/npy.hpp"

#include <cctype>
#include <cstring>
#include <limits>
#include <new>

#include "util/file_util.h"

namespace gld {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlignment = 64;

struct DescrEntry {
  const char* code;  // without the byte-order character
  ElementType type;
};
constexpr DescrEntry kDescrs[] = {
    {"f4", ElementType::kFloat32}, {"f2", ElementType::kFloat16}, {"f8", ElementType::kFloat64},
    {"i1", ElementType::kInt8},    {"i2", ElementType::kInt16},   {"i4", ElementType::kInt32},
    {"i8", ElementType::kInt64},   {"u1", ElementType::kUInt8},   {"b1", ElementType::kBool},
};

const char* DescrFor(ElementType type) {
  switch (type) {
    case ElementType::kFloat32: return "<f4";
    case ElementType::kFloat16: return "<f2";
    case ElementType::kFloat64: return "<f8";
    case ElementType::kInt8: return "|i1";
    case ElementType::kInt16: return "<i2";
    case ElementType::kInt32: return "<i4";
    case ElementType::kInt64: return "<i8";
    case ElementType::kUInt8: return "|u1";
    case ElementType::kBool: return "|b1";
    case ElementType::kUnknown: break;
  }
  return nullptr;
}

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }
// This parser accepts exactly the value kinds a .npy header uses.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  Status Parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    SkipSpace();
    if (!Eat('{')) return Error("header does not start with '{'");
    for (;;) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      GLD_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') return Error("structured dtypes are not supported");
        GLD_RETURN_IF_ERROR(ParseString(descr));
        have_descr = true;
      } else if (key == "fortran_order") {
        GLD_RETURN_IF_ERROR(ParseBool(fortran));
        have_fortran = true;
      } else if (key == "shape") {
        GLD_RETURN_IF_ERROR(ParseTuple(shape));
        have_shape = true;
      } else {
        return Error("unexpected header key '" + key + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Error("expected ',' or '}' in the header");
    }
    if (!have_descr) return Error("header has no 'descr'");
    if (!have_fortran) return Error("header has no 'fortran_order'");
    if (!have_shape) return Error("header has no 'shape'");
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the header dict");
    return OkStatus();
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  Status Error(const std::string& what) const {
    return InvalidArgumentError("'" + file_ + "': bad .npy header: " + what);
  }
  Status ParseString(std::string* out) {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    ++pos_;
    size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) return Error("unterminated string");
    *out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return OkStatus();
  }
  Status ParseBool(bool* out) {
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      *out = true;
      return OkStatus();
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      *out = false;
      return OkStatus();
    }
    return Error("expected True or False");
  }
  Status ParseTuple(std::vector<int64_t>* out) {
    out->clear();
    if (!Eat('(')) return Error("expected a tuple for 'shape'");
    for (;;) {
      SkipSpace();
      if (Eat(')')) return OkStatus();
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return Error("expected a dimension in 'shape'");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        v = v * 10 + (s_[pos_++] - '0');
        if (v > std::numeric_limits<int32_t>::max()) return Error("dimension too large in 'shape'");
      }
      Eat('L');  // Python 2 long suffix
      out->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return OkStatus();
      return Error("expected ',' or ')' in 'shape'");
    }
  }

  const std::string& s_;
  const std::string& file_;
  size_t pos_ = 0;
};

StatusOr<ElementType> TypeFromDescr(const std::string& descr, const std::string& file) {
  std::string code = descr;
  char order = '=';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    order = code[0];
    code = code.substr(1);
  }
  for (const auto& e : kDescrs) {
    if (code != e.code) continue;
    size_t size = ElementTypeSize(e.type);
    if (order == '>' && size > 1) {
      return InvalidArgumentError("'" + file + "': big-endian dtype '" + descr +
                                  "' is not supported (save it little-endian)");
    }
    return e.type;
  }
  return InvalidArgumentError("'" + file + "': unsupported dtype '" + descr +
                              "' (supported: float32, float16, float64, int8, int16, int32, int64, "
                              "uint8, bool)");
}

uint32_t ReadLe(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

size_t NpyArray::num_elements() const {
  size_t n = 1;
  for (int d : shape) n *= static_cast<size_t>(d);
  return n;
}

StatusOr<NpyArray> ParseNpy(const void* bytes, size_t size, const std::string& name) {
  const uint8_t* p = static_cast<const uint8_t*>(bytes);
  auto error = [&](const std::string& what) { return InvalidArgumentError("'" + name + "': " + what); };
  if (size < kMagicSize + 2 || std::memcmp(p, kMagic, kMagicSize) != 0) {
    return error("not a .npy file (missing the \\x93NUMPY magic)");
  }
  int major = p[6], minor = p[7];
  int len_bytes;
  if (major == 1) {
    len_bytes = 2;
  } else if (major == 2 || major == 3) {
    len_bytes = 4;
  } else {
    return error("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  size_t prefix = kMagicSize + 2 + static_cast<size_t>(len_bytes);
  if (size < prefix) return error("truncated .npy header");
  size_t header_len = ReadLe(p + kMagicSize + 2, len_bytes);
  if (header_len > size - prefix) {
    return error("truncated: the header claims " + std::to_string(header_len) + " bytes but the file has " +
                 std::to_string(size - prefix) + " after the prefix");
  }
  std::string header(reinterpret_cast<const char*>(p + prefix), header_len);
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  GLD_RETURN_IF_ERROR(HeaderParser(header, name).Parse(&descr, &fortran, &dims));
  NpyArray array;
  GLD_ASSIGN_OR_RETURN(array.type, TypeFromDescr(descr, name));
  uint64_t count = 1;
  for (int64_t d : dims) {
    // Bounded by the file size below; this only guards the multiplication.
    if (d != 0 && count > (uint64_t{1} << 62) / static_cast<uint64_t>(d)) return error("shape is too large");
    count *= static_cast<uint64_t>(d);
    array.shape.push_back(static_cast<int>(d));
  }
  if (fortran && dims.size() > 1) {
    return error("Fortran-order arrays are not supported (save with C order, e.g. np.ascontiguousarray)");
  }
  // count may be up to 2^62: its product with an 8-byte element can wrap, and
  // a shape that needs 2^64 bytes or more is more than any file holds.
  const bool wraps = count > std::numeric_limits<uint64_t>::max() / ElementTypeSize(array.type);
  uint64_t data_bytes = wraps ? std::numeric_limits<uint64_t>::max() : count * ElementTypeSize(array.type);
  size_t available = size - prefix - header_len;
  if (wraps || data_bytes > available) {
    return error("truncated: shape " + [&] {
      std::string s = "(";
      for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
      return s + ")";
    }() + " of " + ElementTypeName(array.type) + " needs " + (wraps ? "more than " : "") + std::to_string(data_bytes) +
                 " data bytes but the file has " + std::to_string(available));
  }
  if (data_bytes < available) {
    return error(std::to_string(available - data_bytes) + " unexpected bytes after the array data");
  }
  const uint8_t* data = p + prefix + header_len;
  try {
    array.data.assign(data, data + data_bytes);
  } catch (const std::bad_alloc&) {
    return InternalError("'" + name + "': cannot allocate " + std::to_string(data_bytes) + " bytes for its array");
  }
  return array;
}

StatusOr<NpyArray> ReadNpy(const std::string& path) {
  GLD_ASSIGN_OR_RETURN(auto bytes, ReadFileBytes(path));
  return ParseNpy(bytes.data(), bytes.size(), path);
}

StatusOr<std::vector<uint8_t>> EncodeNpy(const NpyArray& array) {
  const char* descr = DescrFor(array.type);
  if (descr == nullptr) return InvalidArgumentError("cannot write a .npy array of unknown element type");
  size_t count = 1;
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i) {
    if (array.shape[i] < 0) {
      return InvalidArgumentError("cannot write a .npy array with negative dimension " +
                                  std::to_string(array.shape[i]));
    }
    count *= static_cast<size_t>(array.shape[i]);
    shape += std::to_string(array.shape[i]);
    shape += (array.shape.size() == 1) ? "," : (i + 1 < array.shape.size() ? ", " : "");
  }
  shape += ")";
  size_t expected = count * ElementTypeSize(array.type);
  if (array.data.size() != expected) {
    return InvalidArgumentError("npy array data has " + std::to_string(array.data.size()) +
                                " bytes, its shape and type need " + std::to_string(expected));
  }
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary; '\n' ends the header.
  int major = 1;
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + kAlignment - 1) / kAlignment * kAlignment;
  if (padded - prefix > 0xffff) {
    major = 2;
    prefix = kMagicSize + 2 + 4;
    total = prefix + header.size() + 1;
    padded = (total + kAlignment - 1) / kAlignment * kAlignment;
  }
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::vector<uint8_t> out;
  try {
    out.reserve(padded + array.data.size());
  } catch (const std::bad_alloc&) {
    return InternalError("cannot allocate " + std::to_string(padded + array.data.size()) +
                         " bytes for a .npy file of " + std::to_string(array.data.size()) + " data bytes");
  }
  out.insert(out.end(), kMagic, kMagic + kMagicSize);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  uint32_t header_len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < prefix - kMagicSize - 2; ++i) out.push_back(static_cast<uint8_t>(header_len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Status WriteNpy(const std::string& path, const NpyArray& array) {
  auto bytes = EncodeNpy(array);
  if (!bytes.ok()) return bytes.status().WithContext("'" + path + "'");
  return WriteFileAtomic(path, bytes->data(), bytes->size());
}

}  // namespace gld
