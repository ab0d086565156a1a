// The resource variables (cpu_kernels/model_services.h) and the kernels of
// VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE run through the model services
// seam with a ModelServices of the test's (no subgraphs). The conformance
// cases compare whole models with LiteRT; these pin what a model alone does
// not show: ids, copies, the reset, and a read before any assignment.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "cpu_kernels/model_services.h"

namespace gld::cpu {
namespace {

class VariablesOnly : public ModelServices {
 public:
  StatusOr<std::unique_ptr<PreparedSubgraph>> PrepareSubgraph(int, const std::vector<const TensorData*>&) override {
    return UnimplementedError("no subgraphs here");
  }
  ResourceVariables& variables() override { return variables_; }
  int64_t max_loop_iterations() const override { return 1; }

 private:
  ResourceVariables variables_;
};

TensorData Floats(std::vector<float>& values, Shape shape) {
  TensorData t;
  t.type = DataType::kFloat32;
  t.shape = std::move(shape);
  t.data = values.data();
  t.bytes = values.size() * sizeof(float);
  return t;
}

TEST(ResourceVariables, HandlesValuesAndReset) {
  ResourceVariables vars;
  const int32_t a = vars.Handle("", "a");
  const int32_t b = vars.Handle("scope", "a");
  EXPECT_NE(a, b);
  EXPECT_EQ(vars.Handle("", "a"), a);
  EXPECT_EQ(vars.Label(b), "variable " + std::to_string(b) + " ('scope/a')");
  EXPECT_EQ(vars.Value(a), nullptr);
  EXPECT_EQ(vars.Value(99), nullptr);

  std::vector<float> x = {1, 2, 3};
  ASSERT_TRUE(vars.Assign(a, Floats(x, {3})).ok());
  x[0] = 7;  // the variable holds a copy
  const TensorData* v = vars.Value(a);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, (Shape{3}));
  EXPECT_EQ(v->as<float>()[0], 1.f);
  // A value of another shape replaces it.
  std::vector<float> y = {4, 5, 6, 7, 8, 9};
  ASSERT_TRUE(vars.Assign(a, Floats(y, {2, 3})).ok());
  EXPECT_EQ(vars.Value(a)->shape, (Shape{2, 3}));
  EXPECT_EQ(vars.Value(a)->as<float>()[5], 9.f);
  EXPECT_EQ(vars.Assign(42, Floats(y, {6})).code(), StatusCode::kInvalidArgument);

  const uint64_t generation = vars.generation();
  vars.Reset();
  EXPECT_EQ(vars.Value(a), nullptr);
  EXPECT_EQ(vars.Handle("", "a"), a);  // ids stay
  EXPECT_EQ(vars.generation(), generation + 1);
}

// READ_VARIABLE of a variable nothing assigned: a clean error naming it.
TEST(ResourceVariables, ReadBeforeAssignIsAnError) {
  Graph g;
  g.tensors.resize(2);
  g.tensors[0].type = DataType::kInt32;
  g.tensors[0].shape = {};
  g.tensors[1].shape = {3};
  Node handle, read;
  handle.op = OpType::kVarHandle;
  handle.outputs = {0};
  handle.attributes = VarHandleAttributes{"", "state"};
  read.op = OpType::kReadVariable;
  read.inputs = {0};
  read.outputs = {1};
  g.nodes = {handle, read};

  VariablesOnly model;
  int32_t id = -1;
  std::vector<float> out(3, 0.f);
  TensorData h;
  h.type = DataType::kInt32;
  h.data = &id;
  h.bytes = sizeof(id);
  TensorData o = Floats(out, {3});

  KernelContext k;
  k.graph = &g;
  k.model = &model;
  k.node = &g.nodes[0];
  k.outputs = {&h};
  ASSERT_TRUE(FindCpuKernel(OpType::kVarHandle)->run(k).ok());
  EXPECT_EQ(id, model.variables().Handle("", "state"));

  k.node = &g.nodes[1];
  k.inputs = {&h};
  k.outputs = {&o};
  const Status s = FindCpuKernel(OpType::kReadVariable)->run(k);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("variable 0 ('state') is read before any ASSIGN_VARIABLE"), std::string::npos)
      << s.message();

  // Without the runtime's services the kernels say what they need.
  k.model = nullptr;
  EXPECT_EQ(FindCpuKernel(OpType::kReadVariable)->run(k).code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace gld::cpu
