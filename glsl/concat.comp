// concat.comp: CONCATENATION, one dispatch per input, run in order.
//
// Defines:
//   CHANNELS  0: the axis is B, H or W; the dispatch covers the input
//               (grid (W_in, H_in, B_in * S)) and copies whole slices to the
//               output, shifted by u_offset.
//             1: the axis is C; the dispatch covers the output slices that
//               hold channels [u_offset.w, u_offset.w + C_in) (grid
//               (W, H, B * u_slices.y), starting at slice u_slices.x) and
//               replaces those lanes, keeping the others: inputs that share
//               a slice each write their lanes in turn.
//   ACTIVATION fused activation (common.comp); CHANNELS applies it per
//              input lane and takes no fused epilogue
// Bindings: 0 output (read and written), 1 input.
// Uniforms: u_out, u_in shapes; u_offset (B, H, W, C offsets of the input in
//           the output); u_slices (first output slice, count) for CHANNELS.

layout(std430, binding = 0) restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_offset;
uniform ivec2 u_slices;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
#if CHANNELS
  int b = gid.z / u_slices.y;
  int s = u_slices.x + gid.z % u_slices.y;
  int o = phwc4_index(u_out, b, gid.y, gid.x, s);
  vec4 v = LOAD(out_t.data[o]);
  for (int j = 0; j < 4; ++j) {
    int c = 4 * s + j - u_offset.w;
    if (c >= 0 && c < u_in.w) {
      v[j] = activate(LOAD(in_t.data[phwc4_index(u_in, b, gid.y, gid.x, c / 4)]))[c % 4];
    }
  }
  // No epilogue here: a slice is rewritten by several dispatches.
  out_t.data[o] = PACK(mask_lanes(v, s, u_out.w));
#else
  int slices = slices_of(u_in);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec4 v = LOAD(in_t.data[phwc4_index(u_in, b, gid.y, gid.x, s)]);
  ivec4 p = ivec4(b, gid.y, gid.x, s) + ivec4(u_offset.xyz, 0);
  out_t.data[phwc4_index(u_out, p.x, p.y, p.z, s)] = PACK(finish_output(v, p, u_out.w));
#endif
}
