#include "common/printable.h"

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <streambuf>

namespace gld::tools {
namespace {

void AppendHex(std::string& out, const char* prefix, unsigned value, int digits) {
  char buf[12];
  std::snprintf(buf, sizeof(buf), "%s%0*x", prefix, digits, value);
  out += buf;
}

// The length of the valid UTF-8 sequence at s[i] (its code point in *cp),
// or 0 when the byte there starts none: an overlong form, a surrogate, a
// code point past U+10FFFF, a missing or stray continuation byte.
size_t Utf8Sequence(const std::string& s, size_t i, uint32_t* cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t n = 0;
  uint32_t v = 0, min = 0;
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2, v = b & 0x1f, min = 0x80;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3, v = b & 0x0f, min = 0x800;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4, v = b & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    v = (v << 6) | (byte(i + k) & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

std::string Escape(const std::string& text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7f) {
      out += static_cast<char>(b);
      ++i;
    } else if (keep_lines && (b == '\n' || b == '\t')) {
      out += static_cast<char>(b);
      ++i;
    } else if (b == '\n' || b == '\r' || b == '\t') {
      out += b == '\n' ? "\\n" : b == '\r' ? "\\r" : "\\t";
      ++i;
    } else if (b < 0x80) {  // other C0 controls and DEL
      AppendHex(out, "\\x", b, 2);
      ++i;
    } else {
      uint32_t cp = 0;
      const size_t n = Utf8Sequence(text, i, &cp);
      if (n == 0) {
        AppendHex(out, "\\x", b, 2);
        ++i;
      } else if (cp <= 0x9f) {  // C1 controls
        AppendHex(out, "\\u", cp, 4);
        i += n;
      } else {
        out.append(text, i, n);
        i += n;
      }
    }
  }
  return out;
}

// The bytes at the end of `s` that may start a UTF-8 sequence the next
// write completes: a lead byte followed by fewer continuation bytes than
// it needs.
size_t IncompleteTail(const std::string& s) {
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const unsigned char b = static_cast<unsigned char>(s[s.size() - back]);
    if ((b & 0xc0) == 0x80) continue;  // a continuation byte: look further back
    const size_t need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

// A stream buffer that escapes what it is given and hands it on.
class EscapingBuffer : public std::streambuf {
 public:
  explicit EscapingBuffer(std::streambuf* out) : out_(out) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, static_cast<size_t>(n));
    const size_t keep = IncompleteTail(pending_);
    const std::string text = Escape(pending_.substr(0, pending_.size() - keep), /*keep_lines=*/true);
    pending_.erase(0, pending_.size() - keep);
    if (out_->sputn(text.data(), static_cast<std::streamsize>(text.size())) != static_cast<std::streamsize>(text.size())) {
      return 0;
    }
    return n;
  }
  int sync() override {
    if (!pending_.empty()) {
      const std::string text = Escape(pending_, /*keep_lines=*/true);
      pending_.clear();
      out_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
    }
    return out_->pubsync();
  }

 private:
  std::streambuf* out_;
  std::string pending_;
};

void Install(std::ostream& stream) {
  if (dynamic_cast<EscapingBuffer*>(stream.rdbuf()) != nullptr) return;
  // Never freed: the streams are flushed at exit, after main returns.
  stream.rdbuf(new EscapingBuffer(stream.rdbuf()));
}

}  // namespace

std::string Printable(const std::string& text) { return Escape(text, /*keep_lines=*/false); }

void EscapeStandardStreams() {
  Install(std::cout);
  Install(std::cerr);
  Install(std::clog);
}

}  // namespace gld::tools
