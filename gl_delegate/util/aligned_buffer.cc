#include "util/aligned_buffer.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#include "util/logging.h"

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

namespace {

uint64_t PageSize() {
  static const uint64_t page = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<uint64_t>(p) : uint64_t{4096};
  }();
  return page;
}

// munmap, whose failure (an address or length not on a page boundary) would
// leave the range mapped for the life of the process: logged, never silent.
void Unmap(uintptr_t begin, uint64_t bytes) {
  if (bytes == 0) return;
  if (::munmap(reinterpret_cast<void*>(begin), static_cast<size_t>(bytes)) != 0) {
    const int e = errno;
    Log().warn("aligned_buffer: munmap({:#x}, {}) failed: {}; the range stays mapped", begin, bytes,
               std::strerror(e));
  }
}

}  // namespace

void AlignedDelete::operator()(uint8_t* p) const {
  if (mapped != 0) {
    Unmap(reinterpret_cast<uintptr_t>(p), mapped);
  } else {
    ::operator delete[](p, kHeapAlignment);
  }
}

uint8_t* MapOnHugePageBoundary(uint64_t bytes, uint64_t* mapped) {
  // Whole pages: the tail released below starts at start + length, and
  // munmap refuses (EINVAL) an address that is not on a page boundary.
  // Unrounded, every mapping kept the rest of its 2 MiB reservation for the
  // life of the process (100 create/destroy cycles of pose_detection grew
  // the address space from 71 MB to 2.3 GB).
  const uint64_t page = PageSize();
  if (bytes > SIZE_MAX - 2 * kHugePage) return nullptr;  // past a 32-bit address space: no wrap
  uint64_t length = (bytes + page - 1) / page * page;
  const uint64_t tail = length % kHugePage;
  if (tail >= kHugePage / 2) length += kHugePage - tail;
  const uint64_t reserve = length + kHugePage;
  void* m = ::mmap(nullptr, static_cast<size_t>(reserve), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  const uintptr_t base = reinterpret_cast<uintptr_t>(m);
  const uintptr_t start = (base + kHugePage - 1) & ~(kHugePage - 1);
  Unmap(base, start - base);
  const uintptr_t end = start + length, reserved_end = base + reserve;
  if (reserved_end > end) Unmap(end, reserved_end - end);
  auto* p = reinterpret_cast<uint8_t*>(start);
  AdviseHugePages(p, length);
  *mapped = length;
  return p;
}

namespace {

// A block of `alloc` bytes aligned to 64: a mapping from a huge-page
// boundary when `alloc` is at least `map_from` and the system gives one
// (deleter->mapped set), else from the heap; null when neither can be had.
uint8_t* AllocateAligned(uint64_t alloc, uint64_t map_from, AlignedDelete* deleter) {
  if constexpr (sizeof(size_t) < 8) {
    if (alloc > SIZE_MAX) return nullptr;  // a 32-bit process: the size_t below would wrap
  }
  if (alloc >= map_from) {
    if (uint8_t* p = MapOnHugePageBoundary(alloc, &deleter->mapped)) return p;
  }
  return static_cast<uint8_t*>(::operator new[](static_cast<size_t>(alloc), kHeapAlignment, std::nothrow));
}

}  // namespace

std::unique_ptr<uint8_t[], AlignedDelete> AllocateAlignedBlock(uint64_t bytes) {
  AlignedDelete deleter;
  if (bytes > UINT64_MAX - AlignedBuffer::kAlignment) return std::unique_ptr<uint8_t[], AlignedDelete>(nullptr, deleter);
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
