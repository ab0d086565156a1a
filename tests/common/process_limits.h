// What tests of process-wide resources need: this process's address space
// and mappings (/proc/self), whether it runs under AddressSanitizer, and a
// function run in a forked child under a deadline, so that a crash, an abort
// or a hang in it is a failed check instead of a dead or stuck test binary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace gld::testing {

// The process's address space in bytes: the sizes of its mappings in
// /proc/self/maps (what VmSize of /proc/self/status counts), 0 when
// unreadable. From the maps, not the status: under qemu-user the maps are
// the emulated program's, the status the emulator's (its translation
// buffers grow as it runs).
uint64_t VmSizeBytes();
// Lines of /proc/self/maps: the process's mappings.
int MappingCount();

// True under AddressSanitizer (whose allocator and quarantine keep freed
// memory mapped, and which reserves terabytes of address space).
bool UnderAddressSanitizer();

constexpr int kEscaped = 111;

struct ChildResult {
  bool timed_out = false;
  bool exited = false;  // normally, with exit_code
  int exit_code = -1;
  int signal = 0;       // the signal that ended it, when it did not exit
  std::string Describe() const;
};

// Forks; the child runs `body` and leaves with _exit(its value), or with
// kEscaped when an exception escapes it. The parent
// waits at most `timeout_s` seconds, then kills the child (SIGKILL).
ChildResult RunInChild(const std::function<int()>& body, int timeout_s);

}  // namespace gld::testing
