#include "util/startup_phases.h"

namespace gld {

void PhaseTimes::Add(const std::string& name, double us, int count) {
  for (StartupPhase& row : rows_) {
    if (row.name == name) {
      row.us += us;
      row.count += count;
      return;
    }
  }
  rows_.push_back(StartupPhase{name, us, count});
}

void PhaseTimes::Append(const PhaseTimes& other, const std::string& prefix) {
  for (const StartupPhase& row : other.rows_) Add(prefix + row.name, row.us, row.count);
}

}  // namespace gld
