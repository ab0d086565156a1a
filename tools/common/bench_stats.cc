#include "common/bench_stats.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace gld::tools {

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  q = std::min(1.0, std::max(0.0, q));
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

TimingStats ComputeTimingStats(const std::vector<double>& samples) {
  TimingStats s;
  if (samples.empty()) return s;
  s.count = samples.size();
  s.first = samples.front();
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  double sq = 0;
  for (double v : samples) sq += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(s.count));
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = Quantile(sorted, 0.5);
  s.p90 = Quantile(sorted, 0.9);
  return s;
}

StatusOr<ProcessMemory> ParseProcStatus(const std::string& text) {
  ProcessMemory m;
  bool have_rss = false, have_hwm = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto field = [&](const char* name, uint64_t* out) {
      const std::string prefix = std::string(name) + ":";
      if (line.rfind(prefix, 0) != 0) return false;
      std::istringstream v(line.substr(prefix.size()));
      uint64_t kb = 0;
      std::string unit;
      if (!(v >> kb >> unit) || unit != "kB") return false;
      *out = kb * 1024;
      return true;
    };
    have_rss = field("VmRSS", &m.rss_bytes) || have_rss;
    have_hwm = field("VmHWM", &m.peak_rss_bytes) || have_hwm;
  }
  if (!have_rss || !have_hwm) return UnavailableError("no VmRSS/VmHWM lines in the process status");
  return m;
}

StatusOr<ProcessMemory> ReadProcessMemory() {
  std::ifstream in("/proc/self/status");
  if (!in) return UnavailableError("cannot read /proc/self/status");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseProcStatus(ss.str());
}

}  // namespace gld::tools
