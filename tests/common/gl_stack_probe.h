// What this machine's GL stack itself cannot run, found by running it: the
// GL tests skip with the reason these give rather than fail on a driver that
// miscomputes or crashes, and run whole on every stack that passes them.
//
// The armhf root's Mesa llvmpipe under qemu-arm (scripts/test_cross.sh
// armhf; docs/ARM.md) is such a stack: its compute shaders convert floats to
// signed integers, floor them and pack them to halves wrongly, and a shader
// with an SSBO atomic crashes the process when it runs.
#pragma once

#include <string>

namespace gld::testing {

// Empty when a compute shader gives GLSL ES 3.1's int(), floor() and
// packHalf2x16() of a few exact values, or when no OpenGL ES 3.1 context can
// be made at all (the tests' own no-GL handling applies then); else what it
// got wrong and the renderer. Probed once per process, in a context of its
// own (the current context is put back).
std::string GlArithmeticDefect();

// Empty when a compute shader's SSBO atomics (atomicAdd, atomicCompSwap) run
// and count right, or when no context can be made; else why not. Probed
// once per process in a child process (gld_gl_stack_probe atomics), so a
// driver that crashes on them ends only that child.
std::string GlAtomicsDefect();

// The probes in this process (what gld_gl_stack_probe runs): 0 when sound, 1
// with *why set when the stack gets them wrong, 2 with *why set when no
// OpenGL ES 3.1 context can be made.
int ProbeGlArithmetic(std::string* why);
int ProbeGlAtomics(std::string* why);

}  // namespace gld::testing

// In a test: skips it, naming the defect, where the GL stack miscomputes
// the conversions every GL kernel relies on.
#define GLD_SKIP_IF_GL_ARITHMETIC_DEFECT()                                        \
  do {                                                                            \
    const std::string gld_gl_defect_ = ::gld::testing::GlArithmeticDefect();      \
    if (!gld_gl_defect_.empty()) GTEST_SKIP() << "GL stack defect: " << gld_gl_defect_; \
  } while (0)

// Also skips where the stack cannot run SSBO atomics (the GL index checks of
// GATHER / GATHER_ND record a fault with them).
#define GLD_SKIP_IF_GL_ATOMICS_DEFECT()                                           \
  do {                                                                            \
    const std::string gld_gl_defect_ = ::gld::testing::GlAtomicsDefect();         \
    if (!gld_gl_defect_.empty()) GTEST_SKIP() << "GL stack defect: " << gld_gl_defect_; \
  } while (0)
