// A C enum's value read as its int bytes, not loaded as the enum type: a C
// caller (or a host of another layout, such as a TFLite context) may put any
// int there, and loading a value outside the enum's range is undefined in C++.
#pragma once

#include <cstdint>
#include <cstring>

namespace gld {

template <typename CEnum>
int32_t RawEnum(const CEnum& value) {
  static_assert(sizeof(CEnum) == sizeof(int32_t), "C enums are ints");
  int32_t raw = 0;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

}  // namespace gld
