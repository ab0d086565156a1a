// reduce.comp: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD over any set of
// BHWC axes (spatial, channels, batch, or a mix); REDUCE_ANY and REDUCE_ALL
// are REDUCE_MAX and REDUCE_MIN over bools held as 0.0 / 1.0. One invocation
// computes one output vec4.
//
// Defines:
//   REDUCE     REDUCE_SUM (MEAN scales the sum), REDUCE_MAX, REDUCE_MIN,
//              REDUCE_PROD
//   VEC4_PATH  1: channels are kept and stay the channel axis, so whole
//              slices are combined; 0: every output lane is reduced
//              separately (channels reduced, or moved by a rank change)
// Bindings: 0 output, 1 input.
// Uniforms:
//   u_out, u_in  shapes
//   u_reduce     1 for each reduced input axis (B, H, W, C)
//   u_src        for each kept input axis: the output axis holding its
//                coordinate (-1 for an axis of size 1)
//   u_scale      factor applied to the result (1 / count for MEAN, else 1)

#define REDUCE_SUM 1
#define REDUCE_MAX 2
#define REDUCE_MIN 3
#define REDUCE_PROD 4

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_reduce;
uniform ivec4 u_src;
uniform float u_scale;

// As the CPU: v replaces the running value only when it compares greater
// (smaller), so a NaN never wins (GLSL's max and min leave NaN undefined).
float combine_max(float a, float v) { return v > a ? v : a; }
vec4 combine_max(vec4 a, vec4 v) { return mix(a, v, greaterThan(v, a)); }
float combine_min(float a, float v) { return v < a ? v : a; }
vec4 combine_min(vec4 a, vec4 v) { return mix(a, v, lessThan(v, a)); }

#if REDUCE == REDUCE_SUM
#define INIT 0.0
#define COMBINE(a, v) ((a) + (v))
#elif REDUCE == REDUCE_MAX
#define INIT -3.402823466e38
#define COMBINE(a, v) combine_max((a), (v))
#elif REDUCE == REDUCE_MIN
#define INIT 3.402823466e38
#define COMBINE(a, v) combine_min((a), (v))
#elif REDUCE == REDUCE_PROD
#define INIT 1.0
#define COMBINE(a, v) ((a) * (v))
#else
#error "reduce.comp: unknown REDUCE"
#endif

// The input range [lo, hi) of each axis for output coordinate `o`.
void input_range(ivec4 o, out ivec4 lo, out ivec4 hi) {
  for (int a = 0; a < 4; ++a) {
    if (u_reduce[a] != 0) {
      lo[a] = 0;
      hi[a] = u_in[a];
    } else {
      lo[a] = u_src[a] < 0 ? 0 : o[u_src[a]];
      hi[a] = lo[a] + 1;
    }
  }
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec4 lo, hi;
#if VEC4_PATH
  input_range(ivec4(b, gid.y, gid.x, 4 * s), lo, hi);
  vec4 acc = vec4(INIT);
  for (int ib = lo.x; ib < hi.x; ++ib)
    for (int iy = lo.y; iy < hi.y; ++iy)
      for (int ix = lo.z; ix < hi.z; ++ix) {
        acc = COMBINE(acc, LOAD(in_t.data[phwc4_index(u_in, ib, iy, ix, s)]));
      }
#else
  highp vec4 acc = vec4(0.0);  // highp: sums stay fp32 under GLD_MEDIUMP
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j >= u_out.w) break;
    input_range(ivec4(b, gid.y, gid.x, 4 * s + j), lo, hi);
    float lane = INIT;
    for (int ib = lo.x; ib < hi.x; ++ib)
      for (int iy = lo.y; iy < hi.y; ++iy)
        for (int ix = lo.z; ix < hi.z; ++ix)
          for (int ic = lo.w; ic < hi.w; ++ic) {
            lane = COMBINE(lane, LOAD(in_t.data[phwc4_index(u_in, ib, iy, ix, ic / 4)])[ic % 4]);
          }
    acc[j] = lane;
  }
#endif
  vec4 v = finish_output(acc * u_scale, ivec4(b, gid.y, gid.x, s), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(v);
}
