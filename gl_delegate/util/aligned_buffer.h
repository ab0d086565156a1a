// Host memory aligned to 64 bytes: AlignedBuffer, a zeroed block (a runtime's
// tensor arena and dedicated tensors), and AllocateAlignedBlock, an
// uninitialized one for contents written at once (a model's constants).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gldelegate/status.hpp"

namespace gld {

// Frees a block of either kind: a mapping of `mapped` bytes, or (0) one from
// the heap.
struct AlignedDelete {
  uint64_t mapped = 0;
  void operator()(uint8_t* p) const;
};

class AlignedBuffer {
 public:
  static constexpr uint64_t kAlignment = 64;

  AlignedBuffer() = default;
  // Replaces the block with a new zeroed one of `bytes` bytes (a valid,
  // non-null pointer even for 0). The 64 bytes past its end stay readable:
  // vector kernels (XNNPACK's among them) may read, never use, up to 16 bytes
  // beyond a tensor. Internal error naming `what` when it cannot be had.
  //
  // Blocks of 256 KiB or more are anonymous mappings, zero pages until first
  // touched, so creating an Interpreter neither writes nor faults in its
  // arena, and an unused tail costs nothing. Like AllocateAlignedBlock's,
  // they start on a huge-page boundary, their last partial huge page rounded
  // up when at least half used, advised for transparent huge pages: the
  // first inference faults in its activations a huge page at a time
  // (face_detection_short_range's first inference took 620 page faults with
  // its 1.9 MB arena mapped anywhere, 205 now).
  Status Allocate(uint64_t bytes, const std::string& what);
  uint8_t* data() const { return data_.get(); }
  uint64_t size() const { return size_; }
  // Bytes of the block's own mapping; 0 when it came from the heap.
  uint64_t mapped() const { return data_.get_deleter().mapped; }

 private:
  std::unique_ptr<uint8_t, AlignedDelete> data_;
  uint64_t size_ = 0;
};

// Advises the whole 2 MiB extents inside [p, p + bytes) for transparent huge
// pages. Only advice: where they are off or the call is refused, nothing
// changes.
void AdviseHugePages(void* p, uint64_t bytes);

// The mapping behind both kinds of block (exposed for its tests): at least
// `bytes` bytes, zero pages, starting on a 2 MiB boundary, its length (set
// in *mapped) a whole number of pages, rounded up to a whole huge page when
// its last partial huge page is at least half used. It reserves 2 MiB more
// and releases the rest of that reservation before and after the block, so
// nothing but the block stays mapped. Null when the system refuses it.
uint8_t* MapOnHugePageBoundary(uint64_t bytes, uint64_t* mapped);

// An uninitialized block aligned to 64 bytes, with 64 readable bytes past
// its end, for contents written as soon as it is made (a model's constants).
// Under 1 MiB it comes from the heap (a block freed and made again reuses
// the heap's pages). From 1 MiB it is a mapping of its own that starts on a
// huge-page boundary, its last partial huge page rounded up to a whole one
// when at least half of it is used, and advised for transparent huge pages
// (AdviseHugePages): in a fresh process the few MiB of weights then take a
// handful of page faults instead of one per 4 KiB (face_landmark's 1.2 MiB
// took about 1 ms of 300 faults). Null when it cannot be had.
std::unique_ptr<uint8_t[], AlignedDelete> AllocateAlignedBlock(uint64_t bytes);

}  // namespace gld
