// epilogue.comp: a library, not a template: elementwise ops fused into the
// dispatch that produces their input (gl/fusion.h). The producer's template
// calls gld_epilogue() on every output vec4 (through finish_output, after its
// own fused activation); the ops run here in graph order, so the producer
// writes the last op's output and the intermediate tensors never exist.
// Needs elementwise_ops.comp.
//
// Defines, for k = 1 .. EPI_COUNT (at most 3):
//   EPI_OP_k       OP_* code (elementwise_ops.comp)
//   EPI_ACT_k      ACT_* code: the fused op's own fused activation
//   EPI_OPERAND_k  0: unary; 1: the other operand is the op's second input;
//                  2: it is the first (the running value is the second)
//   EPI_BINDING_k  binding point of that operand (binary ops only)
// Uniforms, for k = 1 .. EPI_COUNT: u_epi_shape_k, u_epi_map_k (stored shape
// and broadcast map of the operand, as in elementwise.comp), u_epi_params_k.

#if EPI_COUNT >= 1 && EPI_OPERAND_1 != 0
layout(std430, binding = EPI_BINDING_1) readonly restrict buffer Epilogue1 { STORAGE data[]; } epi_1;
#endif
#if EPI_COUNT >= 2 && EPI_OPERAND_2 != 0
layout(std430, binding = EPI_BINDING_2) readonly restrict buffer Epilogue2 { STORAGE data[]; } epi_2;
#endif
#if EPI_COUNT >= 3 && EPI_OPERAND_3 != 0
layout(std430, binding = EPI_BINDING_3) readonly restrict buffer Epilogue3 { STORAGE data[]; } epi_3;
#endif

uniform ivec4 u_epi_shape_1, u_epi_shape_2, u_epi_shape_3;
uniform ivec4 u_epi_map_1, u_epi_map_2, u_epi_map_3;
uniform vec4 u_epi_params_1, u_epi_params_2, u_epi_params_3;

// The running value v as operand `which` (1: first, 2: second) of op `op`
// with the other operand o.
vec4 epilogue_step(int op, int act, int which, vec4 v, vec4 o, vec4 params) {
  vec4 r = which == 2 ? elementwise_op(op, o, v, params) : elementwise_op(op, v, o, params);
  return apply_activation(act, r);
}

vec4 gld_epilogue(vec4 v, ivec4 pos) {
  vec4 o = vec4(0.0);
#if EPI_COUNT >= 1
#if EPI_OPERAND_1 != 0
  o = broadcast_value(u_epi_shape_1,
                      LOAD(epi_1.data[broadcast_index(u_epi_shape_1, u_epi_map_1, pos.xyz, pos.w)]));
#endif
  v = epilogue_step(EPI_OP_1, EPI_ACT_1, EPI_OPERAND_1, v, o, u_epi_params_1);
#endif
#if EPI_COUNT >= 2
#if EPI_OPERAND_2 != 0
  o = broadcast_value(u_epi_shape_2,
                      LOAD(epi_2.data[broadcast_index(u_epi_shape_2, u_epi_map_2, pos.xyz, pos.w)]));
#endif
  v = epilogue_step(EPI_OP_2, EPI_ACT_2, EPI_OPERAND_2, v, o, u_epi_params_2);
#endif
#if EPI_COUNT >= 3
#if EPI_OPERAND_3 != 0
  o = broadcast_value(u_epi_shape_3,
                      LOAD(epi_3.data[broadcast_index(u_epi_shape_3, u_epi_map_3, pos.xyz, pos.w)]));
#endif
  v = epilogue_step(EPI_OP_3, EPI_ACT_3, EPI_OPERAND_3, v, o, u_epi_params_3);
#endif
  return v;
}
