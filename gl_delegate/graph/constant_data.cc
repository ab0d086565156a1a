#include "graph/constant_data.h"

#include <utility>

namespace gld {

ConstantData ConstantData::View(std::shared_ptr<const void> owner, const uint8_t* data, size_t size) {
  ConstantData view;
  if (size > 0) {
    view.data_ = std::shared_ptr<const uint8_t>(std::move(owner), data);
    view.size_ = size;
  }
  return view;
}

ConstantData& ConstantData::operator=(std::vector<uint8_t> bytes) {
  const size_t size = bytes.size();
  auto buffer = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  const uint8_t* p = buffer->data();
  return *this = View(std::move(buffer), p, size);
}

ConstantData ConstantData::CopyOf(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  ConstantData copy;
  if (size > 0) copy = std::vector<uint8_t>(p, p + size);
  return copy;
}

}  // namespace gld
