// The public program cache check (gld_warmup --verify).
#include "gl/cache/binary_cache_verify.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"
#include "util/logging.h"

namespace gld {

StatusOr<std::vector<CacheFileCheck>> VerifyProgramCache(const std::string& cache_dir, const Options& options) {
  GLD_RETURN_IF_ERROR(CheckOptions(options));
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  return gl::VerifyCacheDir(cache_dir, options);
}

}  // namespace gld
