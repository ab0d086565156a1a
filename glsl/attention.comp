// attention.comp: GLD_SCALED_DOT_PRODUCT_ATTENTION. q [B, T, N, H] (BHWC:
// b, y = t, x = n, channels = h), k and v [B, S, K, H], the mask (HAS_MASK)
// [MB, MN, MT, MS] broadcast to [B, N, T, S]. One invocation per query row:
// for each key s, score = u_scale * q . k[s] + mask; a running maximum m,
// the sum l of exp(score - m) and the weighted sum of v's rows, rescaled by
// exp(m_old - m) when m grows; out = sum / l, and the fused epilogue.
// Grid: (N, T, B).
//
// Bindings: 0 output, 1 q, 2 k, 3 v, 4 mask.
// Uniforms: u_q (= the output), u_kv, u_mask (BHWC shapes), u_scale.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Q { STORAGE data[]; } q_t;
layout(std430, binding = 2) readonly restrict buffer K { STORAGE data[]; } k_t;
layout(std430, binding = 3) readonly restrict buffer V { STORAGE data[]; } v_t;
#if HAS_MASK
layout(std430, binding = 4) readonly restrict buffer Mask { STORAGE data[]; } mask_t;
#endif

uniform ivec4 u_q;
uniform ivec4 u_kv;
uniform ivec4 u_mask;
uniform float u_scale;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int n = gid.x, t = gid.y, b = gid.z;
  int slices = slices_of(u_q);
  int kv = n / (u_q.z / u_kv.z);
  highp vec4 q[MAX_SLICES];
  highp vec4 acc[MAX_SLICES];
  for (int s = 0; s < MAX_SLICES; ++s) {
    q[s] = mask_lanes(LOAD(q_t.data[phwc4_index(u_q, b, t, n, s)]), s, u_q.w);
    acc[s] = vec4(0.0);
  }
  highp float m = -3.402823e38;
  highp float l = 0.0;
  for (int j = 0; j < u_kv.y; ++j) {
    highp float score = 0.0;
    for (int s = 0; s < MAX_SLICES; ++s) {
      score += dot(q[s], mask_lanes(LOAD(k_t.data[phwc4_index(u_kv, b, j, kv, s)]), s, u_kv.w));
    }
    score *= u_scale;
#if HAS_MASK
    ivec4 mp = ivec4(u_mask.x == 1 ? 0 : b, u_mask.y == 1 ? 0 : n, u_mask.z == 1 ? 0 : t, u_mask.w == 1 ? 0 : j);
    score += LOAD(mask_t.data[phwc4_index(u_mask, mp.x, mp.y, mp.z, mp.w / 4)])[mp.w % 4];
#endif
    highp float m_new = max(m, score);
    highp float c = exp(m - m_new);
    highp float p = exp(score - m_new);
    l = l * c + p;
    for (int s = 0; s < MAX_SLICES; ++s) acc[s] = acc[s] * c + p * LOAD(v_t.data[phwc4_index(u_kv, b, j, kv, s)]);
    m = m_new;
  }
  for (int s = 0; s < slices; ++s) {
    highp vec4 r = acc[s] / l;
    out_t.data[phwc4_index(u_q, b, t, n, s)] = PACK(finish_output(r, ivec4(b, t, n, s), u_q.w));
  }
}
