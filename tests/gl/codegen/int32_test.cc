// int32 held as floats on the GPU (gl/codegen/int32_need.h) vs the CPU
// kernels: grid_sample's index math (FLOOR, CAST to int32, the wrap of
// negative positions with LESS / ADD / SELECT, a clamp with GREATER_EQUAL /
// SELECT_V2, SUB of a constant, channel ids by BROADCAST_TO, CONCATENATION
// into GATHER_ND indices), and the refusals: a need beyond fp16's 2048,
// arithmetic read as every value by a CAST, arithmetic or a comparison of
// two int32 activations.
#include <gtest/gtest.h>

#include "gl/codegen/support.h"
#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

int Int32(GlOpTest& t, OpType op, std::vector<int> inputs, Attributes attrs = {}) {
  const int out = t.Tensor({}, DataType::kInt32);
  t.Node(op, std::move(inputs), {out}, std::move(attrs));
  return out;
}

int Bool(GlOpTest& t, OpType op, std::vector<int> inputs) {
  const int out = t.Output(t.Tensor({}, DataType::kBool));
  t.Node(op, std::move(inputs), {out});
  return out;
}

TEST(Int32Test, IndexMathMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(21);
    const int params = t.Input({4, 6, 3});
    const int coords = t.Input({4, 6, 6, 1}, -3.f, 10.f);
    const int x = Int32(t, OpType::kCast, {t.Op(OpType::kFloor, {coords})});  // [-3, 9]
    const int zero = t.ConstInts<int32_t>({}, {0});
    const int negative = Bool(t, OpType::kLess, {x, zero});
    const int wrapped = Int32(t, OpType::kAdd, {x, t.ConstInts<int32_t>({}, {6})}, BinaryAttributes{});
    const int s = Int32(t, OpType::kSelect, {negative, wrapped, x});  // [0, 9]
    const int high = Bool(t, OpType::kGreaterEqual, {s, t.ConstInts<int32_t>({}, {6})});
    const int clamped = Int32(t, OpType::kSelectV2, {high, zero, s});  // [0, 5]
    const int col = Int32(t, OpType::kSub, {t.ConstInts<int32_t>({}, {5}), clamped}, BinaryAttributes{});
    const int shape = t.ConstInts<int32_t>({4}, {4, 6, 6, 1});
    const int rows = Int32(t, OpType::kBroadcastTo, {t.ConstInts<int32_t>({4, 1, 1, 1}, {0, 1, 2, 3}), shape});
    ConcatenationAttributes c;
    c.axis = 3;
    const int indices = Int32(t, OpType::kConcatenation, {rows, col}, c);
    t.Op(OpType::kGatherNd, {params, indices});
    t.ExpectGpuMatchesCpu(*env, p, "grid_sample's int32 index math");
  }
}

// The reason node `node` stays off the GPU at `precision` ("" when it runs).
std::string Why(GlOpTest& t, size_t node, Precision precision) {
  EXPECT_TRUE(InferShapes(t.graph).ok());
  std::string why;
  return gl::IsNodeSupported(t.graph, node, &why, precision) ? "" : why;
}

TEST(Int32Test, RefusesWhatFloatsDoNotHoldExactly) {
  {
    GlOpTest t;  // ids + 3000 into a GATHER of 4000 rows: fp32 only
    const int ids = t.Placeholder({1, 5}, DataType::kInt32);
    const int moved = Int32(t, OpType::kAdd, {ids, t.ConstInts<int32_t>({}, {3000})}, BinaryAttributes{});
    t.Op(OpType::kGather, {t.Placeholder({4000, 4}), moved}, AxisAttributes{});
    EXPECT_EQ(Why(t, 0, Precision::kFp32), "");
    EXPECT_NE(Why(t, 0, Precision::kFp16).find("only up to 2048"), std::string::npos) << Why(t, 0, Precision::kFp16);
  }
  {
    GlOpTest t;  // ids + 1 cast to float: every value must be exact
    const int ids = t.Placeholder({1, 5}, DataType::kInt32);
    const int moved = Int32(t, OpType::kAdd, {ids, t.ConstInts<int32_t>({}, {1})}, BinaryAttributes{});
    t.Op(OpType::kCast, {moved});
    EXPECT_NE(Why(t, 0, Precision::kFp32).find("which reads every value"), std::string::npos)
        << Why(t, 0, Precision::kFp32);
  }
  for (OpType op : {OpType::kAdd, OpType::kLess}) {
    GlOpTest t;  // two int32 activations: no bound on either
    const int a = t.Placeholder({1, 5}, DataType::kInt32);
    const int b = t.Placeholder({1, 5}, DataType::kInt32);
    const int out = op == OpType::kAdd ? t.Tensor({}, DataType::kInt32) : t.Output(t.Tensor({}, DataType::kBool));
    t.Node(op, {a, b}, {out}, BinaryAttributes{});
    if (op == OpType::kAdd) t.Op(OpType::kGather, {t.Placeholder({10, 4}), out}, AxisAttributes{});
    EXPECT_NE(Why(t, 0, Precision::kFp32).find("does not take int32 values held as floats"), std::string::npos)
        << Why(t, 0, Precision::kFp32);
  }
}

}  // namespace
}  // namespace gld::testing
