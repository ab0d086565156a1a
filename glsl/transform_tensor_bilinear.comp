// transform_tensor_bilinear.comp: MediaPipe's TransformTensorBilinear, as
// cpu_kernels/ops/mediapipe_ops.cc runs it. Output pixel (x, y) of batch b samples
// the input at (tx, ty) = rows 0 and 1 of b's 4x4 matrix applied to
// (x, y, 0, 1); with aligned corners (version 2) the translation first gets
// m0 / 2 + m1 / 2 - 1/2 (pixel centres). A sample outside [0, W-1] x [0, H-1]
// (or NaN) is 0; otherwise the four neighbours are blended, a neighbour past
// the edge counting as 0, in the CPU kernel's order of operations. One
// invocation per output slice and pixel; takes a fused epilogue.
//
// Bindings: 0 output, 1 input, 2 matrices (one 4x4, or one per batch).
// Uniforms: u_out0, u_in0, u_in1 shapes (BHWC views); u_flags (align_corners,
//           one matrix for every batch).

// Sample coordinates need 32-bit floats whatever the storage precision.
precision highp float;

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Matrix { STORAGE data[]; } mat_t;

uniform ivec4 u_out0;
uniform ivec4 u_in0;
uniform ivec4 u_in1;
uniform ivec2 u_flags;

// Element i of the matrix tensor in row-major order.
float matrix_element(int i) {
  ivec4 p = bhwc_coord(u_in1, i);
  return LOAD(mat_t.data[phwc4_index(u_in1, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

// Elements 4 r .. 4 r + 3 (row r % 4 of matrix r / 4). When the BHWC view
// has 4 channels ([N, 4, 4] -> [N, 1, 4, 4]) each row is one stored vec4.
vec4 matrix_row(int r) {
  if (u_in1.w == 4) return LOAD(mat_t.data[r]);
  return vec4(matrix_element(4 * r), matrix_element(4 * r + 1), matrix_element(4 * r + 2),
              matrix_element(4 * r + 3));
}

vec4 texel(int b, int y, int x, int s) {
  if (y < 0 || x < 0 || y >= u_in0.y || x >= u_in0.z) return vec4(0.0);
  return LOAD(in_t.data[phwc4_index(u_in0, b, y, x, s)]);
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out0);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int m = u_flags.y != 0 ? 0 : 4 * b;
  vec4 xt = matrix_row(m);
  vec4 yt = matrix_row(m + 1);
  if (u_flags.x != 0) {
    xt.w += xt.x * 0.5 + xt.y * 0.5 - 0.5;
    yt.w += yt.x * 0.5 + yt.y * 0.5 - 0.5;
  }
  float fx = float(gid.x), fy = float(gid.y);
  float tx = xt.x * fx + xt.y * fy + xt.w;
  float ty = yt.x * fx + yt.y * fy + yt.w;
  vec4 v = vec4(0.0);
  bool outside = isnan(tx) || tx < 0.0 || tx > float(u_in0.z - 1) || isnan(ty) || ty < 0.0 ||
                 ty > float(u_in0.y - 1);
  if (!outside) {
    float x0f = floor(tx), y0f = floor(ty);
    int x0 = int(x0f), y0 = int(y0f);
    float right = tx - x0f, lower = ty - y0f;
    vec4 upper_v = (1.0 - right) * texel(b, y0, x0, s) + right * texel(b, y0, x0 + 1, s);
    vec4 lower_v = (1.0 - right) * texel(b, y0 + 1, x0, s) + right * texel(b, y0 + 1, x0 + 1, s);
    v = lower * lower_v + (1.0 - lower) * upper_v;
  }
  out_t.data[phwc4_index(u_out0, b, gid.y, gid.x, s)] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out0.w));
}
