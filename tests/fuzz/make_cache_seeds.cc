// Writes a seed corpus for gld_fuzz_cache: valid program cache entry files
// (an empty one, one program, several with labels, workgroups and binaries
// of different sizes), so the fuzzer starts past the identifier, length,
// checksum and fingerprint checks.
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gl/cache/binary_cache.h"

namespace {

int failures = 0;

void Write(const std::string& path, const gld::gl::CacheEntry& entry) {
  const std::vector<uint8_t> bytes = gld::gl::EncodeCacheEntry(entry);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    ++failures;
  }
  if (f != nullptr) std::fclose(f);
}

gld::gl::CacheEntry Entry(int programs, size_t binary_bytes) {
  gld::gl::CacheEntry e;
  e.key = "gldelegate=seed\ncache_format=2\nvendor=v\nrenderer=r\nversion=3.1\nglsl=3.10\nprecision=fp32\n";
  e.model_token = "seed_model";
  for (int i = 0; i < programs; ++i) {
    gld::gl::CachedBinary b;
    b.label = "program " + std::to_string(i) + " for node " + std::to_string(i) + " (CONV_2D)";
    b.format = 0x8741u;
    b.bytes.resize(binary_bytes + static_cast<size_t>(i) * 13);
    for (size_t k = 0; k < b.bytes.size(); ++k) b.bytes[k] = static_cast<uint8_t>(k * 31 + static_cast<size_t>(i));
    b.workgroup = {8, 4, static_cast<uint32_t>(i % 4 + 1)};
    e.programs[gld::gl::HashSource("#version 310 es\n// program " + std::to_string(i))] = b;
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  Write(dir + "/empty.gldc", Entry(0, 0));
  Write(dir + "/one.gldc", Entry(1, 16));
  Write(dir + "/three.gldc", Entry(3, 64));
  Write(dir + "/eight.gldc", Entry(8, 200));
  return failures == 0 ? 0 : 1;
}
