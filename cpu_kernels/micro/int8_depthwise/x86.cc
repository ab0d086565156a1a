// The x86 form of the int8 depthwise rows (int8_depthwise.h): AVX-512 VNNI
// intrinsics, each function under GLD_DW_TARGET (variants.h). Compiled on
// every build; empty where GLD_AVX512 is not defined.
#include <algorithm>
#include <cstring>

#include "cpu_kernels/micro/int8_depthwise/variants.h"

#ifdef GLD_INT8_DEPTHWISE
namespace gld::cpu::int8_depthwise_x86 {

namespace {

// Where a packed row keeps its entries: entry i (of `entries`) holds the
// taps at input columns i x step - pad_l + j x dw (j < 4), for each block of
// 16 channels ([block][entry][16 channels][4 taps]). Output column ox's
// group g of taps is entry ox x col + g x group. The step is the stride
// where the groups' offsets (4 dw) are multiples of it (only the columns
// the windows start at are packed), else 1.
struct Geometry {
  int64_t step = 1, col = 1, group = 0, entries = 0, blocks = 0, row_bytes = 0, span = 0;
};

Geometry GeometryOf(const Int8DepthwiseState& s) {
  Geometry g;
  g.step = (4 * s.dw) % s.sw == 0 ? s.sw : 1;
  g.col = s.sw / g.step;
  g.group = 4 * s.dw / g.step;
  g.entries = (s.ow - 1) * g.col + (s.groups - 1) * g.group + 1;
  g.blocks = s.padded / 16;
  g.row_bytes = g.entries * g.blocks * 64;
  g.span = (s.kh - 1) * s.dh + 1;
  return g;
}

// The lanes of a 16-channel step with `left` channels to go.
inline __mmask16 ChannelMask(int64_t left) { return static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1); }

// Stores four 16-byte taps (the four 128-bit lanes of z) as [channel][tap]
// (dword 4k + j takes dword 4j + k: lane k holds tap j's channels
// 4k..4k+3; then byte 4c + j of each lane takes byte 4j + c), biased to
// unsigned.
GLD_DW_TARGET inline void StoreEntry(uint8_t* dst, __m512i z) {
  const __m512i dwords = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i bytes = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  z = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(dwords, z), bytes);
  _mm512_store_si512(dst, _mm512_xor_si512(z, _mm512_set1_epi8(static_cast<char>(0x80))));
}

// Entry i with any of its columns outside the input or a partial block of
// channels (`mask`), at column p = i x step - pad_l.
GLD_DW_TARGET inline void EdgeEntry(const int8_t* src, int64_t p, int64_t iw, int64_t dw, int64_t c, __mmask16 mask,
                                    __m128i zx, uint8_t* dst) {
  __m128i v[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const int64_t q = p + j * dw;
    v[j] = q >= 0 && q < iw ? _mm_maskz_loadu_epi8(mask, src + q * c) : zx;
  }
  __m512i z = _mm512_castsi128_si512(v[0]);
  z = _mm512_inserti32x4(z, v[1], 1);
  z = _mm512_inserti32x4(z, v[2], 2);
  z = _mm512_inserti32x4(z, v[3], 3);
  StoreEntry(dst, z);
}

// Columns col and col + c (16 channels each) side by side.
GLD_DW_TARGET inline __m256i Pair(const int8_t* col, int64_t c) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(col))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + c)), 1);
}

// Packs input row `row` ([iw][channels]) into `out` (64-byte aligned).
GLD_DW_TARGET void PackRow(const int8_t* row, const Int8DepthwiseState& s, const Geometry& g, uint8_t* out) {
  const __m128i zx = _mm_set1_epi8(static_cast<char>(s.input_zero_point));
  // Locals: the stores (bytes) could alias the state's fields.
  const int64_t c = s.channels, iw = s.iw, dw = s.dw, step = g.step, pad_l = s.pad_l, entries = g.entries;
  // Entries [lo, hi) read four columns inside the input.
  const int64_t lo = std::min(entries, (pad_l + step - 1) / step);
  const int64_t hi = std::max(lo, std::min(entries, iw - 3 * dw + pad_l > 0 ? (iw - 3 * dw + pad_l - 1) / step + 1 : 0));
  for (int64_t b = 0; b < g.blocks; ++b) {
    const __mmask16 mask = ChannelMask(c - b * 16);
    const int8_t* src = row + b * 16;
    uint8_t* dst = out + b * entries * 64;
    for (int64_t i = 0; i < lo; ++i) EdgeEntry(src, i * step - pad_l, iw, dw, c, mask, zx, dst + i * 64);
    if (mask != 0xffff) {
      for (int64_t i = lo; i < hi; ++i) EdgeEntry(src, i * step - pad_l, iw, dw, c, mask, zx, dst + i * 64);
    } else if (c == 16 && dw == 1) {
      // Four adjacent columns of 16 channels: 64 bytes in a row.
      for (int64_t i = lo; i < hi; ++i) StoreEntry(dst + i * 64, _mm512_loadu_si512(src + (i * step - pad_l) * 16));
    } else if (dw == 1 && (step == 1 || step == 2)) {
      // Entry i: the column pairs at p and p + 2, each read once: the
      // second of entry i is the first of entry i + 2 / step.
      const int8_t* col = src + (lo * step - pad_l) * c;
      __m256i pairs[2];
      pairs[0] = Pair(col, c);
      if (step == 1) pairs[1] = Pair(col + c, c);
      for (int64_t i = lo; i < hi; ++i, col += step * c) {
        const __m256i next = Pair(col + 2 * c, c);
        StoreEntry(dst + i * 64, _mm512_inserti64x4(_mm512_castsi256_si512(pairs[0]), next, 1));
        if (step == 1) {
          pairs[0] = pairs[1];
          pairs[1] = next;
        } else {
          pairs[0] = next;
        }
      }
    } else {
      for (int64_t i = lo; i < hi; ++i) {
        const int8_t* col = src + (i * step - pad_l) * c;
        __m512i z = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(col)));
        z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + dw * c)), 1);
        z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + 2 * dw * c)), 2);
        z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + 3 * dw * c)), 3);
        StoreEntry(dst + i * 64, z);
      }
    }
    for (int64_t i = hi; i < entries; ++i) EdgeEntry(src, i * step - pad_l, iw, dw, c, mask, zx, dst + i * 64);
  }
}

struct Requant {
  __m512i bias, zp;
  __m512 scale, lo, hi;
  __mmask16 mask;
};

// kN adjacent output pixels of one 16-channel block: `dots` (kDots where
// known) dot products each, the t-th reading src[t] + off + n x pix with
// weights w + 64 t.
template <int kDots, int kN>
GLD_DW_TARGET inline void Pixels(const uint8_t* const* src, int64_t dots, int64_t off, int64_t pix, const int8_t* w,
                                 const Requant& r, int64_t channels, int8_t* y) {
  // Fewer pixels keep more sums each (dot t in sum t mod kChains), so that
  // about eight dot products are in flight.
  constexpr int kWant = kN >= 8 ? 1 : 8 / kN;
  constexpr int kChains = kDots > 0 && kDots < kWant ? kDots : kWant;
  __m512i acc[kN][kChains];
#pragma GCC unroll 8
  for (int n = 0; n < kN; ++n) {
    acc[n][0] = r.bias;
#pragma GCC unroll 8
    for (int c = 1; c < kChains; ++c) acc[n][c] = _mm512_setzero_si512();
  }
  const int64_t count = kDots > 0 ? kDots : dots;
  int64_t t = 0;
  for (; t + kChains <= count; t += kChains) {
#pragma GCC unroll 8
    for (int c = 0; c < kChains; ++c) {
      const __m512i wv = _mm512_loadu_si512(w + (t + c) * 64);
      const uint8_t* q = src[t + c] + off;
#pragma GCC unroll 8
      for (int n = 0; n < kN; ++n) acc[n][c] = _mm512_dpbusd_epi32(acc[n][c], _mm512_loadu_si512(q + n * pix), wv);
    }
  }
  for (int c = 0; t < count; ++t, ++c) {
    const __m512i wv = _mm512_loadu_si512(w + t * 64);
    const uint8_t* q = src[t] + off;
#pragma GCC unroll 8
    for (int n = 0; n < kN; ++n) acc[n][c] = _mm512_dpbusd_epi32(acc[n][c], _mm512_loadu_si512(q + n * pix), wv);
  }
#pragma GCC unroll 8
  for (int n = 0; n < kN; ++n) {
#pragma GCC unroll 8
    for (int c = 1; c < kChains; ++c) acc[n][0] = _mm512_add_epi32(acc[n][0], acc[n][c]);
  }
#pragma GCC unroll 8
  for (int n = 0; n < kN; ++n) {
    __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[n][0]), r.scale);
    f = _mm512_min_ps(_mm512_max_ps(f, r.lo), r.hi);
    const __m128i q = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(f), r.zp));
    if (r.mask == 0xffff) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + n * channels), q);
    } else {
      _mm_mask_storeu_epi8(y + n * channels, r.mask, q);
    }
  }
}

// One output row from its kh packed input rows.
template <int kDots>
GLD_DW_TARGET void OutputRow(const uint8_t* const* rows, const Int8DepthwiseState& s, const Geometry& g, int8_t* y) {
  const int64_t dots = s.kh * s.groups, pix = g.col * 64;
  const uint8_t* src[kInt8DepthwiseMaxDots];
  for (int64_t b = 0; b < g.blocks; ++b) {
    for (int64_t fy = 0, t = 0; fy < s.kh; ++fy) {
      for (int64_t k = 0; k < s.groups; ++k, ++t) src[t] = rows[fy] + (b * g.entries + k * g.group) * 64;
    }
    const int8_t* w = s.weights.data() + b * dots * 64;
    const Requant r{_mm512_loadu_si512(s.bias.data() + b * 16), _mm512_set1_epi32(s.output_zero_point),
                    _mm512_loadu_ps(s.scale.data() + b * 16), _mm512_set1_ps(s.lo), _mm512_set1_ps(s.hi),
                    ChannelMask(s.channels - b * 16)};
    int8_t* out = y + b * 16;
    int64_t ox = 0;
    for (; ox + 8 <= s.ow; ox += 8) Pixels<kDots, 8>(src, dots, ox * pix, pix, w, r, s.channels, out + ox * s.channels);
    if (ox + 6 <= s.ow) {  // 6x6 maps: one step of 6 rather than 4 + 1 + 1
      Pixels<kDots, 6>(src, dots, ox * pix, pix, w, r, s.channels, out + ox * s.channels);
      ox += 6;
    }
    if (ox + 4 <= s.ow) {
      Pixels<kDots, 4>(src, dots, ox * pix, pix, w, r, s.channels, out + ox * s.channels);
      ox += 4;
    }
    for (; ox < s.ow; ++ox) Pixels<kDots, 1>(src, dots, ox * pix, pix, w, r, s.channels, out + ox * s.channels);
  }
}

}  // namespace

GLD_DW_TARGET void Rows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y,
                        uint64_t loop) {
  if (r0 >= r1 || s.ow <= 0) return;
  const Geometry g = GeometryOf(s);
  // The packed rows of the window's span (input row iy of image n in slot
  // (n ih + iy) mod span) and one of the zero point, kept per thread for
  // the chunks of one loop.
  thread_local std::vector<uint8_t> t_rows;
  thread_local std::vector<int64_t> t_held;
  thread_local uint64_t t_loop = 0;
  thread_local bool zero_filled = false;
  const size_t need = static_cast<size_t>((g.span + 1) * g.row_bytes);
  if (loop != t_loop || t_rows.size() < need + 63 || t_held.size() != static_cast<size_t>(g.span)) {
    if (t_rows.size() < need + 63) t_rows.resize(need + 63);
    t_held.assign(static_cast<size_t>(g.span), -1);
    zero_filled = false;
    t_loop = loop;
  }
  // 64-byte aligned: each entry one cache line.
  uint8_t* base = t_rows.data() + (64 - reinterpret_cast<uintptr_t>(t_rows.data()) % 64) % 64;
  uint8_t* zero_row = base + g.span * g.row_bytes;
  const uint8_t* rows[kInt8DepthwiseMaxDots];
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / s.oh, oy = r % s.oh;
    for (int64_t fy = 0; fy < s.kh; ++fy) {
      const int64_t iy = oy * s.sh - s.pad_t + fy * s.dh;
      if (iy < 0 || iy >= s.ih) {
        if (!zero_filled) {
          std::memset(zero_row, static_cast<uint8_t>(s.input_zero_point) ^ 0x80, static_cast<size_t>(g.row_bytes));
          zero_filled = true;
        }
        rows[fy] = zero_row;
        continue;
      }
      const int64_t key = n * s.ih + iy;
      uint8_t* slot = base + key % g.span * g.row_bytes;
      int64_t& held = t_held[static_cast<size_t>(key % g.span)];
      if (held != key) {
        PackRow(x + key * s.iw * s.channels, s, g, slot);
        held = key;
      }
      rows[fy] = slot;
    }
    int8_t* out = y + r * s.ow * s.channels;
    switch (s.kh * s.groups) {
      case 3: OutputRow<3>(rows, s, g, out); break;  // 3x3
      case 10: OutputRow<10>(rows, s, g, out); break;  // 5x5
      default: OutputRow<0>(rows, s, g, out); break;
    }
  }
}

}  // namespace gld::cpu::int8_depthwise_x86
#endif
