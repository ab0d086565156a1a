#include "common/interrupt.h"

#include <signal.h>

#include <atomic>
#include <csignal>

namespace gld::tools {
namespace {

// The first signal's number, and the Interpreter whose invoke it cancels.
// The handler only reads and writes these (lock-free atomics, so
// async-signal-safe; one exchange even when two threads take a signal each)
// and calls Interpreter::Cancel, one atomic store.
std::atomic<int> g_stop_signal{0};
std::atomic<Interpreter*> g_cancel_target{nullptr};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");
static_assert(std::atomic<Interpreter*>::is_always_lock_free, "the signal handler needs a lock-free pointer");

extern "C" void OnStopSignal(int sig) {
  if (g_stop_signal.exchange(sig) != 0) {
    // Asked twice: stop now. signal() and raise() are async-signal-safe; the
    // signal is blocked inside the handler and delivered on its return.
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if (Interpreter* interp = g_cancel_target.load()) interp->Cancel();
}

}  // namespace

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // the library's reads and GL calls carry on
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int StopSignal() { return g_stop_signal.load(); }

const char* SignalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

CancelOnStop::CancelOnStop(Interpreter& interp) { g_cancel_target.store(&interp); }
CancelOnStop::~CancelOnStop() { g_cancel_target.store(nullptr); }

}  // namespace gld::tools
