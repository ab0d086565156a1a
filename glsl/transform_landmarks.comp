// transform_landmarks.comp: MediaPipe's TransformLandmarks, as
// cpu_kernels/ops/mediapipe_ops.cc runs it. The channels of each pixel hold
// points of DIMS values (2 or 3): x' = m0 x + m1 y + m3 * scale,
// y' = m4 x + m5 y + m7 * scale, z copied; the matrix is the first 16 values
// of its tensor. Version 1 ([B, H, W, n * DIMS]) and version 2 ([B, N, DIMS],
// BHWC view [B, 1, N, DIMS], scale 1) are the same loop. One invocation per
// output slice and pixel; each lane finds its point's x and y, which may lie
// in a neighbouring slice. Takes a fused epilogue.
//
// Bindings: 0 output, 1 landmarks, 2 matrix.
// Uniforms: u_out0 (= the landmarks' shape), u_in1 shapes (BHWC views);
//           u_dims (values per point); u_scale (of the translation).

// Landmarks are pixel coordinates: 32-bit arithmetic whatever the storage.
precision highp float;

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Matrix { STORAGE data[]; } mat_t;

uniform ivec4 u_out0;
uniform ivec4 u_in1;
uniform int u_dims;
uniform float u_scale;

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

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out0);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec4 row0 = matrix_row(0), row1 = matrix_row(1);
  vec3 xt = vec3(row0.xy, row0.w * u_scale);
  vec3 yt = vec3(row1.xy, row1.w * u_scale);
  // Slices s - 1, s and s + 1: a point of 2 or 3 values that has a lane in
  // slice s starts at most 2 channels before it and ends at most 1 after.
  float ch[12];
  for (int k = 0; k < 3; ++k) {
    int t = s - 1 + k;
    vec4 q = t >= 0 && t < slices ? LOAD(in_t.data[phwc4_index(u_out0, b, gid.y, gid.x, t)]) : vec4(0.0);
    for (int j = 0; j < 4; ++j) ch[4 * k + j] = q[j];
  }
  vec4 v = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    int c = 4 * s + j;
    if (c >= u_out0.w) break;
    int k = c % u_dims;
    int i = 4 + j;  // channel c in ch[]
    if (k >= 2) {
      v[j] = ch[i];
      continue;
    }
    float lx = ch[i - k], ly = ch[i - k + 1];
    vec3 t = k == 0 ? xt : yt;
    v[j] = t.x * lx + t.y * ly + t.z;
  }
  out_t.data[phwc4_index(u_out0, b, gid.y, gid.x, s)] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out0.w));
}
