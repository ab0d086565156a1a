// scatter.comp: STABLEHLO_SCATTER with the plain assignment as its update
// computation (torch's index_copy and index_put). Each invocation writes its
// own output vec4: output element c (the operand's row-major coordinates,
// padded in front with 1s to four dimensions) is the update element the
// LAST scatter position writing c gives (the CPU kernel writes the update
// elements in row-major order, so the largest update index wins), else
// operand[c]. Scatter position k's start in operand dimension d is its index
// vector's component u_component[d] (0 where -1); it writes c when
// 0 <= c[d] - start < u_window[d] in every dimension (window 1 in an
// inserted dimension), at update element
//   scatter_part(k) + sum_d (c[d] - start) * u_wstride[d].
// An update that lands outside the operand matches no output element, so it
// is skipped, as the CPU kernel skips it: nothing is written outside the
// output. Indices are floats holding integers (int32 tensors on the GPU),
// compared as floats so that huge ones never reach an int conversion.
//
// Bindings: 0 output, 1 operand (the output's shape), 2 indices, 3 updates.
// Uniforms: u_out, u_indices, u_updates (BHWC shapes); u_dims (the
//           operand's shape padded to 4); u_component, u_window, u_wstride
//           (per operand dimension); u_sdims, u_sstride (the updates'
//           scatter dimensions, padded in front with 1s, and their strides in
//           the updates); u_positions (their product); u_depth (index vector
//           length).
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Operand { STORAGE data[]; } operand_t;
layout(std430, binding = 2) readonly restrict buffer Indices { STORAGE data[]; } indices_t;
layout(std430, binding = 3) readonly restrict buffer Updates { STORAGE data[]; } updates_t;

uniform ivec4 u_out;
uniform ivec4 u_indices;
uniform ivec4 u_updates;
uniform ivec4 u_dims;
uniform ivec4 u_component;
uniform ivec4 u_window;
uniform ivec4 u_wstride;
uniform ivec4 u_sdims;
uniform ivec4 u_sstride;
uniform int u_positions;
uniform int u_depth;

float index_at(int i) {
  ivec4 p = bhwc_coord(u_indices, i);
  return LOAD(indices_t.data[phwc4_index(u_indices, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

float update_at(int i) {
  ivec4 p = bhwc_coord(u_updates, i);
  return LOAD(updates_t.data[phwc4_index(u_updates, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

// The updates' offset of scatter position k's coordinates.
int scatter_part(int k) {
  int e = 0;
  for (int a = 3; a >= 0; --a) {
    e += (k % u_sdims[a]) * u_sstride[a];
    k /= u_sdims[a];
  }
  return e;
}

// The update element written last to operand coordinates c; -1 for none.
int last_update(ivec4 c) {
  int best = -1;
  for (int k = 0; k < u_positions; ++k) {
    int e = scatter_part(k);
    bool hit = true;
    for (int d = 0; d < 4; ++d) {
      float start = u_component[d] < 0 ? 0.0 : round_away(index_at(k * u_depth + u_component[d]));
      float r = float(c[d]) - start;
      hit = hit && r >= 0.0 && r < float(u_window[d]);
      if (hit) e += int(r) * u_wstride[d];
    }
    if (hit) best = max(best, e);
  }
  return best;
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int at = phwc4_index(u_out, b, gid.y, gid.x, s);
  vec4 v = LOAD(operand_t.data[at]);
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j >= u_out.w) break;
    int l = bhwc_linear(u_out, ivec4(b, gid.y, gid.x, 4 * s + j));
    ivec4 c = ivec4(l / (u_dims.y * u_dims.z * u_dims.w), (l / (u_dims.z * u_dims.w)) % u_dims.y,
                    (l / u_dims.w) % u_dims.z, l % u_dims.w);
    int e = last_update(c);
    if (e >= 0) v[j] = update_at(e);
  }
  out_t.data[at] = PACK(v);
}
