#include "util/aligned_buffer.h"

#include <cstring>
#include <new>

#include <sys/mman.h>

namespace gld {

namespace {

constexpr std::align_val_t kHeapAlignment{AlignedBuffer::kAlignment};
// AlignedBuffer: smaller blocks come from the heap, larger ones are mappings.
constexpr uint64_t kMapAtLeast = 256 * 1024;
constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// AllocateAlignedBlock maps blocks of this size or more on their own.
constexpr uint64_t kMapBlocksFrom = uint64_t{1} << 20;

}  // namespace

void AdviseHugePages(void* p, uint64_t bytes) {
#ifdef MADV_HUGEPAGE
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void AlignedDelete::operator()(uint8_t* p) const {
  if (mapped != 0) {
    ::munmap(p, static_cast<size_t>(mapped));
  } else {
    ::operator delete[](p, kHeapAlignment);
  }
}

namespace {

// A mapping of at least `bytes` that starts on a huge-page boundary; null
// when the system refuses it.
uint8_t* MapOnHugePageBoundary(uint64_t bytes, uint64_t* mapped) {
  uint64_t length = bytes;
  const uint64_t tail = bytes % kHugePage;
  if (tail >= kHugePage / 2) length += kHugePage - tail;
  const uint64_t reserve = length + kHugePage;
  void* m = ::mmap(nullptr, static_cast<size_t>(reserve), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(m);
  const uintptr_t start = (base + kHugePage - 1) & ~(kHugePage - 1);
  if (start > base) ::munmap(m, start - base);
  const uintptr_t end = start + length, reserved_end = base + reserve;
  if (reserved_end > end) ::munmap(reinterpret_cast<void*>(end), reserved_end - end);
  auto* p = reinterpret_cast<uint8_t*>(start);
  AdviseHugePages(p, length);
  *mapped = length;
  return p;
}

// A block of `alloc` bytes aligned to 64: a mapping from a huge-page
// boundary when `alloc` is at least `map_from` and the system gives one
// (deleter->mapped set), else from the heap; null when neither can be had.
uint8_t* AllocateAligned(uint64_t alloc, uint64_t map_from, AlignedDelete* deleter) {
  if (alloc >= map_from) {
    if (uint8_t* p = MapOnHugePageBoundary(alloc, &deleter->mapped)) return p;
  }
  return static_cast<uint8_t*>(::operator new[](static_cast<size_t>(alloc), kHeapAlignment, std::nothrow));
}

}  // namespace

std::unique_ptr<uint8_t[], AlignedDelete> AllocateAlignedBlock(uint64_t bytes) {
  AlignedDelete deleter;
  uint8_t* p = AllocateAligned(bytes + AlignedBuffer::kAlignment, kMapBlocksFrom, &deleter);
  return std::unique_ptr<uint8_t[], AlignedDelete>(p, deleter);
}

Status AlignedBuffer::Allocate(uint64_t bytes, const std::string& what) {
  data_.reset();
  size_ = 0;
  const uint64_t alloc = bytes + kAlignment;
  AlignedDelete free;
  uint8_t* p = AllocateAligned(alloc, kMapAtLeast, &free);
  if (p == nullptr) return InternalError("cannot allocate " + std::to_string(bytes) + " bytes for " + what);
  if (free.mapped == 0) std::memset(p, 0, static_cast<size_t>(alloc));  // a mapping starts as zero pages
  data_ = std::unique_ptr<uint8_t, AlignedDelete>(p, free);
  size_ = bytes;
  return OkStatus();
}

}  // namespace gld
