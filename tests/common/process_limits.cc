#include "common/process_limits.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace gld::testing {

uint64_t VmSizeBytes() {
  std::ifstream in("/proc/self/maps");
  std::string line;
  uint64_t bytes = 0;
  while (std::getline(in, line)) {
    // "begin-end perms offset dev inode path", begin and end in hex.
    char* end = nullptr;
    const uint64_t begin = std::strtoull(line.c_str(), &end, 16);
    if (end == nullptr || *end != '-') continue;
    const uint64_t last = std::strtoull(end + 1, nullptr, 16);
    if (last > begin) bytes += last - begin;
  }
  return bytes;
}

int MappingCount() {
  std::ifstream in("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

bool UnderAddressSanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

std::string ChildResult::Describe() const {
  std::ostringstream s;
  if (timed_out) {
    s << "the child did not finish in time (killed)";
  } else if (exited) {
    s << "the child exited with " << exit_code;
    if (exit_code == kEscaped) s << " (an exception escaped)";
  } else {
    s << "the child ended by signal " << signal << " (" << strsignal(signal) << ")";
  }
  return s.str();
}

ChildResult RunInChild(const std::function<int()>& body, int timeout_s) {
  ChildResult r;
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    // The child never returns into the test binary (it would run the rest
    // of the tests): an exception escaping `body` is exit code kEscaped.
    int code = kEscaped;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 || std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace gld::testing
