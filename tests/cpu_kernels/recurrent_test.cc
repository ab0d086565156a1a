// The recurrent kernels (cpu_kernels/ops/recurrent.cc) against themselves in
// other forms (LiteRT's own outputs are the conformance cases'): a sequence
// op over T steps equals T single-step ops chained through the same state
// tensors (the GEMM input projection against dot products, the state kept
// between nodes as between invokes), the bidirectional op equals two
// unidirectional ones (the backward one on the reversed sequence), threads
// do not change a bit, SVDF's memory is the filter it is defined as; and bad
// nodes fail with errors that name them.
#include <cmath>
#include <string>

#include "op_test_util.h"

namespace gld::testing {
namespace {

// The options a test's LSTM cell has.
struct CellSpec {
  int64_t n_in = 3, n_cell = 5, n_out = 5;
  bool cifg = false, peephole = false, projection = false, layer_norm = false;
};

// The 17 weights of one cell (LSTM's inputs 1..17), kNoTensor where absent.
std::vector<int> CellWeights(OpTest& t, const CellSpec& c, uint32_t seed) {
  auto w = [&](Shape s) {
    const size_t n = static_cast<size_t>(NumElements(s));
    return t.Const<float>(s, RandomFloats(n, seed++, -0.5f, 0.5f));
  };
  const int32_t ni = static_cast<int32_t>(c.n_in), nc = static_cast<int32_t>(c.n_cell),
                no = static_cast<int32_t>(c.n_out);
  std::vector<int> in;
  for (int g = 0; g < 4; ++g) in.push_back(g == 0 && c.cifg ? kNoTensor : w({nc, ni}));
  for (int g = 0; g < 4; ++g) in.push_back(g == 0 && c.cifg ? kNoTensor : w({nc, no}));
  for (int g = 0; g < 3; ++g) in.push_back(c.peephole && !(g == 0 && c.cifg) ? w({nc}) : kNoTensor);
  for (int g = 0; g < 4; ++g) in.push_back(g == 0 && c.cifg ? kNoTensor : w({nc}));
  in.push_back(c.projection ? w({no, nc}) : kNoTensor);
  in.push_back(c.projection ? w({no}) : kNoTensor);
  return in;
}

// A variable state tensor, zero at the start (a runtime input of the test
// graph, so it keeps what the kernels write into it).
int State(OpTest& t, Shape s) {
  const int id = t.Input<float>(s, std::vector<float>(static_cast<size_t>(NumElements(s)), 0.f));
  t.graph.tensors[static_cast<size_t>(id)].is_variable = true;
  return id;
}

std::vector<int> LayerNorm(OpTest& t, const CellSpec& c, uint32_t seed) {
  std::vector<int> in;
  for (int g = 0; g < 4; ++g) {
    const bool has = c.layer_norm && !(g == 0 && c.cifg);
    in.push_back(has ? t.Const<float>({static_cast<int32_t>(c.n_cell)},
                                      RandomFloats(static_cast<size_t>(c.n_cell), seed + g, 0.5f, 1.5f))
                     : kNoTensor);
  }
  return in;
}

RecurrentAttributes LstmAttrs(bool time_major = false) {
  RecurrentAttributes a;
  a.activation = Activation::kTanh;
  a.cell_clip = 0.8f;
  a.proj_clip = 0.6f;
  a.time_major = time_major;
  return a;
}

// The sequence LSTM over x [1, T, n_in] in one node, and T LSTM nodes, one
// per step, reading and updating the same two state tensors: same outputs.
void ExpectSequenceEqualsSteps(const CellSpec& c, int64_t steps) {
  const std::vector<float> x = RandomFloats(static_cast<size_t>(steps * c.n_in), 99, -1.f, 1.f);
  const int32_t ni = static_cast<int32_t>(c.n_in), T = static_cast<int32_t>(steps);
  const int32_t no = static_cast<int32_t>(c.n_out), nc = static_cast<int32_t>(c.n_cell);

  OpTest seq;
  std::vector<int> in = {seq.Input<float>({1, T, ni}, x)};
  for (int w : CellWeights(seq, c, 1)) in.push_back(w);
  in.push_back(State(seq, {1, no}));
  in.push_back(State(seq, {1, nc}));
  for (int w : LayerNorm(seq, c, 50)) in.push_back(w);
  const int seq_out = seq.Output();
  seq.Node(OpType::kUnidirectionalSequenceLstm, in, {seq_out}, LstmAttrs());
  GLD_ASSERT_OK(seq.Run());
  const std::vector<float> want = seq.Get(seq_out);

  OpTest chain;
  const std::vector<int> weights = CellWeights(chain, c, 1);
  const std::vector<int> ln = LayerNorm(chain, c, 50);
  const int h = State(chain, {1, no}), cell = State(chain, {1, nc});
  std::vector<int> outs;
  for (int32_t t = 0; t < T; ++t) {
    std::vector<int> step_in = {chain.Input<float>({1, ni}, std::vector<float>(x.begin() + t * ni, x.begin() + (t + 1) * ni))};
    step_in.insert(step_in.end(), weights.begin(), weights.end());
    step_in.push_back(h);
    step_in.push_back(cell);
    step_in.insert(step_in.end(), ln.begin(), ln.end());
    outs.push_back(chain.Output());
    chain.Node(OpType::kLstm, step_in, {outs.back()}, LstmAttrs());
  }
  GLD_ASSERT_OK(chain.Run());
  std::vector<float> got;
  for (int o : outs) {
    const std::vector<float> v = chain.Get(o);
    got.insert(got.end(), v.begin(), v.end());
  }
  ExpectNear(got, want, 2e-6f);
}

TEST(Lstm, SequenceEqualsChainedStepsPlain) { ExpectSequenceEqualsSteps(CellSpec{}, 9); }

TEST(Lstm, SequenceEqualsChainedStepsPeepholeProjectionLayerNorm) {
  CellSpec c;
  c.n_in = 4;
  c.n_cell = 7;
  c.n_out = 3;
  c.peephole = c.projection = c.layer_norm = true;
  ExpectSequenceEqualsSteps(c, 8);
}

TEST(Lstm, SequenceEqualsChainedStepsCoupledGates) {
  CellSpec c;
  c.cifg = c.peephole = c.layer_norm = true;
  ExpectSequenceEqualsSteps(c, 7);
}

// A sequence LSTM node: x [B, T, n_in] (or time major), returns its output.
std::vector<float> RunSequenceLstm(const CellSpec& c, const Shape& x_shape, const std::vector<float>& x,
                                   bool time_major, int threads, uint32_t seed = 1) {
  OpTest t;
  const int32_t batch = time_major ? x_shape[1] : x_shape[0];
  std::vector<int> in = {t.Input<float>(x_shape, x)};
  for (int w : CellWeights(t, c, seed)) in.push_back(w);
  in.push_back(State(t, {batch, static_cast<int32_t>(c.n_out)}));
  in.push_back(State(t, {batch, static_cast<int32_t>(c.n_cell)}));
  const int out = t.Output();
  t.Node(OpType::kUnidirectionalSequenceLstm, in, {out}, LstmAttrs(time_major));
  const Status s = t.RunPrepared(threads, 1);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return t.Get(out);
}

TEST(Lstm, ThreadsDoNotChangeABit) {
  CellSpec c;
  c.n_in = 16;
  c.n_cell = 24;
  c.n_out = 24;
  const std::vector<float> x = RandomFloats(4 * 40 * 16, 7, -1.f, 1.f);
  const std::vector<float> one = RunSequenceLstm(c, {4, 40, 16}, x, false, 1);
  const std::vector<float> two = RunSequenceLstm(c, {4, 40, 16}, x, false, 2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) ASSERT_EQ(one[i], two[i]) << i;
}

TEST(Lstm, TimeMajorIsTheTransposedLayout) {
  // [B, T, I] batch-major against the same values laid out [T, B, I].
  CellSpec c;
  const int32_t B = 3, T = 4, I = 3;
  const std::vector<float> x = RandomFloats(B * T * I, 11, -1.f, 1.f);
  std::vector<float> xt(x.size());
  for (int32_t b = 0; b < B; ++b)
    for (int32_t t = 0; t < T; ++t)
      for (int32_t i = 0; i < I; ++i) xt[static_cast<size_t>((t * B + b) * I + i)] = x[static_cast<size_t>((b * T + t) * I + i)];
  const std::vector<float> bm = RunSequenceLstm(c, {B, T, I}, x, false, 1);
  const std::vector<float> tm = RunSequenceLstm(c, {T, B, I}, xt, true, 1);
  const int64_t no = c.n_out;
  for (int32_t b = 0; b < B; ++b)
    for (int32_t t = 0; t < T; ++t)
      for (int64_t j = 0; j < no; ++j)
        EXPECT_EQ(bm[static_cast<size_t>((b * T + t) * no + j)], tm[static_cast<size_t>((t * B + b) * no + j)]);
}

TEST(Lstm, BidirectionalIsForwardAndReversedBackward) {
  CellSpec c;
  const int32_t T = 5, I = 3;
  const std::vector<float> x = RandomFloats(T * I, 21, -1.f, 1.f);
  std::vector<float> reversed;
  for (int32_t t = T - 1; t >= 0; --t) reversed.insert(reversed.end(), x.begin() + t * I, x.begin() + (t + 1) * I);
  const std::vector<float> fw = RunSequenceLstm(c, {1, T, I}, x, false, 1, 1);
  const std::vector<float> bw_rev = RunSequenceLstm(c, {1, T, I}, reversed, false, 1, 40);

  OpTest t;
  std::vector<int> in = {t.Input<float>({1, T, I}, x)};
  for (int w : CellWeights(t, c, 1)) in.push_back(w);
  for (int w : CellWeights(t, c, 40)) in.push_back(w);
  for (int k = 0; k < 2; ++k) {
    in.push_back(State(t, {1, static_cast<int32_t>(c.n_out)}));
    in.push_back(State(t, {1, static_cast<int32_t>(c.n_cell)}));
  }
  in.resize(48, kNoTensor);
  RecurrentAttributes a = LstmAttrs(false);
  a.merge_outputs = true;
  const int out = t.Output();
  t.Node(OpType::kBidirectionalSequenceLstm, in, {out}, a);
  GLD_ASSERT_OK(t.Run());
  const std::vector<float> merged = t.Get(out);
  const int64_t no = c.n_out;
  ASSERT_EQ(merged.size(), static_cast<size_t>(T * 2 * no));
  for (int32_t s = 0; s < T; ++s) {
    for (int64_t j = 0; j < no; ++j) {
      EXPECT_EQ(merged[static_cast<size_t>(s * 2 * no + j)], fw[static_cast<size_t>(s * no + j)]);
      EXPECT_EQ(merged[static_cast<size_t>(s * 2 * no + no + j)], bw_rev[static_cast<size_t>((T - 1 - s) * no + j)]);
    }
  }
}

TEST(Rnn, SequenceEqualsChainedSteps) {
  const int32_t T = 8, I = 4, U = 6;
  const std::vector<float> x = RandomFloats(T * I, 5, -1.f, 1.f);
  RecurrentAttributes a;
  a.activation = Activation::kTanh;
  auto weights = [&](OpTest& t) {
    return std::vector<int>{t.Const<float>({U, I}, RandomFloats(U * I, 1, -0.5f, 0.5f)),
                            t.Const<float>({U, U}, RandomFloats(U * U, 2, -0.5f, 0.5f)),
                            t.Const<float>({U}, RandomFloats(U, 3, -0.5f, 0.5f))};
  };
  OpTest seq;
  std::vector<int> in = {seq.Input<float>({1, T, I}, x)};
  for (int w : weights(seq)) in.push_back(w);
  in.push_back(State(seq, {1, U}));
  const int seq_out = seq.Output();
  seq.Node(OpType::kUnidirectionalSequenceRnn, in, {seq_out}, a);
  GLD_ASSERT_OK(seq.Run());

  OpTest chain;
  const std::vector<int> w = weights(chain);
  const int h = State(chain, {1, U});
  std::vector<int> outs;
  for (int32_t t = 0; t < T; ++t) {
    outs.push_back(chain.Output());
    chain.Node(OpType::kRnn,
               {chain.Input<float>({1, I}, std::vector<float>(x.begin() + t * I, x.begin() + (t + 1) * I)), w[0], w[1],
                w[2], h},
               {outs.back()}, a);
  }
  GLD_ASSERT_OK(chain.Run());
  std::vector<float> got;
  for (int o : outs) {
    const std::vector<float> v = chain.Get(o);
    got.insert(got.end(), v.begin(), v.end());
  }
  ExpectNear(got, seq.Get(seq_out), 2e-6f);
}

TEST(Svdf, MemoryIsAFilterOverTheLastFeatures) {
  // Steps chained through one state: output n of unit u is
  // bias[u] + sum over its rank filters f and memory m of
  // weights_time[f][m] * (weights_feature[f] . x[n - M + 1 + m]) (zero before
  // the first input).
  const int32_t I = 3, units = 2, rank = 2, M = 3, F = units * rank, steps = 6;
  const std::vector<float> wf = RandomFloats(F * I, 1, -1.f, 1.f), wt = RandomFloats(F * M, 2, -1.f, 1.f);
  const std::vector<float> bias = RandomFloats(units, 3, -1.f, 1.f);
  const std::vector<float> x = RandomFloats(steps * I, 4, -1.f, 1.f);
  OpTest t;
  const int fw = t.Const<float>({F, I}, wf), tw = t.Const<float>({F, M}, wt), b = t.Const<float>({units}, bias);
  const int state = State(t, {1, F * M});
  RecurrentAttributes a;
  a.rank = rank;
  std::vector<int> outs;
  for (int32_t n = 0; n < steps; ++n) {
    outs.push_back(t.Output());
    t.Node(OpType::kSvdf, {t.Input<float>({1, I}, std::vector<float>(x.begin() + n * I, x.begin() + (n + 1) * I)), fw, tw, b, state},
           {outs.back()}, a);
  }
  GLD_ASSERT_OK(t.Run());
  for (int32_t n = 0; n < steps; ++n) {
    const std::vector<float> got = t.Get(outs[static_cast<size_t>(n)]);
    for (int32_t u = 0; u < units; ++u) {
      double want = bias[static_cast<size_t>(u)];
      for (int32_t r = 0; r < rank; ++r) {
        const int32_t f = u * rank + r;
        for (int32_t m = 0; m < M; ++m) {
          const int32_t step = n - M + 1 + m;
          if (step < 0) continue;
          double feature = 0;
          for (int32_t i = 0; i < I; ++i) feature += double{wf[static_cast<size_t>(f * I + i)]} * x[static_cast<size_t>(step * I + i)];
          want += wt[static_cast<size_t>(f * M + m)] * feature;
        }
      }
      EXPECT_NEAR(got[static_cast<size_t>(u)], want, 1e-5) << "step " << n << " unit " << u;
    }
  }
}

TEST(EmbeddingLookup, RowsAndOutOfRangeId) {
  OpTest t;
  const int ids = t.Input<int32_t>({3}, {2, 0, 2});
  const int value = t.Const<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  const int out = t.Output();
  t.Node(OpType::kEmbeddingLookup, {ids, value}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{3, 2}));
  ExpectNear(t.Get(out), {5, 6, 1, 2, 5, 6});

  OpTest bad;
  const int bad_out = bad.Output();
  bad.Node(OpType::kEmbeddingLookup, {bad.Input<int32_t>({2}, {1, 3}), bad.Const<float>({3, 2}, {1, 2, 3, 4, 5, 6})},
           {bad_out});
  const Status s = bad.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("id 3 at 1 is outside the table's 3 rows"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("EMBEDDING_LOOKUP"), std::string::npos) << s.ToString();
}

// A bad LSTM node: the message names the node and the tensor.
std::string LstmError(const std::function<void(std::vector<int>*, OpTest&)>& spoil,
                      OpType op = OpType::kUnidirectionalSequenceLstm) {
  OpTest t;
  CellSpec c;
  c.peephole = true;
  std::vector<int> in = {t.Input<float>({1, 2, 3}, RandomFloats(6, 1))};
  for (int w : CellWeights(t, c, 1)) in.push_back(w);
  in.push_back(State(t, {1, 5}));
  in.push_back(State(t, {1, 5}));
  spoil(&in, t);
  const int out = t.Output();
  t.Node(op, in, {out}, LstmAttrs());
  const Status s = t.Run();
  return s.ok() ? "ok" : s.ToString();
}

TEST(Lstm, BadNodesNameTheNodeAndTheTensor) {
  std::string e = LstmError([](std::vector<int>* in, OpTest& t) { (*in)[7] = t.Const<float>({5, 4}, RandomFloats(20, 3)); });
  EXPECT_NE(e.find("node 0 (UNIDIRECTIONAL_SEQUENCE_LSTM)"), std::string::npos) << e;
  EXPECT_NE(e.find("input 7"), std::string::npos) << e;
  EXPECT_NE(e.find("expected [5, 5]"), std::string::npos) << e;

  e = LstmError([](std::vector<int>* in, OpTest&) { (*in)[10] = kNoTensor; });  // one peephole missing
  EXPECT_NE(e.find("peephole"), std::string::npos) << e;

  e = LstmError([](std::vector<int>* in, OpTest& t) { (*in)[19] = State(t, {2, 5}); });  // cell state batch 2
  EXPECT_NE(e.find("input 19"), std::string::npos) << e;

  e = LstmError([](std::vector<int>* in, OpTest&) { (*in)[2] = kNoTensor; });  // a required weight
  EXPECT_NE(e.find("required input 2"), std::string::npos) << e;

  // A state that is a constant (or any tensor that is not a variable): the
  // kernel would write into it.
  e = LstmError([](std::vector<int>* in, OpTest& t) { (*in)[18] = t.Const<float>({1, 5}, std::vector<float>(5, 0.f)); });
  EXPECT_NE(e.find("input 18 'const"), std::string::npos) << e;
  EXPECT_NE(e.find("is a state but not a variable tensor"), std::string::npos) << e;

  e = LstmError([](std::vector<int>* in, OpTest&) { in->resize(19); });
  EXPECT_NE(e.find("expected 20..24 inputs"), std::string::npos) << e;
}

TEST(Lstm, BidirectionalAuxiliaryInputIsRefused) {
  OpTest t;
  CellSpec c;
  std::vector<int> in = {t.Input<float>({2, 1, 3}, RandomFloats(6, 1))};
  for (int w : CellWeights(t, c, 1)) in.push_back(w);
  for (int w : CellWeights(t, c, 30)) in.push_back(w);
  for (int k = 0; k < 2; ++k) {
    in.push_back(State(t, {1, 5}));
    in.push_back(State(t, {1, 5}));
  }
  in.push_back(t.Input<float>({2, 1, 3}, RandomFloats(6, 2)));  // auxiliary input
  in.resize(48, kNoTensor);
  RecurrentAttributes a = LstmAttrs(true);
  a.merge_outputs = true;
  const int out = t.Output();
  t.Node(OpType::kBidirectionalSequenceLstm, in, {out}, a);
  const Status s = t.Run();
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_NE(s.ToString().find("auxiliary input"), std::string::npos) << s.ToString();
}

TEST(Svdf, RankMustDivideTheFilters) {
  OpTest t;
  RecurrentAttributes a;
  a.rank = 2;
  const int out = t.Output();
  t.Node(OpType::kSvdf,
         {t.Input<float>({1, 3}, RandomFloats(3, 1)), t.Const<float>({3, 3}, RandomFloats(9, 2)),
          t.Const<float>({3, 4}, RandomFloats(12, 3)), kNoTensor, State(t, {1, 12})},
         {out}, a);
  const Status s = t.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("rank 2"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace gld::testing
