// SIGINT and SIGTERM for the tools that run a model (gld_run,
// gld_benchmark): the first signal is remembered and cancels the invoke
// running on the Interpreter a CancelOnStop names (Interpreter::Cancel, one
// atomic store: async-signal-safe), so it ends within a node, GL segment or
// loop iteration; a second signal ends the process as the default action
// would.
#pragma once

#include "gldelegate/gldelegate.hpp"

namespace gld::tools {

void InstallStopHandlers();
// The first SIGINT/SIGTERM's number; 0 while none came.
int StopSignal();
inline bool StopRequested() { return StopSignal() != 0; }
// "SIGINT", "SIGTERM"; "" for another number.
const char* SignalName(int sig);

// While it lives, a stop signal cancels `interp`'s invoke. Make it after the
// Interpreter and let it go first (a later declaration in the same scope).
class CancelOnStop {
 public:
  explicit CancelOnStop(Interpreter& interp);
  ~CancelOnStop();
  CancelOnStop(const CancelOnStop&) = delete;
  CancelOnStop& operator=(const CancelOnStop&) = delete;
};

}  // namespace gld::tools
