// common.comp: the prelude of every gldelegate compute shader.
//
// The shader generator (gl/shader_generator.cc) builds each program as
//   #version 310 es
//   #define ...            (GLD_FP16, WG_X/Y/Z, ACTIVATION, op-specific)
//   <this file>
//   <libraries the variant asks for: elementwise_ops.comp, elementwise_table.comp, epilogue.comp>
//   <the op template, e.g. conv2d.comp>
//
// Tensors are PHWC4 (see gl/phwc4.h): a tensor of BHWC shape (B, H, W, C),
// passed to shaders as ivec4(B, H, W, C), has S = ceil(C / 4) slices and
// element (b, y, x, c) is lane c % 4 of vec4 number ((b * S + c / 4) * H + y) * W + x.
// Lanes past C of the last slice are always 0.
//
// Invocation grid: unless a template says otherwise, one invocation computes
// one output vec4: gl_GlobalInvocationID = (x, y, b * S + s).

#ifdef GLD_MEDIUMP
precision mediump float;  // fp16 arithmetic (Precision::kFp16Mediump)
#else
precision highp float;
#endif
precision highp int;

layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = WG_Z) in;

// ---- Storage precision ----------------------------------------------------
// fp32: a vec4 per element of a storage buffer.
// fp16: a vec4 packed into a uvec2 with packHalf2x16 (half the bandwidth);
// arithmetic stays in 32-bit floats.
#if GLD_FP16
#define STORAGE uvec2
#define LOAD(d) vec4(unpackHalf2x16((d).x), unpackHalf2x16((d).y))
#define PACK(v) uvec2(packHalf2x16((v).xy), packHalf2x16((v).zw))
#else
#define STORAGE vec4
#define LOAD(d) (d)
#define PACK(v) (v)
#endif

// The number of invocations that do work; the dispatch is rounded up to
// whole workgroups.
uniform ivec3 u_grid;

#define GRID_GUARD(gid) \
  if (gid.x >= u_grid.x || gid.y >= u_grid.y || gid.z >= u_grid.z) return

int slices_of(ivec4 shape) { return (shape.w + 3) / 4; }

int phwc4_index(ivec4 shape, int b, int y, int x, int s) {
  return ((b * slices_of(shape) + s) * shape.y + y) * shape.z + x;
}

// Lanes at channels >= `channels` become 0 (the padding invariant).
vec4 mask_lanes(vec4 v, int s, int channels) {
  ivec4 c = ivec4(4 * s) + ivec4(0, 1, 2, 3);
  return mix(vec4(0.0), v, lessThan(c, ivec4(channels)));
}

// Coordinates of the BHWC element `i` (row-major linear index) of `shape`.
ivec4 bhwc_coord(ivec4 shape, int i) {
  int c = i % shape.w;
  i /= shape.w;
  int x = i % shape.z;
  i /= shape.z;
  int y = i % shape.y;
  return ivec4(i / shape.y, y, x, c);
}

int bhwc_linear(ivec4 shape, ivec4 p) {
  return ((p.x * shape.y + p.y) * shape.z + p.z) * shape.w + p.w;
}

// Rounds half away from zero, like std::round (GLSL's round() leaves the
// halfway case to the implementation).
float round_away(float v) { return sign(v) * floor(abs(v) + 0.5); }
vec4 round_away(vec4 v) { return sign(v) * floor(abs(v) + 0.5); }

// ---- Fused activation (TFLite's fused_activation_function) ------------------
#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_RELU_N1_TO_1 2
#define ACT_RELU6 3
#define ACT_TANH 4
#define ACT_SIGMOID 5
#ifndef ACTIVATION
#define ACTIVATION ACT_NONE
#endif

// NaN in, NaN out, as on the CPU (C++'s std::max/std::min and TFLite's
// clamps): GLSL's max, min and clamp may return the other operand when one is
// NaN, which would hide a NaN. A comparison with NaN is false, so these
// selects keep it; for other values they equal max, min and clamp bit for bit.
vec4 max_keep_nan(vec4 v, float lo) { return mix(max(v, vec4(lo)), v, isnan(v)); }
vec4 clamp_keep_nan(vec4 v, float lo, float hi) { return mix(clamp(v, lo, hi), v, isnan(v)); }
// a > b ? a : b and a < b ? a : b per lane: TFLite's MAXIMUM and MINIMUM,
// whose result is b when either is NaN.
vec4 maximum_as_cpu(vec4 a, vec4 b) { return mix(max(a, b), b, bvec4(uvec4(isnan(a)) | uvec4(isnan(b)))); }
vec4 minimum_as_cpu(vec4 a, vec4 b) { return mix(min(a, b), b, bvec4(uvec4(isnan(a)) | uvec4(isnan(b)))); }

vec4 safe_tanh(vec4 v) {
  // tanh(15) is 1 in float; clamping avoids inf / inf inside tanh().
  // Some tanh implementations return -1 for NaN: keep it.
  return mix(tanh(clamp(v, -15.0, 15.0)), v, isnan(v));
}

vec4 sigmoid(vec4 v) { return 1.0 / (1.0 + exp(-v)); }

// `act` is a constant at every call site, so the compiler keeps one branch.
vec4 apply_activation(int act, vec4 v) {
  switch (act) {
    case ACT_RELU: return max_keep_nan(v, 0.0);
    case ACT_RELU_N1_TO_1: return clamp_keep_nan(v, -1.0, 1.0);
    case ACT_RELU6: return clamp_keep_nan(v, 0.0, 6.0);
    case ACT_TANH: return safe_tanh(v);
    case ACT_SIGMOID: return sigmoid(v);
    default: return v;
  }
}

vec4 activate(vec4 v) { return apply_activation(ACTIVATION, v); }

// ---- Epilogue ---------------------------------------------------------------
// A fused epilogue (elementwise ops folded into the producing dispatch,
// epilogue.comp) defines GLD_EPILOGUE and the function below after this file;
// `pos` is (b, y, x, slice) of the output vec4.
#ifdef GLD_EPILOGUE
vec4 gld_epilogue(vec4 v, ivec4 pos);
#else
vec4 gld_epilogue(vec4 v, ivec4 pos) { return v; }
#endif

// What every template does with its result before storing it.
vec4 finish_output(vec4 v, ivec4 pos, int channels) {
  return mask_lanes(gld_epilogue(activate(v), pos), pos.w, channels);
}
