// gather.comp: GATHER. Output element L (row-major) is, with
//   L = ((bi * outer + oi) * per_batch + i) * inner + e,
// params element ((bi * outer + oi) * n + index[bi * per_batch + i]) * inner + e.
// Indices are floats holding integers (int32 tensors on the GPU); one outside
// [0, n) gives 0 and is reported (index_fault.comp): the host fails the run
// as the CPU kernel does.
//
// Bindings: 0 output, 1 params, 2 indices, 3 the index fault (index_fault.comp).
// Uniforms: u_out, u_params, u_indices (BHWC shapes); u_dims (outer, n, inner,
//           per_batch).
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Params { STORAGE data[]; } params_t;
layout(std430, binding = 2) readonly restrict buffer Indices { STORAGE data[]; } indices_t;

uniform ivec4 u_out;
uniform ivec4 u_params;
uniform ivec4 u_indices;
uniform ivec4 u_dims;

float params_at(int i) {
  ivec4 p = bhwc_coord(u_params, i);
  return LOAD(params_t.data[phwc4_index(u_params, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

float index_at(int i) {
  ivec4 p = bhwc_coord(u_indices, i);
  return LOAD(indices_t.data[phwc4_index(u_indices, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int outer = u_dims.x, n = u_dims.y, inner = u_dims.z, per_batch = u_dims.w;
  vec4 v = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j >= u_out.w) break;
    int l = bhwc_linear(u_out, ivec4(b, gid.y, gid.x, 4 * s + j));
    int e = l % inner;
    int r = l / inner;
    int i = r % per_batch;
    r /= per_batch;
    int oi = r % outer;
    int bi = r / outer;
    float k = round_away(index_at(bi * per_batch + i));
    if (index_in_range(k, n)) {
      v[j] = params_at(((bi * outer + oi) * n + int(k)) * inner + e);
    } else {
      report_index_fault(k, n);
    }
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
