// The driver's own shader caches, pointed into Options::cache_dir: Mesa's
// and NVIDIA's disk caches (environment variables read when the first
// display opens) and EGL_ANDROID_blob_cache storage. They belong with the
// EGL setup, which must act before any display exists; the program cache
// proper (gl/cache) sits above.
#pragma once

#include <cstddef>
#include <string>

namespace gld::gl {

// Logs `message` as a warning unless the same (topic, detail) was warned
// about before in this process.
void WarnOnce(const std::string& topic, const std::string& message);

// ---- The driver's own shader cache ----

// "<cache_dir>/driver".
std::string DriverCacheDir(const std::string& cache_dir);

// Before the first EGL display is opened: points Mesa's
// (MESA_SHADER_CACHE_DIR) and NVIDIA's (__GL_SHADER_DISK_CACHE_PATH) disk
// caches at DriverCacheDir(cache_dir), each only when the user has not set
// it. The environment is process-wide, so this affects every later GL user
// in the process; after a display is open, drivers no longer read it and
// this only logs that the redirection was not possible. Returns the
// directory the driver cache now uses ("" when unknown).
std::string RedirectDriverShaderCache(const std::string& cache_dir, bool display_already_open);

// EGL_ANDROID_blob_cache storage: one file per driver key under
// "<dir>/blob", each holding the key (compared on read), the value and a
// checksum. Get returns the value's size (0: none, or not trusted) and copies
// it only when it fits in `capacity`.
void BlobStorePut(const std::string& dir, const void* key, size_t key_size, const void* value, size_t value_size);
size_t BlobStoreGet(const std::string& dir, const void* key, size_t key_size, void* value, size_t capacity);

}  // namespace gld::gl
