// resize.comp: RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over H and W,
// following TFLite's reference kernels (align_corners, half_pixel_centers).
//
// Defines: BILINEAR (1) or nearest neighbour (0).
// Bindings: 0 output, 1 input.
// Uniforms: u_out, u_in shapes; u_scale (y, x): (in - 1) / (out - 1) with
//           align_corners and out > 1, else in / out, computed on the host
//           in float as TFLite does; u_flags (align_corners,
//           half_pixel_centers).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform vec2 u_scale;
uniform ivec2 u_flags;

#if BILINEAR
// TFLite's ComputeInterpolationValues.
void interpolation(int p, float scale, int size, out float v, out int lo, out int hi) {
  v = u_flags.y != 0 ? (float(p) + 0.5) * scale - 0.5 : float(p) * scale;
  lo = max(int(floor(v)), 0);
  hi = min(int(ceil(v)), size - 1);
}
#else
// TFLite's GetNearestNeighbor.
int nearest(int p, float scale, int size) {
  float offset = u_flags.y != 0 ? 0.5 : 0.0;
  float v = (float(p) + offset) * scale;
  int i = min(u_flags.x != 0 ? int(round_away(v)) : int(floor(v)), size - 1);
  return u_flags.y != 0 ? max(i, 0) : i;
}
#endif

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
#if BILINEAR
  float fy, fx;
  int y0, y1, x0, x1;
  interpolation(gid.y, u_scale.x, u_in.y, fy, y0, y1);
  interpolation(gid.x, u_scale.y, u_in.z, fx, x0, x1);
  float dy = fy - float(y0), dx = fx - float(x0);
  vec4 v = LOAD(in_t.data[phwc4_index(u_in, b, y0, x0, s)]) * (1.0 - dy) * (1.0 - dx) +
           LOAD(in_t.data[phwc4_index(u_in, b, y1, x0, s)]) * dy * (1.0 - dx) +
           LOAD(in_t.data[phwc4_index(u_in, b, y0, x1, s)]) * (1.0 - dy) * dx +
           LOAD(in_t.data[phwc4_index(u_in, b, y1, x1, s)]) * dy * dx;
#else
  int y = nearest(gid.y, u_scale.x, u_in.y);
  int x = nearest(gid.x, u_scale.y, u_in.z);
  vec4 v = LOAD(in_t.data[phwc4_index(u_in, b, y, x, s)]);
#endif
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] =
      PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
