// libFuzzer entry: hostile bytes decoded as a program cache entry file
// (gl::DecodeCacheEntry, no GL context). An entry file may come from a
// shared or copied folder, so beyond "no crash" it checks what the program
// cache relies on: every program accepted has a binary and is bound to the
// key it was read under, and an accepted entry survives being written and
// read back unchanged. A broken promise traps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gl/cache/binary_cache.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool SamePrograms(const gld::gl::CacheEntry& a, const gld::gl::CacheEntry& b) {
  if (a.programs.size() != b.programs.size()) return false;
  for (const auto& [hash, bin] : a.programs) {
    auto it = b.programs.find(hash);
    if (it == b.programs.end()) return false;
    const gld::gl::CachedBinary& other = it->second;
    if (bin.label != other.label || bin.format != other.format || bin.bytes != other.bytes ||
        bin.workgroup != other.workgroup) {
      return false;
    }
  }
  return true;
}

}  // namespace

// Undefined behaviour is a finding, not a warning to scroll past.
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto entry = gld::gl::DecodeCacheEntry(data, size, "");
  if (!entry.ok()) {
    Check(!entry.status().message().empty());
    return 0;
  }
  for (const auto& [hash, bin] : entry->programs) Check(!bin.bytes.empty());
  // Read under another key, the same bytes are refused.
  Check(!gld::gl::DecodeCacheEntry(data, size, entry->key + "x").ok());
  const std::vector<uint8_t> again = gld::gl::EncodeCacheEntry(*entry);
  auto back = gld::gl::DecodeCacheEntry(again.data(), again.size(), entry->key);
  Check(back.ok());
  Check(back->key == entry->key && back->model_token == entry->model_token);
  Check(SamePrograms(*entry, *back));
  return 0;
}
