// The LSTM cell on the GL backend (gl/codegen/ops/recurrent.cc): the GPU
// against the CPU kernels on cells of several shapes and options, the state
// the segment keeps across runs and ResetVariables, the GLES 3.1 minimum
// limits, and the reasons the support query gives for the variants it does
// not compute.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gl/gl_test_util.h"
#include "gldelegate/gldelegate.hpp"

namespace gld::testing {
namespace {

struct CellCase {
  int batch = 1, time = 3, n_input = 4, units = 5;
  bool time_major = false, cifg = false;
  float cell_clip = 0.f;
  Activation activation = Activation::kTanh;
  bool sequence = true;  // UNIDIRECTIONAL_SEQUENCE_LSTM; false: LSTM's full kernel (time 1)
};

// An LSTM node with TFLite's 20 inputs; the states are variable tensors.
// Returns the node; *h_state / *c_state get the state tensors.
// The input is `x` (random when empty); the weights come from the test's
// seeds, so two tests of one seed have the same weights.
size_t AddCell(GlOpTest& t, const CellCase& c, int* h_state = nullptr, int* c_state = nullptr,
               std::vector<float> x = {}) {
  const Shape x_shape = !c.sequence ? Shape{c.batch, c.n_input}
                        : c.time_major ? Shape{c.time, c.batch, c.n_input}
                                       : Shape{c.batch, c.time, c.n_input};
  if (x.empty()) x = RandomFloats(static_cast<size_t>(NumElements(x_shape)), 99, -2.f, 2.f);
  std::vector<int> in(20, kNoTensor);
  in[0] = t.InputValues(x_shape, x);
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && c.cifg) continue;
    in[1 + g] = t.Const({c.units, c.n_input}, -0.6f, 0.6f);
    in[5 + g] = t.Const({c.units, c.units}, -0.6f, 0.6f);
    in[12 + g] = t.Const({c.units}, -0.5f, 0.5f);
  }
  in[18] = t.Tensor({c.batch, c.units});
  in[19] = t.Tensor({c.batch, c.units});
  t.graph.tensors[static_cast<size_t>(in[18])].is_variable = true;
  t.graph.tensors[static_cast<size_t>(in[19])].is_variable = true;
  if (h_state != nullptr) *h_state = in[18];
  if (c_state != nullptr) *c_state = in[19];
  RecurrentAttributes a;
  a.activation = c.activation;
  a.cell_clip = c.cell_clip;
  a.time_major = c.time_major;
  const int out = t.Output(t.Tensor());
  return t.Node(c.sequence ? OpType::kUnidirectionalSequenceLstm : OpType::kLstm, in, {out}, a);
}

TEST(RecurrentGlTest, CellMatchesCpu) {
  GLD_REQUIRE_GL(env);
  std::vector<std::pair<std::string, CellCase>> cases;
  cases.push_back({"basic", {}});
  CellCase c;
  c.batch = 3;
  c.time = 4;
  c.time_major = true;
  cases.push_back({"time major, batch 3", c});
  c = {};
  c.cifg = true;
  c.cell_clip = 0.4f;
  c.n_input = 9;
  cases.push_back({"coupled gates, cell clip", c});
  c = {};
  c.activation = Activation::kRelu;
  c.units = 16;
  c.time = 12;
  cases.push_back({"relu, 16 units", c});
  c = {};
  c.units = 261;  // 66 slices: an invocation owns two
  c.time = 2;
  c.batch = 2;
  cases.push_back({"261 units", c});
  c = {};
  c.sequence = false;
  c.batch = 2;
  c.units = 7;
  cases.push_back({"LSTM full kernel", c});
  for (const auto& [name, cell] : cases) {
    for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump}) {
      GlOpTest t(7);
      AddCell(t, cell);
      t.ExpectGpuMatchesCpu(*env, p, name);
    }
  }
}

// Two runs of the segment continue one sequence: the second equals the CPU
// on the second half of the input repeated along time; after
// ResetVariables a run equals the first again.
TEST(RecurrentGlTest, SegmentKeepsStateAcrossRuns) {
  GLD_REQUIRE_GL(env);
  CellCase c;
  c.batch = 2;
  c.time = 3;
  GlOpTest t(11);
  AddCell(t, c);
  ASSERT_TRUE(t.RunCpu().ok());
  t.ExpectGpuMatchesCpu(*env, Precision::kFp32, "first run");
  ASSERT_NE(t.segment, nullptr);
  EXPECT_TRUE(t.segment->input_tensors() == std::vector<int>{t.graph.inputs[0]})
      << "the states are the segment's own, not inputs";
  EXPECT_EQ(t.segment->variable_tensors().size(), 2u);
  const int out = t.graph.outputs[0];
  const std::vector<float> first = t.GpuFloats(out);

  // The reference: the same cell (same seed, same weights) on the CPU
  // over the input twice along time.
  const std::vector<uint8_t> x = t.HostBytes(t.graph.inputs[0]);
  std::vector<float> xf(x.size() / 4), xx;
  std::memcpy(xf.data(), x.data(), x.size());
  const size_t row = xf.size() / static_cast<size_t>(c.batch);
  for (int b = 0; b < c.batch; ++b) {
    for (int k = 0; k < 2; ++k) xx.insert(xx.end(), xf.begin() + b * row, xf.begin() + (b + 1) * row);
  }
  GlOpTest twice(11);
  CellCase c2 = c;
  c2.time = 2 * c.time;
  AddCell(twice, c2, nullptr, nullptr, xx);
  ASSERT_TRUE(twice.RunCpu().ok());
  const std::vector<float> both = twice.CpuFloats(twice.graph.outputs[0]);
  const std::vector<float> cpu_first = t.CpuFloats(out);
  std::vector<float> expected_second;
  const size_t out_row = first.size() / static_cast<size_t>(c.batch);
  for (int b = 0; b < c.batch; ++b) {
    // Batch b's first half is the first run (a check of the reference).
    for (size_t k = 0; k < out_row; ++k) EXPECT_NEAR(both[2 * b * out_row + k], cpu_first[b * out_row + k], 1e-6);
    expected_second.insert(expected_second.end(), both.begin() + (2 * b + 1) * out_row,
                           both.begin() + (2 * b + 2) * out_row);
  }

  auto run = [&](std::vector<float>* result) {
    std::vector<gl::GlSegment::HostInput> ins = {{x.data(), x.size()}};
    result->assign(first.size(), 0.f);
    std::vector<gl::GlSegment::HostOutput> outs = {{result->data(), result->size() * 4}};
    return t.segment->Run(ins, outs);
  };
  std::vector<float> second, third;
  ASSERT_TRUE(run(&second).ok());
  ASSERT_EQ(second.size(), expected_second.size());
  for (size_t k = 0; k < second.size(); ++k) {
    EXPECT_NEAR(second[k], expected_second[k], 1e-5) << "the second run continues from the state the first left, at " << k;
  }
  EXPECT_NE(second, first);
  ASSERT_TRUE(t.segment->ResetVariables().ok());
  ASSERT_TRUE(run(&third).ok());
  EXPECT_EQ(third, first) << "after ResetVariables a run starts from zeros again";
}

std::string Reason(GlOpTest& t, size_t node) {
  std::string reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, node, &reason, Precision::kFp32));
  return reason;
}

void ExpectIn(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

// The variants the GL cell does not compute are refused, each with its
// reason (and run on the CPU between segments).
TEST(RecurrentGlTest, RefusesWhatTheCellDoesNotCompute) {
  CellCase c;
  {
    GlOpTest t;
    const size_t n = AddCell(t, c);
    for (size_t k = 9; k <= 11; ++k) t.graph.nodes[n].inputs[k] = t.Const({c.units});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    ExpectIn(Reason(t, n), "peephole");
  }
  {
    GlOpTest t;
    c.units = 5;
    const size_t n = AddCell(t, c);
    t.graph.nodes[n].inputs[16] = t.Const({c.units, c.units});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    ExpectIn(Reason(t, n), "projection");
  }
  {
    GlOpTest t;
    const size_t n = AddCell(t, c);
    for (size_t k = 20; k < 24; ++k) t.graph.nodes[n].inputs.push_back(t.Const({c.units}));
    ASSERT_TRUE(InferShapes(t.graph).ok());
    ExpectIn(Reason(t, n), "layer normalisation");
  }
  {
    // A state another node reads: the segment could not keep it.
    GlOpTest t;
    int h = -1;
    const size_t n = AddCell(t, c, &h);
    t.Op(OpType::kRelu, {h});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    ExpectIn(Reason(t, n), "also used by node 1 (RELU)");
  }
  {
    // Hybrid: int8 weights.
    GlOpTest t;
    const size_t n = AddCell(t, c);
    gld::Tensor& w = t.graph.tensors[static_cast<size_t>(t.graph.nodes[n].inputs[2])];
    w.type = DataType::kInt8;
    w.data = std::vector<uint8_t>(static_cast<size_t>(c.units * c.n_input), 1);
    ExpectIn(Reason(t, n), "hybrid");
  }
}

// Through the public API: the segment's state carries over from one
// Invoke to the next and ResetVariables starts it again; the states cross
// no segment edge; the same at the GLES 3.1 minimum limits.
TEST(RecurrentGlTest, InterpreterKeepsAndResetsTheState) {
  GLD_REQUIRE_GL(env);
  (void)env;
  auto model = Model::FromFile(std::string(GLD_TEST_DATA_DIR) + "/ops/unidirectional_sequence_lstm__basic/model.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (GlLimits limits : {GlLimits::kDriver, GlLimits::kMinimum}) {
    SCOPED_TRACE(GlLimitsName(limits));
    Options options;
    options.backend = Backend::kGl;
    options.gl_limits = limits;
    auto gl = Interpreter::Create(**model, options);
    ASSERT_TRUE(gl.ok()) << gl.status().ToString();
    ASSERT_EQ((*gl)->report().gpu_nodes, (*gl)->report().total_nodes) << (*gl)->report().placement_line;
    options.backend = Backend::kCpu;
    auto cpu = Interpreter::Create(**model, options);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    const std::vector<float> x = RandomFloats(2 * 3 * 4, 5, -1.f, 1.f);
    std::vector<std::vector<float>> gl_out(4, std::vector<float>(2 * 3 * 5)), cpu_out = gl_out;
    for (size_t k = 0; k < 4; ++k) {
      if (k == 2) {
        ASSERT_TRUE((*gl)->ResetVariables().ok());
        ASSERT_TRUE((*cpu)->ResetVariables().ok());
      }
      for (auto* it : {gl->get(), cpu->get()}) {
        ASSERT_TRUE(it->SetInput(0, x.data(), x.size() * 4).ok());
        ASSERT_TRUE(it->Invoke().ok());
      }
      ASSERT_TRUE((*gl)->GetOutput(0, gl_out[k].data(), gl_out[k].size() * 4).ok());
      ASSERT_TRUE((*cpu)->GetOutput(0, cpu_out[k].data(), cpu_out[k].size() * 4).ok());
      for (size_t i = 0; i < gl_out[k].size(); ++i) EXPECT_NEAR(gl_out[k][i], cpu_out[k][i], 1e-5) << k << " " << i;
    }
    EXPECT_NE(gl_out[1], gl_out[0]) << "the second invoke continues the state";
    EXPECT_EQ(gl_out[2], gl_out[0]) << "ResetVariables starts from zeros";
    EXPECT_EQ(gl_out[3], gl_out[1]);
    const TransferStats stats = (*gl)->transfer_stats();
    EXPECT_EQ(stats.uploaded_bytes, x.size() * 4) << "only the input crosses; the states stay on the GPU";
    EXPECT_EQ(stats.downloaded_bytes, gl_out[0].size() * 4);
  }
}

// tools/reference's conv_lstm network (Conv1D, LSTM, Conv1D, Dense from
// tf_keras): the recurrent layer stays in the convolutions' segment, at the
// driver's limits and at the GLES 3.1 minimums (its outputs against LiteRT
// and the invokes after the first: tests/models/networks_test.cc); so does
// bilstm (two sequence LSTMs, REVERSE_V2, CONCATENATION, a Dense).
TEST(RecurrentGlTest, LstmBetweenConvolutionsIsOneSegment) {
  GLD_REQUIRE_GL(env);
  (void)env;
  for (const char* name : {"conv_lstm_float32", "bilstm_float32"}) {
    SCOPED_TRACE(name);
    auto model = Model::FromFile(std::string(GLD_TEST_DATA_DIR) + "/networks/" + name + "/model.tflite");
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    for (GlLimits limits : {GlLimits::kDriver, GlLimits::kMinimum}) {
      Options options;
      options.backend = Backend::kGl;
      options.gl_limits = limits;
      auto it = Interpreter::Create(**model, options);
      ASSERT_TRUE(it.ok()) << it.status().ToString();
      const InterpreterReport& r = (*it)->report();
      EXPECT_EQ(r.segments, 1) << GlLimitsName(limits) << ": " << r.placement_line;
      EXPECT_EQ(r.gpu_nodes, r.total_nodes) << GlLimitsName(limits) << ": " << r.placement_line;
    }
  }
}

}  // namespace
}  // namespace gld::testing
