// util/cpu_features: the flags decided from made-up CPUID/XCR0 words (a CPU
// bit counts only with the OS's register state), and this machine's flags
// against the compiler's own runtime check.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "util/cpu_features.h"

namespace gld {
namespace {

constexpr uint32_t kOsxsave = 1u << 27, kAvx = 1u << 28, kF16c = 1u << 29;  // CPUID.1:ECX
constexpr uint32_t kAvx512f = 1u << 16;                                      // CPUID.(7,0):EBX
constexpr uint64_t kXmm = 1u << 1, kYmm = 1u << 2;
constexpr uint64_t kOpmask = 1u << 5, kZmmHi256 = 1u << 6, kHi16Zmm = 1u << 7;
constexpr uint64_t kAllZmm = kOpmask | kZmmHi256 | kHi16Zmm;

CpuidWords Words(uint32_t leaf1_ecx, uint32_t leaf7_ebx, uint64_t xcr0) {
  CpuidWords w;
  w.leaf1_ecx = leaf1_ecx;
  w.leaf7_ebx = leaf7_ebx;
  w.xcr0 = xcr0;
  return w;
}

// The flags of a CPU with AVX (and OSXSAVE) and these leaf 7 words.
CpuFeatures DecodeLeaf7(uint32_t ebx, uint32_t ecx, uint64_t xcr0) {
  CpuidWords w = Words(kOsxsave | kAvx, ebx, xcr0);
  w.leaf7_ecx = ecx;
  return DecodeCpuFeatures(w);
}

TEST(CpuFeatures, EverythingWhereCpuAndOsHaveIt) {
  const CpuFeatures f = DecodeCpuFeatures(Words(kOsxsave | kAvx | kF16c, kAvx512f, 1 | kXmm | kYmm | kAllZmm));
  EXPECT_TRUE(f.avx);
  EXPECT_TRUE(f.f16c);
  EXPECT_TRUE(f.avx512f);
}

// VNNI counts with AVX-512F, BW and VL (CPUID.(7,0):EBX bits 30 and 31) and
// its own bit (ECX bit 11).
TEST(CpuFeatures, Avx512VnniNeedsBwVlAndF) {
  constexpr uint32_t kBw = 1u << 30, kVl = 1u << 31, kVnni = 1u << 11;
  const uint64_t all = 1 | kXmm | kYmm | kAllZmm;
  EXPECT_TRUE(DecodeLeaf7(kAvx512f | kBw | kVl, kVnni, all).avx512vnni);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kBw | kVl, 0, all).avx512vnni);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kVl, kVnni, all).avx512vnni);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kBw, kVnni, all).avx512vnni);
  EXPECT_FALSE(DecodeLeaf7(kBw | kVl, kVnni, all).avx512vnni);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kBw | kVl, kVnni, 1 | kXmm | kYmm).avx512vnni);  // no ZMM state
}

// VBMI counts with AVX-512F and BW and its own bit (ECX bit 1).
TEST(CpuFeatures, Avx512VbmiNeedsBwAndF) {
  constexpr uint32_t kBw = 1u << 30, kVbmi = 1u << 1, kVnni = 1u << 11;
  const uint64_t all = 1 | kXmm | kYmm | kAllZmm;
  EXPECT_TRUE(DecodeLeaf7(kAvx512f | kBw, kVbmi, all).avx512vbmi);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kBw, kVnni, all).avx512vbmi);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f, kVbmi, all).avx512vbmi);
  EXPECT_FALSE(DecodeLeaf7(kBw, kVbmi, all).avx512vbmi);
  EXPECT_FALSE(DecodeLeaf7(kAvx512f | kBw, kVbmi, 1 | kXmm | kYmm).avx512vbmi);  // no ZMM state
}

// AVX2 + FMA (the GLD_AVX2 kernels) counts with both bits, AVX's own bit
// and the YMM state.
TEST(CpuFeatures, Avx2FmaNeedsBothBitsAndTheYmmState) {
  constexpr uint32_t kFma = 1u << 12, kAvx2 = 1u << 5;  // CPUID.1:ECX, CPUID.(7,0):EBX
  const uint64_t ymm = 1 | kXmm | kYmm;
  EXPECT_TRUE(DecodeCpuFeatures(Words(kOsxsave | kAvx | kFma, kAvx2, ymm)).avx2_fma);
  EXPECT_FALSE(DecodeCpuFeatures(Words(kOsxsave | kAvx, kAvx2, ymm)).avx2_fma);
  EXPECT_FALSE(DecodeCpuFeatures(Words(kOsxsave | kAvx | kFma, 0, ymm)).avx2_fma);
  EXPECT_FALSE(DecodeCpuFeatures(Words(kOsxsave | kFma, kAvx2, ymm)).avx2_fma);
  EXPECT_FALSE(DecodeCpuFeatures(Words(kOsxsave | kAvx | kFma, kAvx2, 1 | kXmm)).avx2_fma);
  EXPECT_FALSE(DecodeCpuFeatures(Words(kAvx | kFma, kAvx2, ymm)).avx2_fma);  // no OSXSAVE
}

TEST(CpuFeatures, NothingWithoutOsxsave) {
  // Without OSXSAVE XGETBV faults, so whatever xcr0 holds is not looked at.
  const CpuFeatures f = DecodeCpuFeatures(Words(kAvx | kF16c, kAvx512f, 1 | kXmm | kYmm | kAllZmm));
  EXPECT_FALSE(f.avx);
  EXPECT_FALSE(f.f16c);
  EXPECT_FALSE(f.avx512f);
}

TEST(CpuFeatures, NothingVexWhenTheOsDoesNotSaveYmm) {
  for (uint64_t xcr0 : {uint64_t{1}, 1 | kXmm, 1 | kYmm, 1 | kXmm | kAllZmm}) {
    const CpuFeatures f = DecodeCpuFeatures(Words(kOsxsave | kAvx | kF16c, kAvx512f, xcr0));
    EXPECT_FALSE(f.avx) << xcr0;
    EXPECT_FALSE(f.f16c) << xcr0;
    EXPECT_FALSE(f.avx512f) << xcr0;
  }
}

TEST(CpuFeatures, Avx512fNeedsEveryZmmStateComponent) {
  // An OS that saves YMM but leaves AVX-512 off (or only part of its state).
  for (uint64_t zmm : {uint64_t{0}, kOpmask, kOpmask | kZmmHi256, kZmmHi256 | kHi16Zmm, kOpmask | kHi16Zmm}) {
    const CpuFeatures f = DecodeCpuFeatures(Words(kOsxsave | kAvx | kF16c, kAvx512f, 1 | kXmm | kYmm | zmm));
    EXPECT_TRUE(f.avx) << zmm;
    EXPECT_TRUE(f.f16c) << zmm;
    EXPECT_FALSE(f.avx512f) << zmm;
  }
}

TEST(CpuFeatures, EachCpuBitDecidesItsOwnFlag) {
  const uint64_t xcr0 = 1 | kXmm | kYmm | kAllZmm;
  const CpuFeatures no_f16c = DecodeCpuFeatures(Words(kOsxsave | kAvx, kAvx512f, xcr0));
  EXPECT_TRUE(no_f16c.avx);
  EXPECT_FALSE(no_f16c.f16c);
  EXPECT_TRUE(no_f16c.avx512f);
  const CpuFeatures no_avx512 = DecodeCpuFeatures(Words(kOsxsave | kAvx | kF16c, 0, xcr0));
  EXPECT_TRUE(no_avx512.f16c);
  EXPECT_FALSE(no_avx512.avx512f);
  // F16C and AVX-512F are VEX/EVEX code that needs AVX's state and AVX.
  const CpuFeatures no_avx = DecodeCpuFeatures(Words(kOsxsave | kF16c, kAvx512f, xcr0));
  EXPECT_FALSE(no_avx.avx);
  EXPECT_FALSE(no_avx.f16c);
  EXPECT_FALSE(no_avx.avx512f);
}

TEST(CpuFeatures, HostIsReadOnceAndAgreesWithTheCompiler) {
  const CpuFeatures& host = HostCpuFeatures();
  EXPECT_EQ(&host, &HostCpuFeatures());
  const CpuFeatures again = DecodeCpuFeatures(ReadCpuidWords());
  EXPECT_EQ(host.avx, again.avx);
  EXPECT_EQ(host.f16c, again.f16c);
  EXPECT_EQ(host.avx512f, again.avx512f);
  EXPECT_EQ(host.avx2_fma, again.avx2_fma);
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  // __builtin_cpu_supports (libgcc, compiler-rt) also asks XCR0 for the AVX
  // and AVX-512 state, so on a real machine it answers the same.
  __builtin_cpu_init();
  EXPECT_EQ(host.avx, __builtin_cpu_supports("avx") != 0);
#if !defined(__clang__)
  // Debian 12's clang (14) does not know "f16c" here: a compile error.
  EXPECT_EQ(host.f16c, __builtin_cpu_supports("f16c") != 0);
#endif
  EXPECT_EQ(host.avx512f, __builtin_cpu_supports("avx512f") != 0);
  EXPECT_EQ(host.avx2_fma, __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0);
  EXPECT_EQ(host.avx512vbmi, __builtin_cpu_supports("avx512vbmi") != 0 && host.avx512f &&
                                 __builtin_cpu_supports("avx512bw") != 0);
#else
  EXPECT_FALSE(host.avx || host.f16c || host.avx2_fma || host.avx512f);
#endif
}

TEST(CpuFeatures, ArmFlagsFromTheHwcapWord) {
  constexpr uint64_t kAsimdHp = uint64_t{1} << 10, kAsimdDp = uint64_t{1} << 20, kArmNeon = uint64_t{1} << 12;
  const CpuFeatures bare = DecodeArmHwcap(0, true);  // AArch64: NEON always
  EXPECT_TRUE(bare.neon);
  EXPECT_FALSE(bare.neon_dot || bare.neon_fp16);
  const CpuFeatures dot = DecodeArmHwcap(kAsimdDp, true);
  EXPECT_TRUE(dot.neon_dot);
  EXPECT_FALSE(dot.neon_fp16);
  EXPECT_TRUE(DecodeArmHwcap(kAsimdHp, true).neon_fp16);
  // 32-bit ARM: NEON only with its bit, and never the AArch64 extensions.
  EXPECT_FALSE(DecodeArmHwcap(kAsimdDp | kAsimdHp, false).neon);
  const CpuFeatures arm = DecodeArmHwcap(kArmNeon | kAsimdDp | kAsimdHp, false);
  EXPECT_TRUE(arm.neon);
  EXPECT_FALSE(arm.neon_dot || arm.neon_fp16 || arm.avx);
}

TEST(CpuFeatures, HostArmFlagsAgreeWithTheArchitecture) {
  const CpuFeatures& host = HostCpuFeatures();
#if defined(__aarch64__)
  EXPECT_TRUE(host.neon);
#elif defined(__arm__)
  // NEON where the kernel says so (armhf's baseline does not assume it);
  // the AArch64 extensions never.
  EXPECT_FALSE(host.neon_dot || host.neon_fp16);
#else
  EXPECT_FALSE(host.neon || host.neon_dot || host.neon_fp16);
#endif
}

// scripts/test_cross.sh runs the AArch64 tests on qemu's default CPU (dot
// product) and the kernel tests again on a Cortex-A53 (none), saying which
// it means (GLD_EXPECT_NEON_DOT): each pass takes the kernels' path it is
// there to test.
TEST(CpuFeatures, DotProductAsTheEmulatedCpuHasIt) {
  const char* want = std::getenv("GLD_EXPECT_NEON_DOT");
  if (want == nullptr) GTEST_SKIP() << "GLD_EXPECT_NEON_DOT is not set (scripts/test_cross.sh sets it)";
  EXPECT_EQ(HostCpuFeatures().neon_dot, std::string(want) == "1") << "GLD_EXPECT_NEON_DOT=" << want;
}

}  // namespace
}  // namespace gld
