// Workgroup sizes chosen by measurement and kept in the cache folder
// (Options::tune_workgroups, gld_warmup --tune). A tuning maps a dispatch's
// key (its shader source less the workgroup defines, and its grid) to the
// workgroup that ran it fastest on this driver. The file
// "<cache_dir>/workgroups.gldt" is text:
//   gldelegate workgroup tuning 1
//   <the driver lines of the program cache key (CacheKeyDriverPart)>
//   --
//   <16 hex digits of the key> <x> <y> <z>      (one line per dispatch)
// A file made on another driver or library version (foreign), or one that
// does not parse (corrupt), is ignored with a warning; plans then keep the
// default workgroups. Reading, decoding and choosing candidates need no GL;
// timing candidates does (TimeWorkgroups, gl/gl_segment.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gl/codegen/shader_generator.h"
#include "gl/egl/egl_environment.h"
#include "gldelegate/status.hpp"

#include "util/file_util.h"

namespace gld::gl {

struct WorkgroupTuning {
  std::map<uint64_t, Workgroup> best;
};

// The key of a dispatch: its source without the WG_X/WG_Y/WG_Z defines, and
// its grid.
uint64_t TuningKey(const std::string& source, const std::array<uint32_t, 3>& grid);

// `source` with its workgroup defines set to `wg` (the generator writes them
// as "#define WG_X <n>" lines).
std::string WithWorkgroup(const std::string& source, const Workgroup& wg);

// A few shapes worth timing for `grid` within the driver's limits, the
// default first; none larger than the grid needs along an axis.
std::vector<Workgroup> CandidateWorkgroups(const std::array<uint32_t, 3>& grid, const Workgroup& default_wg,
                                           const GlInfo& limits);

// A workgroup `limits` allows (each axis and the product).
bool WorkgroupFits(const Workgroup& wg, const GlInfo& limits);

std::string EncodeTuning(const WorkgroupTuning& tuning, const std::string& driver_key);
// FailedPrecondition "foreign: ..." for another driver's file;
// InvalidArgument "corrupt: line N: ..." for one that does not parse.
StatusOr<WorkgroupTuning> DecodeTuning(const std::string& text, const std::string& driver_key,
                                       const GlInfo& limits);

// "<cache_dir>/workgroups.gldt"
std::string TuningPath(const std::string& cache_dir);
// The tuning in `cache_dir`; empty when there is none, and empty with a
// warning naming the file when it is foreign, corrupt or unreadable.
WorkgroupTuning LoadTuning(const std::string& cache_dir, FileTrust trust, const std::string& driver_key,
                           const GlInfo& limits);
// Writes it (temporary file and rename).
Status SaveTuning(const std::string& cache_dir, FileTrust trust, const std::string& driver_key,
                  const WorkgroupTuning& tuning);

// Candidate workgroups timed in this process (each timed run counts once).
int64_t WorkgroupTimingRuns();
void CountWorkgroupTimingRun();

}  // namespace gld::gl
