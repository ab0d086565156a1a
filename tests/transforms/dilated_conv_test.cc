#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "graph_runner.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ExpectSameOutputs;
using testing::RandomFloats;

// x [1,H,W,C] -> SPACE_TO_BATCH_ND (block d x d, pads) -> `op` 3x3 VALID ->
// BATCH_TO_SPACE_ND (block d x d, crops) -> y, shapes worked out by hand.
struct Atrous {
  Graph g;
  int x, y;
  Atrous(OpType op, int d, Shape x_shape, Shape stb_shape, Shape conv_shape, Shape y_shape,
         std::vector<int32_t> pads, std::vector<int32_t> crops, int stride = 1) {
    const int c = x_shape[3];
    x = AddTensor(g, "x", x_shape);
    int block = AddConstant<int32_t>(g, "block", {2}, DataType::kInt32, {d, d});
    int p = AddConstant<int32_t>(g, "pads", {2, 2}, DataType::kInt32, pads);
    int cr = AddConstant<int32_t>(g, "crops", {2, 2}, DataType::kInt32, crops);
    int s = AddTensor(g, "s", stb_shape);
    int b = AddTensor(g, "b", conv_shape);
    y = AddTensor(g, "y", y_shape);
    AddNode(g, OpType::kSpaceToBatchNd, {x, block, p}, {s}, 0);
    const int oc = conv_shape[3];
    if (op == OpType::kConv2d) {
      int w = AddConstant<float>(g, "w", {oc, 3, 3, c}, DataType::kFloat32, RandomFloats(oc * 9 * c, 1, -2.f, 2.f));
      int bias = AddConstant<float>(g, "bias", {oc}, DataType::kFloat32, RandomFloats(oc, 2, -2.f, 2.f));
      Conv2dAttributes a;
      a.stride_h = a.stride_w = stride;
      AddNode(g, op, {s, w, bias}, {b}, 1, a);
    } else {
      int w = AddConstant<float>(g, "w", {1, 3, 3, oc}, DataType::kFloat32, RandomFloats(9 * oc, 1, -2.f, 2.f));
      int bias = AddConstant<float>(g, "bias", {oc}, DataType::kFloat32, RandomFloats(oc, 2, -2.f, 2.f));
      DepthwiseConv2dAttributes a;
      a.depth_multiplier = oc / c;
      AddNode(g, op, {s, w, bias}, {b}, 1, a);
    }
    AddNode(g, OpType::kBatchToSpaceNd, {b, block, cr}, {y}, 2);
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(DilatedConv, SpaceToBatchConvBatchToSpaceBecomesOneDilatedConvolution) {
  {
    // 9x10 padded to 14x14, 2x2 blocks of 7x7, conv -> 5x5, back to 10x10, cropped to 9x8.
    Atrous m(OpType::kConv2d, 2, {1, 9, 10, 3}, {4, 7, 7, 3}, {4, 5, 5, 4}, {1, 9, 8, 4}, {2, 3, 2, 2},
             {0, 1, 1, 1});
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(DilatedConv(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    const Node& n = m.g.nodes[0];
    EXPECT_EQ(n.inputs[0], m.x);
    EXPECT_EQ(n.outputs[0], m.y);
    const auto& a = n.attrs<Conv2dAttributes>();
    EXPECT_EQ(a.dilation_h, 2);
    EXPECT_EQ(a.dilation_w, 2);
    EXPECT_EQ(a.explicit_padding.top, 2);
    EXPECT_EQ(a.explicit_padding.bottom, 2);
    EXPECT_EQ(a.explicit_padding.left, 1);
    EXPECT_EQ(a.explicit_padding.right, 1);
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_EQ(log.lines[0].rfind("dilated_conv: node 0 (SPACE_TO_BATCH_ND) -> node 1 (CONV_2D) -> node 2 "
                                 "(BATCH_TO_SPACE_ND) is one CONV_2D with dilation 2x2, padding 2/2/1/1",
                                 0),
              0u)
        << log.lines[0];
  }
  {
    // Depthwise with multiplier 2, block 3, no crops: 6x6 padded to 9x9, 3x3 blocks, conv -> 1x1, back to 3x3.
    Atrous m(OpType::kDepthwiseConv2d, 3, {1, 6, 6, 2}, {9, 3, 3, 2}, {9, 1, 1, 4}, {1, 3, 3, 4}, {1, 2, 2, 1},
             {0, 0, 0, 0});
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(DilatedConv(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    EXPECT_EQ(m.g.nodes[0].attrs<DepthwiseConv2dAttributes>().dilation_h, 3);
  }
}

TEST(DilatedConv, LeavesAStridedInnerConvolution) {
  Atrous m(OpType::kConv2d, 2, {1, 8, 8, 3}, {4, 4, 4, 3}, {4, 1, 1, 4}, {1, 2, 2, 4}, {0, 0, 0, 0}, {0, 0, 0, 0},
           /*stride=*/2);
  PassLog log;
  ASSERT_TRUE(DilatedConv(m.g, log).ok());
  EXPECT_EQ(m.g.nodes.size(), 3u);
  EXPECT_TRUE(log.lines.empty());
}

}  // namespace
}  // namespace gld
