// The tools' shared helpers: the deterministic input rule (checked against
// the inputs tools/reference/ generated with NumPy), statistics, names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "gldelegate/npy.hpp"

#ifdef GLD_HAVE_TOOL_COMMON
#include "common/flags.h"
#include "common/tensors.h"

namespace gld::tools {
namespace {

TEST(ToolInputs, MatchTheReferenceGeneratorBitForBit) {
  const std::string root = std::string(GLD_TEST_DATA_DIR) + "/models";
  int checked = 0;
  for (const char* model : {"face_detection_short_range", "face_landmark", "hand_landmark_lite",
                            "palm_detection_lite", "pose_detection", "selfie_segmentation"}) {
    const std::string head = root + "/" + model + "/input_0_head.npy";
    if (!std::filesystem::exists(head)) continue;
    auto expected = ReadNpy(head);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_EQ(expected->type, ElementType::kFloat32);
    TensorInfo info;
    info.type = ElementType::kFloat32;
    info.shape = {static_cast<int>(expected->num_elements())};
    info.bytes = expected->data.size();
    // The manifests record seed 0 and stream = input index 0.
    std::vector<uint8_t> got = MakeRandomInput(info, 0, 0).value();
    EXPECT_EQ(got, expected->data) << model;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no reference inputs under " << root;
}

TEST(ToolInputs, IntegersAndBoolsUseSmallRanges) {
  TensorInfo info;
  info.type = ElementType::kInt32;
  info.shape = {1000};
  info.bytes = 4000;
  auto data = MakeRandomInput(info, 3, 1).value();
  std::vector<int32_t> v(1000);
  std::memcpy(v.data(), data.data(), 4000);
  int seen[4] = {};
  for (int32_t x : v) {
    ASSERT_TRUE(x >= 0 && x < 4) << x;
    seen[x]++;
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(seen[k], 150) << k;
  info.type = ElementType::kBool;
  info.bytes = 1000;
  const std::vector<uint8_t> bools = MakeRandomInput(info, 3, 1).value();
  for (uint8_t b : bools) ASSERT_LE(b, 1);
  // float16 inputs are the float32 values rounded.
  info.type = ElementType::kFloat16;
  info.bytes = 2000;
  auto h = MakeRandomInput(info, 5, 0).value();
  info.type = ElementType::kFloat32;
  info.bytes = 4000;
  auto f = MakeRandomInput(info, 5, 0).value();
  for (size_t i = 0; i < 1000; ++i) {
    uint16_t hv;
    float fv;
    std::memcpy(&hv, h.data() + 2 * i, 2);
    std::memcpy(&fv, f.data() + 4 * i, 4);
    ASSERT_EQ(hv, FloatToHalf(fv));
    ASSERT_GE(fv, -1.0f);
    ASSERT_LT(fv, 1.0f);
  }
}

TEST(ToolStats, MinMaxMeanSkipNaN) {
  float v[5] = {1, -3, NAN, 4, 2};
  auto s = ComputeStats(ElementType::kFloat32, v, sizeof v);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->min, -3);
  EXPECT_EQ(s->max, 4);
  EXPECT_DOUBLE_EQ(s->mean, 1.0);
  EXPECT_EQ(s->nan, 1u);
  int8_t q[3] = {-128, 0, 127};
  s = ComputeStats(ElementType::kInt8, q, sizeof q);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->min, -128);
  EXPECT_EQ(s->max, 127);
  EXPECT_FALSE(ComputeStats(ElementType::kUnknown, q, 3).ok());
}

TEST(ToolFlags, SplitListAndNames) {
  EXPECT_EQ(SplitList("ADD, MUL,,CONV_2D "), (std::vector<std::string>{"ADD", "MUL", "CONV_2D"}));
  EXPECT_TRUE(SplitList("").empty());
  EXPECT_EQ(SanitizeName("model/conv:0"), "model_conv_0");
  EXPECT_EQ(SanitizeName(""), "tensor");
  BackendFlags f;
  f.backend = "cpu";
  f.precision = "fp16";
  f.threads = 3;
  f.gpu_deny_ops = "ADD,MUL";
  auto o = MakeOptions(f);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->backend, Backend::kCpu);
  EXPECT_EQ(o->precision, Precision::kFp16);
  EXPECT_EQ(o->num_threads, 3);
  EXPECT_EQ(o->gpu_deny_ops, (std::vector<std::string>{"ADD", "MUL"}));
  f.threads = 0;
  EXPECT_FALSE(MakeOptions(f).ok());
}

}  // namespace
}  // namespace gld::tools
#endif  // GLD_HAVE_TOOL_COMMON
