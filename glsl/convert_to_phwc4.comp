// convert_to_phwc4.comp: a host tensor in BHWC order (uploaded as raw bytes
// into 32-bit words) -> a PHWC4 GPU tensor. Quantized integer tensors become
// floats holding their integer values (elementwise.comp's DEQUANTIZE reads
// them). One invocation per output vec4.
//
// Bool tensors come as SRC_UINT8 (0 or 1); int32 ones (index tensors) as
// SRC_INT32, exact up to 2^24 (their readers check the range they need).
//
// Defines: SOURCE  SRC_FLOAT32, SRC_INT8, SRC_UINT8, SRC_INT16 or SRC_INT32.
// Bindings: 0 output (PHWC4), 1 source words.
// Uniforms: u_shape.

#define SRC_FLOAT32 0
#define SRC_INT8 1
#define SRC_UINT8 2
#define SRC_INT16 3
#define SRC_INT32 4

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Source { uint data[]; } src;

uniform ivec4 u_shape;

float element(int i) {
#if SOURCE == SRC_FLOAT32
  return uintBitsToFloat(src.data[i]);
#elif SOURCE == SRC_INT8
  return float(bitfieldExtract(int(src.data[i >> 2]), (i & 3) * 8, 8));
#elif SOURCE == SRC_UINT8
  return float(bitfieldExtract(src.data[i >> 2], (i & 3) * 8, 8));
#elif SOURCE == SRC_INT16
  return float(bitfieldExtract(int(src.data[i >> 1]), (i & 1) * 16, 16));
#elif SOURCE == SRC_INT32
  return float(int(src.data[i]));
#else
#error "convert_to_phwc4.comp: unknown SOURCE"
#endif
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_shape);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int first = bhwc_linear(u_shape, ivec4(b, gid.y, gid.x, 4 * s));
  vec4 v = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    if (4 * s + j < u_shape.w) v[j] = element(first + j);
  }
  out_t.data[phwc4_index(u_shape, b, gid.y, gid.x, s)] = PACK(v);
}
