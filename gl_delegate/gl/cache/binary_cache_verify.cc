#include "gl/cache/binary_cache_verify.h"

#include <algorithm>
#include <filesystem>

#include "gl/cache/binary_cache.h"
#include "gl/egl/driver_cache.h"
#include "gl/egl/egl_environment.h"
#include "gl/cache/program_cache.h"
#include "util/file_util.h"

namespace gld::gl {

StatusOr<std::vector<CacheFileCheck>> VerifyCacheDir(const std::string& cache_dir, const Options& options) {
  if (!IsDirectory(cache_dir)) return NotFoundError("cache_dir '" + cache_dir + "' is not an existing folder");
  const FileTrust trust = CacheTrust(options);
  if (trust == FileTrust::kOwner) {
    const Status folder = CheckTrustedFolder(cache_dir, "cache_dir");
    if (!folder.ok()) return FailedPreconditionError(folder.message() + " (Options::cache_allow_shared trusts it)");
  }
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(cache_dir, ec)) {
    // A folder or other non-file named like an entry is listed too: it
    // fails to read and is reported as unreadable.
    if (e.path().extension() == ".gldc") paths.push_back(e.path().string());
  }
  if (ec) return NotFoundError("cannot list cache_dir '" + cache_dir + "': " + ec.message());
  std::sort(paths.begin(), paths.end());

  EglOptions egl = EglOptionsFrom(options);
  egl.cache_dir = cache_dir;
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<GlEnvironment> env, GlEnvironment::Create(egl));
  GlEnvironment::ScopedCurrent current(*env);
  GLD_RETURN_IF_ERROR(current.status());

  std::vector<CacheFileCheck> checks;
  for (const std::string& path : paths) {
    CacheFileCheck c;
    c.file = path;
    auto bytes = ReadFileBytes(path, kMaxCacheFileBytes, "", trust);
    if (!bytes.ok()) {
      c.problem = "unreadable: " + bytes.status().message();
      checks.push_back(std::move(c));
      continue;
    }
    c.bytes = bytes->size();
    auto entry = DecodeCacheEntry(bytes->data(), bytes->size(), "");
    if (!entry.ok()) {
      c.problem = "bad: " + entry.status().message();
      checks.push_back(std::move(c));
      continue;
    }
    c.model_token = entry->model_token;
    c.programs = static_cast<int>(entry->programs.size());
    const std::string stale = StaleReason(entry->key, env->info());
    if (!stale.empty()) {
      c.problem = "stale: " + stale;
      checks.push_back(std::move(c));
      continue;
    }
    std::string first_refusal;
    for (const auto& [hash, binary] : entry->programs) {
      auto program = LoadProgramBinary(binary);
      if (program.ok()) {
        ++c.loaded;
      } else if (first_refusal.empty()) {
        first_refusal = binary.label + ": " + program.status().message();
      }
    }
    if (c.loaded < c.programs) {
      c.problem = "bad: " + std::to_string(c.programs - c.loaded) + " of " + std::to_string(c.programs) +
                  " programs refused by the driver (first: " + first_refusal + ")";
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

}  // namespace gld::gl
