// RANGE whose start, limit and delta are graph inputs (the converters' form:
// output shape [1], shape_signature [-1]): its length is known only when it
// runs, from the values, for float32 as for int32 (was: float32 kept the
// stored [1] and refused "start, limit and delta give 10 values in this run,
// but the output holds [1]"). LiteRT's values: start + i * delta.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"

namespace gld {
namespace {

std::vector<uint8_t> RangeModel(ElementType type) {
  ModelBuilder b;
  const int start = b.AddInput("start", type, {});
  const int limit = b.AddInput("limit", type, {});
  const int delta = b.AddInput("delta", type, {});
  const int out = b.AddTensor("out", type, {1});
  b.SetShapeSignature(out, {-1});
  EXPECT_TRUE(b.AddOp("RANGE", {start, limit, delta}, {out}).ok());
  b.SetOutputs({out});
  auto bytes = b.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

template <typename T>
std::vector<T> RunRange(Interpreter& it, T start, T limit, T delta, Status* status) {
  const T v[3] = {start, limit, delta};
  for (int i = 0; i < 3; ++i) {
    *status = it.SetInput(i, &v[i], sizeof(T));
    if (!status->ok()) return {};
  }
  *status = it.Invoke();
  if (!status->ok()) return {};
  std::vector<T> out(it.outputs()[0].bytes / sizeof(T));
  *status = it.GetOutput(0, out.data(), out.size() * sizeof(T));
  return out;
}

class RangeFromInputs : public ::testing::TestWithParam<Backend> {};

TEST_P(RangeFromInputs, Float32LengthComesFromTheValues) {
  const std::vector<uint8_t> bytes = RangeModel(ElementType::kFloat32);
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options options;
  options.backend = GetParam();
  auto it = Interpreter::Create(**model, options);
  if (!it.ok() && GetParam() != Backend::kCpu) GTEST_SKIP() << "no GL here: " << it.status().ToString();
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  Status s;
  EXPECT_EQ(RunRange<float>(**it, 0.f, 10.f, 1.f, &s), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << s.ToString();
  EXPECT_EQ((*it)->outputs()[0].shape, (std::vector<int>{10}));
  EXPECT_EQ(RunRange<float>(**it, 2.f, 3.5f, 0.5f, &s), (std::vector<float>{2.f, 2.5f, 3.f})) << s.ToString();
  EXPECT_EQ(RunRange<float>(**it, 1.f, -1.f, -0.5f, &s), (std::vector<float>{1.f, 0.5f, 0.f, -0.5f})) << s.ToString();
  RunRange<float>(**it, 0.f, 1.f, 0.f, &s);  // no count: refused, naming the node
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("RANGE"), std::string::npos) << s.message();
  // The int32 form (which worked) still does.
  const std::vector<uint8_t> ints = RangeModel(ElementType::kInt32);
  auto int_model = Model::FromBuffer(ints.data(), ints.size());
  ASSERT_TRUE(int_model.ok()) << int_model.status().ToString();
  auto int_it = Interpreter::Create(**int_model, options);
  ASSERT_TRUE(int_it.ok()) << int_it.status().ToString();
  EXPECT_EQ(RunRange<int32_t>(**int_it, 0, 10, 3, &s), (std::vector<int32_t>{0, 3, 6, 9})) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, RangeFromInputs, ::testing::Values(Backend::kCpu, Backend::kAuto),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return std::string(p.param == Backend::kCpu ? "cpu" : "auto");
                         });

}  // namespace
}  // namespace gld
