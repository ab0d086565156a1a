// custom_op.comp: what an app's custom-op GL kernel (gldelegate/custom_op.hpp)
// is written against, placed between common.comp and the kernel's source.
//
// Defines: NUM_OUTPUTS (1..4), NUM_INPUTS (0..8), BINDING_IN0.. (the binding
//          of each input: NUM_OUTPUTS + i).
// Bindings: output i at i, input i at BINDING_IN<i>.
// Uniforms: u_out<i>, u_in<i> BHWC shapes; u_params[4] (the node's 16 floats).
//
// read_input<i>(b, y, x, s): the vec4 of slice s (channels 4s .. 4s + 3) at
//   (b, y, x); input<i>_at(b, y, x, c): one channel.
// write_output<i>(b, y, x, s, v): stores v, zeroing the lanes past the
//   output's channels (PHWC4's padding invariant).
// output_position(pos): under the default grid (one invocation per vec4 of
//   output 0), this invocation's (b, y, x, s); false past the grid.

uniform vec4 u_params[4];

#if NUM_OUTPUTS > 0
layout(std430, binding = 0) writeonly restrict buffer GldOutput0 { STORAGE data[]; } gld_out0;
uniform ivec4 u_out0;
void write_output0(int b, int y, int x, int s, vec4 v) {
  gld_out0.data[phwc4_index(u_out0, b, y, x, s)] = PACK(mask_lanes(v, s, u_out0.w));
}
#endif

#if NUM_OUTPUTS > 1
layout(std430, binding = 1) writeonly restrict buffer GldOutput1 { STORAGE data[]; } gld_out1;
uniform ivec4 u_out1;
void write_output1(int b, int y, int x, int s, vec4 v) {
  gld_out1.data[phwc4_index(u_out1, b, y, x, s)] = PACK(mask_lanes(v, s, u_out1.w));
}
#endif

#if NUM_OUTPUTS > 2
layout(std430, binding = 2) writeonly restrict buffer GldOutput2 { STORAGE data[]; } gld_out2;
uniform ivec4 u_out2;
void write_output2(int b, int y, int x, int s, vec4 v) {
  gld_out2.data[phwc4_index(u_out2, b, y, x, s)] = PACK(mask_lanes(v, s, u_out2.w));
}
#endif

#if NUM_OUTPUTS > 3
layout(std430, binding = 3) writeonly restrict buffer GldOutput3 { STORAGE data[]; } gld_out3;
uniform ivec4 u_out3;
void write_output3(int b, int y, int x, int s, vec4 v) {
  gld_out3.data[phwc4_index(u_out3, b, y, x, s)] = PACK(mask_lanes(v, s, u_out3.w));
}
#endif

bool output_position(out ivec4 pos) {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  pos = ivec4(0);
  if (gid.x >= u_grid.x || gid.y >= u_grid.y || gid.z >= u_grid.z) return false;
  int slices = slices_of(u_out0);
  pos = ivec4(gid.z / slices, gid.y, gid.x, gid.z % slices);
  return true;
}

#if NUM_INPUTS > 0
layout(std430, binding = BINDING_IN0) readonly restrict buffer GldInput0 { STORAGE data[]; } gld_in0;
uniform ivec4 u_in0;
vec4 read_input0(int b, int y, int x, int s) { return LOAD(gld_in0.data[phwc4_index(u_in0, b, y, x, s)]); }
float input0_at(int b, int y, int x, int c) { return read_input0(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 1
layout(std430, binding = BINDING_IN1) readonly restrict buffer GldInput1 { STORAGE data[]; } gld_in1;
uniform ivec4 u_in1;
vec4 read_input1(int b, int y, int x, int s) { return LOAD(gld_in1.data[phwc4_index(u_in1, b, y, x, s)]); }
float input1_at(int b, int y, int x, int c) { return read_input1(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 2
layout(std430, binding = BINDING_IN2) readonly restrict buffer GldInput2 { STORAGE data[]; } gld_in2;
uniform ivec4 u_in2;
vec4 read_input2(int b, int y, int x, int s) { return LOAD(gld_in2.data[phwc4_index(u_in2, b, y, x, s)]); }
float input2_at(int b, int y, int x, int c) { return read_input2(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 3
layout(std430, binding = BINDING_IN3) readonly restrict buffer GldInput3 { STORAGE data[]; } gld_in3;
uniform ivec4 u_in3;
vec4 read_input3(int b, int y, int x, int s) { return LOAD(gld_in3.data[phwc4_index(u_in3, b, y, x, s)]); }
float input3_at(int b, int y, int x, int c) { return read_input3(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 4
layout(std430, binding = BINDING_IN4) readonly restrict buffer GldInput4 { STORAGE data[]; } gld_in4;
uniform ivec4 u_in4;
vec4 read_input4(int b, int y, int x, int s) { return LOAD(gld_in4.data[phwc4_index(u_in4, b, y, x, s)]); }
float input4_at(int b, int y, int x, int c) { return read_input4(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 5
layout(std430, binding = BINDING_IN5) readonly restrict buffer GldInput5 { STORAGE data[]; } gld_in5;
uniform ivec4 u_in5;
vec4 read_input5(int b, int y, int x, int s) { return LOAD(gld_in5.data[phwc4_index(u_in5, b, y, x, s)]); }
float input5_at(int b, int y, int x, int c) { return read_input5(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 6
layout(std430, binding = BINDING_IN6) readonly restrict buffer GldInput6 { STORAGE data[]; } gld_in6;
uniform ivec4 u_in6;
vec4 read_input6(int b, int y, int x, int s) { return LOAD(gld_in6.data[phwc4_index(u_in6, b, y, x, s)]); }
float input6_at(int b, int y, int x, int c) { return read_input6(b, y, x, c / 4)[c % 4]; }
#endif

#if NUM_INPUTS > 7
layout(std430, binding = BINDING_IN7) readonly restrict buffer GldInput7 { STORAGE data[]; } gld_in7;
uniform ivec4 u_in7;
vec4 read_input7(int b, int y, int x, int s) { return LOAD(gld_in7.data[phwc4_index(u_in7, b, y, x, s)]); }
float input7_at(int b, int y, int x, int c) { return read_input7(b, y, x, c / 4)[c % 4]; }
#endif
