// epilogue.comp: a library, not a template: elementwise ops fused into the
// dispatch that produces their input (gl/fusion.h). The producer's template
// calls gld_epilogue() on every output vec4 (through finish_output, after its
// own fused activation); the ops run here in graph order, so the producer
// writes the last op's output and the intermediate tensors never exist.
// Needs elementwise_ops.comp and elementwise_table.comp.
//
// Defines, for k = 1 .. EPI_COUNT (at most 8, kMaxEpilogueOps):
//   EPI_OP_k       OP_* code (elementwise_table.comp)
//   EPI_ACT_k      ACT_* code: the fused op's own fused activation
//   EPI_OPERAND_k  0: unary; 1: the other operand is the op's second input;
//                  2: it is the first (the running value is the second)
//   EPI_BINDING_k  binding point of that operand (binary ops only)
// Uniforms, for k = 1 .. EPI_COUNT: u_epi_shape_k, u_epi_map_k (stored shape
// and broadcast map of the operand, as in elementwise.comp), u_epi_params_k.
// Step k's code is the same for every k but for names; the macros below
// spell it once. Conditions are nested: GLSL ES makes an undefined name in
// #if an error, so EPI_OPERAND_k is read only when step k exists.

#define EPI_OPERAND_BLOCK(b, block, inst) \
  layout(std430, binding = b) readonly restrict buffer block { STORAGE data[]; } inst;
// An operand with more than one channel but fewer slices than the output is
// the input of a merged channel PAD (gl/fusion.h): zeros past its slices,
// and its own last slice's spare lanes are zero in storage.
#define EPI_OPERAND_VALUE(inst, shape, map, pos) \
  (shape.w > 1 && pos.w >= slices_of(shape) \
       ? vec4(0.0) \
       : broadcast_value(shape, LOAD(inst.data[broadcast_index(shape, map, pos.xyz, pos.w)])))

#if EPI_COUNT >= 1
#if EPI_OPERAND_1 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_1, Epilogue1, epi_1)
#endif
#endif
#if EPI_COUNT >= 2
#if EPI_OPERAND_2 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_2, Epilogue2, epi_2)
#endif
#endif
#if EPI_COUNT >= 3
#if EPI_OPERAND_3 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_3, Epilogue3, epi_3)
#endif
#endif
#if EPI_COUNT >= 4
#if EPI_OPERAND_4 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_4, Epilogue4, epi_4)
#endif
#endif
#if EPI_COUNT >= 5
#if EPI_OPERAND_5 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_5, Epilogue5, epi_5)
#endif
#endif
#if EPI_COUNT >= 6
#if EPI_OPERAND_6 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_6, Epilogue6, epi_6)
#endif
#endif
#if EPI_COUNT >= 7
#if EPI_OPERAND_7 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_7, Epilogue7, epi_7)
#endif
#endif
#if EPI_COUNT >= 8
#if EPI_OPERAND_8 != 0
EPI_OPERAND_BLOCK(EPI_BINDING_8, Epilogue8, epi_8)
#endif
#endif

uniform ivec4 u_epi_shape_1, u_epi_shape_2, u_epi_shape_3, u_epi_shape_4;
uniform ivec4 u_epi_shape_5, u_epi_shape_6, u_epi_shape_7, u_epi_shape_8;
uniform ivec4 u_epi_map_1, u_epi_map_2, u_epi_map_3, u_epi_map_4;
uniform ivec4 u_epi_map_5, u_epi_map_6, u_epi_map_7, u_epi_map_8;
uniform vec4 u_epi_params_1, u_epi_params_2, u_epi_params_3, u_epi_params_4;
uniform vec4 u_epi_params_5, u_epi_params_6, u_epi_params_7, u_epi_params_8;

// The running value v as operand `which` (1: first, 2: second) of op `op`
// with the other operand o.
vec4 epilogue_step(int op, int act, int which, vec4 v, vec4 o, vec4 params) {
  vec4 r = which == 2 ? elementwise_op(op, o, v, params) : elementwise_op(op, v, o, params);
  return apply_activation(act, r);
}

// Step k with a unary op, and with a binary op reading epi_k.
#define EPI_UNARY_STEP(op, act, params) v = epilogue_step(op, act, 0, v, vec4(0.0), params);
#define EPI_BINARY_STEP(op, act, which, inst, shape, map, params) \
  v = epilogue_step(op, act, which, v, EPI_OPERAND_VALUE(inst, shape, map, pos), params);

vec4 gld_epilogue(vec4 v, ivec4 pos) {
#if EPI_COUNT >= 1
#if EPI_OPERAND_1 != 0
  EPI_BINARY_STEP(EPI_OP_1, EPI_ACT_1, EPI_OPERAND_1, epi_1, u_epi_shape_1, u_epi_map_1, u_epi_params_1)
#else
  EPI_UNARY_STEP(EPI_OP_1, EPI_ACT_1, u_epi_params_1)
#endif
#endif
#if EPI_COUNT >= 2
#if EPI_OPERAND_2 != 0
  EPI_BINARY_STEP(EPI_OP_2, EPI_ACT_2, EPI_OPERAND_2, epi_2, u_epi_shape_2, u_epi_map_2, u_epi_params_2)
#else
  EPI_UNARY_STEP(EPI_OP_2, EPI_ACT_2, u_epi_params_2)
#endif
#endif
#if EPI_COUNT >= 3
#if EPI_OPERAND_3 != 0
  EPI_BINARY_STEP(EPI_OP_3, EPI_ACT_3, EPI_OPERAND_3, epi_3, u_epi_shape_3, u_epi_map_3, u_epi_params_3)
#else
  EPI_UNARY_STEP(EPI_OP_3, EPI_ACT_3, u_epi_params_3)
#endif
#endif
#if EPI_COUNT >= 4
#if EPI_OPERAND_4 != 0
  EPI_BINARY_STEP(EPI_OP_4, EPI_ACT_4, EPI_OPERAND_4, epi_4, u_epi_shape_4, u_epi_map_4, u_epi_params_4)
#else
  EPI_UNARY_STEP(EPI_OP_4, EPI_ACT_4, u_epi_params_4)
#endif
#endif
#if EPI_COUNT >= 5
#if EPI_OPERAND_5 != 0
  EPI_BINARY_STEP(EPI_OP_5, EPI_ACT_5, EPI_OPERAND_5, epi_5, u_epi_shape_5, u_epi_map_5, u_epi_params_5)
#else
  EPI_UNARY_STEP(EPI_OP_5, EPI_ACT_5, u_epi_params_5)
#endif
#endif
#if EPI_COUNT >= 6
#if EPI_OPERAND_6 != 0
  EPI_BINARY_STEP(EPI_OP_6, EPI_ACT_6, EPI_OPERAND_6, epi_6, u_epi_shape_6, u_epi_map_6, u_epi_params_6)
#else
  EPI_UNARY_STEP(EPI_OP_6, EPI_ACT_6, u_epi_params_6)
#endif
#endif
#if EPI_COUNT >= 7
#if EPI_OPERAND_7 != 0
  EPI_BINARY_STEP(EPI_OP_7, EPI_ACT_7, EPI_OPERAND_7, epi_7, u_epi_shape_7, u_epi_map_7, u_epi_params_7)
#else
  EPI_UNARY_STEP(EPI_OP_7, EPI_ACT_7, u_epi_params_7)
#endif
#endif
#if EPI_COUNT >= 8
#if EPI_OPERAND_8 != 0
  EPI_BINARY_STEP(EPI_OP_8, EPI_ACT_8, EPI_OPERAND_8, epi_8, u_epi_shape_8, u_epi_map_8, u_epi_params_8)
#else
  EPI_UNARY_STEP(EPI_OP_8, EPI_ACT_8, u_epi_params_8)
#endif
#endif
  return v;
}
