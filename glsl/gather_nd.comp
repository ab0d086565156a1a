// gather_nd.comp: GATHER_ND. The indices tensor is a list of rows of DEPTH
// coordinates into the params tensor's first DEPTH dimensions; output
// element L (row-major) is, with L = row * inner + e,
//   params element offset(row) * inner + e,
// inner the product of params' dimensions past DEPTH. Indices are floats
// holding integers (int32 tensors on the GPU). A row with a coordinate
// outside its dimension gives 0 and is reported (index_fault.comp): the host
// fails the run as the CPU kernel does. row_offset() is the one place a
// coordinate is checked.
//
// Defines: DEPTH (1..4).
// Bindings: 0 output, 1 params, 2 indices, 3 the index fault (index_fault.comp).
// Uniforms: u_out, u_params, u_indices (BHWC shapes); u_limits (params'
//           first DEPTH dimensions); u_strides (their strides, in units of
//           inner); u_inner.
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Params { STORAGE data[]; } params_t;
layout(std430, binding = 2) readonly restrict buffer Indices { STORAGE data[]; } indices_t;

uniform ivec4 u_out;
uniform ivec4 u_params;
uniform ivec4 u_indices;
uniform ivec4 u_limits;
uniform ivec4 u_strides;
uniform int u_inner;

float params_at(int i) {
  ivec4 p = bhwc_coord(u_params, i);
  return LOAD(params_t.data[phwc4_index(u_params, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

float index_at(int i) {
  ivec4 p = bhwc_coord(u_indices, i);
  return LOAD(indices_t.data[phwc4_index(u_indices, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

// The offset (in units of inner) row `row` of the indices picks; -1, the
// fault reported, when a coordinate is outside params.
int row_offset(int row) {
  int offset = 0;
  for (int j = 0; j < DEPTH; ++j) {
    float k = round_away(index_at(row * DEPTH + j));
    if (!index_in_range(k, u_limits[j])) {
      report_index_fault(k, u_limits[j]);
      return -1;
    }
    offset += int(k) * u_strides[j];
  }
  return offset;
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec4 v = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j >= u_out.w) break;
    int l = bhwc_linear(u_out, ivec4(b, gid.y, gid.x, 4 * s + j));
    int offset = row_offset(l / u_inner);
    if (offset >= 0) v[j] = params_at(offset * u_inner + l % u_inner);
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
