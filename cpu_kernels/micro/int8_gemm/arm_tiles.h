// The ARM tiles of the int8 GEMM, included twice by arm.cc: once as plain
// NEON (GLD_ARM_TILES_DOT 0: SMULL + SADALP), once with every function
// compiled for dot product (GLD_ARM_TILES_DOT 1: SDOT; GLD_ARM_TILES_TARGET
// the attribute: a `#pragma GCC target` does not reach templates), each time
// in a namespace of its own (GLD_ARM_TILES_NS), so that no code of the
// second (which may hold dot-product instructions) is shared with the
// first. No include guard on purpose. Internal to micro/int8_gemm/.
//
// A tile is M rows times 16 channels of a panel (a half: lanes 16 h to
// 16 h + 15, in order, PanelLane): per four-byte step of a run, the
// weights' four vectors of 16 bytes (4 channels x 4 bytes) meet the row's
// four bytes. SDOT sums the four products of each channel into its lane,
// four steps of a row taken from one 16-byte load (the lane index picks
// the step); without it, SMULL multiplies 8 bytes into 8 int16 products and
// SADALP adds them in pairs into int32 lanes, two accumulators per four
// channels, folded by ADDP at the end. Then XNNPACK's requantization, as the
// x86 tiles do it: float(acc) x scale (clamped first where kClamp),
// rounded to nearest even, saturated to int16, plus the zero point
// (saturating), saturated to int8, clamped to the output range.

namespace GLD_ARM_TILES_NS {

#if GLD_ARM_TILES_DOT
constexpr int kMaxRows = 4;  // 16 accumulators
#else
constexpr int kMaxRows = 2;  // 16 accumulators (two per four channels)
#endif

// The four bytes at p, in every lane.
GLD_ARM_TILES_TARGET inline int8x16_t Four(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return vreinterpretq_s8_s32(vdupq_n_s32(v));
}

template <int M, bool kClamp>
GLD_ARM_TILES_TARGET void Tile(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t panel, int64_t half,
          int8_t* y, int64_t sy, int64_t valid) {
  const int32_t* bias = p.bias.data() + panel * kPanel + half * 16;
  const int8_t* w = WeightsOf(p) + panel * p.k4 * kPanel + half * 64;
  constexpr int64_t kStep = 4 * kPanel;  // the weights' bytes per step
#if GLD_ARM_TILES_DOT
  int32x4_t acc[M][4];
  for (int m = 0; m < M; ++m) {
    for (int i = 0; i < 4; ++i) acc[m][i] = vld1q_s32(bias + 4 * i);
  }
  for (int64_t g = 0; g < p.groups; ++g) {
    const int8_t* xg = x + off[g];
    int64_t s = 0;
    for (; s + 4 <= p.steps; s += 4, w += 4 * kStep) {
      int8x16_t a[M];
      for (int m = 0; m < M; ++m) a[m] = vld1q_s8(xg + m * sx + 4 * s);
      int8x16_t b[4][4];
      for (int t = 0; t < 4; ++t) {
        for (int i = 0; i < 4; ++i) b[t][i] = vld1q_s8(w + t * kStep + 16 * i);
      }
      for (int m = 0; m < M; ++m) {
        for (int i = 0; i < 4; ++i) {
          acc[m][i] = vdotq_laneq_s32(acc[m][i], b[0][i], a[m], 0);
          acc[m][i] = vdotq_laneq_s32(acc[m][i], b[1][i], a[m], 1);
          acc[m][i] = vdotq_laneq_s32(acc[m][i], b[2][i], a[m], 2);
          acc[m][i] = vdotq_laneq_s32(acc[m][i], b[3][i], a[m], 3);
        }
      }
    }
    for (; s < p.steps; ++s, w += kStep) {
      int8x16_t b[4];
      for (int i = 0; i < 4; ++i) b[i] = vld1q_s8(w + 16 * i);
      for (int m = 0; m < M; ++m) {
        const int8x16_t a = Four(xg + m * sx + 4 * s);
        for (int i = 0; i < 4; ++i) acc[m][i] = vdotq_s32(acc[m][i], b[i], a);
      }
    }
  }
#else
  int32x4_t pairs[M][8];  // channels 4i, 4i + 1 in 2i; 4i + 2, 4i + 3 in 2i + 1: two half sums each
  for (int m = 0; m < M; ++m) {
    for (int i = 0; i < 8; ++i) pairs[m][i] = vdupq_n_s32(0);
  }
  for (int64_t g = 0; g < p.groups; ++g) {
    const int8_t* xg = x + off[g];
    for (int64_t s = 0; s < p.steps; ++s, w += kStep) {
      int8x16_t b[4];
      for (int i = 0; i < 4; ++i) b[i] = vld1q_s8(w + 16 * i);
      for (int m = 0; m < M; ++m) {
        const int8x16_t a = Four(xg + m * sx + 4 * s);
        for (int i = 0; i < 4; ++i) {
          pairs[m][2 * i] = vpadalq_s16(pairs[m][2 * i], vmull_s8(vget_low_s8(b[i]), vget_low_s8(a)));
          pairs[m][2 * i + 1] = vpadalq_s16(pairs[m][2 * i + 1], vmull_high_s8(b[i], a));
        }
      }
    }
  }
  int32x4_t acc[M][4];
  for (int m = 0; m < M; ++m) {
    for (int i = 0; i < 4; ++i) {
      acc[m][i] = vaddq_s32(vld1q_s32(bias + 4 * i), vpaddq_s32(pairs[m][2 * i], pairs[m][2 * i + 1]));
    }
  }
#endif
  const float* scale = p.scale.data() + panel * kPanel + half * 16;
  float32x4_t sc[4];
  for (int i = 0; i < 4; ++i) sc[i] = vld1q_f32(scale + 4 * i);
  const float32x4_t lo = vdupq_n_f32(p.lo), hi = vdupq_n_f32(p.hi);
  const int16x8_t zp = vdupq_n_s16(static_cast<int16_t>(p.zero_point));
  const int8x16_t lo8 = vdupq_n_s8(static_cast<int8_t>(p.lo + static_cast<float>(p.zero_point)));
  const int8x16_t hi8 = vdupq_n_s8(static_cast<int8_t>(p.hi + static_cast<float>(p.zero_point)));
  for (int m = 0; m < M; ++m) {
    int32x4_t q[4];
    for (int i = 0; i < 4; ++i) {
      float32x4_t f = vmulq_f32(vcvtq_f32_s32(acc[m][i]), sc[i]);
      if (kClamp) f = vminq_f32(vmaxq_f32(f, lo), hi);
      q[i] = vcvtnq_s32_f32(f);
    }
    const int16x8_t s01 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1])), zp);
    const int16x8_t s23 = vqaddq_s16(vcombine_s16(vqmovn_s32(q[2]), vqmovn_s32(q[3])), zp);
    const int8x16_t bytes = vminq_s8(vmaxq_s8(vcombine_s8(vqmovn_s16(s01), vqmovn_s16(s23)), lo8), hi8);
    if (valid >= 16) {
      vst1q_s8(y + m * sy, bytes);
    } else {
      int8_t out[16];
      vst1q_s8(out, bytes);
      std::memcpy(y + m * sy, out, static_cast<size_t>(valid));
    }
  }
}

// Rows [0, M) times panels [q0, q1), each in its halves (one where the
// panel holds at most 16 channels).
template <int M, bool kClamp>
GLD_ARM_TILES_TARGET void PanelTiles(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t q0, int64_t q1,
                int8_t* y, int64_t sy) {
  for (int64_t panel = q0; panel < q1; ++panel) {
    const int64_t valid = std::min(kPanel, p.tile_n - panel * kPanel);
    for (int64_t half = 0; half * 16 < valid; ++half) {
      Tile<M, kClamp>(x, sx, off, p, panel, half, y + panel * kPanel + half * 16, sy, valid - half * 16);
    }
  }
}

template <int M>
GLD_ARM_TILES_TARGET void Tiles(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t q0, int64_t q1,
           int8_t* y, int64_t sy) {
  if (p.clamp_in_float) {
    PanelTiles<M, true>(x, sx, off, p, q0, q1, y, sy);
  } else {
    PanelTiles<M, false>(x, sx, off, p, q0, q1, y, sy);
  }
}

GLD_ARM_TILES_TARGET void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y) {
  ForEachRowBlock<kMaxRows>(rows, [&](auto m, int64_t r) {
    Tiles<decltype(m)::value>(x + r * stride_x, stride_x, off, p, q0, q1, y + r * stride_y, stride_y);
  });
}

}  // namespace GLD_ARM_TILES_NS
