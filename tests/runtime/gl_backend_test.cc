#include <gtest/gtest.h>

#include "gl/codegen/gl_op.h"
#include "runtime/runtime.h"
#include "common/graph_builder.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

// y = MAXIMUM(ABS(CONV_2D(x)), 0): three nodes the passes leave alone.
Graph ConvAbsMax() {
  Graph g;
  int x = AddTensor(g, "x", {1, 6, 6, 4});
  std::vector<float> w(4 * 3 * 3 * 4, 0.25f), bias(4, 0.5f), zero(1, 0.0f);
  int wt = AddConstant<float>(g, "w", {4, 3, 3, 4}, DataType::kFloat32, w);
  int bt = AddConstant<float>(g, "b", {4}, DataType::kFloat32, bias);
  int z = AddConstant<float>(g, "zero", {1}, DataType::kFloat32, zero);
  int c = AddTensor(g, "c", {1, 6, 6, 4});
  int a = AddTensor(g, "a", {1, 6, 6, 4});
  int y = AddTensor(g, "y", {1, 6, 6, 4});
  Conv2dAttributes attrs;
  attrs.padding = Padding::kSame;
  AddNode(g, OpType::kConv2d, {x, wt, bt}, {c}, 0, attrs);
  AddNode(g, OpType::kAbs, {c}, {a}, 1);
  AddNode(g, OpType::kMaximum, {a, z}, {y}, 2, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

// The support query keeps the code it generated and the segment plan takes
// it: one generator run per GPU node, not one for the question and another
// for the plan.
TEST(GlBackend, EachNodeIsGeneratedOncePerInterpreter) {
  Options o;
  o.backend = Backend::kGl;
  const uint64_t before = gl::GeneratorRuns();
  auto rt = Runtime::Create(ConvAbsMax(), o);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const InterpreterReport& r = (*rt)->report();
  ASSERT_EQ(r.gpu_nodes, 3) << r.placement_line;
  EXPECT_EQ(gl::GeneratorRuns() - before, 3u);
}

}  // namespace
}  // namespace gld
