#include "gl/cache/binary_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "gl/egl/egl_environment.h"
#include "gldelegate/binary_cache_generated.h"
#include "util/file_util.h"
#include "util/hex.h"
#include "util/logging.h"

namespace gld::gl {

namespace fb = gld::gl::cachefmt;

namespace {

std::mutex& StateMutex() {
  static std::mutex m;
  return m;
}
std::string& RendererOverride() {
  static std::string s;
  return s;
}

// The options that change which programs a model needs.
std::string OptionsKey(const Options& options) {
  std::vector<std::string> deny = options.gpu_deny_ops;
  std::sort(deny.begin(), deny.end());
  std::string s = std::string("precision=") + PrecisionName(options.precision) + "\ndeny=";
  for (const std::string& d : deny) s += d + ",";
  s += "\nmax_partitions=" + std::to_string(options.max_delegated_partitions) + "\n";
  s += "min_partition_nodes=" + std::to_string(options.min_nodes_per_partition) + "\n";
  // Plans at the minimum limits differ; the driver's limits add no line, so
  // entries made before the option existed stay valid.
  if (options.gl_limits == GlLimits::kMinimum) s += "gl_limits=minimum\n";
  return s;
}

// The first line where two keys differ, for the "stale" message.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t pa = 0, pb = 0;
  while (pa < a.size() || pb < b.size()) {
    size_t ea = a.find('\n', pa), eb = b.find('\n', pb);
    if (ea == std::string::npos) ea = a.size();
    if (eb == std::string::npos) eb = b.size();
    std::string la = a.substr(pa, ea - pa), lb = b.substr(pb, eb - pb);
    if (la != lb) return "'" + la + "' in the file, '" + lb + "' now";
    pa = ea + 1;
    pb = eb + 1;
  }
  return "same lines";
}

// A folder at an entry's path would make every run miss, warn and fail to
// write. An empty one is removed; a full one is renamed aside (never
// deleted: someone may have put it there on purpose). Empty on success.
std::string MoveFolderOutOfTheWay(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_empty(path, ec) && std::filesystem::remove(path, ec)) {
    Log().warn("program cache: removed the empty folder '{}' that stood where the entry belongs", path);
    return {};
  }
  for (int i = 0; i < 100; ++i) {
    const std::string aside = path + ".folder" + (i == 0 ? std::string() : "." + std::to_string(i));
    if (std::filesystem::exists(aside, ec)) continue;
    std::filesystem::rename(path, aside, ec);
    if (ec) return ec.message();
    Log().warn("program cache: the entry '{}' was a folder; renamed it to '{}'", path, aside);
    return {};
  }
  return "no free name to rename it to";
}

}  // namespace

uint64_t ProgramFingerprint(const std::string& key, const SourceHash& hash, const CachedBinary& binary) {
  const uint64_t fields[] = {XXH3_64bits(key.data(), key.size()),
                             key.size(),
                             hash.low,
                             hash.high,
                             hash.bytes,
                             binary.workgroup[0],
                             binary.workgroup[1],
                             binary.workgroup[2],
                             binary.format,
                             XXH3_64bits(binary.bytes.data(), binary.bytes.size()),
                             binary.bytes.size()};
  return XXH3_64bits(fields, sizeof(fields));
}

SourceHash HashSource(const std::string& code) {
  const XXH128_hash_t h = XXH3_128bits(code.data(), code.size());
  return SourceHash{h.low64, h.high64, code.size()};
}

std::vector<uint8_t> EncodeCacheEntry(const CacheEntry& entry) {
  flatbuffers::FlatBufferBuilder inner(1024);
  std::vector<flatbuffers::Offset<fb::CachedProgram>> programs;
  for (const auto& [hash, bin] : entry.programs) {
    auto label = inner.CreateString(bin.label);
    auto bytes = inner.CreateVector(bin.bytes);
    auto wg = inner.CreateVector(std::vector<uint32_t>(bin.workgroup.begin(), bin.workgroup.end()));
    programs.push_back(fb::CreateCachedProgram(inner, hash.low, hash.high, hash.bytes, label, bin.format, bytes, wg,
                                               ProgramFingerprint(entry.key, hash, bin)));
  }
  auto token = inner.CreateString(entry.model_token);
  auto list = inner.CreateVector(programs);
  inner.Finish(fb::CreateCachePayload(inner, token, list));
  const uint64_t checksum = XXH3_64bits(inner.GetBufferPointer(), inner.GetSize());

  // The length is a field of the file it measures: with the field always
  // stored, its value does not change the layout, so a second build with
  // the first build's size is exact.
  uint64_t file_bytes = 0;
  for (;;) {
    flatbuffers::FlatBufferBuilder outer(inner.GetSize() + 1024);
    outer.ForceDefaults(true);
    auto key = outer.CreateString(entry.key);
    auto payload = outer.CreateVector(inner.GetBufferPointer(), inner.GetSize());
    outer.Finish(fb::CreateCacheFile(outer, kCacheFormatVersion, key, checksum, payload, file_bytes),
                 fb::CacheFileIdentifier());
    if (outer.GetSize() == file_bytes) {
      return std::vector<uint8_t>(outer.GetBufferPointer(), outer.GetBufferPointer() + outer.GetSize());
    }
    file_bytes = outer.GetSize();
  }
}

StatusOr<CacheEntry> DecodeCacheEntry(const uint8_t* data, size_t size, const std::string& expected_key) {
  if (size == 0) return DataLossError("empty file");
  if (size < 8 || !flatbuffers::BufferHasIdentifier(data, fb::CacheFileIdentifier())) {
    return DataLossError("not a gldelegate cache file (no 'GLDC' identifier)");
  }
  if (size > kMaxCacheFileBytes) return DataLossError("file of " + std::to_string(size) + " bytes is too large");
  flatbuffers::Verifier outer_verifier(data, size);
  if (!fb::VerifyCacheFileBuffer(outer_verifier)) return DataLossError("truncated or corrupt (verifier failed)");
  const fb::CacheFile* file = fb::GetCacheFile(data);
  if (file->format_version() > kCacheFormatVersion) {
    return DataLossError("format version " + std::to_string(file->format_version()) +
                         " is newer than this library's " + std::to_string(kCacheFormatVersion));
  }
  if (file->format_version() < kCacheFormatVersion) {
    return DataLossError("format version " + std::to_string(file->format_version()) + " is older than " +
                         std::to_string(kCacheFormatVersion));
  }
  if (file->file_bytes() != size) {
    return DataLossError("truncated or corrupt: the file has " + std::to_string(size) + " bytes, its header says " +
                         std::to_string(file->file_bytes()));
  }
  if (file->key() == nullptr || file->payload() == nullptr) return DataLossError("key or payload missing");
  const std::string key = file->key()->str();
  if (!expected_key.empty() && key != expected_key) {
    return FailedPreconditionError("stale: key differs (" + FirstDifference(key, expected_key) + ")");
  }
  const uint8_t* payload = file->payload()->data();
  const size_t payload_size = file->payload()->size();
  if (XXH3_64bits(payload, payload_size) != file->payload_checksum()) {
    return DataLossError("payload checksum mismatch");
  }
  flatbuffers::Verifier inner_verifier(payload, payload_size);
  if (!inner_verifier.VerifyBuffer<fb::CachePayload>(nullptr)) return DataLossError("payload fails verification");
  const fb::CachePayload* p = flatbuffers::GetRoot<fb::CachePayload>(payload);
  CacheEntry entry;
  entry.key = key;
  if (p->model_token() != nullptr) entry.model_token = p->model_token()->str();
  if (p->programs() != nullptr) {
    for (const fb::CachedProgram* prog : *p->programs()) {
      if (prog->binary() == nullptr || prog->binary()->size() == 0) {
        return DataLossError("a program has no binary");
      }
      CachedBinary b;
      if (prog->label() != nullptr) b.label = prog->label()->str();
      b.format = prog->binary_format();
      b.bytes.assign(prog->binary()->begin(), prog->binary()->end());
      if (prog->workgroup() != nullptr && prog->workgroup()->size() == 3) {
        for (size_t i = 0; i < 3; ++i) b.workgroup[i] = prog->workgroup()->Get(static_cast<flatbuffers::uoffset_t>(i));
      }
      const SourceHash hash{prog->source_hash_low(), prog->source_hash_high(), prog->source_bytes()};
      if (prog->key_fingerprint() != ProgramFingerprint(key, hash, b)) {
        return DataLossError("program '" + b.label +
                             "' is not bound to this entry's key (its fingerprint differs: a binary moved between "
                             "programs or entries)");
      }
      entry.programs[hash] = std::move(b);
    }
  }
  return entry;
}

void SetRendererOverrideForTesting(const std::string& renderer) {
  std::lock_guard<std::mutex> lock(StateMutex());
  RendererOverride() = renderer;
}

std::string CacheKeyDriverPart(const GlInfo& info) {
  std::string renderer;
  {
    std::lock_guard<std::mutex> lock(StateMutex());
    renderer = RendererOverride().empty() ? info.renderer : RendererOverride();
  }
  return std::string("gldelegate=") + VersionString() + "\ncache_format=" + std::to_string(kCacheFormatVersion) +
         "\nvendor=" + info.vendor + "\nrenderer=" + renderer + "\nversion=" + info.version +
         "\nglsl=" + info.shading_language_version + "\n";
}

std::string CacheKey(const GlInfo& info, const Options& options) {
  return CacheKeyDriverPart(info) + OptionsKey(options);
}

std::string StaleReason(const std::string& file_key, const GlInfo& info) {
  const std::string driver = CacheKeyDriverPart(info);
  if (file_key.compare(0, driver.size(), driver) == 0) return {};
  return "key differs (" + FirstDifference(file_key, driver) + ")";
}

std::string CacheFileName(const std::string& model_token, const Options& options) {
  const bool plain = !model_token.empty() && model_token.size() <= 64 &&
                     std::all_of(model_token.begin(), model_token.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
                     }) &&
                     model_token[0] != '.';
  const std::string token = plain ? model_token : Hex64(XXH3_64bits(model_token.data(), model_token.size()));
  const std::string opts = OptionsKey(options);
  return token + "-" + Hex64(XXH3_64bits(opts.data(), opts.size())) + ".gldc";
}


std::unique_ptr<BinaryCacheFile> BinaryCacheFile::Open(const std::string& dir, const std::string& file_name,
                                                       const std::string& key, const std::string& model_token,
                                                       FileTrust trust) {
  if (!IsDirectory(dir)) {
    WarnOnce("missing:" + dir, "program cache: cache_dir '" + dir +
                                   "' is not an existing folder; running without the program cache");
    return nullptr;
  }
  std::unique_ptr<BinaryCacheFile> f(new BinaryCacheFile());
  f->path_ = dir + "/" + file_name;
  f->trust_ = trust;
  f->entry_.key = key;
  f->entry_.model_token = model_token;
  if (IsDirectory(f->path_)) {
    f->dirty_ = true;
    const std::string failed = MoveFolderOutOfTheWay(f->path_);
    if (!failed.empty()) {
      WarnOnce("folder:" + f->path_, "program cache: the entry '" + f->path_ + "' is a folder that cannot be moved (" +
                                         failed + "); running without the program cache for it");
      return nullptr;
    }
    return f;
  }
  if (!PathExists(f->path_)) {
    f->dirty_ = true;  // a plain miss: written after compiling
    return f;
  }
  auto bytes = ReadFileBytes(f->path_, kMaxCacheFileBytes, "", trust);
  StatusOr<CacheEntry> entry = bytes.ok() ? DecodeCacheEntry(bytes->data(), bytes->size(), key) : bytes.status();
  if (!entry.ok()) {
    // Each bad file is its own warning; it is about to be rewritten.
    Log().warn("program cache: ignoring '{}': {}; recompiling and rewriting it", f->path_, entry.status().message());
    f->dirty_ = true;
    return f;
  }
  f->file_bytes_ = bytes->size();
  f->entry_.programs = std::move(entry->programs);
  Log().debug("program cache: '{}' holds {} programs", f->path_, f->entry_.programs.size());
  return f;
}

const CachedBinary* BinaryCacheFile::Find(const SourceHash& hash) const {
  auto it = entry_.programs.find(hash);
  return it == entry_.programs.end() ? nullptr : &it->second;
}

void BinaryCacheFile::Put(const SourceHash& hash, CachedBinary binary) {
  entry_.programs[hash] = std::move(binary);
  dirty_ = true;
}

void BinaryCacheFile::Drop(const SourceHash& hash) {
  if (entry_.programs.erase(hash) > 0) dirty_ = true;
}

void BinaryCacheFile::WriteIfDirty() {
  if (!dirty_ || entry_.programs.empty()) return;
  const std::vector<uint8_t> bytes = EncodeCacheEntry(entry_);
  Status s = WriteFileAtomic(path_, bytes.data(), bytes.size(), trust_);
  if (!s.ok()) {
    const std::string dir = path_.substr(0, path_.find_last_of('/'));
    WarnOnce("unwritable:" + dir, "program cache: cannot write to '" + dir + "' (" + s.message() +
                                      "); running without storing programs");
    return;
  }
  dirty_ = false;
  file_bytes_ = bytes.size();
  Log().debug("program cache: wrote {} programs, {} bytes to '{}'", entry_.programs.size(), bytes.size(), path_);
}

}  // namespace gld::gl
