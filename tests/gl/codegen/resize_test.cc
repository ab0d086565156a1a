// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR on the GPU vs the CPU kernels,
// over the align_corners / half_pixel_centers combinations.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

class ResizeTest : public ::testing::TestWithParam<OpType> {};

TEST_P(ResizeTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  const OpType op = GetParam();
  struct Case {
    Shape input;
    int out_h, out_w;
  };
  const Case cases[] = {
      {{1, 4, 4, 3}, 8, 8},     // 2x up
      {{1, 5, 3, 1}, 7, 11},    // odd factors
      {{2, 8, 6, 4}, 3, 4},     // down
      {{1, 3, 4, 5}, 3, 9},     // one axis only
      {{1, 6, 6, 17}, 12, 12},
      {{1, 1, 1, 2}, 3, 3},     // from one pixel
  };
  const std::pair<bool, bool> modes[] = {{false, false}, {true, false}, {false, true}};
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const Case& c : cases) {
      for (auto [align, half] : modes) {
        GlOpTest t(seed++);
        int x = t.Input(c.input);
        int size = t.ConstInts<int32_t>({2}, {c.out_h, c.out_w});
        t.Op(op, {x, size}, ResizeAttributes{align, half});
        t.ExpectGpuMatchesCpu(*env, p,
                              std::string(OpTypeName(op)) + " " + ShapeToString(c.input) + " -> " +
                                  std::to_string(c.out_h) + "x" + std::to_string(c.out_w) +
                                  (align ? " align_corners" : "") + (half ? " half_pixel_centers" : ""));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ResizeTest, ::testing::Values(OpType::kResizeBilinear, OpType::kResizeNearestNeighbor),
                         [](const ::testing::TestParamInfo<OpType>& info) { return std::string(OpTypeName(info.param)); });

TEST(ResizeTest, FiveDimensionalInputIsRefusedWithAReason) {
  GlOpTest t;
  int x = t.Input({1, 2, 3, 4, 5});
  int size = t.ConstInts<int32_t>({2}, {4, 6});
  int out = t.Tensor({1, 2, 4, 6, 5});
  t.Node(OpType::kResizeBilinear, {x, size}, {out}, ResizeAttributes{});
  std::string reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &reason));
  EXPECT_NE(reason.find("RESIZE_BILINEAR"), std::string::npos) << reason;
  EXPECT_NE(reason.find("5-D"), std::string::npos) << reason;
}

}  // namespace
}  // namespace gld::testing
