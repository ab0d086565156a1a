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

// x [1,H,W,C] -> PAD (t,b,l,r) -> p -> `op` k x k, stride s, VALID -> y
struct PadConv {
  Graph g;
  int x, p, y;
  PadConv(OpType op, int h, int w, int c, int k, int s, std::array<int32_t, 4> pad) {
    x = AddTensor(g, "x", {1, h, w, c});
    const int ph = h + pad[0] + pad[1], pw = w + pad[2] + pad[3];
    p = AddTensor(g, "p", {1, ph, pw, c});
    int pads = AddConstant<int32_t>(g, "pads", {4, 2}, DataType::kInt32,
                                    {0, 0, pad[0], pad[1], pad[2], pad[3], 0, 0});
    const int oh = (ph - k) / s + 1, ow = (pw - k) / s + 1;
    AddNode(g, OpType::kPad, {x, pads}, {p}, 0);
    if (op == OpType::kMaxPool2d) {
      y = AddTensor(g, "y", {1, oh, ow, c});
      Pool2dAttributes a;
      a.filter_h = a.filter_w = k;
      a.stride_h = a.stride_w = s;
      AddNode(g, op, {p}, {y}, 1, a);
    } else if (op == OpType::kDepthwiseConv2d) {
      y = AddTensor(g, "y", {1, oh, ow, c});
      int wt = AddConstant<float>(g, "w", {1, k, k, c}, DataType::kFloat32, RandomFloats(k * k * c, 3, -2.f, 2.f));
      int b = AddConstant<float>(g, "b", {c}, DataType::kFloat32, RandomFloats(c, 4, -2.f, 2.f));
      DepthwiseConv2dAttributes a;
      a.stride_h = a.stride_w = s;
      AddNode(g, op, {p, wt, b}, {y}, 1, a);
    } else {
      y = AddTensor(g, "y", {1, oh, ow, 3});
      int wt = AddConstant<float>(g, "w", {3, k, k, c}, DataType::kFloat32, RandomFloats(3 * k * k * c, 3, -2.f, 2.f));
      int b = AddConstant<float>(g, "b", {3}, DataType::kFloat32, RandomFloats(3, 4, -2.f, 2.f));
      Conv2dAttributes a;
      a.stride_h = a.stride_w = s;
      AddNode(g, op, {p, wt, b}, {y}, 1, a);
    }
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(MergePad, PaddingThatSameWouldGiveBecomesSame) {
  struct Case {
    OpType op;
    int h, w, k, s;
    std::array<int32_t, 4> pad;
  };
  const Case cases[] = {
      {OpType::kDepthwiseConv2d, 6, 5, 3, 1, {1, 1, 1, 1}},
      {OpType::kDepthwiseConv2d, 7, 7, 5, 1, {2, 2, 2, 2}},
      {OpType::kConv2d, 8, 8, 3, 2, {0, 1, 0, 1}},  // even size, stride 2: SAME pads after only
      {OpType::kConv2d, 7, 6, 3, 2, {1, 1, 0, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(OpTypeName(c.op)) + " " + std::to_string(c.h) + "x" + std::to_string(c.w));
    PadConv m(c.op, c.h, c.w, 4, c.k, c.s, c.pad);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(MergePad(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    EXPECT_EQ(m.g.nodes[0].inputs[0], m.x);
    const Padding padding = c.op == OpType::kConv2d ? m.g.nodes[0].attrs<Conv2dAttributes>().padding
                                                    : m.g.nodes[0].attrs<DepthwiseConv2dAttributes>().padding;
    EXPECT_EQ(padding, Padding::kSame);
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_EQ(log.lines[0].rfind("merge_pad: node 0 (PAD) (H " + std::to_string(c.pad[0]) + "/" +
                                     std::to_string(c.pad[1]) + ", W " + std::to_string(c.pad[2]) + "/" +
                                     std::to_string(c.pad[3]) + ") merged into node 1 (" + OpTypeName(c.op) + ")",
                                 0),
              0u)
        << log.lines[0];
  }
}

TEST(MergePad, OtherPaddingBecomesExplicitPadding) {
  struct Case {
    OpType op;
    int h, w, k, s;
    std::array<int32_t, 4> pad;
  };
  const Case cases[] = {
      // Stride 2 on an even size: SAME would pad 0 before and 1 after.
      {OpType::kConv2d, 8, 8, 3, 2, {1, 1, 1, 1}},
      {OpType::kDepthwiseConv2d, 8, 6, 5, 2, {2, 2, 1, 3}},
      // More than a 3x3 window's SAME padding.
      {OpType::kDepthwiseConv2d, 6, 6, 3, 1, {2, 2, 0, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(OpTypeName(c.op)) + " " + std::to_string(c.h) + "x" + std::to_string(c.w));
    PadConv m(c.op, c.h, c.w, 5, c.k, c.s, c.pad);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(MergePad(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    EXPECT_EQ(m.g.nodes[0].inputs[0], m.x);
    const ExplicitPadding e = c.op == OpType::kConv2d
                                  ? m.g.nodes[0].attrs<Conv2dAttributes>().explicit_padding
                                  : m.g.nodes[0].attrs<DepthwiseConv2dAttributes>().explicit_padding;
    EXPECT_EQ(e.top, c.pad[0]);
    EXPECT_EQ(e.bottom, c.pad[1]);
    EXPECT_EQ(e.left, c.pad[2]);
    EXPECT_EQ(e.right, c.pad[3]);
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_NE(log.lines[0].find("(explicit padding)"), std::string::npos) << log.lines[0];
  }
}

TEST(MergePad, KeepsAPadBeforeASameConvolution) {
  PadConv m(OpType::kConv2d, 6, 6, 4, 3, 1, {1, 1, 1, 1});
  m.g.nodes[1].attrs<Conv2dAttributes>().padding = Padding::kSame;
  PassLog log;
  ASSERT_TRUE(MergePad(m.g, log).ok());
  EXPECT_EQ(m.g.nodes.size(), 2u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(MergePad, KeepsPaddingBeforePoolingAndOnChannels) {
  // MAX_POOL_2D's SAME padding never wins the max; a zero PAD can.
  PadConv pool(OpType::kMaxPool2d, 6, 6, 4, 3, 1, {1, 1, 1, 1});
  PassLog log;
  ASSERT_TRUE(MergePad(pool.g, log).ok());
  EXPECT_EQ(pool.g.nodes.size(), 2u);

  PadConv channels(OpType::kConv2d, 6, 6, 4, 3, 1, {1, 1, 1, 1});
  Tensor& pads = channels.g.tensors[static_cast<size_t>(channels.g.nodes[0].inputs[1])];
  std::vector<uint8_t> after(pads.data.begin(), pads.data.end());
  reinterpret_cast<int32_t*>(after.data())[7] = 4;  // and 4 channels after
  pads.data = std::move(after);
  ASSERT_TRUE(MergePad(channels.g, log).ok());
  EXPECT_EQ(channels.g.nodes.size(), 2u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(MergePad, MergesIntoEveryReaderOnlyWhenAllFit) {
  PadConv m(OpType::kDepthwiseConv2d, 6, 6, 4, 3, 1, {1, 1, 1, 1});
  // A second reader: 3x3 stride 1 fits too.
  int w2 = AddConstant<float>(m.g, "w2", {1, 3, 3, 4}, DataType::kFloat32, RandomFloats(36, 9, -2.f, 2.f));
  int b2 = AddConstant<float>(m.g, "b2", {4}, DataType::kFloat32, RandomFloats(4, 10, -2.f, 2.f));
  int y2 = AddTensor(m.g, "y2", {1, 6, 6, 4});
  AddNode(m.g, OpType::kDepthwiseConv2d, {m.p, w2, b2}, {y2}, 2, DepthwiseConv2dAttributes{});
  m.g.outputs = {m.y, y2};
  PassLog log;
  ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(MergePad(g, log).ok()); });
  EXPECT_EQ(m.g.nodes.size(), 2u);
  EXPECT_EQ(log.lines.size(), 1u);

  // A reader that is not a convolution keeps the PAD for everyone.
  PadConv n(OpType::kDepthwiseConv2d, 6, 6, 4, 3, 1, {1, 1, 1, 1});
  int z = AddTensor(n.g, "z", {1, 8, 8, 4});
  AddNode(n.g, OpType::kRelu, {n.p}, {z}, 2);
  n.g.outputs = {n.y, z};
  ASSERT_TRUE(MergePad(n.g, log).ok());
  EXPECT_EQ(n.g.nodes.size(), 3u);
}

}  // namespace
}  // namespace gld
