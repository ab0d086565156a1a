// The contents of a constant tensor: an immutable byte buffer shared by every
// copy of the graph that holds it. A Model's prepared graph and the copy each
// of its Interpreters takes point at the same weights; copying a Graph copies
// references, not bytes. New contents always go to a new buffer, so a buffer
// never changes once another graph may hold it, and graphs that share
// buffers may be read from different threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gld {

class ConstantData {
 public:
  ConstantData() = default;

  // Replaces the contents with a new buffer holding `bytes`; other holders
  // of the old buffer keep it.
  ConstantData& operator=(std::vector<uint8_t> bytes);
  // A new buffer with a copy of `size` bytes at `data`.
  static ConstantData CopyOf(const void* data, size_t size);
  // Drops this holder's reference; the buffer is freed with its last holder.
  void clear() { buffer_.reset(); }

  // nullptr when empty.
  const uint8_t* data() const { return buffer_ ? buffer_->data() : nullptr; }
  size_t size() const { return buffer_ ? buffer_->size() : 0; }
  bool empty() const { return size() == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  // The contents as a vector, for code that takes one; an empty vector when empty.
  const std::vector<uint8_t>& bytes() const;

 private:
  std::shared_ptr<const std::vector<uint8_t>> buffer_;
};

}  // namespace gld
