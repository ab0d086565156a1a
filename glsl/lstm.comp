// lstm.comp: one LSTM cell run over a whole sequence, for LSTM's full kernel
// (one step) and UNIDIRECTIONAL_SEQUENCE_LSTM. One workgroup per batch row
// loops over the time steps; the previous output h lives in shared memory,
// the cell state c of the units an invocation owns in its registers. Gates
// are TFLite's: i, f, c (candidate), o; without i when the input and forget
// gates are coupled (CIFG: i = 1 - f).
//
// The previous output of the first step is read from the output's last time
// row, where lstm_state.comp copied the output state variable before this
// dispatch (and copies it back from there after), so the four storage blocks
// of the GLES 3.1 minimum suffice.
//
// Defines: WG_X (units' slices taken WG_X at a time), SLICES (slices of the
//          n units), X_SLICES (slices of the input features), PER_INV
//          (ceil(SLICES / WG_X)), CIFG (0 / 1), ACTIVATION (the cell and
//          output activation, common.comp's ACT_*).
// Bindings: 0 output sequence (read at the last row, then written row by
//           row), 1 input sequence, 2 weights (per unit slice: the four
//           gates' biases, then for each gate the input weights and the
//           recurrent weights, 4 vec4s per slice of inputs as
//           fully_connected.comp reads them), 3 cell state [B, n] (updated
//           in place).
// Grid: (WG_X, B, 1), workgroup (WG_X, 1, 1): every invocation reaches the
//       barriers.
// Uniforms: u_out, u_in shapes; u_seq = (batch, time, time major, units);
//           u_cell_clip (0: none).

layout(std430, binding = 0) restrict buffer Output { STORAGE data[]; } out_t;
layout(std430, binding = 1) readonly restrict buffer Input { STORAGE data[]; } in_t;
layout(std430, binding = 2) readonly restrict buffer Weights { STORAGE data[]; } weights;
layout(std430, binding = 3) restrict buffer Cell { STORAGE data[]; } cell;

uniform ivec4 u_out;
uniform ivec4 u_in;
uniform ivec4 u_seq;
uniform float u_cell_clip;

shared vec4 h_shared[SLICES];

// The vec4 of slice s at (batch b, time t) of a sequence [B, T, F]
// (BHWC (b, 1, t, F)) or, time major, [T, B, F] ((t, 1, b, F)); a rank-2
// tensor [B, F] is the batch-major form with T = 1.
int seq_index(ivec4 shape, int b, int t, int s) {
  return u_seq.z != 0 ? phwc4_index(shape, t, 0, b, s) : phwc4_index(shape, b, 0, t, s);
}

vec4 multiply(vec4 v, int w) {
  return vec4(dot(v, LOAD(weights.data[w])), dot(v, LOAD(weights.data[w + 1])),
              dot(v, LOAD(weights.data[w + 2])), dot(v, LOAD(weights.data[w + 3])));
}

const int GATE_STRIDE = 4 * (X_SLICES + SLICES);  // vec4s of one gate of one unit slice
const int SLICE_STRIDE = 4 + 4 * GATE_STRIDE;     // the biases and four gates

void main() {
  int lid = int(gl_LocalInvocationID.x);
  int b = int(gl_WorkGroupID.y);
  int time = u_seq.y;
  highp vec4 c_reg[PER_INV];  // highp: the state carries over every step
  for (int k = 0; k < PER_INV; ++k) {
    int s = lid + k * WG_X;
    c_reg[k] = vec4(0.0);
    if (s < SLICES) {
      c_reg[k] = LOAD(cell.data[b * SLICES + s]);
      h_shared[s] = LOAD(out_t.data[seq_index(u_out, b, time - 1, s)]);
    }
  }
  memoryBarrierShared();
  barrier();
  for (int t = 0; t < time; ++t) {
    vec4 h_new[PER_INV];
    for (int k = 0; k < PER_INV; ++k) {
      int s = lid + k * WG_X;
      h_new[k] = vec4(0.0);
      if (s >= SLICES) continue;
      int base = s * SLICE_STRIDE;
      highp vec4 g[4];  // highp: sums stay fp32 under GLD_MEDIUMP
      for (int q = 0; q < 4; ++q) g[q] = LOAD(weights.data[base + q]);
      for (int xs = 0; xs < X_SLICES; ++xs) {
        vec4 v = LOAD(in_t.data[seq_index(u_in, b, t, xs)]);
        for (int q = 0; q < 4; ++q) g[q] += multiply(v, base + 4 + q * GATE_STRIDE + 4 * xs);
      }
      for (int hs = 0; hs < SLICES; ++hs) {
        vec4 v = h_shared[hs];
        for (int q = 0; q < 4; ++q) g[q] += multiply(v, base + 4 + q * GATE_STRIDE + 4 * (X_SLICES + hs));
      }
      vec4 f = sigmoid(g[1]);
#if CIFG
      vec4 i = 1.0 - f;
#else
      vec4 i = sigmoid(g[0]);
#endif
      highp vec4 c = f * c_reg[k] + i * activate(g[2]);
      if (u_cell_clip > 0.0) c = clamp_keep_nan(c, -u_cell_clip, u_cell_clip);
      c = mask_lanes(c, s, u_seq.w);
      c_reg[k] = c;
      h_new[k] = mask_lanes(sigmoid(g[3]) * activate(c), s, u_seq.w);
    }
    barrier();  // every invocation has read h_shared for this step
    for (int k = 0; k < PER_INV; ++k) {
      int s = lid + k * WG_X;
      if (s >= SLICES) continue;
      h_shared[s] = h_new[k];
      out_t.data[seq_index(u_out, b, t, s)] = PACK(h_new[k]);
    }
    memoryBarrierShared();
    barrier();
  }
  for (int k = 0; k < PER_INV; ++k) {
    int s = lid + k * WG_X;
    if (s < SLICES) cell.data[b * SLICES + s] = PACK(c_reg[k]);
  }
}
