// basic_lstm.comp: the two elementwise stages of LSTM's basic kernel (the
// gates' product in between is fully_connected.comp over the concatenation).
//
// STAGE 0, the concatenation [B, I + O] of the input [B, I] and the previous
//   activation [B, O]. Bindings: 0 concatenation, 1 input, 2 previous
//   activation. Grid: (1, 1, B * S) of the concatenation.
// STAGE 1, the cell: gates [B, 4O] in the order input, candidate, forget,
//   output; state = sigmoid(i) * tanh(c) + sigmoid(f) * previous state,
//   activation = sigmoid(o) * tanh(state). Bindings: 0 activation, 1 state,
//   2 gates, 3 previous state. Grid: (1, 1, B * S) of the state.
// Uniforms: u_out (binding 0's shape), u_a, u_b (bindings 2's and 3's or,
//   STAGE 0, 1's and 2's).

#if STAGE == 0
layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer A { STORAGE data[]; } a_t;
layout(std430, binding = 2) readonly restrict buffer B { STORAGE data[]; } b_t;
#else
layout(std430, binding = 0) writeonly restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) writeonly restrict buffer State { STORAGE data[]; } state_t;
layout(std430, binding = 2) readonly restrict buffer A { STORAGE data[]; } a_t;
layout(std430, binding = 3) readonly restrict buffer B { STORAGE data[]; } b_t;
#endif

uniform ivec4 u_out;
uniform ivec4 u_a;
uniform ivec4 u_b;

float a_at(int b, int c) { return LOAD(a_t.data[phwc4_index(u_a, b, 0, 0, c / 4)])[c % 4]; }
float b_at(int b, int c) { return LOAD(b_t.data[phwc4_index(u_b, b, 0, 0, c / 4)])[c % 4]; }

void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out);
  int b = gid.z / slices;
  int s = gid.z % slices;
  vec4 v = vec4(0.0);
#if STAGE == 0
  for (int lane = 0; lane < 4; ++lane) {
    int c = 4 * s + lane;
    if (c < u_a.w) {
      v[lane] = a_at(b, c);
    } else if (c < u_out.w) {
      v[lane] = b_at(b, c - u_a.w);
    }
  }
  out_t.data[phwc4_index(u_out, b, 0, 0, s)] = PACK(v);
#else
  int o = u_out.w;
  vec4 st = vec4(0.0);
  for (int lane = 0; lane < 4; ++lane) {
    int c = 4 * s + lane;
    if (c >= o) break;
    vec4 g = vec4(a_at(b, c), a_at(b, o + c), a_at(b, 2 * o + c), a_at(b, 3 * o + c));
    vec4 gs = sigmoid(g);
    vec4 t = safe_tanh(vec4(g.y, 0.0, 0.0, 0.0));
    st[lane] = gs.x * t.x + gs.z * b_at(b, c);
    v[lane] = gs.w * safe_tanh(vec4(st[lane]))[0];
  }
  int i = phwc4_index(u_out, b, 0, 0, s);
  out_t.data[i] = PACK(v);
  state_t.data[i] = PACK(st);
#endif
}
