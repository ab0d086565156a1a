// gld_warmup --verify: every entry file of a cache folder, decoded, checked
// against this library and driver, and each program restored and linked.
#pragma once

#include <string>
#include <vector>

#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"

namespace gld::gl {

// Needs a GL context (made here, on the device options.egl_device names).
StatusOr<std::vector<CacheFileCheck>> VerifyCacheDir(const std::string& cache_dir, const Options& options);

}  // namespace gld::gl
