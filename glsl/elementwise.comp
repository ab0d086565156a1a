// elementwise.comp: unary and binary elementwise ops; binary ones broadcast
// either operand numpy-style (scalar, per-channel vector, same shape, or any
// mix of size-1 axes). The ops themselves are the
// elementwise table's rows (elementwise_table.comp, generated from
// graph/elementwise_ops.inc).
//
// Defines:
//   OP          one of the OP_* codes of elementwise_table.comp
//   BINARY      1 when the op reads a second operand (input1)
//   ACTIVATION  fused activation (common.comp)
// Bindings: 0 output, 1 input0, 2 input1 (BINARY only).
// Uniforms:
//   u_out                output shape (B, H, W, C)
//   u_in0, u_in1         stored shapes of the operands
//   u_in0_map, u_in1_map for the operand's B, H, W axes (x, y, z): the output
//                        axis (0 = B, 1 = H, 2 = W) that indexes it, or -1 for
//                        an axis of size 1. An operand's channel count is the
//                        output's, or 1 (lane 0 then serves every channel).
//   u_params             op parameters: x = LEAKY_RELU alpha.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input0 { STORAGE data[]; } in0;
#if BINARY
layout(std430, binding = 2) readonly restrict buffer Input1 { STORAGE data[]; } in1;
#endif

uniform ivec4 u_out;
uniform ivec4 u_in0;
uniform ivec4 u_in0_map;
uniform ivec4 u_in1;
uniform ivec4 u_in1_map;
uniform vec4 u_params;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x);
  vec4 a = broadcast_value(u_in0, LOAD(in0.data[broadcast_index(u_in0, u_in0_map, p, s)]));
#if BINARY
  vec4 c = broadcast_value(u_in1, LOAD(in1.data[broadcast_index(u_in1, u_in1_map, p, s)]));
#else
  vec4 c = vec4(0.0);
#endif
  vec4 v = finish_output(elementwise_op(OP, a, c, u_params), ivec4(b, gid.y, gid.x, s), u_out.w);
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(v);
}
