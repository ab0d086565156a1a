// Figures for benchmarks: statistics of a list of timings, and this
// process's memory from /proc/self/status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"

namespace gld::tools {

struct TimingStats {
  size_t count = 0;
  double first = 0;  // the first sample
  double mean = 0;
  double std = 0;    // population standard deviation
  double min = 0, median = 0, p90 = 0, max = 0;
};
// Zeros for an empty list. Percentiles interpolate linearly between the
// sorted samples (numpy's default), so the median of {1, 2} is 1.5.
TimingStats ComputeTimingStats(const std::vector<double>& samples);
// The q-quantile (q in [0, 1]) of `sorted` by linear interpolation.
double Quantile(const std::vector<double>& sorted, double q);

struct ProcessMemory {
  uint64_t rss_bytes = 0;       // VmRSS: resident now
  uint64_t peak_rss_bytes = 0;  // VmHWM: the most resident so far
};
// Reads /proc/self/status. Unavailable where it does not exist or lacks the
// fields (not Linux).
StatusOr<ProcessMemory> ReadProcessMemory();
// Parses the text of a /proc/<pid>/status file ("VmRSS:   1234 kB" lines).
StatusOr<ProcessMemory> ParseProcStatus(const std::string& text);

}  // namespace gld::tools
