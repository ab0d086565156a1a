// The driver's own shader caches, pointed into Options::cache_dir: Mesa's
// and NVIDIA's disk caches (environment variables read when the first
// display opens) and EGL_ANDROID_blob_cache storage. They belong with the
// EGL setup, which must act before any display exists; the program cache
// proper (gl/cache) sits above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/file_util.h"

#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"

namespace gld::gl {

// Logs `message` as a warning unless the same (topic, detail) was warned
// about before in this process.
void WarnOnce(const std::string& topic, const std::string& message);

// `cache_dir` when the program cache may use it, else "" after one warning
// naming the folder and why: with FileTrust::kOwner (Options::
// cache_allow_shared off) a folder another user owns, or that its group or
// others may write, is refused (CheckTrustedFolder), since whoever can write
// it can plant programs this process would run.
std::string TrustedCacheDir(const std::string& cache_dir, FileTrust trust);

// Who the program cache trusts under `options` (Options::cache_allow_shared).
inline FileTrust CacheTrust(const Options& options) {
  return options.cache_allow_shared ? FileTrust::kAnyone : FileTrust::kOwner;
}

// ---- The driver's own shader cache ----

// "<cache_dir>/driver".
std::string DriverCacheDir(const std::string& cache_dir);

// Mesa's multi-file shader cache maps "<dir>/mesa_shader_cache/index"
// (8 + 65536 * 20 bytes) shared and writable. Builds of Mesa without
// posix_fallocate (Debian's 22.3 among them) size it with ftruncate: a sparse
// file, whose pages a full filesystem cannot back, so the driver's first
// store into the mapping raised SIGBUS deep inside a shader compile. The
// driver cache goes into a folder only after ReserveDriverCacheSpace(dir)
// has allocated that file's blocks (posix_fallocate, which fails cleanly
// when the space is not there) and found kDriverCacheFreeBytes still free
// beyond it (room for the cache's own files, which the drivers write with
// plain writes that fail cleanly, and for any mapping of a layout other
// than the one above). An error says why; nothing is left half-made.
constexpr uint64_t kMesaIndexBytes = 8 + 65536 * 20;
constexpr uint64_t kDriverCacheFreeBytes = uint64_t{4} << 20;
Status ReserveDriverCacheSpace(const std::string& dir, FileTrust trust = FileTrust::kOwner);

// Before the first EGL display is opened: points Mesa's
// (MESA_SHADER_CACHE_DIR) and NVIDIA's (__GL_SHADER_DISK_CACHE_PATH) disk
// caches at DriverCacheDir(cache_dir), each only when the user has not set
// it, and only when ReserveDriverCacheSpace succeeds there (else one warning
// names the folder and why, and the drivers keep their default folders). The environment is process-wide, so this affects every later GL user
// in the process; after a display is open, drivers no longer read it and
// this only logs that the redirection was not possible. Returns the
// directory the driver cache now uses ("" when unknown).
std::string RedirectDriverShaderCache(const std::string& cache_dir, FileTrust trust, bool display_already_open);

// EGL_ANDROID_blob_cache storage: one file per driver key under
// "<dir>/blob", each holding the key (compared on read), the value and a
// checksum. Get returns the value's size (0: none, or not trusted: with
// FileTrust::kOwner a blob another user owns or may write is not read) and
// copies it only when it fits in `capacity`.
void BlobStorePut(const std::string& dir, FileTrust trust, const void* key, size_t key_size, const void* value,
                  size_t value_size);
size_t BlobStoreGet(const std::string& dir, FileTrust trust, const void* key, size_t key_size, void* value,
                    size_t capacity);

}  // namespace gld::gl
