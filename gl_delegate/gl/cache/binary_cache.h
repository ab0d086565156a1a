// The on-disk program cache (Options::cache_dir): one entry file per model
// and option set, "<token>-<options hash>.gldc", a flatbuffer
// (gl/binary_cache.fbs) holding every program's glGetProgramBinary format and
// bytes and its workgroup size, found by a hash of its GLSL source.
//
// Why one file per model rather than per program: a warm start then opens one
// file instead of dozens, the model token names what it belongs to (a fleet
// can ship or delete one model's entry), and a write replaces the whole set
// atomically. Programs that two models share are stored twice; they are a
// few kB each.
//
// Trust: nothing read is used before the outer verifier, the identifier, the
// format version, the file's length, the key (library version, GL strings,
// options), the payload checksum (XXH3-64), the payload verifier and each
// program's key fingerprint all pass. A file that fails
// any of them is logged once (one warning), ignored, and rewritten with what
// this run compiles.
//
// On Mesa (and most desktop drivers) a program binary holds no machine code:
// the driver compiles it at the first dispatch unless its own shader disk
// cache has it. So the cache directory also hosts the driver's cache
// ("<cache_dir>/driver", gl/egl/driver_cache.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/types.hpp"
#include "gl/egl/driver_cache.h"
#include "gldelegate/status.hpp"

#include "util/file_util.h"

namespace gld::gl {

struct GlInfo;

// 2: the file's length and each program's key fingerprint.
constexpr uint32_t kCacheFormatVersion = 2;
// Entry files larger than this are refused unread.
constexpr uint64_t kMaxCacheFileBytes = uint64_t{512} << 20;

struct SourceHash {
  uint64_t low = 0, high = 0;  // XXH3-128 of the source
  uint64_t bytes = 0;          // its length
  bool operator<(const SourceHash& o) const {
    return low != o.low ? low < o.low : high != o.high ? high < o.high : bytes < o.bytes;
  }
  bool operator==(const SourceHash& o) const { return low == o.low && high == o.high && bytes == o.bytes; }
};
SourceHash HashSource(const std::string& code);

struct CachedBinary {
  std::string label;
  uint32_t format = 0;
  std::vector<uint8_t> bytes;
  std::array<uint32_t, 3> workgroup = {0, 0, 0};
};

struct CacheEntry {
  std::string key;
  std::string model_token;
  std::map<SourceHash, CachedBinary> programs;
};

// Binds a program record to its entry: XXH3-64 of `key`, `hash`, and the
// binary's workgroup, format and bytes. Stored with each program and
// recomputed on decoding, so a binary swapped into another record fails.
uint64_t ProgramFingerprint(const std::string& key, const SourceHash& hash, const CachedBinary& binary);

// The flatbuffer bytes of an entry file.
std::vector<uint8_t> EncodeCacheEntry(const CacheEntry& entry);

// Parses and checks an entry file's bytes. `expected_key` empty: any key
// (the caller compares). Errors say what is wrong: "empty file", "not a
// gldelegate cache file", "truncated or corrupt", "format version 9 is newer
// than this library's 2", "payload checksum mismatch", "key differs (...)",
// "program 'label' is not bound to this entry's key". Needs no GL context.
StatusOr<CacheEntry> DecodeCacheEntry(const uint8_t* data, size_t size, const std::string& expected_key);

// The key of everything besides the source that changes a program: library
// version, GL vendor / renderer / version / GLSL version, precision and the
// options that change which programs exist. One "name=value" per line.
std::string CacheKey(const GlInfo& info, const Options& options);
// The lines of CacheKey that depend on the library and the driver only.
std::string CacheKeyDriverPart(const GlInfo& info);
// Empty when an entry with `file_key` was made by this library on this
// driver; otherwise which key line differs.
std::string StaleReason(const std::string& file_key, const GlInfo& info);

// "<token>-<16 hex digits of the options' hash>.gldc"; the token is kept
// when it is a plain name ([A-Za-z0-9._-], at most 64 characters) and
// replaced by its hash otherwise.
std::string CacheFileName(const std::string& model_token, const Options& options);

// Test hook: the renderer string CacheKey uses instead of the driver's
// (empty: the driver's). Process-wide.
void SetRendererOverrideForTesting(const std::string& renderer);

// One model's entry during an Interpreter's creation. Never fails: a missing,
// unreadable or bad file means an empty entry (after one warning).
class BinaryCacheFile {
 public:
  // dir must exist; otherwise the cache is off (warned once per folder). A
  // folder where the entry file belongs is removed when empty and renamed
  // aside otherwise, so the entry is written again; one that cannot be moved
  // is warned about once per process. With FileTrust::kOwner an entry
  // another user owns or may write, or a link, is not read (one warning;
  // it is rewritten as this user's), and what is written is 0600.
  static std::unique_ptr<BinaryCacheFile> Open(const std::string& dir, const std::string& file_name,
                                               const std::string& key, const std::string& model_token,
                                               FileTrust trust = FileTrust::kOwner);

  const CachedBinary* Find(const SourceHash& hash) const;
  void Put(const SourceHash& hash, CachedBinary binary);
  // A cached binary the driver refused: dropped, so that it is rewritten.
  void Drop(const SourceHash& hash);
  bool dirty() const { return dirty_; }
  const std::string& path() const { return path_; }
  uint64_t file_bytes() const { return file_bytes_; }  // as read or last written
  size_t size() const { return entry_.programs.size(); }

  // Writes the entry (temp file + rename) when it changed. A folder that
  // cannot be written is warned about once per process and folder, and the
  // entry stays in memory only.
  void WriteIfDirty();

 private:
  std::string path_;
  FileTrust trust_ = FileTrust::kOwner;
  CacheEntry entry_;
  bool dirty_ = false;
  uint64_t file_bytes_ = 0;
};

}  // namespace gld::gl
