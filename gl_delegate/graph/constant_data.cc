#include "graph/constant_data.h"

#include <utility>

namespace gld {

ConstantData& ConstantData::operator=(std::vector<uint8_t> bytes) {
  if (bytes.empty()) {
    buffer_.reset();
  } else {
    buffer_ = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  }
  return *this;
}

ConstantData ConstantData::CopyOf(const void* data, size_t size) {
  ConstantData copy;
  if (size > 0) {
    const auto* p = static_cast<const uint8_t*>(data);
    copy.buffer_ = std::make_shared<const std::vector<uint8_t>>(p, p + size);
  }
  return copy;
}

const std::vector<uint8_t>& ConstantData::bytes() const {
  static const std::vector<uint8_t> kEmpty;
  return buffer_ ? *buffer_ : kEmpty;
}

}  // namespace gld
