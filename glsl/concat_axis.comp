// concat_axis.comp: CONCATENATION of two or three inputs along B, H or W in
// one dispatch over the output (concat.comp runs one dispatch per input and
// handles the channel axis). Each output vec4 comes from the input whose
// range along the axis holds it, so the template ends in finish_output and
// takes a fused epilogue.
//
// Defines:
//   INPUTS      2 or 3
//   AXIS        0: B, 1: H, 2: W (index into ivec3(b, y, x))
//   ACTIVATION  fused activation (common.comp)
// Bindings: 0 output, 1 .. INPUTS the inputs in order.
// Uniforms: u_out, u_in1 .. u_in3 shapes; u_start.y, u_start.z: where
//           inputs 2 and 3 begin along the axis.

layout(std430, binding = 0) restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input1 { STORAGE data[]; } in_1;
layout(std430, binding = 2) readonly restrict buffer Input2 { STORAGE data[]; } in_2;
#if INPUTS >= 3
layout(std430, binding = 3) readonly restrict buffer Input3 { STORAGE data[]; } in_3;
#endif

uniform ivec4 u_out, u_in1, u_in2, u_in3;
uniform ivec4 u_start;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  ivec3 p = ivec3(gid.z / slices, gid.y, gid.x);  // (b, y, x) in the output
  int s = gid.z % slices;
  ivec3 q = p;
  vec4 v;
  if (p[AXIS] < u_start.y) {
    v = LOAD(in_1.data[phwc4_index(u_in1, q.x, q.y, q.z, s)]);
#if INPUTS >= 3
  } else if (p[AXIS] >= u_start.z) {
    q[AXIS] -= u_start.z;
    v = LOAD(in_3.data[phwc4_index(u_in3, q.x, q.y, q.z, s)]);
#endif
  } else {
    q[AXIS] -= u_start.y;
    v = LOAD(in_2.data[phwc4_index(u_in2, q.x, q.y, q.z, s)]);
  }
  out_t.data[phwc4_index(u_out, p.x, p.y, p.z, s)] = PACK(finish_output(v, ivec4(p, s), u_out.w));
}
