#include "cpu_kernels/micro/int8_gemm/int8_gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cpu_kernels/micro/int8_gemm/variants.h"
#include "util/cpu_features.h"


namespace gld::cpu {


namespace {
#ifdef GLD_INT8_GEMM_NEON
std::atomic<bool> g_own_enabled{false};  // SetOwnInt8GemmEnabled: see int8_gemm.h
#else
std::atomic<bool> g_own_enabled{true};
#endif
}  // namespace

bool SetOwnInt8GemmEnabled(bool enabled) { return g_own_enabled.exchange(enabled); }

bool HasInt8Gemm() {
  const bool on = g_own_enabled.load(std::memory_order_relaxed);
#if defined(GLD_INT8_GEMM_X86)
  return on && HostCpuFeatures().avx512vnni;
#elif defined(GLD_INT8_GEMM_NEON)
  return on && HostCpuFeatures().neon;
#else
  (void)on;
  return false;
#endif
}

Int8GemmForm CompiledInt8GemmForm() {
#if defined(GLD_INT8_GEMM_X86)
  return Int8GemmForm::kX86Vnni;
#elif defined(GLD_INT8_GEMM_NEON)
  return Int8GemmForm::kArmNeon;
#else
  return Int8GemmForm::kNone;
#endif
}

namespace {

// Packs rows of p->groups runs of p->group_len values each (weights [n,
// groups, group_len]).
bool PackRuns(const int8_t* weights, int64_t n, const int32_t* bias, int32_t input_zero_point,
              const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi, Int8GemmWeights* p) {
  const int64_t k = p->groups * p->group_len;
  if (n <= 0 || p->group_len <= 0 || p->groups <= 0 || k > (int64_t{1} << 16)) return false;
  p->n = n;
  p->k = k;
  p->tile_n = n;
  p->fuse = 1;
  p->steps = (p->group_len + 3) / 4;
  p->k4 = p->groups * p->steps * 4;
  p->panels = (n + kPanel - 1) / kPanel;
  const int64_t padded = p->panels * kPanel;
  p->w.assign(static_cast<size_t>(p->panels * p->k4 * kPanel + 64), 0);
  int8_t* packed_w = WeightsOf(*p);
  p->bias.assign(static_cast<size_t>(padded), 0);
  p->scale.assign(static_cast<size_t>(padded), 0.f);
  p->packed.resize(static_cast<size_t>(p->groups));
  for (int64_t g = 0; g < p->groups; ++g) p->packed[static_cast<size_t>(g)] = g * p->steps * 4;
  p->offset = p->packed;
  p->clamp_in_float = false;
  const int64_t row_stride = p->k4 / 4 * kPanel * 4;  // a panel's bytes
  for (int64_t c = 0; c < n; ++c) {
    const int64_t panel = c / kPanel, j = c % kPanel;
    const int64_t lane = PanelLane(j, n - panel * kPanel > 16);
    const int8_t* row = weights + c * k;
    // In int32 (|sums| <= 128 x 2^16): the compiler's vector loop.
    int32_t neg32 = 0, pos32 = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int32_t v = row[i];
      neg32 += v < 0 ? v : 0;
      pos32 += v < 0 ? 0 : v;
    }
    const int64_t neg = neg32, pos = pos32, sum = neg + pos;
    // Each run's four values at a time into the lane's four bytes of each
    // step (the bytes past a run stay zero).
    int8_t* dst = packed_w + panel * row_stride + lane * 4;
    for (int64_t g = 0; g < p->groups; ++g) {
      const int8_t* run = row + g * p->group_len;
      int8_t* d = dst + g * p->steps * kPanel * 4;
      int64_t i = 0;
      for (; i + 4 <= p->group_len; i += 4, d += kPanel * 4) std::memcpy(d, run + i, 4);
      for (int64_t t = 0; i < p->group_len; ++i, ++t) d[t] = run[i];
    }
    const int64_t b = (bias != nullptr ? bias[c] : 0) - (kInputBias + static_cast<int64_t>(input_zero_point)) * sum;
    p->bias[static_cast<size_t>(panel * kPanel + lane)] = static_cast<int32_t>(b);
    p->scale[static_cast<size_t>(panel * kPanel + lane)] = requant_scale[c];
    // The sums lie in [b + hi neg + lo pos, b + hi pos + lo neg], the rows'
    // values in [lo, hi] = [kInputBias - 128, kInputBias + 127]; clamp
    // before rounding where a product could leave int32.
    const int64_t xlo = kInputBias - 128, xhi = kInputBias + 127;
    const double most =
        static_cast<double>(std::max(std::abs(b + xhi * neg + xlo * pos), std::abs(b + xhi * pos + xlo * neg)));
    if (!(most * std::fabs(static_cast<double>(requant_scale[c])) < 1073741824.0)) p->clamp_in_float = true;
  }
  p->lo = static_cast<float>(lo - output_zero_point);
  p->hi = static_cast<float>(hi - output_zero_point);
  p->zero_point = output_zero_point;
  return true;
}

}  // namespace

bool PackInt8Gemm(const int8_t* weights, int64_t n, int64_t k, const int32_t* bias, int32_t input_zero_point,
                  const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi,
                  Int8GemmWeights* p) {
  p->groups = 1;
  p->gathers = false;
  if (n > 8 || n <= 0 || k <= 0 || k > (int64_t{1} << 15)) {
    p->group_len = k;
    return PackRuns(weights, n, bias, input_zero_point, requant_scale, output_zero_point, lo, hi, p);
  }
  // Up to 8 channels: two rows fused into one of 2k values times 2n
  // channels (the weights block-diagonal), so that a vector's 16 lanes hold
  // two rows' outputs.
  std::vector<int8_t> fused(static_cast<size_t>(4 * n * k), 0);
  std::vector<int32_t> fused_bias(static_cast<size_t>(2 * n), 0);
  std::vector<float> fused_scale(static_cast<size_t>(2 * n));
  for (int64_t h = 0; h < 2; ++h) {
    for (int64_t c = 0; c < n; ++c) {
      std::memcpy(&fused[static_cast<size_t>((h * n + c) * 2 * k + h * k)], weights + c * k, static_cast<size_t>(k));
      fused_bias[static_cast<size_t>(h * n + c)] = bias != nullptr ? bias[c] : 0;
      fused_scale[static_cast<size_t>(h * n + c)] = requant_scale[c];
    }
  }
  p->group_len = 2 * k;
  if (!PackRuns(fused.data(), 2 * n, fused_bias.data(), input_zero_point, fused_scale.data(), output_zero_point, lo,
                hi, p)) {
    return false;
  }
  p->n = n;
  p->k = k;
  p->fuse = 2;
  return true;
}

bool PackInt8Conv(const int8_t* weights, int64_t n, const Int8Window& g, const int32_t* bias,
                  int32_t input_zero_point, const float* requant_scale, int32_t output_zero_point, int32_t lo,
                  int32_t hi, Int8GemmWeights* p) {
  // Taps that touch (dw == 1) make one run per window row.
  const bool rows = g.dw == 1;
  p->groups = rows ? g.kh : g.kh * g.kw;
  p->group_len = rows ? g.kw * g.ic : g.ic;
  p->gathers = true;
  p->window = g;
  if (!PackRuns(weights, n, bias, input_zero_point, requant_scale, output_zero_point, lo, hi, p)) return false;
  for (int64_t r = 0; r < p->groups; ++r) {
    const int64_t fy = rows ? r : r / g.kw, fx = rows ? 0 : r % g.kw;
    p->offset[static_cast<size_t>(r)] = (fy * g.iw + fx * g.dw) * g.ic;  // in the window's rows, copied (FlippedRows)
  }
  return true;
}

namespace {

// d = s + kInputBias (x86: the sign bit flipped; ARM: a copy), `bytes` of them; d may be s.
void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes) {
#if defined(GLD_INT8_GEMM_X86)
  int8_gemm_x86::FlipBytes(d, s, bytes);
#elif defined(GLD_INT8_GEMM_NEON)
  int8_gemm_arm::FlipBytes(d, s, bytes);
#else
  for (int64_t i = 0; i < bytes; ++i) d[i] = static_cast<int8_t>(s[i] ^ 0x80);
#endif
}

// Rows of x times panels [q0, q1) (32 channels each; y points at channel
// 0), row r's runs at x + r * stride_x + off[i]; the rows hold x + kInputBias.
void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y) {
#if defined(GLD_INT8_GEMM_X86)
  int8_gemm_x86::PanelsAt(x, stride_x, off, rows, p, q0, q1, y, stride_y);
#elif defined(GLD_INT8_GEMM_NEON)
  int8_gemm_arm::PanelsAt(x, stride_x, off, rows, p, q0, q1, y, stride_y);
#else
  (void)x, (void)stride_x, (void)off, (void)rows, (void)p, (void)q0, (void)q1, (void)y, (void)stride_y;
#endif
}

}  // namespace

#ifdef GLD_INT8_GEMM  // (without it, Int8GemmItems calls nothing: -Wunused-function)
namespace {

// The last rows of a GEMM with fused rows that do not fill one: its outputs
// computed aside, and those of the rows that exist kept.
__attribute__((noinline)) void FusedTail(const int8_t* flipped, int64_t rows, const Int8GemmWeights& p, int64_t q0,
                                         int64_t q1, int8_t* y) {
  int8_t last[2 * kPanel];
  PanelsAt(flipped, p.fuse * p.k, p.offset.data(), 1, p, q0, q1, last, p.fuse * p.n);
  std::memcpy(y, last, static_cast<size_t>(rows * p.n));
}

}  // namespace
#endif

int64_t Int8GemmItemCount(int64_t rows, const Int8GemmWeights& p) {
  return (rows + kInt8GemmBlockRows - 1) / kInt8GemmBlockRows * p.panels;
}

int64_t Int8GemmItemWork(const Int8GemmWeights& p) { return kInt8GemmBlockRows / p.fuse * kPanel * p.k4; }

void Int8GemmItems(const int8_t* x, int64_t rows, const Int8GemmWeights& p, int64_t begin, int64_t end, int8_t* y) {
#ifdef GLD_INT8_GEMM
  // One call per row block: its panels in [begin, end), over the block's
  // rows flipped once (x + kInputBias: no flip per four bytes and panel).
  thread_local std::vector<int8_t> flipped;  // kept: no allocation per run
  for (int64_t item = begin; item < end;) {
    const int64_t block = item / p.panels, q0 = item % p.panels;
    const int64_t q1 = std::min(p.panels, q0 + (end - item));
    const int64_t r0 = block * kInt8GemmBlockRows;
    const int64_t n = std::min(kInt8GemmBlockRows, rows - r0);
    // The tiles read up to 3 bytes past the last row (times zero weights),
    // a fused row's second half past an odd count.
    // From a 64-byte boundary: FlipBytes's stores and the tiles' loads of
    // them stay in one cache line.
    const size_t need = static_cast<size_t>((kInt8GemmBlockRows + p.fuse) * p.k + 4 + 64);
    if (flipped.size() < need) flipped.resize(need);
    int8_t* const rows_flipped = flipped.data() + (64 - reinterpret_cast<uintptr_t>(flipped.data()) % 64) % 64;
    FlipBytes(rows_flipped, x + r0 * p.k, n * p.k);
    const int64_t whole = n / p.fuse;
    PanelsAt(rows_flipped, p.fuse * p.k, p.offset.data(), whole, p, q0, q1, y + r0 * p.n, p.fuse * p.n);
    if (whole * p.fuse < n) {
      FusedTail(rows_flipped + whole * p.fuse * p.k, n - whole * p.fuse, p, q0, q1, y + (r0 + whole * p.fuse) * p.n);
    }
    item += q1 - q0;
  }
#else
  (void)x, (void)rows, (void)p, (void)begin, (void)end, (void)y;
#endif
}

void Int8GemmRows(const int8_t* x, int64_t rows, const Int8GemmWeights& p, int8_t* y) {
  Int8GemmItems(x, rows, p, 0, Int8GemmItemCount(rows, p), y);
}

namespace {

// Copies and fills of a few bytes (a window row of a first layer is 9):
// overlapping fixed-size moves instead of a library call each.
inline void CopySmall(int8_t* d, const int8_t* s, int64_t n) {
  if (n >= 16) {
    std::memcpy(d, s, static_cast<size_t>(n));
  } else if (n >= 8) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(d, s, 4);
    std::memcpy(d + n - 4, s + n - 4, 4);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

inline void FillSmall(int8_t* d, int8_t v, int64_t n) {
  if (n >= 16) {
    std::memset(d, static_cast<unsigned char>(v), static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  }
}

// The window of output pixel (n, oy, ox) as one gathered row: run r at
// r * run_stride (Int8GemmWeights::packed).
void GatherRow(const int8_t* x, const Int8Window& g, int64_t run_stride, int64_t n, int64_t oy, int64_t ox,
               int8_t* row) {
  const int64_t tap = g.ic;
  const bool rows = g.dw == 1;  // one run per window row, else per tap
  const int64_t ix0 = ox * g.sw - g.pad_l;
  const bool row_inside = ix0 >= 0 && ix0 + (g.kw - 1) * g.dw < g.iw;
  for (int64_t fy = 0; fy < g.kh; ++fy) {
    const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
    int8_t* d = row + fy * (rows ? 1 : g.kw) * run_stride;
    const int64_t tap_stride = rows ? tap : run_stride;
    if (iy < 0 || iy >= g.ih) {
      for (int64_t fx = 0; fx < g.kw; ++fx) FillSmall(d + fx * tap_stride, g.pad_value, tap);
      continue;
    }
    const int8_t* src = x + ((n * g.ih + iy) * g.iw) * g.ic;
    if (row_inside && rows) {  // the window's row is one run of the input
      CopySmall(d, src + ix0 * g.ic, g.kw * tap);
      continue;
    }
    for (int64_t fx = 0; fx < g.kw; ++fx) {
      const int64_t ix = ix0 + fx * g.dw;
      if (ix < 0 || ix >= g.iw) {
        FillSmall(d + fx * tap_stride, g.pad_value, tap);
      } else {
        CopySmall(d + fx * tap_stride, src + ix * g.ic, tap);
      }
    }
  }
}

// Output pixels (n, oy, ox) for ox in [x0, x1) gathered into `gathered`
// (kGatherBlock rows of k4 values), a block at a time; the bytes past each
// run stay as left (times zero weights).
constexpr int64_t kGatherBlock = 64;
void GatheredPixels(const int8_t* x, const Int8GemmWeights& p, int64_t n, int64_t oy, int64_t x0, int64_t x1,
                    int8_t* y, int8_t* gathered) {
  constexpr int64_t kBlock = kGatherBlock;
  const int64_t run_stride = p.steps * 4;
  for (int64_t b0 = x0; b0 < x1; b0 += kBlock) {
    const int64_t rows = std::min(kBlock, x1 - b0);
    for (int64_t r = 0; r < rows; ++r) GatherRow(x, p.window, run_stride, n, oy, b0 + r, gathered + r * p.k4);
    FlipBytes(gathered, gathered, rows * p.k4);
    const int64_t pixel = (n * p.window.oh + oy) * p.window.ow + b0;
    PanelsAt(gathered, p.k4, p.packed.data(), rows, p, 0, p.panels, y + pixel * p.n, p.n);
  }
}

}  // namespace

void Int8ConvPixels(const int8_t* x, int64_t p0, int64_t p1, const Int8GemmWeights& p, int8_t* y,
                    std::vector<int8_t>* scratch) {
  const Int8Window& g = p.window;
  // Scratch: the gathered rows, then the window's kh input rows flipped
  // (each from a 64-byte boundary; 4 bytes past the rows: the tiles' reads
  // past a run).
  const int64_t row_bytes = g.iw * g.ic;
  const size_t gathered_size = static_cast<size_t>(kGatherBlock * p.k4 + 64);
  const size_t need = gathered_size + static_cast<size_t>(g.kh * row_bytes + 4 + 64);
  if (scratch->size() < need) scratch->resize(need);
  const auto aligned = [](int8_t* q) { return q + (64 - reinterpret_cast<uintptr_t>(q) % 64) % 64; };
  int8_t* const gathered = aligned(scratch->data());
  int8_t* const rows = aligned(scratch->data() + gathered_size);
  // The output columns whose windows lie inside the input's columns.
  const int64_t in_lo = std::min(g.ow, (g.pad_l + g.sw - 1) / g.sw);
  const int64_t last = g.iw - 1 - (g.kw - 1) * g.dw + g.pad_l;  // ox * sw <= last
  const int64_t in_hi = std::max(in_lo, std::min(g.ow, last < 0 ? 0 : last / g.sw + 1));
  for (int64_t pix = p0; pix < p1;) {
    const int64_t n = pix / (g.oh * g.ow), oy = (pix / g.ow) % g.oh, x0 = pix % g.ow;
    const int64_t x1 = std::min(g.ow, x0 + (p1 - pix));
    const int64_t iy0 = oy * g.sh - g.pad_t;
    const bool row_inside = iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih;
    const int64_t a = row_inside ? std::clamp(in_lo, x0, x1) : x1, b = row_inside ? std::clamp(in_hi, a, x1) : x1;
    if (a > x0) GatheredPixels(x, p, n, oy, x0, a, y, gathered);
    if (b > a) {  // windows inside the input: its kh rows flipped once, read in place
      for (int64_t fy = 0; fy < g.kh; ++fy) {
        FlipBytes(rows + fy * row_bytes, x + (n * g.ih + iy0 + fy * g.dh) * row_bytes, row_bytes);
      }
      const int64_t first = (n * g.oh + oy) * g.ow + a;
      PanelsAt(rows + (a * g.sw - g.pad_l) * g.ic, g.sw * g.ic, p.offset.data(), b - a, p, 0, p.panels,
               y + first * p.n, p.n);
    }
    if (x1 > b) GatheredPixels(x, p, n, oy, b, x1, y, gathered);
    pix += x1 - x0;
  }
}

}  // namespace gld::cpu
