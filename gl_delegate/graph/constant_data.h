// The contents of a constant tensor: immutable bytes shared by every copy of
// the graph that holds them. A Model's prepared graph and the copy each of its
// Interpreters takes point at the same weights; copying a Graph copies
// references, not bytes. New contents always go to a new buffer, so bytes
// never change once another graph may hold them, and graphs that share them
// may be read from different threads.
//
// The bytes are either a buffer of their own or a view into a larger block
// that another owner keeps (the model reader decodes every constant into one
// block); either way the last holder frees them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gld {

class ConstantData {
 public:
  ConstantData() = default;
  ConstantData(const ConstantData&) = default;
  ConstantData& operator=(const ConstantData&) = default;
  // A moved-from ConstantData is empty.
  ConstantData(ConstantData&& other) noexcept : data_(std::move(other.data_)), size_(other.size_) { other.size_ = 0; }
  ConstantData& operator=(ConstantData&& other) noexcept {
    if (this != &other) {
      data_ = std::move(other.data_);
      size_ = other.size_;
      other.size_ = 0;
    }
    return *this;
  }

  // Replaces the contents with a new buffer holding `bytes`; other holders
  // of the old buffer keep it.
  ConstantData& operator=(std::vector<uint8_t> bytes);
  // A new buffer with a copy of `size` bytes at `data`.
  static ConstantData CopyOf(const void* data, size_t size);
  // The `size` bytes at `data`, which `owner` keeps alive and nobody changes
  // while it lives. Empty when size is 0.
  static ConstantData View(std::shared_ptr<const void> owner, const uint8_t* data, size_t size);
  // Drops this holder's reference; the bytes are freed with their last holder.
  void clear() {
    data_.reset();
    size_ = 0;
  }

  // nullptr when empty.
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  // A copy of the contents, for code that takes a vector.
  std::vector<uint8_t> ToVector() const { return std::vector<uint8_t>(begin(), end()); }

 private:
  std::shared_ptr<const uint8_t> data_;  // shares its owner's count
  size_t size_ = 0;
};

}  // namespace gld
