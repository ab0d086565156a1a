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
  if (x.empty()) x = RandomValues(static_cast<size_t>(NumElements(x_shape)), 99, -2.f, 2.f);
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

}  // namespace
}  // namespace gld::testing
