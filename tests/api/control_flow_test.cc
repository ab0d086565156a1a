// Control flow and resource variables through the public API, on the
// control-flow op cases (tests/data/ops: LiteRT's outputs): the loop bound
// (Options::max_loop_iterations), ResetVariables, the placement of a WHILE on
// the GL backend, and callees prepared once.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

struct Case {
  std::string dir;
  std::shared_ptr<const Model> model;
  nlohmann::json manifest;
};

// Loads op case `name`; false (and a skip) when the cases are not there.
bool LoadCase(const std::string& name, Case* c) {
  c->dir = OpCasesDir() + "/" + name;
  auto manifest = ReadManifest(c->dir);
  if (!manifest.ok()) return false;
  c->manifest = *manifest;
  auto model = Model::FromFile(c->dir + "/model.tflite");
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return false;
  c->model = std::move(model).value();
  return true;
}

void SetInputs(const Case& c, Interpreter& it) {
  for (size_t i = 0; i < it.inputs().size(); ++i) {
    auto bytes = LoadReferenceInput(c.dir, c.manifest, static_cast<int>(i), it.inputs()[i]);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    ASSERT_TRUE(it.SetInput(static_cast<int>(i), bytes->data(), bytes->size()).ok());
  }
}

std::vector<float> Output(const Interpreter& it, int index) {
  std::vector<float> v(it.outputs()[static_cast<size_t>(index)].bytes / sizeof(float));
  EXPECT_TRUE(it.GetOutput(index, v.data(), v.size() * sizeof(float)).ok());
  return v;
}

// The floats of case c's .npy file `file`.
std::vector<float> Floats(const Case& c, const std::string& file) {
  auto array = ReadNpy(c.dir + "/" + file);
  EXPECT_TRUE(array.ok()) << file;
  if (!array.ok()) return {};
  std::vector<float> v(array->data.size() / sizeof(float));
  std::memcpy(v.data(), array->data.data(), array->data.size());
  return v;
}

std::vector<float> Reference(const Case& c, int index) { return Floats(c, "output_" + std::to_string(index) + ".npy"); }

void ExpectNear(const std::vector<float>& ours, const std::vector<float>& ref) {
  ASSERT_EQ(ours.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(ours[i], ref[i], 1e-5f * (1.f + std::fabs(ref[i]))) << i;
}

#define GLD_LOAD_CASE(name, c) \
  Case c;                      \
  if (!LoadCase(name, &c)) GTEST_SKIP() << "no op case " << name << " in " << OpCasesDir()

TEST(ControlFlow, LoopBoundNamesTheLoopAndTheCount) {
  GLD_LOAD_CASE("while__counter_tanh", c);  // three iterations
  Options options;
  options.backend = Backend::kCpu;
  options.max_loop_iterations = 2;
  auto it = Interpreter::Create(*c.model, options);
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  SetInputs(c, **it);
  const Status s = (*it)->Invoke();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  for (const char* part : {"node 0 (WHILE)", "max_loop_iterations=2", "subgraph 1 ('cond')",
                           "after 2 runs of subgraph 2 ('body')"}) {
    EXPECT_NE(s.message().find(part), std::string::npos) << part << " not in: " << s.message();
  }
  options.max_loop_iterations = 3;
  it = Interpreter::Create(*c.model, options);
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  SetInputs(c, **it);
  ASSERT_TRUE((*it)->Invoke().ok());
  ExpectNear(Output(**it, 0), Reference(c, 0));
}

TEST(ControlFlow, LoopBoundIsAnOption) {
  GldOptions* o = GldOptionsCreate();
  int32_t value = 0;
  ASSERT_EQ(GldOptionsGetMaxLoopIterations(o, &value), GLD_OK);
  EXPECT_EQ(value, 10000000);
  EXPECT_NE(GldOptionsSetMaxLoopIterations(o, 0), GLD_OK);
  ASSERT_EQ(GldOptionsSetMaxLoopIterations(o, 5), GLD_OK);
  ASSERT_EQ(GldOptionsGetMaxLoopIterations(o, &value), GLD_OK);
  EXPECT_EQ(value, 5);
  GldOptionsDelete(o);
}

// State across invokes, and the reset back to a fresh interpreter's: the
// case's "steps" are LiteRT's further runs (new inputs each) on one
// interpreter; the run after a reset is the first again.
TEST(ControlFlow, VariablesKeepStateAndReset) {
  GLD_LOAD_CASE("call_once__init_accumulator", c);
  ASSERT_TRUE(c.manifest.contains("steps"));
  const nlohmann::json& steps = c.manifest["steps"];
  ASSERT_EQ(steps.size(), 2u);
  Options options;
  options.backend = Backend::kCpu;
  auto it = Interpreter::Create(*c.model, options);
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  SetInputs(c, **it);
  ASSERT_TRUE((*it)->Invoke().ok());
  const std::vector<float> first = Output(**it, 0);
  ExpectNear(first, Reference(c, 0));
  for (const nlohmann::json& step : steps) {
    const std::vector<float> input = Floats(c, step.at("inputs").at(0).get<std::string>());
    ASSERT_TRUE((*it)->SetInput(0, input.data(), input.size() * sizeof(float)).ok());
    ASSERT_TRUE((*it)->Invoke().ok());
    ExpectNear(Output(**it, 0), Floats(c, step.at("outputs").at(0).get<std::string>()));
  }
  ASSERT_TRUE((*it)->ResetVariables().ok());
  SetInputs(c, **it);  // the first run's inputs again
  ASSERT_TRUE((*it)->Invoke().ok());
  EXPECT_EQ(Output(**it, 0), first);
  // Two interpreters of one model keep their own variables.
  auto other = Interpreter::Create(*c.model, options);
  ASSERT_TRUE(other.ok());
  SetInputs(c, **other);
  ASSERT_TRUE((*other)->Invoke().ok());
  EXPECT_EQ(Output(**other, 0), first);
}


TEST(ControlFlow, WhileRunsOnTheCpuInsideAGlPlan) {
  GLD_LOAD_CASE("while__if_in_body", c);
  Options options;
  options.backend = Backend::kGl;
  auto it = Interpreter::Create(*c.model, options);
  if (!it.ok() && it.status().code() == StatusCode::kUnavailable) GTEST_SKIP() << it.status().ToString();
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  const InterpreterReport& r = (*it)->report();
  ASSERT_FALSE(r.nodes.empty());
  bool found = false;
  for (const PlacementInfo& p : r.nodes) {
    if (p.op != "WHILE") continue;
    found = true;
    EXPECT_FALSE(p.on_gpu);
    EXPECT_NE(p.reason.find("control flow: WHILE runs on the CPU as one node"), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find("cond 1, body 2"), std::string::npos) << p.reason;
  }
  EXPECT_TRUE(found);
  SetInputs(c, **it);
  ASSERT_TRUE((*it)->Invoke().ok());
  ExpectNear(Output(**it, 0), Reference(c, 0));
}

// A body whose shapes depend on the loop counter runs node by node; every
// invoke gives LiteRT's result again (buffers grown once, states kept).
TEST(ControlFlow, BodyRunNodeByNodeRepeats) {
  GLD_LOAD_CASE("while__slice_by_counter", c);
  Options options;
  options.backend = Backend::kCpu;
  auto it = Interpreter::Create(*c.model, options);
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  SetInputs(c, **it);
  for (int k = 0; k < 5; ++k) {
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE((*it)->Invoke().ok());
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ measure  ] while__slice_by_counter invoke %d: %.1f us\n", k, us);
    ExpectNear(Output(**it, 0), Reference(c, 0));
  }
}

}  // namespace
}  // namespace gld::testing
