#include "gl/egl/driver_cache.h"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "util/file_util.h"
#include "util/hex.h"
#include "util/logging.h"

namespace gld::gl {

namespace {

// The process environment is shared: one redirection at a time.
std::mutex& RedirectMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void WarnOnce(const std::string& topic, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(topic).second) return;
  }
  Log().warn("{}", message);
}

// ---- Driver caches ----

std::string DriverCacheDir(const std::string& cache_dir) { return cache_dir + "/driver"; }

std::string TrustedCacheDir(const std::string& cache_dir, FileTrust trust) {
  if (cache_dir.empty() || trust == FileTrust::kAnyone || !IsDirectory(cache_dir)) return cache_dir;
  const Status s = CheckTrustedFolder(cache_dir, "cache_dir");
  if (s.ok()) return cache_dir;
  WarnOnce("untrusted:" + cache_dir, "program cache: " + s.message() +
                                         "; running without the program cache (Options::cache_allow_shared uses a "
                                         "folder shared on purpose)");
  return "";
}

namespace {

// Bytes the filesystem holding `dir` still offers an unprivileged writer.
StatusOr<uint64_t> FreeBytes(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) {
    return DataLossError("cannot statvfs '" + dir + "': " + std::strerror(errno));
  }
  return static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_frsize);
}

// Allocates every block of Mesa's index file (an existing one keeps its
// contents: posix_fallocate only fills holes). A file this call created is
// removed again when its blocks cannot be had.
Status AllocateMesaIndex(const std::string& index, FileTrust trust, uint64_t free_bytes) {
  // O_NOFOLLOW: a link planted at the index is refused, never extended.
  const int fd = ::open(index.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW,
                        trust == FileTrust::kOwner ? 0600 : 0644);
  if (fd < 0) {
    return DataLossError("cannot open '" + index + "': " +
                         (errno == ELOOP ? std::string("it is a symbolic link (not followed)") : std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return DataLossError("'" + index + "' is not a regular file");
  }
  if (trust == FileTrust::kOwner) {
    const Status owned = CheckOwnedByUser(st, "'" + index + "'");
    if (!owned.ok()) {
      ::close(fd);
      return owned;
    }
  }
  const uint64_t held = static_cast<uint64_t>(st.st_blocks) * 512;
  const uint64_t need = kMesaIndexBytes > held ? kMesaIndexBytes - held : 0;
  int err = 0;
  if (free_bytes < need + kDriverCacheFreeBytes) {
    err = ENOSPC;
  } else {
    err = ::posix_fallocate(fd, 0, static_cast<off_t>(kMesaIndexBytes));
  }
  ::close(fd);
  if (err == 0) return OkStatus();
  if (st.st_size == 0) ::unlink(index.c_str());
  return UnavailableError("cannot allocate the " + std::to_string(kMesaIndexBytes) + " bytes of '" + index +
                                "' that Mesa maps, plus " + std::to_string(kDriverCacheFreeBytes >> 20) +
                                " MiB for the cache's files (" + std::to_string(free_bytes) + " bytes free): " +
                                std::strerror(err));
}

}  // namespace

Status ReserveDriverCacheSpace(const std::string& dir, FileTrust trust) {
  const std::string mesa_dir = dir + "/mesa_shader_cache";
  GLD_RETURN_IF_ERROR(CreateDirectories(dir, trust));
  GLD_RETURN_IF_ERROR(CreateDirectories(mesa_dir, trust));
  GLD_ASSIGN_OR_RETURN(uint64_t free_bytes, FreeBytes(mesa_dir));
  GLD_RETURN_IF_ERROR(AllocateMesaIndex(mesa_dir + "/index", trust, free_bytes));
  GLD_ASSIGN_OR_RETURN(free_bytes, FreeBytes(mesa_dir));
  if (free_bytes < kDriverCacheFreeBytes) {
    return UnavailableError("only " + std::to_string(free_bytes) + " bytes free on the filesystem of '" + dir +
                                  "', under the " + std::to_string(kDriverCacheFreeBytes >> 20) +
                                  " MiB the driver's cache needs");
  }
  return OkStatus();
}

std::string RedirectDriverShaderCache(const std::string& cache_dir, FileTrust trust, bool display_already_open) {
  std::lock_guard<std::mutex> lock(RedirectMutex());
  const std::string want = DriverCacheDir(cache_dir);
  const char* mesa = std::getenv("MESA_SHADER_CACHE_DIR");
  if (display_already_open) {
    if (mesa != nullptr && want != mesa) {
      Log().info("program cache: the driver's shader cache stays in '{}': an EGL display is already open in this "
                 "process, so it cannot be redirected to '{}'",
                 mesa, want);
    } else if (mesa == nullptr) {
      Log().info("program cache: the driver's shader cache could not be redirected to '{}': an EGL display is "
                 "already open in this process",
                 want);
    }
    return mesa != nullptr ? mesa : "";
  }
  if (!IsDirectory(cache_dir)) return mesa != nullptr ? mesa : "";  // the cache is off (warned by Open)
  Status s = CreateDirectories(want, trust);
  if (!s.ok()) {
    WarnOnce("driver:" + want, "program cache: cannot create '" + want + "' (" + s.message() +
                                   "); the driver keeps its default shader cache");
    return mesa != nullptr ? mesa : "";
  }
  s = ReserveDriverCacheSpace(want, trust);
  if (!s.ok()) {
    WarnOnce("driver:" + want, "program cache: the driver's shader cache is not put in '" + want + "' (" +
                                   s.message() + "); the driver keeps its default shader cache");
    return mesa != nullptr ? mesa : "";
  }
  // Process-wide, and only where the user chose nothing: their setting wins.
  if (mesa == nullptr) {
    setenv("MESA_SHADER_CACHE_DIR", want.c_str(), 0);
  }
  if (std::getenv("__GL_SHADER_DISK_CACHE_PATH") == nullptr) {
    setenv("__GL_SHADER_DISK_CACHE_PATH", want.c_str(), 0);
  }
  const char* now = std::getenv("MESA_SHADER_CACHE_DIR");
  Log().debug("program cache: driver shader cache in '{}'", now != nullptr ? now : "");
  return now != nullptr ? now : "";
}

namespace {

// Blob file: magic, key size, value size, XXH3-64 of key + value, key, value.
constexpr char kBlobMagic[8] = {'G', 'L', 'D', 'B', 'L', 'O', 'B', '1'};
constexpr size_t kBlobHeader = 8 + 8 + 8 + 8;
constexpr uint64_t kMaxBlobBytes = uint64_t{64} << 20;

std::string BlobPath(const std::string& dir, const void* key, size_t key_size) {
  const XXH128_hash_t h = XXH3_128bits(key, key_size);
  return dir + "/blob/" + Hex64(h.high64) + Hex64(h.low64) + ".bin";
}

uint64_t BlobChecksum(const void* key, size_t key_size, const void* value, size_t value_size) {
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, key, key_size);
  XXH3_64bits_update(st, value, value_size);
  const uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h;
}

}  // namespace

void BlobStorePut(const std::string& dir, FileTrust trust, const void* key, size_t key_size, const void* value,
                  size_t value_size) {
  if (key_size == 0 || key_size + value_size > kMaxBlobBytes) return;
  if (!CreateDirectories(dir + "/blob", trust).ok()) return;
  std::vector<uint8_t> buf(kBlobHeader + key_size + value_size);
  const uint64_t sizes[3] = {key_size, value_size, BlobChecksum(key, key_size, value, value_size)};
  std::memcpy(buf.data(), kBlobMagic, 8);
  std::memcpy(buf.data() + 8, sizes, sizeof(sizes));
  std::memcpy(buf.data() + kBlobHeader, key, key_size);
  if (value_size > 0) std::memcpy(buf.data() + kBlobHeader + key_size, value, value_size);
  Status s = WriteFileAtomic(BlobPath(dir, key, key_size), buf.data(), buf.size(), trust);
  if (!s.ok()) WarnOnce("blob:" + dir, "program cache: driver blob cache cannot write: " + s.message());
}

size_t BlobStoreGet(const std::string& dir, FileTrust trust, const void* key, size_t key_size, void* value,
                    size_t capacity) {
  if (key_size == 0) return 0;
  auto bytes = ReadFileBytes(BlobPath(dir, key, key_size), kMaxBlobBytes + kBlobHeader, "", trust);
  if (!bytes.ok() && bytes.status().code() == StatusCode::kFailedPrecondition) {
    WarnOnce("blobtrust:" + dir, "program cache: a driver blob in '" + dir + "/blob' is not used: " +
                                     bytes.status().message());
    return 0;
  }
  if (!bytes.ok() || bytes->size() < kBlobHeader || std::memcmp(bytes->data(), kBlobMagic, 8) != 0) return 0;
  uint64_t sizes[3];
  std::memcpy(sizes, bytes->data() + 8, sizeof(sizes));
  if (sizes[0] != key_size || sizes[1] > kMaxBlobBytes || kBlobHeader + sizes[0] + sizes[1] != bytes->size()) return 0;
  const uint8_t* k = bytes->data() + kBlobHeader;
  const uint8_t* v = k + key_size;
  if (std::memcmp(k, key, key_size) != 0) return 0;
  if (BlobChecksum(k, key_size, v, sizes[1]) != sizes[2]) {
    WarnOnce("blobsum:" + dir, "program cache: a driver blob in '" + dir + "/blob' fails its checksum; ignored");
    return 0;
  }
  if (sizes[1] <= capacity && value != nullptr && sizes[1] > 0) std::memcpy(value, v, sizes[1]);
  return static_cast<size_t>(sizes[1]);
}

}  // namespace gld::gl
