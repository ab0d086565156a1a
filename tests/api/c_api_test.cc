#include <gtest/gtest.h>

#include <string>

#include "gldelegate/gldelegate.h"
#include "test_models.h"

namespace {

TEST(CApi, CreateRunAndDelete) {
  auto bytes = gld::testing::AddReluModel();
  ASSERT_FALSE(bytes.empty());
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  GldOptions* options = GldOptionsCreate();
  ASSERT_NE(options, nullptr);
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  ASSERT_EQ(GldOptionsSetNumThreads(options, 2), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  GldOptionsDelete(options);
  GldModelDelete(model);  // the interpreter keeps what it needs

  ASSERT_EQ(GldInterpreterGetInputCount(interp), 1);
  ASSERT_EQ(GldInterpreterGetOutputCount(interp), 1);
  GldTensorInfo info;
  ASSERT_EQ(GldInterpreterGetInputInfo(interp, 0, &info), GLD_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.type, GLD_TYPE_FLOAT32);
  ASSERT_EQ(info.num_dims, 2);
  EXPECT_EQ(info.dims[0], 1);
  EXPECT_EQ(info.dims[1], 4);
  EXPECT_EQ(info.bytes, 16u);
  EXPECT_EQ(info.num_scales, 0);

  float in[4] = {-3, -1, 1, 3}, out[4] = {};
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, in, sizeof in), GLD_OK);
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK);
  ASSERT_EQ(GldInterpreterGetOutput(interp, 0, out, sizeof out), GLD_OK);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[2], 2.0f);
  EXPECT_EQ(out[3], 4.0f);
  GldInterpreterDelete(interp);
}

TEST(CApi, ErrorsSetTheLastErrorMessage) {
  GldModel* model = nullptr;
  EXPECT_EQ(GldModelCreateFromFile("/nonexistent/m.tflite", &model), GLD_NOT_FOUND);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("/nonexistent/m.tflite"), std::string::npos);

  const uint8_t junk[16] = {1, 2, 3};
  EXPECT_NE(GldModelCreateFromBuffer(junk, sizeof junk, &model), GLD_OK);
  EXPECT_EQ(model, nullptr);

  auto bytes = gld::testing::AddReluModel();
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, nullptr, &interp), GLD_OK) << GldLastErrorMessage();  // defaults
  float in[3] = {};
  EXPECT_EQ(GldInterpreterSetInput(interp, 0, in, sizeof in), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("needs 16 bytes, got 12"), std::string::npos)
      << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterSetInput(interp, 5, in, sizeof in), GLD_OUT_OF_RANGE);
  GldTensorInfo info;
  EXPECT_EQ(GldInterpreterGetOutputInfo(interp, 1, &info), GLD_OUT_OF_RANGE);
  EXPECT_EQ(GldInterpreterInvoke(nullptr), GLD_INVALID_ARGUMENT);

  GldOptions* options = GldOptionsCreate();
  EXPECT_EQ(GldOptionsSetNumThreads(options, 0), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetNumThreads(options, -2), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetNumThreads(options, -1), GLD_OK);  // every core, as TFLite
  EXPECT_EQ(GldOptionsSetBackend(options, static_cast<GldBackend>(9)), GLD_INVALID_ARGUMENT);
  ASSERT_EQ(GldOptionsAddGpuDenyOp(options, "BOGUS_OP"), GLD_OK);
  GldInterpreter* denied = nullptr;
  EXPECT_EQ(GldInterpreterCreate(model, options, &denied), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(denied, nullptr);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("BOGUS_OP"), std::string::npos);
  GldOptionsDelete(options);
  GldInterpreterDelete(interp);
  GldModelDelete(model);
  EXPECT_STREQ(GldStatusName(GLD_DATA_LOSS), "DATA_LOSS");
  EXPECT_STRNE(GldVersion(), "");
}

}  // namespace
