#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.h"
#include "test_models.h"
#include "util/file_util.h"

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
  EXPECT_EQ(info.index, 0);  // the file's tensor index: x, c, s, y
  ASSERT_EQ(GldInterpreterGetOutputInfo(interp, 0, &info), GLD_OK);
  EXPECT_STREQ(info.name, "y");
  EXPECT_EQ(info.index, 3);

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

// y = ADD(ABS(ADD(x, c)), c): with ABS denied on the GPU, two GPU segments.
std::vector<uint8_t> AddAbsAddModel() {
  gld::ModelBuilder b;
  int x = b.AddInput("x", gld::ElementType::kFloat32, {1, 4});
  int c = b.AddConstantFloat("c", {1, 4}, {1, 1, 1, 1});
  int s = b.AddTensor("s", gld::ElementType::kFloat32, {1, 4});
  int r = b.AddTensor("r", gld::ElementType::kFloat32, {1, 4});
  int y = b.AddTensor("y", gld::ElementType::kFloat32, {1, 4});
  gld::Status st = b.AddOp("ADD", {x, c}, {s});
  if (st.ok()) st = b.AddOp("ABS", {s}, {r});
  if (st.ok()) st = b.AddOp("ADD", {r, c}, {y});
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!st.ok() || !bytes.ok()) return {};
  return std::move(bytes).value();
}

struct CModel {
  GldModel* model = nullptr;
  explicit CModel(const std::vector<uint8_t>& bytes) {
    EXPECT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  }
  ~CModel() { GldModelDelete(model); }
};

// Creates an interpreter with `options` (deleted here), or null with the error in *error.
GldInterpreter* Create(const GldModel* model, GldOptions* options, std::string* error = nullptr) {
  GldInterpreter* interp = nullptr;
  GldStatus s = GldInterpreterCreate(model, options, &interp);
  GldOptionsDelete(options);
  if (s != GLD_OK && error != nullptr) *error = GldLastErrorMessage();
  return interp;
}

TEST(CApi, ReportAndPlacement) {
  CModel m(AddAbsAddModel());
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsAddGpuDenyOp(options, "ABS"), GLD_OK);
  std::string error;
  GldInterpreter* interp = Create(m.model, options, &error);
  ASSERT_NE(interp, nullptr) << error;
  GldReport r;
  ASSERT_EQ(GldInterpreterGetReport(interp, &r), GLD_OK);
  EXPECT_EQ(r.backend, GLD_BACKEND_GL);
  EXPECT_EQ(r.precision, GLD_PRECISION_FP32);
  EXPECT_EQ(r.original_nodes, 3);
  EXPECT_EQ(r.total_nodes, 3);
  EXPECT_EQ(r.gpu_nodes, 2);
  EXPECT_EQ(r.segments, 2);
  EXPECT_GT(r.dispatches, 0);
  EXPECT_NE(std::string(r.placement_line).find("2/3"), std::string::npos) << r.placement_line;
  EXPECT_STRNE(r.gl_renderer, "");
  EXPECT_STREQ(r.gl_context, "private");
  EXPECT_STREQ(r.cache_file, "");
  ASSERT_EQ(GldInterpreterGetNodeCount(interp), 3);
  GldNodePlacement n;
  ASSERT_EQ(GldInterpreterGetNodePlacement(interp, 1, &n), GLD_OK);
  EXPECT_STREQ(n.op, "ABS");
  EXPECT_EQ(n.on_gpu, 0);
  EXPECT_EQ(n.segment, -1);
  EXPECT_NE(std::string(n.reason).find("ABS"), std::string::npos) << n.reason;
  ASSERT_EQ(GldInterpreterGetNodePlacement(interp, 2, &n), GLD_OK);
  EXPECT_EQ(n.on_gpu, 1);
  EXPECT_EQ(n.segment, 1);
  EXPECT_STREQ(n.reason, "");
  EXPECT_EQ(GldInterpreterGetNodePlacement(interp, 3, &n), GLD_OUT_OF_RANGE);
  GldInterpreterDelete(interp);

  // The same with at most one GPU segment: the other's node runs on the CPU.
  options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsAddGpuDenyOp(options, "ABS"), GLD_OK);
  ASSERT_EQ(GldOptionsSetMaxDelegatedPartitions(options, 1), GLD_OK);
  interp = Create(m.model, options, &error);
  ASSERT_NE(interp, nullptr) << error;
  ASSERT_EQ(GldInterpreterGetReport(interp, &r), GLD_OK);
  EXPECT_EQ(r.segments, 1);
  EXPECT_EQ(r.gpu_nodes, 1);
  GldInterpreterDelete(interp);

  // Segments of fewer than two nodes stay on the CPU: both one-node segments.
  options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsAddGpuDenyOp(options, "ABS"), GLD_OK);
  ASSERT_EQ(GldOptionsSetMinNodesPerPartition(options, 2), GLD_OK);
  interp = Create(m.model, options, &error);
  ASSERT_NE(interp, nullptr) << error;
  ASSERT_EQ(GldInterpreterGetReport(interp, &r), GLD_OK);
  EXPECT_EQ(r.segments, 0);
  EXPECT_EQ(r.gpu_nodes, 0);
  ASSERT_EQ(GldInterpreterGetNodePlacement(interp, 0, &n), GLD_OK);
  EXPECT_STREQ(n.reason, "min_nodes_per_partition=2");
  GldInterpreterDelete(interp);
}

TEST(CApi, ProfileRows) {
  CModel m(AddAbsAddModel());
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  ASSERT_EQ(GldOptionsSetProfiling(options, 1), GLD_OK);
  GldInterpreter* interp = Create(m.model, options);
  ASSERT_NE(interp, nullptr) << GldLastErrorMessage();
  float in[4] = {-3, -1, 1, 3};
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, in, sizeof in), GLD_OK);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK);
  const GldProfileRow* rows = nullptr;
  int32_t count = 0;
  ASSERT_EQ(GldInterpreterGetProfile(interp, &rows, &count), GLD_OK);
  // ADD, then ABS with the last ADD in its epilogue (runtime/plan.h).
  ASSERT_EQ(count, 2);
  EXPECT_STREQ(rows[1].name, "node 1 (ABS) + node 2 (ADD)");
  EXPECT_STREQ(rows[1].op, "ABS");
  EXPECT_STREQ(rows[1].backend, "cpu");
  EXPECT_EQ(rows[1].count, 3);
  EXPECT_GE(rows[1].time_us, 0.0);
  EXPECT_STRNE(rows[1].timing, "");
  ASSERT_EQ(GldInterpreterResetProfile(interp), GLD_OK);
  ASSERT_EQ(GldInterpreterGetProfile(interp, &rows, &count), GLD_OK);
  for (int32_t i = 0; i < count; ++i) EXPECT_EQ(rows[i].count, 0) << rows[i].name;
  GldInterpreterDelete(interp);

  // Without profiling: no rows.
  interp = Create(m.model, nullptr);
  ASSERT_NE(interp, nullptr);
  ASSERT_EQ(GldInterpreterGetProfile(interp, &rows, &count), GLD_OK);
  EXPECT_EQ(count, 0);
  GldInterpreterDelete(interp);
}

TEST(CApi, ModelTokenNamesTheCacheEntry) {
  CModel m(AddAbsAddModel());
  const std::string dir = ::testing::TempDir() + "/c_api_token_cache";
  ASSERT_TRUE(gld::CreateDirectories(dir).ok());
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsSetCacheDir(options, dir.c_str()), GLD_OK);
  ASSERT_EQ(GldOptionsSetModelToken(options, "my-model.v2"), GLD_OK);
  std::string error;
  GldInterpreter* interp = Create(m.model, options, &error);
  ASSERT_NE(interp, nullptr) << error;
  GldReport r;
  ASSERT_EQ(GldInterpreterGetReport(interp, &r), GLD_OK);
  EXPECT_NE(std::string(r.cache_file).find("my-model.v2"), std::string::npos) << r.cache_file;
  GldInterpreterDelete(interp);
}

TEST(CApi, OptionErrorsNameTheValue) {
  GldOptions* options = GldOptionsCreate();
  EXPECT_EQ(GldOptionsSetMaxDelegatedPartitions(options, -1), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("-1"), std::string::npos) << GldLastErrorMessage();
  EXPECT_EQ(GldOptionsSetMinNodesPerPartition(options, -3), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("-3"), std::string::npos) << GldLastErrorMessage();
  EXPECT_EQ(GldOptionsSetTuneWorkgroups(nullptr, 1), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetEglDevice(options, -2), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetContextMode(options, static_cast<GldContextMode>(7)), GLD_INVALID_ARGUMENT);
  int dummy = 0;
  EXPECT_EQ(GldOptionsSetShareContext(options, &dummy, nullptr), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetShareContext(options, nullptr, nullptr), GLD_OK);
  EXPECT_EQ(GldOptionsSetProfiling(nullptr, 1), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldOptionsSetModelToken(nullptr, "x"), GLD_INVALID_ARGUMENT);

  // An EGL device that does not exist: the GL backend says which.
  CModel m(AddAbsAddModel());
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsSetEglDevice(options, 99), GLD_OK);
  std::string error;
  GldInterpreter* interp = Create(m.model, options, &error);
  EXPECT_EQ(interp, nullptr);
  EXPECT_NE(error.find("EGL device 99"), std::string::npos) << error;

  // Context mode "current" with no context current on this thread.
  options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_GL), GLD_OK);
  ASSERT_EQ(GldOptionsSetContextMode(options, GLD_CONTEXT_CURRENT), GLD_OK);
  interp = Create(m.model, options, &error);
  EXPECT_EQ(interp, nullptr);
  EXPECT_NE(error.find("no EGL context is current"), std::string::npos) << error;
  EXPECT_EQ(GldInterpreterGetReport(nullptr, nullptr), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterGetNodeCount(nullptr), 0);
}

}  // namespace
