// What the host's x86 CPU can run, read once with CPUID and XGETBV: the one
// place the library asks (half.cc's F16C conversion, the CPU kernels'
// AVX2 and AVX-512F paths). An instruction set counts only where the OS also saves the
// registers it uses across context switches, as XCR0 (read by XGETBV) says;
// a CPU bit alone is not enough (a kernel may leave AVX-512 state off).
// On ARM Linux the flags below the x86 ones come from the kernel's hardware
// capability words (getauxval(AT_HWCAP)); elsewhere every flag is false.
#pragma once

#include <cstdint>

namespace gld {

struct CpuFeatures {
  // AVX: 256-bit float vectors in the YMM registers (VEX encoding). The CPU
  // has it (CPUID.1:ECX bit 28) and the OS saves XMM and YMM state (XCR0
  // bits 1 and 2).
  bool avx = false;
  // F16C: VCVTPH2PS / VCVTPS2PH, fp16 <-> fp32 eight values at a time
  // (CPUID.1:ECX bit 29). VEX-encoded, so it needs the YMM state; counted
  // only with avx.
  bool f16c = false;
  // AVX2 and FMA: 256-bit integer vectors and fused multiply-adds on YMM
  // (CPUID.(7,0):EBX bit 5, CPUID.1:ECX bit 12), the x86-64-v3 level the
  // GLD_AVX2 kernels are compiled for; counted only with avx.
  bool avx2_fma = false;
  // AVX-512 Foundation: 512-bit vectors in 32 ZMM registers and the 8 opmask
  // registers (CPUID.(7,0):EBX bit 16). The OS must save the opmask, the upper
  // halves of ZMM0-15 and all of ZMM16-31 (XCR0 bits 5, 6, 7) as well as the
  // YMM state; counted only with avx.
  bool avx512f = false;
  // AVX-512 BW, VL and VNNI (CPUID.(7,0):EBX bits 30 and 31, ECX bit 11):
  // byte and word vectors, masked 128-bit stores and VPDPBUSD, the int8 dot
  // product of four pairs into int32; counted only with avx512f.
  bool avx512vnni = false;
  // AVX-512 VBMI (CPUID.(7,0):ECX bit 1): VPERMI2B / VPERMT2B, a 128-entry
  // byte table looked up for 64 bytes at once; counted only with avx512f
  // and BW.
  bool avx512vbmi = false;
  // ARM Advanced SIMD (NEON): 128-bit integer and float vectors. Every
  // AArch64 CPU has it; on 32-bit ARM, HWCAP_NEON (AT_HWCAP bit 12).
  bool neon = false;
  // AArch64 dot product (SDOT / UDOT: four int8 products summed into each
  // int32 lane), HWCAP_ASIMDDP (AT_HWCAP bit 20); counted only with neon.
  bool neon_dot = false;
  // AArch64 half-precision vector arithmetic, HWCAP_ASIMDHP (AT_HWCAP bit
  // 10); counted only with neon.
  bool neon_fp16 = false;
};

// The ARM flags from the AT_HWCAP word of an AArch64 (aarch64 true) or a
// 32-bit ARM kernel, so that the decision can be tested with any CPU's word.
CpuFeatures DecodeArmHwcap(uint64_t hwcap, bool aarch64);

// The CPUID and XCR0 words the flags are decided from, so that the decision
// can be tested with any CPU's values.
struct CpuidWords {
  uint32_t leaf1_ecx = 0;  // CPUID.(EAX=1):ECX; bit 27 OSXSAVE: XGETBV may be used
  uint32_t leaf7_ebx = 0;  // CPUID.(EAX=7,ECX=0):EBX; 0 where leaf 7 does not exist
  uint32_t leaf7_ecx = 0;  // CPUID.(EAX=7,ECX=0):ECX
  uint64_t xcr0 = 0;       // XGETBV(ECX=0); read only with OSXSAVE (it faults otherwise)
};

CpuFeatures DecodeCpuFeatures(const CpuidWords& words);

// This machine's words (all zero off x86 or without GCC/Clang's <cpuid.h>).
CpuidWords ReadCpuidWords();

// DecodeCpuFeatures(ReadCpuidWords()) on x86, DecodeArmHwcap(getauxval(
// AT_HWCAP)) on ARM Linux; read on the first call.
const CpuFeatures& HostCpuFeatures();

}  // namespace gld
