// A state updated in place across invokes: an input and an output bound to
// one app buffer (GL: BindInputBuffer + BindOutputBuffer; host memory:
// BindInputHostBuffer + BindOutputHostBuffer). Allowed where the output's
// producer is the input's last reader and reads it before it writes;
// refused, naming the steps, where a later step would read the input
// already updated or a CPU node other than DYNAMIC_UPDATE_SLICE /
// STABLEHLO_SCATTER would read it while writing. (The decoders' KV caches:
// tests/models/decoders_test.cc.)
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/app_gl_context.h"
#include "common/gl_stack_probe.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"

namespace gld::testing {
namespace {

constexpr int kN = 8;

std::shared_ptr<const Model> Finish(ModelBuilder& b) {
  auto bytes = b.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!bytes.ok()) return nullptr;
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

// state [1, 8] -> state_out = DYNAMIC_UPDATE_SLICE(state, [1, 1] update, (0, pos)),
// logits = state_out * 2. `late_reader`: also z = state - (logits + 2), a
// later reader of the input (with gpu_deny_ops ADD, in a second GL segment).
std::shared_ptr<const Model> StateModel(bool late_reader) {
  ModelBuilder b;
  int state = b.AddInput("state", ElementType::kFloat32, {1, kN});
  int pos = b.AddInput("pos", ElementType::kInt32, {2});
  int update = b.AddConstantFloat("update", {1, 1}, {1.0f});
  int two = b.AddConstantFloat("two", {1}, {2.0f});
  int out = b.AddTensor("state_out", ElementType::kFloat32, {1, kN});
  int logits = b.AddTensor("logits", ElementType::kFloat32, {1, kN});
  EXPECT_TRUE(b.AddOp("DYNAMIC_UPDATE_SLICE", {state, update, pos}, {out}).ok());
  EXPECT_TRUE(b.AddOp("MUL", {out, two}, {logits}).ok());
  if (late_reader) {
    int c = b.AddTensor("c", ElementType::kFloat32, {1, kN});
    int z = b.AddTensor("z", ElementType::kFloat32, {1, kN});
    EXPECT_TRUE(b.AddOp("ADD", {logits, two}, {c}).ok());
    EXPECT_TRUE(b.AddOp("SUB", {state, c}, {z}).ok());
    b.SetOutputs({out, logits, z});
  } else {
    b.SetOutputs({out, logits});
  }
  return Finish(b);
}

// state [1, 8] -> y = state * 2: a CPU MUL reads the input while it writes
// the output, which it cannot do in place.
std::shared_ptr<const Model> MulModel() {
  ModelBuilder b;
  int state = b.AddInput("state", ElementType::kFloat32, {1, kN});
  int two = b.AddConstantFloat("two", {1}, {2.0f});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, kN});
  EXPECT_TRUE(b.AddOp("MUL", {state, two}, {y}).ok());
  b.SetOutputs({y});
  return Finish(b);
}

std::unique_ptr<Interpreter> Make(const Model& model, const Options& options) {
  auto interp = Interpreter::Create(model, options);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  return interp.ok() ? std::move(interp).value() : nullptr;
}

// Three invokes writing 1 at positions 0, 3, 5 of the state.
void RunThreeSteps(Interpreter& interp) {
  for (int p : {0, 3, 5}) {
    const std::vector<int32_t> pos = {0, p};
    ASSERT_TRUE(interp.SetInput(1, pos.data(), pos.size() * sizeof(int32_t)).ok());
    const Status s = interp.Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

// Binds `state` as input 0 and output 0 of a new CPU interpreter of `model`;
// the output binding's status.
Status BindStateInPlace(const std::shared_ptr<const Model>& model, std::vector<float>& state,
                        std::unique_ptr<Interpreter>* interp) {
  if (model == nullptr) return InternalError("no model");
  Options options;
  options.backend = Backend::kCpu;
  *interp = Make(*model, options);
  if (*interp == nullptr) return InternalError("no interpreter");
  GLD_RETURN_IF_ERROR((*interp)->BindInputHostBuffer(0, state.data(), state.size() * 4));
  return (*interp)->BindOutputHostBuffer(0, state.data(), state.size() * 4);
}

const std::vector<float> kAfterThree = {1, 0, 0, 1, 0, 1, 0, 0};

TEST(ResidentState, HostMemoryIsUpdatedInPlaceOnTheCpu) {
  std::vector<float> state(kN, 0.0f);
  std::unique_ptr<Interpreter> interp;
  const Status s = BindStateInPlace(StateModel(false), state, &interp);
  ASSERT_TRUE(s.ok()) << s.ToString();
  RunThreeSteps(*interp);
  EXPECT_EQ(state, kAfterThree);
  EXPECT_EQ(interp->OutputData(0), state.data());
  // Unbound, the interpreter's own storage again: the state is not carried.
  ASSERT_TRUE(interp->UnbindInput(0).ok());
  ASSERT_TRUE(interp->UnbindOutput(0).ok());
  EXPECT_NE(interp->OutputData(0), state.data());
}

TEST(ResidentState, UnsafeHostAliasingIsRefused) {
  std::vector<float> state(kN, 0.0f), other(kN, 0.0f);
  {
    // A later step (the SUB) would read the state already updated.
    std::unique_ptr<Interpreter> interp;
    const Status s = BindStateInPlace(StateModel(true), state, &interp);
    ASSERT_NE(interp, nullptr);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
    EXPECT_NE(s.message().find("reads the input after"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("ping-pong"), std::string::npos) << s.message();
    EXPECT_NE(interp->OutputData(0), state.data());  // refused: not bound
    // Another buffer (ping-pong) is fine.
    EXPECT_TRUE(interp->BindOutputHostBuffer(0, other.data(), other.size() * 4).ok());
    // Two outputs on one buffer never are.
    const Status two = interp->BindOutputHostBuffer(1, other.data(), other.size() * 4);
    EXPECT_EQ(two.code(), StatusCode::kInvalidArgument) << two.ToString();
  }
  {
    // A MUL reads its input while writing its output.
    std::unique_ptr<Interpreter> interp;
    const Status s = BindStateInPlace(MulModel(), state, &interp);
    ASSERT_NE(interp, nullptr);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
    EXPECT_NE(s.message().find("only a DYNAMIC_UPDATE_SLICE or STABLEHLO_SCATTER"), std::string::npos)
        << s.message();
    // Overlapping but not the same bytes.
    const Status part = interp->BindOutputHostBuffer(0, state.data() + 1, (state.size() - 1) * 4);
    EXPECT_EQ(part.code(), StatusCode::kInvalidArgument) << part.ToString();
  }
}

// The C API's host-buffer calls: the same state in place, errors by status.
TEST(ResidentState, CApiHostBuffersAreUpdatedInPlace) {
  ModelBuilder b;
  auto model_bytes = [&] {
    int state = b.AddInput("state", ElementType::kFloat32, {1, kN});
    int pos = b.AddInput("pos", ElementType::kInt32, {2});
    int update = b.AddConstantFloat("update", {1, 1}, {1.0f});
    int out = b.AddTensor("state_out", ElementType::kFloat32, {1, kN});
    EXPECT_TRUE(b.AddOp("DYNAMIC_UPDATE_SLICE", {state, update, pos}, {out}).ok());
    b.SetOutputs({out});
    return b.Finish();
  }();
  ASSERT_TRUE(model_bytes.ok()) << model_bytes.status().ToString();
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(model_bytes->data(), model_bytes->size(), &model), GLD_OK);
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  std::vector<float> state(kN, 0.0f);
  EXPECT_EQ(GldInterpreterBindInputHostBuffer(interp, 0, state.data(), state.size() * 4), GLD_OK)
      << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterBindOutputHostBuffer(interp, 0, state.data(), state.size() * 4), GLD_OK)
      << GldLastErrorMessage();
  for (int p : {0, 3, 5}) {
    const std::vector<int32_t> pos = {0, p};
    ASSERT_EQ(GldInterpreterSetInput(interp, 1, pos.data(), pos.size() * 4), GLD_OK);
    ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
  }
  EXPECT_EQ(state, kAfterThree);
  EXPECT_EQ(GldInterpreterBindInputHostBuffer(interp, 0, nullptr, 4), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterBindInputHostBuffer(nullptr, 0, state.data(), 4), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterBindOutputHostBuffer(interp, 0, state.data(), 4), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("bytes"), std::string::npos) << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterBindOutputHostBuffer(interp, 2, state.data(), state.size() * 4), GLD_OUT_OF_RANGE);
  EXPECT_EQ(GldInterpreterUnbindInput(interp, 0), GLD_OK);
  EXPECT_EQ(GldInterpreterUnbindOutput(interp, 0), GLD_OK);
  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

class ResidentStateGl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!app.ready()) GTEST_SKIP() << "no OpenGL ES 3.1 context on the surfaceless platform";
    options.backend = Backend::kGl;
    options.context = ContextMode::kCurrent;
  }
  AppContext app;
  Options options;
};

TEST_F(ResidentStateGl, OneBufferIsUpdatedInPlaceAndMovesNoState) {
  GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();  // the start indices are rounded in the shader
  auto model = StateModel(false);
  ASSERT_NE(model, nullptr);
  auto interp = Make(*model, options);
  ASSERT_NE(interp, nullptr);
  const GLuint state = app.Buffer(kN * 4);
  ASSERT_TRUE(interp->BindInputBuffer(0, state).ok());
  const Status s = interp->BindOutputBuffer(0, state);
  ASSERT_TRUE(s.ok()) << s.ToString();
  RunThreeSteps(*interp);
  EXPECT_EQ(app.Read(state, kN), kAfterThree);
  const TransferStats st = interp->transfer_stats();
  EXPECT_EQ(st.input_uploaded_bytes[0], 0u);
  EXPECT_EQ(st.output_downloaded_bytes[0], 0u);
}

TEST_F(ResidentStateGl, ALaterSegmentReadingTheInputIsRefused) {
  // DYNAMIC_UPDATE_SLICE + MUL in GL segment 0, the ADD on the CPU, the SUB
  // in GL segment 1, which reads the state after segment 0 wrote it. (A CPU
  // reader would not do: bound inputs reach the host before the steps run.)
  auto model = StateModel(true);
  ASSERT_NE(model, nullptr);
  options.gpu_deny_ops = {"ADD"};
  auto interp = Make(*model, options);
  ASSERT_NE(interp, nullptr);
  const GLuint state = app.Buffer(kN * 4), other = app.Buffer(kN * 4);
  ASSERT_TRUE(interp->BindInputBuffer(0, state).ok());
  const Status s = interp->BindOutputBuffer(0, state);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  std::printf("[ refused  ] %s\n", s.message().c_str());
  EXPECT_NE(s.message().find("ping-pong"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("share GL buffer"), std::string::npos) << s.ToString();
  EXPECT_TRUE(interp->BindOutputBuffer(0, other).ok());  // ping-pong: another buffer
  const Status two = interp->BindOutputBuffer(1, other);
  EXPECT_EQ(two.code(), StatusCode::kInvalidArgument) << two.ToString();
}

}  // namespace
}  // namespace gld::testing
