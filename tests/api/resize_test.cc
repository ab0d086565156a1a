// Inputs that change shape: shape_signature reported as LiteRT reports it,
// Interpreter::ResizeInput + AllocateTensors (and the C API's) re-planning
// on the CPU and GL backends, plans kept per input shape, and the errors of
// a resize the model cannot take.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/interpreter_impl.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"

namespace gld {
namespace {

constexpr int kH = 6, kW = 6, kC = 3, kF = 4, kOut = 5;
constexpr int kFlat = kH * kW * kF;

std::vector<float> Values(size_t n, uint32_t seed, float scale) {
  std::vector<float> v(n);
  uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * scale;
  }
  return v;
}

// A small CNN as the converter writes one with a free batch dimension:
// x [-1, 6, 6, 3] -> CONV_2D (RELU) -> flatten by RESHAPE to
// [SHAPE(y)[0], 144] (SHAPE, STRIDED_SLICE, PACK, as Keras' Flatten) ->
// FULLY_CONNECTED -> [-1, 5]. With `signatures` false the file has no
// shape_signature.
std::vector<uint8_t> DynamicBatchCnn(bool signatures = true) {
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {1, kH, kW, kC});
  const int w = b.AddConstantFloat("w", {kF, 3, 3, kC}, Values(kF * 9 * kC, 1, 1.0f));
  const int bias = b.AddConstantFloat("b", {kF}, Values(kF, 2, 0.2f));
  const int y = b.AddTensor("y", ElementType::kFloat32, {1, kH, kW, kF});
  const int shape = b.AddTensor("shape", ElementType::kInt32, {4});
  const int begin = b.AddConstantInt32("begin", {1}, {0});
  const int end = b.AddConstantInt32("end", {1}, {1});
  const int stride = b.AddConstantInt32("stride", {1}, {1});
  const int batch = b.AddTensor("batch", ElementType::kInt32, {});
  const int flat = b.AddConstantInt32("flat", {}, {kFlat});
  const int target = b.AddTensor("target", ElementType::kInt32, {2});
  const int z = b.AddTensor("z", ElementType::kFloat32, {1, kFlat});
  const int w2 = b.AddConstantFloat("w2", {kOut, kFlat}, Values(kOut * kFlat, 3, 0.2f));
  const int b2 = b.AddConstantFloat("b2", {kOut}, Values(kOut, 4, 0.2f));
  const int out = b.AddTensor("out", ElementType::kFloat32, {1, kOut});
  if (signatures) {
    b.SetShapeSignature(x, {-1, kH, kW, kC});
    b.SetShapeSignature(y, {-1, kH, kW, kF});
    b.SetShapeSignature(z, {-1, kFlat});
    b.SetShapeSignature(out, {-1, kOut});
  }
  Status s = b.AddOp("CONV_2D", {x, w, bias}, {y}, {{"padding", "SAME"}, {"fused_activation_function", "RELU"}});
  if (s.ok()) s = b.AddOp("SHAPE", {y}, {shape}, {{"out_type", "INT32"}});
  if (s.ok()) s = b.AddOp("STRIDED_SLICE", {shape, begin, end, stride}, {batch}, {{"shrink_axis_mask", 1}});
  if (s.ok()) s = b.AddOp("PACK", {batch, flat}, {target}, {{"values_count", 2}});
  if (s.ok()) s = b.AddOp("RESHAPE", {y, target}, {z});
  if (s.ok()) s = b.AddOp("FULLY_CONNECTED", {z, w2, b2}, {out});
  b.SetOutputs({out});
  auto bytes = b.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

std::shared_ptr<const Model> Load(const std::vector<uint8_t>& bytes) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

Options On(Backend backend) {
  Options o;
  o.backend = backend;
  return o;
}

// Runs `input` (batch inferred from its size) and returns the output.
std::vector<float> RunOnce(Interpreter& it, const std::vector<float>& input) {
  Status s = it.SetInput(0, input.data(), input.size() * sizeof(float));
  EXPECT_TRUE(s.ok()) << s.ToString();
  s = it.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<float> out(it.outputs()[0].bytes / sizeof(float));
  s = it.GetOutput(0, out.data(), out.size() * sizeof(float));
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

void ExpectNear(const float* got, const float* want, size_t n, const std::string& what) {
  for (size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << what << " value " << i;
  }
}

TEST(ShapeSignature, ReportedAsTheFileGivesIt) {
  auto model = Load(DynamicBatchCnn());
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->inputs()[0].shape, (std::vector<int>{1, kH, kW, kC}));
  EXPECT_EQ(model->inputs()[0].shape_signature, (std::vector<int>{-1, kH, kW, kC}));
  EXPECT_EQ(model->outputs()[0].shape_signature, (std::vector<int>{-1, kOut}));
  auto it = Interpreter::Create(*model, On(Backend::kCpu));
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  EXPECT_EQ((*it)->inputs()[0].shape_signature, (std::vector<int>{-1, kH, kW, kC}));
  EXPECT_EQ((*it)->outputs()[0].shape_signature, (std::vector<int>{-1, kOut}));
}

TEST(ShapeSignature, IsTheShapeWhenTheFileHasNone) {
  auto model = Load(DynamicBatchCnn(/*signatures=*/false));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->inputs()[0].shape_signature, model->inputs()[0].shape);
  auto it = Interpreter::Create(*model, On(Backend::kCpu));
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  EXPECT_EQ((*it)->outputs()[0].shape_signature, (std::vector<int>{1, kOut}));
}

class Resize : public ::testing::TestWithParam<Backend> {};

TEST_P(Resize, BatchFourRowsMatchBatchOneRuns) {
  auto model = Load(DynamicBatchCnn());
  ASSERT_NE(model, nullptr);
  auto created = Interpreter::Create(*model, On(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Interpreter& it = **created;
  const size_t image = kH * kW * kC;
  const std::vector<float> batch = Values(4 * image, 7, 2.0f);
  std::vector<std::vector<float>> singles;
  for (int r = 0; r < 4; ++r) {
    singles.push_back(RunOnce(it, std::vector<float>(batch.begin() + r * image, batch.begin() + (r + 1) * image)));
  }
  if (GetParam() == Backend::kGl) {
    EXPECT_GT(it.report().gpu_nodes, 0);
  }
  const Runtime* batch_one = it.impl().runtime.get();

  ASSERT_TRUE(it.ResizeInput(0, {4, kH, kW, kC}).ok());
  EXPECT_EQ(it.Invoke().code(), StatusCode::kFailedPrecondition);  // AllocateTensors first
  Status s = it.AllocateTensors();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(it.inputs()[0].shape, (std::vector<int>{4, kH, kW, kC}));
  EXPECT_EQ(it.inputs()[0].bytes, 4 * image * sizeof(float));
  EXPECT_EQ(it.outputs()[0].shape, (std::vector<int>{4, kOut}));
  EXPECT_EQ(it.inputs()[0].shape_signature, (std::vector<int>{-1, kH, kW, kC}));
  EXPECT_EQ(it.report().nodes.back().output_shapes[0], (std::vector<int>{4, kOut}));
  if (GetParam() == Backend::kGl) {
    EXPECT_GT(it.report().gpu_nodes, 0);
  }
  const std::vector<float> four = RunOnce(it, batch);
  ASSERT_EQ(four.size(), 4u * kOut);
  for (int r = 0; r < 4; ++r) ExpectNear(&four[r * kOut], singles[r].data(), kOut, "row " + std::to_string(r));

  // Back to batch 1: the plan made for it is reused, and still runs.
  ASSERT_TRUE(it.ResizeInputs({{1, kH, kW, kC}}).ok());
  EXPECT_EQ(it.impl().runtime.get(), batch_one);
  EXPECT_EQ(it.outputs()[0].shape, (std::vector<int>{1, kOut}));
  ExpectNear(RunOnce(it, std::vector<float>(batch.begin(), batch.begin() + image)).data(), singles[0].data(), kOut,
             "batch 1 again");
}

TEST_P(Resize, AShapeTheModelCannotTakeNamesTheNodeAndKeepsThePreviousShapes) {
  auto model = Load(DynamicBatchCnn());
  ASSERT_NE(model, nullptr);
  auto created = Interpreter::Create(*model, On(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Interpreter& it = **created;
  const std::vector<float> two = Values(2 * kH * kW * kC, 9, 2.0f);
  ASSERT_TRUE(it.ResizeInputs({{2, kH, kW, kC}}).ok());
  const std::vector<float> before = RunOnce(it, two);

  // 7 rows: the flatten's [batch, 144] no longer holds the 168 values per image.
  ASSERT_TRUE(it.ResizeInput(0, {2, kH + 1, kW, kC}).ok());
  Status s = it.AllocateTensors();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("input 0 ('x') to [2, 7, 6, 3]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("RESHAPE"), std::string::npos) << s.message();
  EXPECT_EQ(it.inputs()[0].shape, (std::vector<int>{2, kH, kW, kC}));
  EXPECT_EQ(RunOnce(it, two), before);

  // Rank 3: the convolution refuses.
  ASSERT_TRUE(it.ResizeInput(0, {kH, kW, kC}).ok());
  s = it.AllocateTensors();
  EXPECT_NE(s.message().find("CONV_2D"), std::string::npos) << s.message();
  EXPECT_EQ(RunOnce(it, two), before);

  // Strict: only the -1 dimension may change.
  s = it.ResizeInput(0, {2, kH + 1, kW, kC}, /*strict=*/true);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("shape_signature [-1, 6, 6, 3]"), std::string::npos) << s.message();
  EXPECT_TRUE(it.ResizeInput(0, {3, kH, kW, kC}, /*strict=*/true).ok());
  EXPECT_TRUE(it.ResizeInput(0, {2, kH, kW, kC}).ok());  // back to its shape: nothing asked
  EXPECT_EQ(RunOnce(it, two), before);

  EXPECT_EQ(it.ResizeInput(0, {-1, kH, kW, kC}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(it.ResizeInput(1, {1, kH, kW, kC}).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(it.ResizeInputs({}).code(), StatusCode::kInvalidArgument);
}

// The converter's NCHW input: TRANSPOSE [N, 3, 4, 5] -> NHWC, then MEAN
// over H and W. The CPU kernels keep the plan made from the constant perm
// and axes at their first run: a resized batch gets a plan of its own, and
// each run of each shape gives the means (in double, exactly as computed
// here).
TEST_P(Resize, TransposeAndMeanKeepTheirPlanPerShape) {
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {1, 3, 4, 5});
  const int perm = b.AddConstantInt32("perm", {4}, {0, 2, 3, 1});
  const int y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 5, 3});
  const int axes = b.AddConstantInt32("axes", {2}, {1, 2});
  const int out = b.AddTensor("out", ElementType::kFloat32, {1, 3});
  b.SetShapeSignature(x, {-1, 3, 4, 5});
  b.SetShapeSignature(y, {-1, 4, 5, 3});
  b.SetShapeSignature(out, {-1, 3});
  Status s = b.AddOp("TRANSPOSE", {x, perm}, {y});
  if (s.ok()) s = b.AddOp("MEAN", {y, axes}, {out}, {{"keep_dims", false}});
  ASSERT_TRUE(s.ok()) << s.ToString();
  b.SetOutputs({out});
  auto bytes = b.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Load(*bytes);
  ASSERT_NE(model, nullptr);
  auto created = Interpreter::Create(*model, On(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Interpreter& it = **created;
  for (int batch : {1, 3, 1}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    ASSERT_TRUE(it.ResizeInputs({{batch, 3, 4, 5}}).ok());
    for (int run = 0; run < 2; ++run) {
      const std::vector<float> in = Values(static_cast<size_t>(batch) * 60, 11 + run + batch, 4.0f);
      std::vector<float> want;
      for (int n = 0; n < batch; ++n) {
        for (int c = 0; c < 3; ++c) {
          double sum = 0;
          for (int p = 0; p < 20; ++p) sum += static_cast<double>(in[static_cast<size_t>((n * 3 + c) * 20 + p)]);
          want.push_back(static_cast<float>(sum / 20.0));
        }
      }
      const std::vector<float> got = RunOnce(it, in);
      ASSERT_EQ(got.size(), want.size());
      if (GetParam() == Backend::kCpu) {
        EXPECT_EQ(got, want) << "run " << run;
      } else {
        ExpectNear(got.data(), want.data(), want.size(), "run " + std::to_string(run));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Resize, ::testing::Values(Backend::kCpu, Backend::kGl),
                         [](const auto& info) { return std::string(info.param == Backend::kCpu ? "Cpu" : "Gl"); });

// A RESHAPE whose shape is a model input: shape inference cannot know its
// values, so the plan keeps the file's shape, and a run whose values ask for
// another shape is refused naming the node instead of running into the plan.
TEST(DynamicShape, ARunTimeShapeInputMustGiveThePlannedShape) {
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {2, 3});
  const int shape = b.AddInput("shape", ElementType::kInt32, {2});
  const int y = b.AddTensor("y", ElementType::kFloat32, {3, 2});
  ASSERT_TRUE(b.AddOp("RESHAPE", {x, shape}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Load(*bytes);
  ASSERT_NE(model, nullptr);
  auto created = Interpreter::Create(*model, On(Backend::kCpu));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Interpreter& it = **created;
  const float in[6] = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(it.SetInput(0, in, sizeof in).ok());
  for (const std::vector<int32_t>& asked : {std::vector<int32_t>{3, 2}, std::vector<int32_t>{-1, 2}}) {
    ASSERT_TRUE(it.SetInput(1, asked.data(), 8).ok());
    Status s = it.Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
    float out[6] = {};
    ASSERT_TRUE(it.GetOutput(0, out, sizeof out).ok());
    EXPECT_EQ(std::vector<float>(out, out + 6), std::vector<float>(in, in + 6));
  }
  const int32_t other[2] = {6, 1};
  ASSERT_TRUE(it.SetInput(1, other, sizeof other).ok());
  Status s = it.Invoke();
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("RESHAPE"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("asks for [6, 1]"), std::string::npos) << s.message();
}

// The same RESHAPE where the file says its output's shape is free
// (shape_signature [-1, -1]): a dynamic tensor. It and the ADD after it run
// on the CPU, sized when they run, and outputs() gives each run's shape.
class DynamicTensor : public ::testing::TestWithParam<Backend> {};

TEST_P(DynamicTensor, TakesItsShapeFromTheRunTimeShapeInput) {
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {2, 3});
  const int shape = b.AddInput("shape", ElementType::kInt32, {2});
  const int y = b.AddTensor("y", ElementType::kFloat32, {3, 2});
  const int one = b.AddConstantFloat("one", {}, {1.0f});
  const int z = b.AddTensor("z", ElementType::kFloat32, {3, 2});
  b.SetShapeSignature(y, {-1, -1});
  b.SetShapeSignature(z, {-1, -1});
  ASSERT_TRUE(b.AddOp("RESHAPE", {x, shape}, {y}).ok());
  ASSERT_TRUE(b.AddOp("ADD", {y, one}, {z}).ok());
  b.SetOutputs({z});
  auto bytes = b.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Load(*bytes);
  ASSERT_NE(model, nullptr);
  auto created = Interpreter::Create(*model, On(GetParam()));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Interpreter& it = **created;
  for (const PlacementInfo& node : it.report().nodes) {
    EXPECT_FALSE(node.on_gpu) << node.label;
    if (GetParam() == Backend::kGl) {
      EXPECT_NE(node.reason.find("dynamic tensor"), std::string::npos) << node.reason;
    }
  }
  const float in[6] = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(it.SetInput(0, in, sizeof in).ok());
  for (const std::vector<int32_t>& asked : {std::vector<int32_t>{1, 6}, std::vector<int32_t>{-1, 3},
                                            std::vector<int32_t>{6, 1}}) {
    ASSERT_TRUE(it.SetInput(1, asked.data(), 8).ok());
    Status s = it.Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
    const std::vector<int> want = {asked[0] == -1 ? 2 : asked[0], asked[1]};
    EXPECT_EQ(it.outputs()[0].shape, want);
    ASSERT_EQ(it.outputs()[0].bytes, sizeof in);
    float out[6] = {};
    ASSERT_TRUE(it.GetOutput(0, out, sizeof out).ok());
    for (int k = 0; k < 6; ++k) EXPECT_EQ(out[k], in[k] + 1) << k;
  }
  const int32_t bad[2] = {4, 2};
  ASSERT_TRUE(it.SetInput(1, bad, sizeof bad).ok());
  Status s = it.Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("RESHAPE"), std::string::npos) << s.message();
  // A good shape after the error, twice (the ADD's inputs keep the shape of
  // the run before: its shape rule's last outputs hold): sized and right.
  for (int run = 0; run < 2; ++run) {
    const int32_t good[2] = {3, 2};
    ASSERT_TRUE(it.SetInput(1, good, sizeof good).ok());
    s = it.Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(it.outputs()[0].shape, (std::vector<int>{3, 2}));
    float out[6] = {};
    ASSERT_TRUE(it.GetOutput(0, out, sizeof out).ok());
    for (int k = 0; k < 6; ++k) EXPECT_EQ(out[k], in[k] + 1) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DynamicTensor, ::testing::Values(Backend::kCpu, Backend::kGl),
                         [](const auto& info) { return std::string(info.param == Backend::kCpu ? "Cpu" : "Gl"); });

TEST(ResizeCApi, ResizesAllocatesAndReportsTheSignature) {
  const std::vector<uint8_t> bytes = DynamicBatchCnn();
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  int32_t n = 0;
  const int32_t* dims = nullptr;
  ASSERT_EQ(GldInterpreterGetInputShapeSignature(interp, 0, &n, &dims), GLD_OK);
  EXPECT_EQ(std::vector<int32_t>(dims, dims + n), (std::vector<int32_t>{-1, kH, kW, kC}));
  ASSERT_EQ(GldInterpreterGetOutputShapeSignature(interp, 0, &n, &dims), GLD_OK);
  EXPECT_EQ(std::vector<int32_t>(dims, dims + n), (std::vector<int32_t>{-1, kOut}));
  EXPECT_EQ(GldInterpreterGetOutputShapeSignature(interp, 1, &n, &dims), GLD_OUT_OF_RANGE);

  const int32_t three[] = {3, kH, kW, kC};
  ASSERT_EQ(GldInterpreterResizeInputTensor(interp, 0, three, 4), GLD_OK) << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterInvoke(interp), GLD_FAILED_PRECONDITION);
  ASSERT_EQ(GldInterpreterAllocateTensors(interp), GLD_OK) << GldLastErrorMessage();
  GldTensorInfo info;
  ASSERT_EQ(GldInterpreterGetOutputInfo(interp, 0, &info), GLD_OK);
  EXPECT_EQ(std::vector<int32_t>(info.dims, info.dims + info.num_dims), (std::vector<int32_t>{3, kOut}));
  const std::vector<float> in = Values(3 * kH * kW * kC, 11, 2.0f);
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, in.data(), in.size() * sizeof(float)), GLD_OK) << GldLastErrorMessage();
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
  std::vector<float> out(3 * kOut);
  ASSERT_EQ(GldInterpreterGetOutput(interp, 0, out.data(), out.size() * sizeof(float)), GLD_OK);

  const int32_t bad[] = {3, kH + 1, kW, kC};
  ASSERT_EQ(GldInterpreterResizeInputTensor(interp, 0, bad, 4), GLD_OK);
  EXPECT_NE(GldInterpreterAllocateTensors(interp), GLD_OK);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("RESHAPE"), std::string::npos) << GldLastErrorMessage();
  ASSERT_EQ(GldInterpreterGetOutputInfo(interp, 0, &info), GLD_OK);
  EXPECT_EQ(info.dims[0], 3);
  EXPECT_EQ(GldInterpreterResizeInputTensor(interp, 0, nullptr, 4), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterResizeInputTensor(interp, 0, bad, -1), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
  std::vector<float> again(3 * kOut);
  ASSERT_EQ(GldInterpreterGetOutput(interp, 0, again.data(), again.size() * sizeof(float)), GLD_OK);
  EXPECT_EQ(again, out);

  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
