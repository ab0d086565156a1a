// gld_gl_stack_probe: runs tests/common/gl_stack_probe.h's probes of the GL
// stack in a process of their own (a driver that crashes on one ends only
// this process).
//
//   gld_gl_stack_probe arithmetic|atomics
//     exit 0: sound; 1: the stack gets it wrong (why on stdout); 2: no
//     OpenGL ES 3.1 context.
//   gld_gl_stack_probe --skip-unless-sound PROGRAM ARGS...
//     runs both probes (the atomics one in a child); where either finds a
//     defect, prints it and exits 77 (CTest's SKIP_RETURN_CODE of the test
//     whose command this wraps); else, or without a context at all, runs
//     PROGRAM in its place.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/gl_stack_probe.h"

namespace {

constexpr int kSkip = 77;

int Probe(const std::string& which) {
  std::string why;
  int rc = 2;
  if (which == "arithmetic") {
    rc = gld::testing::ProbeGlArithmetic(&why);
  } else if (which == "atomics") {
    rc = gld::testing::ProbeGlAtomics(&why);
  } else {
    std::fprintf(stderr, "gld_gl_stack_probe: unknown probe '%s' (arithmetic or atomics)\n", which.c_str());
    return 3;
  }
  if (!why.empty()) std::printf("%s\n", why.c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2) return Probe(argv[1]);
  if (argc >= 3 && std::strcmp(argv[1], "--skip-unless-sound") == 0) {
    // The atomics probe spawns this program again; the arithmetic one runs here.
    for (const std::string& defect : {gld::testing::GlArithmeticDefect(), gld::testing::GlAtomicsDefect()}) {
      if (!defect.empty()) {
        std::printf("skipped: GL stack defect: %s\n", defect.c_str());
        return kSkip;
      }
    }
    std::fflush(stdout);
    execv(argv[2], argv + 2);
    std::perror(argv[2]);
    return 127;
  }
  std::fprintf(stderr, "usage: %s arithmetic|atomics | --skip-unless-sound PROGRAM ARGS...\n", argv[0]);
  return 3;
}
