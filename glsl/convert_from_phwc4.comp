// convert_from_phwc4.comp: a PHWC4 GPU tensor -> a host tensor in BHWC order,
// written as 32-bit words (one float, two int16 or four 8-bit integers each,
// little-endian), so that no two invocations write the same word. Integer
// tensors hold their integer values as floats on the GPU; they are rounded
// and saturated here.
//
// Grid: (u_row, ceil(words / u_row), 1); word = gid.y * u_row + gid.x.
// Bool tensors leave as DST_UINT8 (0 or 1), int32 ones as DST_INT32.
// Defines: DEST  DST_FLOAT32, DST_INT8, DST_UINT8, DST_INT16 or DST_INT32.
// Bindings: 0 destination words, 1 input (PHWC4).
// Uniforms: u_shape; u_words (words to write); u_row.

#define DST_FLOAT32 0
#define DST_INT8 1
#define DST_UINT8 2
#define DST_INT16 3
#define DST_INT32 4

layout(std430, binding = 0) writeonly restrict buffer Destination { uint data[]; } dst;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;

uniform ivec4 u_shape;
uniform int u_words;
uniform int u_row;

float element(int i) {
  ivec4 p = bhwc_coord(u_shape, i);
  return LOAD(in_t.data[phwc4_index(u_shape, p.x, p.y, p.z, p.w / 4)])[p.w % 4];
}

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  int word = gid.y * u_row + gid.x;
  if (gid.x >= u_row || word >= u_words) return;
  int n = u_shape.x * u_shape.y * u_shape.z * u_shape.w;
#if DEST == DST_FLOAT32
  dst.data[word] = floatBitsToUint(element(word));
#elif DEST == DST_INT32
  dst.data[word] = uint(int(round_away(element(word))));
#else
#if DEST == DST_INT16
  const int per_word = 2, bits = 16;
  const float lo = -32768.0, hi = 32767.0;
#elif DEST == DST_INT8
  const int per_word = 4, bits = 8;
  const float lo = -128.0, hi = 127.0;
#else
  const int per_word = 4, bits = 8;
  const float lo = 0.0, hi = 255.0;
#endif
  uint w = 0u;
  for (int e = 0; e < per_word; ++e) {
    int i = word * per_word + e;
    if (i >= n) break;
    int q = int(clamp(round_away(element(i)), lo, hi));
    w = bitfieldInsert(w, uint(q), e * bits, bits);
  }
  dst.data[word] = w;
#endif
}
