// Pooling ops on the GPU vs the CPU kernels.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

struct PoolCase {
  int batch, h, w, c, fh, fw, stride;
  Padding padding;
  Activation act;
};

const PoolCase kPoolCases[] = {
    {1, 8, 8, 1, 2, 2, 2, Padding::kValid, Activation::kNone},
    {1, 7, 9, 3, 3, 3, 2, Padding::kSame, Activation::kNone},
    {2, 6, 6, 4, 3, 3, 1, Padding::kSame, Activation::kRelu},
    {1, 5, 7, 5, 2, 3, 1, Padding::kValid, Activation::kNone},
    {1, 9, 9, 17, 3, 3, 2, Padding::kSame, Activation::kRelu6},
    {1, 6, 5, 20, 6, 5, 1, Padding::kValid, Activation::kNone},  // global pooling
};

std::string Describe(const PoolCase& c) {
  return std::to_string(c.h) + "x" + std::to_string(c.w) + "x" + std::to_string(c.c) + " f" +
         std::to_string(c.fh) + "x" + std::to_string(c.fw) + " s" + std::to_string(c.stride) +
         (c.padding == Padding::kSame ? " SAME" : " VALID");
}

Pool2dAttributes Attrs(const PoolCase& c) {
  Pool2dAttributes a;
  a.padding = c.padding;
  a.stride_h = a.stride_w = c.stride;
  a.filter_h = c.fh;
  a.filter_w = c.fw;
  a.activation = c.act;
  return a;
}

TEST(PoolingTest, AveragePoolMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const PoolCase& c : kPoolCases) {
      GlOpTest t(seed++);
      int x = t.Input({c.batch, c.h, c.w, c.c});
      t.Op(OpType::kAveragePool2d, {x}, Attrs(c));
      t.ExpectGpuMatchesCpu(*env, p, "AVERAGE_POOL_2D " + Describe(c));
    }
  }
}

TEST(PoolingTest, MaxPoolMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 20;
    for (const PoolCase& c : kPoolCases) {
      GlOpTest t(seed++);
      int x = t.Input({c.batch, c.h, c.w, c.c});
      t.Op(OpType::kMaxPool2d, {x}, Attrs(c));
      t.ExpectGpuMatchesCpu(*env, p, "MAX_POOL_2D " + Describe(c));
    }
  }
}

TEST(PoolingTest, MaxPoolingWithArgmaxMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 40;
    for (const PoolCase& c : kPoolCases) {
      GlOpTest t(seed++);
      // fp16-exact inputs: a tie in fp16 would move an argmax legitimately.
      const Shape s = {c.batch, c.h, c.w, c.c};
      int x = t.InputValues(s, Fp16ExactValues(static_cast<size_t>(NumElements(s)), seed));
      int out = t.Output(t.Tensor());
      int indices = t.Output(t.Tensor());
      t.Node(OpType::kMaxPoolingWithArgmax2D, {x}, {out, indices}, Attrs(c));
      t.ExpectGpuMatchesCpu(*env, p, "MaxPoolingWithArgmax2D " + Describe(c));
    }
  }
}

TEST(PoolingTest, MaxUnpoolingMatchesCpu) {
  GLD_REQUIRE_GL(env);
  // The usual pair: pool with argmax, then unpool with the same window.
  const PoolCase cases[] = {
      {1, 8, 8, 3, 2, 2, 2, Padding::kValid, Activation::kNone},
      {1, 6, 10, 5, 2, 2, 2, Padding::kSame, Activation::kNone},
      {2, 6, 6, 17, 3, 3, 3, Padding::kValid, Activation::kNone},
      {1, 4, 6, 1, 2, 2, 2, Padding::kValid, Activation::kNone},
      {1, 5, 4, 4, 2, 2, 2, Padding::kSame, Activation::kNone},
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 60;
    for (const PoolCase& c : cases) {
      GlOpTest t(seed++);
      const Shape s = {c.batch, c.h, c.w, c.c};
      int x = t.InputValues(s, Fp16ExactValues(static_cast<size_t>(NumElements(s)), seed));
      int pooled = t.Tensor();
      int indices = t.Tensor();
      t.Node(OpType::kMaxPoolingWithArgmax2D, {x}, {pooled, indices}, Attrs(c));
      t.Op(OpType::kMaxUnpooling2D, {pooled, indices}, Attrs(c));
      t.ExpectGpuMatchesCpu(*env, p, "MaxUnpooling2D " + Describe(c));
    }
  }
}

}  // namespace
}  // namespace gld::testing
