// The times of the parts of a Model's loading and preparation (before any
// Interpreter, and so before its trace recorder, exists): one row per phase
// name, its time summed over the calls that name it. Always on and cheap:
// two steady-clock reads per phase, a phase being a whole stage (a pass,
// the constants' copy), never a per-run thing. The Runtime puts the rows
// into its startup trace (Options::enable_trace; gld_benchmark
// --startup_phases prints them with the Runtime's own startup events).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gld {

// One row: "load: verify the flatbuffer", "prepare: passes: fuse_activation".
struct StartupPhase {
  std::string name;
  double us = 0;
  int count = 0;
};

class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds `us` (and `count` calls) to the row `name`, made at the end when new.
  void Add(const std::string& name, double us, int count = 1);
  // Every row of `other`, its name after `prefix`.
  void Append(const PhaseTimes& other, const std::string& prefix = "");
  const std::vector<StartupPhase>& rows() const { return rows_; }
  bool empty() const { return rows_.empty(); }

  static double MicrosSince(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  }

 private:
  std::vector<StartupPhase> rows_;
};

// Times its scope into `times` (null: nothing) as the phase `name`.
class PhaseScope {
 public:
  PhaseScope(PhaseTimes* times, std::string name) : times_(times), name_(std::move(name)) {}
  ~PhaseScope() {
    if (times_ != nullptr) times_->Add(name_, PhaseTimes::MicrosSince(start_));
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseTimes* times_;
  std::string name_;
  PhaseTimes::Clock::time_point start_ = PhaseTimes::Clock::now();
};

}  // namespace gld
