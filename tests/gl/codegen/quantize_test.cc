// QUANTIZE / DEQUANTIZE on the GPU vs the CPU kernels, including integer
// tensors crossing the segment edges.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

void SetQuant(GlOpTest& t, int tensor, float scale, int64_t zero_point) {
  t.graph.tensors[static_cast<size_t>(tensor)].quant.scale = {scale};
  t.graph.tensors[static_cast<size_t>(tensor)].quant.zero_point = {zero_point};
}

struct QuantCase {
  DataType type;
  float scale;
  int64_t zero_point;
};

const QuantCase kQuantCases[] = {
    {DataType::kInt8, 0.02f, 3},
    {DataType::kUInt8, 0.025f, 128},
    {DataType::kInt16, 0.0005f, 0},
};

const Shape kShapes[] = {{1, 5, 7, 3}, {2, 3, 4, 17}, {1, 1, 1, 1}, {3, 5}, {1, 2, 3, 4}, {1, 3, 2, 1}};

TEST(QuantizeTest, QuantizeToIntegersMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const QuantCase& c : kQuantCases) {
      if (c.type == DataType::kInt16 && p == Precision::kFp16) continue;  // refused, tested below
      for (const Shape& s : kShapes) {
        GlOpTest t(seed++);
        int x = t.Input(s, -3, 3);  // also saturates int8 / uint8
        int q = t.Output(t.Tensor({}, c.type));
        SetQuant(t, q, c.scale, c.zero_point);
        t.Node(OpType::kQuantize, {x}, {q});
        t.ExpectGpuMatchesCpu(*env, p, std::string("QUANTIZE to ") + DataTypeName(c.type) + " " + ShapeToString(s));
      }
    }
  }
}

TEST(QuantizeTest, DequantizeIntegerInputsMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 20;
    for (const QuantCase& c : kQuantCases) {
      if (c.type == DataType::kInt16 && p == Precision::kFp16) continue;
      for (const Shape& s : kShapes) {
        GlOpTest t(seed++);
        const size_t n = static_cast<size_t>(NumElements(s));
        int q = t.InputBytes(s, c.type, RandomBytes(n * DataTypeSize(c.type), seed));
        SetQuant(t, q, c.scale, c.zero_point);
        int x = t.Op(OpType::kDequantize, {q});
        // A float op after it, so the integers live on the GPU for a while.
        t.graph.outputs.clear();
        int y = t.Op(OpType::kAbs, {x});
        (void)y;
        t.ExpectGpuMatchesCpu(*env, p, std::string("DEQUANTIZE from ") + DataTypeName(c.type) + " " + ShapeToString(s));
      }
    }
  }
}

TEST(QuantizeTest, FakeQuantizeAndRequantizeMatchCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    // QUANTIZE into a float32 tensor with quantization: values snapped to
    // the int8 grid.
    GlOpTest t(40);
    int x = t.Input({1, 4, 6, 5}, -2, 2);
    int f = t.Output(t.Tensor({}, DataType::kFloat32));
    SetQuant(t, f, 0.05f, -2);
    t.Node(OpType::kQuantize, {x}, {f});
    t.ExpectGpuMatchesCpu(*env, p, "QUANTIZE float view");

    // int8 -> uint8 requantization through GPU-resident integers.
    GlOpTest r(41);
    int in = r.Input({2, 3, 5}, -1, 1);
    int q8 = r.Tensor({}, DataType::kInt8);
    SetQuant(r, q8, 0.01f, 0);
    r.Node(OpType::kQuantize, {in}, {q8});
    int qu = r.Output(r.Tensor({}, DataType::kUInt8));
    SetQuant(r, qu, 0.02f, 128);
    r.Node(OpType::kQuantize, {q8}, {qu});
    r.ExpectGpuMatchesCpu(*env, p, "QUANTIZE int8 -> uint8");
  }
}

TEST(QuantizeTest, Int16NeedsFp32AndPerChannelIsRefused) {
  GlOpTest t;
  int x = t.Input({1, 2, 2, 3});
  int q = t.Output(t.Tensor({1, 2, 2, 3}, DataType::kInt16));
  SetQuant(t, q, 0.01f, 0);
  t.Node(OpType::kQuantize, {x}, {q});
  std::string reason;
  EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &reason, Precision::kFp32)) << reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &reason, Precision::kFp16));
  EXPECT_NE(reason.find("fp32"), std::string::npos) << reason;

  t.graph.tensors[static_cast<size_t>(q)].quant.scale = {0.1f, 0.2f, 0.3f};
  t.graph.tensors[static_cast<size_t>(q)].quant.zero_point = {0, 0, 0};
  t.graph.tensors[static_cast<size_t>(q)].quant.quantized_dimension = 3;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &reason, Precision::kFp32));
  EXPECT_NE(reason.find("per-tensor"), std::string::npos) << reason;
}

}  // namespace
}  // namespace gld::testing
