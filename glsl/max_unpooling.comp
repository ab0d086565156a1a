// max_unpooling.comp: MediaPipe's MaxUnpooling2D as a gather. The op scatters
// input (iy, ix) to output (iy * stride - pad + idx / KW, ix * stride - pad +
// idx % KW), idx being the argmax index stored with it; later inputs in scan
// order overwrite earlier ones, and untouched outputs are 0. Output pixel
// (y, x) therefore takes the last input, in scan order, whose window covers
// it and whose index points at it. One invocation per output slice and pixel.
//
// Bindings: 0 output, 1 input values, 2 input indices (same shape).
// Uniforms: u_out, u_in shapes; u_kernel (KH, KW); u_stride (y, x);
//           u_padding (top, left).

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Indices { STORAGE data[]; } indices_t;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_padding;

// The input rows/columns i whose window [i * stride - pad, + kernel) covers p.
ivec2 covering(int p, int stride, int pad, int kernel, int size) {
  int t = p + pad;
  if (t < 0) return ivec2(0, -1);
  int first = t - kernel + 1;
  first = first <= 0 ? 0 : (first + stride - 1) / stride;
  int last = min(t / stride, size - 1);
  return ivec2(first, last);
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec2 ry = covering(gid.y, u_stride.x, u_padding.x, u_kernel.x, u_in.y);
  ivec2 rx = covering(gid.x, u_stride.y, u_padding.y, u_kernel.y, u_in.z);
  vec4 acc = vec4(0.0);
  for (int iy = ry.x; iy <= ry.y; ++iy) {
    int ky = gid.y + u_padding.x - iy * u_stride.x;
    for (int ix = rx.x; ix <= rx.y; ++ix) {
      int kx = gid.x + u_padding.y - ix * u_stride.y;
      int i = phwc4_index(u_in, b, iy, ix, s);
      // The op truncates the float index to int.
      ivec4 idx = ivec4(LOAD(indices_t.data[i]));
      bvec4 hit = equal(idx, ivec4(ky * u_kernel.y + kx));
      acc = mix(acc, LOAD(in_t.data[i]), hit);
    }
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(mask_lanes(acc, s, u_out.w));
}
