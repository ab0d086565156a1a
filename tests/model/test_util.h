// Helpers for the model loader tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gldelegate/model_builder.hpp"
#include "graph/graph.h"
#include "model/tflite_reader.h"

namespace gld::testing {

inline StatusOr<Graph> ReadBytes(const std::vector<uint8_t>& bytes, TfliteLoadInfo* info = nullptr) {
  return ReadTfliteModel(bytes.data(), bytes.size(), info);
}

inline std::vector<float> FloatsOf(const Tensor& t) {
  std::vector<float> v(t.data.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(float));
  return v;
}

// Reference float16 decoding by arithmetic (independent of the reader's
// bit manipulation).
inline float RefHalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  float v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa != 0 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const StatusOr<T>& s) { return s.status(); }

// Expects `expr` (a Status or StatusOr) to fail with every fragment in its
// message.
#define GLD_EXPECT_ERROR(expr, ...)                                                    \
  do {                                                                                 \
    const ::gld::Status gld_s_ = ::gld::testing::StatusOf(expr);                       \
    ASSERT_FALSE(gld_s_.ok()) << "expected an error";                                  \
    for (const char* gld_frag_ : {__VA_ARGS__}) {                                      \
      EXPECT_NE(gld_s_.message().find(gld_frag_), std::string::npos)                   \
          << "message '" << gld_s_.message() << "' lacks '" << gld_frag_ << "'";       \
    }                                                                                  \
  } while (0)

}  // namespace gld::testing
