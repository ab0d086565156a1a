// dynamic_update_slice.comp: DYNAMIC_UPDATE_SLICE. Output element at
// row-major coordinates c (the tensors' own shape, padded in front with 1s to
// four dimensions) is update[c - s] where s <= c < s + update shape, else
// operand[c]; s is each start index clamped to [0, dim - update dim], as
// TFLite clamps (so nothing is written outside the output: every invocation
// writes only its own output vec4). Start indices are floats holding
// integers (int32 tensors on the GPU).
//
// Bindings: 0 output, 1 operand (the output's shape), 2 update, 3 starts.
// Uniforms: u_out, u_update, u_starts (BHWC shapes); u_dims, u_udims (the
//           output's and the update's shapes, padded to 4); u_rank.
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Operand { STORAGE data[]; } operand_t;
layout(std430, binding = 2) readonly restrict buffer Update { STORAGE data[]; } update_t;
layout(std430, binding = 3) readonly restrict buffer Starts { STORAGE data[]; } starts_t;

uniform ivec4 u_out;
uniform ivec4 u_update;
uniform ivec4 u_starts;
uniform ivec4 u_dims;
uniform ivec4 u_udims;
uniform int u_rank;

float update_at(int i) {
  ivec4 p = bhwc_coord(u_update, i);
  return LOAD(update_t.data[phwc4_index(u_update, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

float start_at(int i) {
  ivec4 p = bhwc_coord(u_starts, i);
  return LOAD(starts_t.data[phwc4_index(u_starts, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec4 start = ivec4(0);
  for (int k = 4 - u_rank; k < 4; ++k) {
    float hi = float(u_dims[k] - u_udims[k]);
    start[k] = int(clamp(round_away(start_at(k - (4 - u_rank))), 0.0, hi));
  }
  int at = phwc4_index(u_out, b, gid.y, gid.x, s);
  vec4 v = LOAD(operand_t.data[at]);
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j >= u_out.w) break;
    int l = bhwc_linear(u_out, ivec4(b, gid.y, gid.x, 4 * s + j));
    ivec4 c = ivec4(l / (u_dims.y * u_dims.z * u_dims.w), (l / (u_dims.z * u_dims.w)) % u_dims.y,
                    (l / u_dims.w) % u_dims.z, l % u_dims.w);
    ivec4 r = c - start;
    if (all(greaterThanEqual(r, ivec4(0))) && all(lessThan(r, u_udims))) {
      v[j] = update_at(((r.x * u_udims.y + r.y) * u_udims.z + r.z) * u_udims.w + r.w);
    }
  }
  out_t.data[at] = PACK(v);
}
