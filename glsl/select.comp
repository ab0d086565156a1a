// select.comp: SELECT / SELECT_V2, out = condition ? x : y per element, the
// three operands broadcast numpy-style as in elementwise.comp (the condition
// is a bool tensor: 0.0 or 1.0).
//
// Bindings: 0 output, 1 condition, 2 x, 3 y.
// Uniforms: u_out; u_in0..2 and u_in0_map..2_map as elementwise.comp's.
// Grid: (W, H, B * S) of the output.

layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Condition { STORAGE data[]; } in0;
layout(std430, binding = 2) readonly restrict buffer InputX { STORAGE data[]; } in1;
layout(std430, binding = 3) readonly restrict buffer InputY { STORAGE data[]; } in2;

uniform ivec4 u_out;
uniform ivec4 u_in0;
uniform ivec4 u_in0_map;
uniform ivec4 u_in1;
uniform ivec4 u_in1_map;
uniform ivec4 u_in2;
uniform ivec4 u_in2_map;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  ivec3 p = ivec3(b, gid.y, gid.x);
  vec4 c = broadcast_value(u_in0, LOAD(in0.data[broadcast_index(u_in0, u_in0_map, p, s)]));
  vec4 x = broadcast_value(u_in1, LOAD(in1.data[broadcast_index(u_in1, u_in1_map, p, s)]));
  vec4 y = broadcast_value(u_in2, LOAD(in2.data[broadcast_index(u_in2, u_in2_map, p, s)]));
  vec4 v = mix(y, x, notEqual(c, vec4(0.0)));
  out_t.data[phwc4_index(u_out, b, gid.y, gid.x, s)] = PACK(finish_output(v, ivec4(b, gid.y, gid.x, s), u_out.w));
}
