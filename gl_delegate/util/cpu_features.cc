#include "util/cpu_features.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define GLD_HAVE_CPUID 1
#include <cpuid.h>
#endif
#if (defined(__aarch64__) || defined(__arm__)) && defined(__linux__)
#define GLD_HAVE_HWCAP 1
#include <sys/auxv.h>
#endif

namespace gld {

namespace {

constexpr uint32_t kOsxsave = 1u << 27;  // CPUID.1:ECX
constexpr uint32_t kAvx = 1u << 28;      // CPUID.1:ECX
constexpr uint32_t kF16c = 1u << 29;     // CPUID.1:ECX
constexpr uint32_t kFma = 1u << 12;      // CPUID.1:ECX
constexpr uint32_t kAvx2 = 1u << 5;      // CPUID.(7,0):EBX
constexpr uint32_t kAvx512f = 1u << 16;  // CPUID.(7,0):EBX
constexpr uint32_t kAvx512bw = 1u << 30;  // CPUID.(7,0):EBX
constexpr uint32_t kAvx512vl = 1u << 31;  // CPUID.(7,0):EBX
constexpr uint32_t kAvx512vnni = 1u << 11;  // CPUID.(7,0):ECX
constexpr uint32_t kAvx512vbmi = 1u << 1;   // CPUID.(7,0):ECX
// XCR0 state components: bit 1 SSE (XMM), bit 2 AVX (upper halves of YMM);
// bit 5 opmask (k0-k7), bit 6 ZMM_Hi256 (upper halves of ZMM0-15), bit 7
// Hi16_ZMM (ZMM16-31).
constexpr uint64_t kXcr0Ymm = 0x06;
constexpr uint64_t kXcr0Zmm = 0xe0;
// AT_HWCAP bits: AArch64 HWCAP_ASIMDHP, HWCAP_ASIMDDP; 32-bit ARM HWCAP_NEON.
constexpr uint64_t kHwcapAsimdHp = uint64_t{1} << 10;
constexpr uint64_t kHwcapAsimdDp = uint64_t{1} << 20;
constexpr uint64_t kHwcapArmNeon = uint64_t{1} << 12;

}  // namespace

CpuFeatures DecodeCpuFeatures(const CpuidWords& words) {
  CpuFeatures f;
  const uint64_t xcr0 = (words.leaf1_ecx & kOsxsave) != 0 ? words.xcr0 : 0;
  const bool os_saves_ymm = (xcr0 & kXcr0Ymm) == kXcr0Ymm;
  const bool os_saves_zmm = (xcr0 & kXcr0Zmm) == kXcr0Zmm;
  f.avx = os_saves_ymm && (words.leaf1_ecx & kAvx) != 0;
  f.f16c = f.avx && (words.leaf1_ecx & kF16c) != 0;
  f.avx2_fma = f.avx && (words.leaf7_ebx & kAvx2) != 0 && (words.leaf1_ecx & kFma) != 0;
  f.avx512f = f.avx && os_saves_zmm && (words.leaf7_ebx & kAvx512f) != 0;
  f.avx512vnni = f.avx512f && (words.leaf7_ebx & kAvx512bw) != 0 && (words.leaf7_ebx & kAvx512vl) != 0 &&
                 (words.leaf7_ecx & kAvx512vnni) != 0;
  f.avx512vbmi = f.avx512f && (words.leaf7_ebx & kAvx512bw) != 0 && (words.leaf7_ecx & kAvx512vbmi) != 0;
  return f;
}

CpuidWords ReadCpuidWords() {
  CpuidWords words;
#ifdef GLD_HAVE_CPUID
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return words;
  words.leaf1_ecx = c;
  // __get_cpuid_count checks the highest leaf first.
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) != 0) {
    words.leaf7_ebx = b;
    words.leaf7_ecx = c;
  }
  if ((words.leaf1_ecx & kOsxsave) != 0) {
    // The instruction in asm rather than _xgetbv(), which would need the
    // "xsave" target attribute here.
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    words.xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  }
#endif
  return words;
}

CpuFeatures DecodeArmHwcap(uint64_t hwcap, bool aarch64) {
  CpuFeatures f;
  f.neon = aarch64 || (hwcap & kHwcapArmNeon) != 0;
  f.neon_dot = aarch64 && (hwcap & kHwcapAsimdDp) != 0;
  f.neon_fp16 = aarch64 && (hwcap & kHwcapAsimdHp) != 0;
  return f;
}

const CpuFeatures& HostCpuFeatures() {
#ifdef GLD_HAVE_HWCAP
#ifdef __aarch64__
  static const CpuFeatures features = DecodeArmHwcap(::getauxval(AT_HWCAP), true);
#else
  static const CpuFeatures features = DecodeArmHwcap(::getauxval(AT_HWCAP), false);
#endif
#else
  static const CpuFeatures features = DecodeCpuFeatures(ReadCpuidWords());
#endif
  return features;
}

}  // namespace gld
