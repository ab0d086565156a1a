// The trace recorder behind Options::enable_trace (Interpreter::trace()):
// timestamped events of one Interpreter, in the shape of the Trace Event
// Format (gld::TraceEvent). The runtime makes one only when tracing is
// asked for and hands a pointer down (runtime steps, GL segments, the
// program cache); every place that records checks that pointer first, so a
// null recorder costs one comparison.
//
// Times are microseconds of the steady clock since the recorder was made
// (the start of the Interpreter's creation). Tracks: each host thread that
// records gets one ("thread 1", ...), named tracks ("GPU") are made on
// request. Events recorded before EndStartup() are Create's and stay;
// ClearRuns() drops the later ones (Interpreter::ResetProfile).
//
// Bounded: the events of the last `max_runs` runs are kept (EndRun closes
// one run's events), older runs' are dropped as new ones end, and Events()
// starts with a metadata event "trace_dropped" counting the runs and events
// dropped, so a trace over a million invokes holds what a trace over
// `max_runs` does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gldelegate/types.hpp"

namespace gld {

class TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;

  // By default the trace keeps the last this many runs' events
  // (Options::trace_max_invokes, whose default is the same).
  static constexpr int kDefaultMaxRuns = 256;
  // Keeps the events of the last `max_runs` runs (at least 1).
  explicit TraceRecorder(int max_runs = kDefaultMaxRuns);
  size_t max_runs() const { return max_runs_; }

  // Microseconds since the recorder was made.
  double Micros(Clock::time_point t) const;
  double NowMicros() const { return Micros(Clock::now()); }

  // The calling thread's track, named "thread N" when first seen.
  int ThreadTrack();
  // A track of its own for `name` ("GPU"), made on first use.
  int NamedTrack(const std::string& name);

  // A complete event ('X') on track `tid`.
  void Complete(std::string name, const char* category, double ts_us, double dur_us, int tid,
                std::vector<TraceArg> args = {});
  // A counter event ('C') on the calling thread's track; `series` are numbers.
  void Counter(std::string name, double ts_us, std::vector<TraceArg> series);

  // What was recorded so far is Create's; ClearRuns keeps it.
  void EndStartup();
  void ClearRuns();
  // The events recorded since the last EndRun (or EndStartup) are one run's:
  // kept while they are among the last `max_runs` runs.
  void EndRun();
  // Runs and events dropped so far (the oldest runs beyond max_runs).
  uint64_t dropped_runs() const;
  uint64_t dropped_events() const;

  // Metadata first (process and track names), then the events by start
  // time, an enclosing event before those it encloses.
  std::vector<TraceEvent> Events() const;

  static TraceArg Text(std::string name, std::string text);
  static TraceArg Number(std::string name, double value);

 private:
  int AddTrackLocked(const std::string& name);

  mutable std::mutex mutex_;
  const Clock::time_point origin_;
  const int pid_;
  std::vector<TraceEvent> metadata_;
  std::vector<TraceEvent> events_;  // Create's, then the run in progress
  size_t startup_events_ = 0;
  bool started_ = false;  // EndStartup was called
  const size_t max_runs_;
  std::deque<std::vector<TraceEvent>> runs_;  // the kept runs, oldest first
  uint64_t dropped_runs_ = 0, dropped_events_ = 0;
  std::unordered_map<std::thread::id, int> threads_;
  std::unordered_map<std::string, int> named_;
  int next_tid_ = 1;
};

// A complete event over its scope on the calling thread's track; does
// nothing when the recorder is null.
class TraceScope {
 public:
  TraceScope(TraceRecorder* trace, const char* category, std::string name);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  void AddArg(TraceArg arg) {
    if (trace_ != nullptr) args_.push_back(std::move(arg));
  }

 private:
  TraceRecorder* trace_;
  const char* category_;
  std::string name_;
  TraceRecorder::Clock::time_point start_;
  std::vector<TraceArg> args_;
};

}  // namespace gld
