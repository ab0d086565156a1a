// lstm_state.comp: copies an LSTM's output state [B, n] from / to the last
// time row of its output sequence (lstm.comp reads the first step's previous
// output there, and leaves the last step's output there).
//
// Defines: TO_STATE (1: sequence row -> state; 0: state -> sequence row).
// Bindings: 0 destination, 1 source.
// Grid: (1, 1, B * S) of the state.
// Uniforms: u_state [B, n]; u_seq_shape (the sequence's BHWC view);
//           u_seq = (batch, time, time major, units).

layout(std430, binding = 0) writeonly restrict buffer Destination { STORAGE data[]; } dst;
layout(std430, binding = 1) readonly restrict buffer Source { STORAGE data[]; } src;

uniform ivec4 u_state;
uniform ivec4 u_seq_shape;
uniform ivec4 u_seq;

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_state);
  int b = gid.z / slices;
  int s = gid.z % slices;
  int t = u_seq.y - 1;
  int row = u_seq.z != 0 ? phwc4_index(u_seq_shape, t, 0, b, s) : phwc4_index(u_seq_shape, b, 0, t, s);
  int state = phwc4_index(u_state, b, 0, 0, s);
#if TO_STATE
  dst.data[state] = src.data[row];
#else
  dst.data[row] = src.data[state];
#endif
}
