#include "gl/workgroup_tuning.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "util/file_util.h"
#include "util/hex.h"
#include "util/logging.h"

namespace gld::gl {

namespace {

constexpr char kMagic[] = "gldelegate workgroup tuning 1";
constexpr uint64_t kMaxTuningBytes = uint64_t{16} << 20;

std::atomic<int64_t> g_timing_runs{0};

uint64_t Fnv1a(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

bool IsWorkgroupDefine(const std::string& source, size_t line_start) {
  return source.compare(line_start, 12, "#define WG_X") == 0 || source.compare(line_start, 12, "#define WG_Y") == 0 ||
         source.compare(line_start, 12, "#define WG_Z") == 0;
}

// Parses "<16 hex> <x> <y> <z>".
bool ParseEntry(const std::string& line, uint64_t* key, Workgroup* wg) {
  char hex[17] = {};
  unsigned x = 0, y = 0, z = 0;
  char extra = 0;
  if (std::sscanf(line.c_str(), "%16[0-9a-f] %u %u %u %c", hex, &x, &y, &z, &extra) != 4) return false;
  if (std::string(hex).size() != 16) return false;
  *key = std::stoull(hex, nullptr, 16);
  *wg = {x, y, z};
  return true;
}

}  // namespace

uint64_t TuningKey(const std::string& source, const std::array<uint32_t, 3>& grid) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t pos = 0;
  while (pos < source.size()) {
    size_t end = source.find('\n', pos);
    end = end == std::string::npos ? source.size() : end + 1;
    if (!IsWorkgroupDefine(source, pos)) h = Fnv1a(h, source.data() + pos, end - pos);
    pos = end;
  }
  return Fnv1a(h, grid.data(), sizeof(uint32_t) * 3);
}

std::string WithWorkgroup(const std::string& source, const Workgroup& wg) {
  std::string out;
  out.reserve(source.size());
  size_t pos = 0;
  while (pos < source.size()) {
    size_t end = source.find('\n', pos);
    end = end == std::string::npos ? source.size() : end + 1;
    if (IsWorkgroupDefine(source, pos)) {
      const char axis = source[pos + 11];
      out += std::string("#define WG_") + axis + " " + std::to_string(wg[static_cast<size_t>(axis - 'X')]) + "\n";
    } else {
      out.append(source, pos, end - pos);
    }
    pos = end;
  }
  return out;
}

bool WorkgroupFits(const Workgroup& wg, const GlInfo& limits) {
  uint64_t product = 1;
  for (size_t k = 0; k < 3; ++k) {
    if (wg[k] == 0) return false;
    if (limits.max_workgroup_size[k] > 0 && wg[k] > static_cast<uint32_t>(limits.max_workgroup_size[k])) return false;
    product *= wg[k];
  }
  const int max_invocations = limits.max_workgroup_invocations > 0 ? limits.max_workgroup_invocations : 128;
  return product <= static_cast<uint64_t>(max_invocations);
}

std::vector<Workgroup> CandidateWorkgroups(const std::array<uint32_t, 3>& grid, const Workgroup& default_wg,
                                           const GlInfo& limits) {
  const Workgroup menu[] = {{8, 4, 2}, {8, 8, 1}, {16, 4, 1}, {16, 8, 1}, {32, 4, 1}, {4, 4, 4},
                            {64, 1, 1}, {8, 1, 8}, {1, 1, 64}, {32, 1, 1}, {16, 16, 1}};
  std::vector<Workgroup> out = {default_wg};
  for (const Workgroup& wg : menu) {
    bool useful = WorkgroupFits(wg, limits);
    // No axis much wider than the grid (those invocations would idle).
    for (size_t k = 0; k < 3 && useful; ++k) {
      useful = wg[k] == 1 || wg[k] <= std::max<uint32_t>(grid[k], 1) * 2;
      const int limit = limits.max_workgroup_count[k] > 0 ? limits.max_workgroup_count[k] : 65535;
      useful = useful && (grid[k] + wg[k] - 1) / wg[k] <= static_cast<uint32_t>(limit);
    }
    if (useful && std::find(out.begin(), out.end(), wg) == out.end()) out.push_back(wg);
  }
  return out;
}

std::string EncodeTuning(const WorkgroupTuning& tuning, const std::string& driver_key) {
  std::string out = std::string(kMagic) + "\n" + driver_key + "--\n";
  for (const auto& [key, wg] : tuning.best) {
    out += Hex64(key) + " " + std::to_string(wg[0]) + " " + std::to_string(wg[1]) + " " + std::to_string(wg[2]) + "\n";
  }
  return out;
}

StatusOr<WorkgroupTuning> DecodeTuning(const std::string& text, const std::string& driver_key,
                                       const GlInfo& limits) {
  const std::string head = std::string(kMagic) + "\n";
  if (text.compare(0, head.size(), head) != 0) return InvalidArgumentError("corrupt: not a workgroup tuning file");
  const size_t separator = text.find("\n--\n", head.size() - 1);
  if (separator == std::string::npos) return InvalidArgumentError("corrupt: no end of the driver lines");
  const std::string key = text.substr(head.size(), separator + 1 - head.size());
  if (key != driver_key) {
    std::istringstream a(key), b(driver_key);
    std::string la, lb;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) {
    }
    return FailedPreconditionError("foreign: made for '" + la + "', this driver has '" + lb + "'");
  }
  WorkgroupTuning tuning;
  std::istringstream in(text.substr(separator + 4));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    uint64_t k = 0;
    Workgroup wg{};
    if (!ParseEntry(line, &k, &wg)) return InvalidArgumentError("corrupt: entry " + std::to_string(n) + " '" + line + "'");
    if (!WorkgroupFits(wg, limits)) {
      return InvalidArgumentError("corrupt: entry " + std::to_string(n) + ": workgroup outside the driver's limits");
    }
    tuning.best[k] = wg;
  }
  return tuning;
}

std::string TuningPath(const std::string& cache_dir) { return cache_dir + "/workgroups.gldt"; }

WorkgroupTuning LoadTuning(const std::string& cache_dir, FileTrust trust, const std::string& driver_key,
                           const GlInfo& limits) {
  const std::string path = TuningPath(cache_dir);
  if (!PathExists(path)) return {};
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path, kMaxTuningBytes, "workgroup tuning", trust);
  StatusOr<WorkgroupTuning> tuning =
      bytes.ok() ? DecodeTuning(std::string(bytes->begin(), bytes->end()), driver_key, limits)
                 : StatusOr<WorkgroupTuning>(bytes.status());
  if (!tuning.ok()) {
    Log().warn("workgroup tuning '{}' ignored (default workgroups used): {}", path, tuning.status().message());
    return {};
  }
  return std::move(tuning).value();
}

Status SaveTuning(const std::string& cache_dir, FileTrust trust, const std::string& driver_key,
                  const WorkgroupTuning& tuning) {
  const std::string text = EncodeTuning(tuning, driver_key);
  return WriteFileAtomic(TuningPath(cache_dir), text.data(), text.size(), trust);
}

int64_t WorkgroupTimingRuns() { return g_timing_runs.load(); }
void CountWorkgroupTimingRun() { ++g_timing_runs; }

}  // namespace gld::gl
