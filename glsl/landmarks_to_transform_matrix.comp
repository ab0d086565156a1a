// landmarks_to_transform_matrix.comp: MediaPipe's Landmarks2TransformMatrix,
// as cpu_kernels/ops/mediapipe_ops.cc runs it: from (x, y, z) landmarks, the 4x4
// matrix that maps crop coordinates back to the image, made of the rotation
// between two landmarks and the box around a subset of them, rotated. Same
// steps, same order of operations (the products are written out as loops
// with the CPU kernel's summation order). One invocation writes the four
// rows.
//
// Defines: VERSION (1 or 2).
// Bindings: 0 output (BHWC view [1, 1, 4, 4]: one vec4 per row),
//           1 landmarks (any shape; element 3 i + d is landmark i's value d),
//           2 subset (one vec4 per pair of landmark indices: first, second).
// Uniforms: u_out0, u_in0 shapes (BHWC views); u_pairs (subset pairs);
//           u_rotation_idx (left, right);
//           u_sizes  v1: (input_h, input_w, output_h, output_w)
//                    v2: (0, 0, output_height, output_width);
//           u_values v1: (landmarks_range, bbox_size_multiplier, 0, 0)
//                    v2: (target_rotation_radians, scale_x, scale_y, 0).

// Coordinates and angles: 32-bit arithmetic whatever the storage.
precision highp float;

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Subset { STORAGE data[]; } subset_t;

uniform ivec4 u_out0;
uniform ivec4 u_in0;
uniform int u_pairs;
uniform ivec2 u_rotation_idx;
uniform ivec4 u_sizes;
uniform vec4 u_values;

float landmark_value(int i) {
  ivec4 p = bhwc_coord(u_in0, i);
  return LOAD(in_t.data[phwc4_index(u_in0, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

vec2 landmark(int i) { return vec2(landmark_value(3 * i), landmark_value(3 * i + 1)); }

// The k-th landmark of the subset, pairs flattened.
int subset_index(int k) {
  vec4 pair = LOAD(subset_t.data[k / 2]);
  return int(k % 2 == 0 ? pair.x : pair.y);
}

// box = (min_x, min_y, max_x, max_y) grown by q as std::min / std::max do.
vec4 extend(vec4 box, vec2 q) {
  return vec4(q.x < box.x ? q.x : box.x, q.y < box.y ? q.y : box.y, box.z < q.x ? q.x : box.z,
              box.w < q.y ? q.y : box.w);
}

void store_row(int row, vec4 v) { out_t.data[phwc4_index(u_out0, 0, 0, row, 0)] = PACK(v); }

#if VERSION == 1
void mul3(float a[9], float b[9], out float r[9]) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      float s = 0.0;
      for (int k = 0; k < 3; ++k) s += a[i * 3 + k] * b[k * 3 + j];
      r[i * 3 + j] = s;
    }
  }
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  vec2 l = landmark(u_rotation_idx.x), r = landmark(u_rotation_idx.y);
  float alpha = -atan((r.y - l.y) / (r.x - l.x));
  float ca = cos(alpha), sa = sin(alpha);
  vec4 box = vec4(100000.0, 100000.0, -100000.0, -100000.0);
  for (int k = 0; k < 2 * u_pairs; ++k) {
    vec2 p = landmark(subset_index(k));
    box = extend(box, vec2(p.x * ca - p.y * sa, p.x * sa + p.y * ca));
  }
  float range = u_values.x;
  float bw = (box.z - box.x) * u_values.y, bh = (box.w - box.y) * u_values.y;
  float scale[9] = float[9](bw / range, 0.0, 0.0, 0.0, bh / range, 0.0, 0.0, 0.0, 1.0);
  float mx = (box.z + box.x) / 2.0, my = (box.w + box.y) / 2.0;
  float cn = cos(-alpha), sn = sin(-alpha);
  float rmx = mx * cn - my * sn, rmy = mx * sn + my * cn;
  float rotation[9] = float[9](cn, -sn, (rmx / range) * 2.0 - 1.0, sn, cn, (rmy / range) * 2.0 - 1.0, 0.0, 0.0, 1.0);
  float to_relative[9] = float[9](2.0 / (float(u_sizes.w) - 1.0), 0.0, -1.0, 0.0, 2.0 / (float(u_sizes.z) - 1.0),
                                  -1.0, 0.0, 0.0, 1.0);
  float aw = (float(u_sizes.y) - 1.0) / 2.0, ah = (float(u_sizes.x) - 1.0) / 2.0;
  float to_absolute[9] = float[9](aw, 0.0, aw, 0.0, ah, ah, 0.0, 0.0, 1.0);
  float t1[9], t2[9], m[9];
  mul3(to_absolute, rotation, t1);
  mul3(t1, scale, t2);
  mul3(t2, to_relative, m);
  store_row(0, vec4(m[0], m[1], 0.0, m[2]));
  store_row(1, vec4(m[3], m[4], 0.0, m[5]));
  store_row(2, vec4(m[6], m[7], m[8], 0.0));
  store_row(3, vec4(0.0, 0.0, 0.0, 1.0));
}

#else
void mul4(float a[16], float b[16], out float r[16]) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      float s = 0.0;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
  }
}

float[16] translation(float x, float y) {
  return float[16](1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  vec2 l = landmark(u_rotation_idx.x), r = landmark(u_rotation_idx.y);
  float rotation = u_values.x - atan(r.y - l.y, r.x - l.x);
  float cr = cos(rotation), sr = sin(rotation);
  vec4 box = vec4(0.0);
  for (int k = 0; k < 2 * u_pairs; ++k) {
    vec2 p = landmark(subset_index(k));
    vec2 q = vec2(cr * p.x - sr * p.y, sr * p.x + cr * p.y);
    box = k == 0 ? q.xyxy : extend(box, q);
  }
  float crop_w = box.z - box.x, crop_h = box.w - box.y;
  // The centre of the rotated box, rotated back.
  float cx = (box.x + box.z) / 2.0, cy = (box.y + box.w) / 2.0;
  float cb = cos(-rotation), sb = sin(-rotation);
  float crop_x = cb * cx - sb * cy;
  float crop_y = sb * cx + cb * cy;
  float a = -rotation;
  float identity[16] = translation(0.0, 0.0);
  float shift[16] = translation(crop_x, crop_y);
  float rot[16] = float[16](cos(a), -sin(a), 0.0, 0.0, sin(a), cos(a), 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0,
                            1.0);
  float scale_x = u_values.y * crop_w / float(u_sizes.w);
  float scale_y = u_values.z * crop_h / float(u_sizes.z);
  float scale[16] = float[16](scale_x, 0.0, 0.0, 0.0, 0.0, scale_y, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
  float shift2[16] = translation(-(float(u_sizes.w) / 2.0), -(float(u_sizes.z) / 2.0));
  float t1[16], t2[16], t3[16], m[16];
  mul4(identity, shift, t1);
  mul4(t1, rot, t2);
  mul4(t2, scale, t3);
  mul4(t3, shift2, m);
  for (int row = 0; row < 4; ++row) {
    store_row(row, vec4(m[4 * row], m[4 * row + 1], m[4 * row + 2], m[4 * row + 3]));
  }
}
#endif
