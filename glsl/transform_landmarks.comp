// transform_landmarks.comp: MediaPipe's TransformLandmarks, as
// cpu_kernels/mediapipe_ops.cc runs it. The channels of each pixel hold
// points of DIMS values (2 or 3): x' = m0 x + m1 y + m3 * scale,
// y' = m4 x + m5 y + m7 * scale, z copied; the matrix is the first 16 values
// of its tensor. Version 1 ([B, H, W, n * DIMS]) and version 2 ([B, N, DIMS],
// BHWC view [B, 1, N, DIMS], scale 1) are the same loop. One invocation per
// output slice and pixel; each lane finds its point's x and y, which may lie
// in the neighbouring slice.
//
// Bindings: 0 output, 1 landmarks, 2 matrix.
// Uniforms: u_out (= the landmarks' shape), u_mat shapes (BHWC views);
//           u_dims (values per point); u_scale (of the translation).

// Landmarks are pixel coordinates: 32-bit arithmetic whatever the storage.
precision highp float;

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Matrix { STORAGE data[]; } mat_t;

uniform ivec4 u_out;
uniform ivec4 u_mat;
uniform int u_dims;
uniform float u_scale;

// Element i of the matrix tensor in row-major order.
float matrix_element(int i) {
  ivec4 p = bhwc_coord(u_mat, i);
  return LOAD(mat_t.data[phwc4_index(u_mat, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

// Channel c of the landmarks at (b, y, x).
float channel(int b, int y, int x, int c) {
  return LOAD(in_t.data[phwc4_index(u_out, b, y, x, c / 4)])[c % 4];
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec3 xt = vec3(matrix_element(0), matrix_element(1), matrix_element(3) * u_scale);
  vec3 yt = vec3(matrix_element(4), matrix_element(5), matrix_element(7) * u_scale);
  vec4 v = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    int c = 4 * s + j;
    if (c >= u_out.w) break;
    int k = c % u_dims;
    if (k >= 2) {
      v[j] = channel(b, gid.y, gid.x, c);
      continue;
    }
    float lx = channel(b, gid.y, gid.x, c - k), ly = channel(b, gid.y, gid.x, c - k + 1);
    vec3 t = k == 0 ? xt : yt;
    v[j] = t.x * lx + t.y * ly + t.z;
  }
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(v);
}
