// The support query: which nodes the GL backend takes, and the reasons it
// gives for the others.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

std::string Reason(GlOpTest& t, size_t node = 0, Precision p = Precision::kFp32) {
  std::string reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, node, &reason, p));
  EXPECT_FALSE(reason.empty());
  return reason;
}

TEST(SupportTest, OpWithoutKernel) {
  GlOpTest t;
  int x = t.Input({1, 4});
  t.Node(OpType::kCumsum, {x, t.ConstInts<int32_t>({}, {1})}, {t.Tensor({1, 4})}, AxisAttributes{});
  EXPECT_EQ(Reason(t), "op CUMSUM has no GL kernel");
}

TEST(SupportTest, NonFloatTensors) {
  GlOpTest t;
  int x = t.Placeholder({1, 4}, DataType::kInt32);
  t.Node(OpType::kAdd, {x, x}, {t.Tensor({1, 4}, DataType::kInt32)}, BinaryAttributes{});
  std::string r = Reason(t);
  EXPECT_NE(r.find("ADD"), std::string::npos) << r;
  EXPECT_NE(r.find("int32"), std::string::npos) << r;
}

TEST(SupportTest, RankAboveFour) {
  GlOpTest t;
  int x = t.Placeholder({1, 2, 3, 4, 5});
  t.Node(OpType::kRelu, {x}, {t.Tensor({1, 2, 3, 4, 5})});
  std::string r = Reason(t);
  EXPECT_NE(r.find("rank 5"), std::string::npos) << r;
}

TEST(SupportTest, UnknownShapes) {
  GlOpTest t;
  int x = t.Placeholder({1, -1, 4, 3});
  t.Node(OpType::kRelu, {x}, {t.Tensor({1, -1, 4, 3})});
  std::string r = Reason(t);
  EXPECT_NE(r.find("unknown or empty"), std::string::npos) << r;
}

TEST(SupportTest, NonConstantParameters) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 3});
  int pads = t.Placeholder({4, 2}, DataType::kInt32);
  t.Node(OpType::kPad, {x, pads}, {t.Tensor({1, 4, 4, 3})});
  std::string r = Reason(t);
  EXPECT_NE(r.find("not a constant"), std::string::npos) << r;
}

TEST(SupportTest, StridedSliceMasks) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 3});
  int v = t.ConstInts<int32_t>({4}, {0, 0, 0, 0});
  StridedSliceAttributes a;
  a.ellipsis_mask = 1;
  t.Node(OpType::kStridedSlice, {x, v, v, v}, {t.Tensor({1, 4, 4, 3})}, a);
  std::string r = Reason(t);
  EXPECT_NE(r.find("ellipsis_mask"), std::string::npos) << r;
}

// Grouped convolution runs (grouped_conv.comp); weights whose input channels
// do not divide the input's are refused with the reason.
TEST(SupportTest, GroupedConvolution) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 6});
  t.Node(OpType::kConv2d, {x, t.Const({4, 3, 3, 3}), t.Const({4})}, {t.Tensor({1, 2, 2, 4})}, Conv2dAttributes{});
  std::string reason;
  EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &reason, Precision::kFp32)) << reason;
  GlOpTest bad;
  int y = bad.Input({1, 4, 4, 6});
  bad.Node(OpType::kConv2d, {y, bad.Const({4, 3, 3, 4}), bad.Const({4})}, {bad.Tensor({1, 2, 2, 4})},
           Conv2dAttributes{});
  std::string r = Reason(bad);
  EXPECT_NE(r.find("groups"), std::string::npos) << r;
}

TEST(SupportTest, TooLargeForStorageBlocks) {
  GlOpTest t;
  // 4096 x 4096 x 4 floats = 256 MiB in fp32, past the 128 MiB GLES minimum.
  int x = t.Placeholder({1, 4096, 4096, 4});
  t.Node(OpType::kRelu, {x}, {t.Tensor({1, 4096, 4096, 4})});
  std::string r = Reason(t);
  EXPECT_NE(r.find("bytes of GPU storage"), std::string::npos) << r;
  // In fp16 it fits.
  std::string none;
  EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &none, Precision::kFp16)) << none;
}

TEST(SupportTest, MalformedNodesAreRefusedNotCrashed) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 3});
  t.Node(OpType::kConv2d, {x}, {t.Tensor({1, 4, 4, 3})}, Conv2dAttributes{});             // no weights
  t.Node(OpType::kConv2d, {x, t.Const({2, 3, 3, 3})}, {t.Tensor({1, 4, 4, 2})}, BinaryAttributes{});  // wrong attrs
  t.Node(OpType::kAdd, {x, 999}, {t.Tensor({1, 4, 4, 3})}, BinaryAttributes{});           // bad tensor index
  t.Node(OpType::kConv2d, {x, t.Const({2, 3, 3, 3})}, {t.Tensor({1, 9, 9, 2})}, Conv2dAttributes{});  // bad output
  t.Node(OpType::kConcatenation, {x, x}, {t.Tensor({1, 4, 4, 3})}, ConcatenationAttributes{7, Activation::kNone});
  t.Node(OpType::kReshape, {x}, {t.Tensor({1, 5})});
  for (size_t i = 0; i < t.graph.nodes.size(); ++i) {
    std::string r = Reason(t, i);
    SCOPED_TRACE(r);
  }
}

TEST(SupportTest, ListsTheRequiredOps) {
  const auto& ops = gl::GlSupportedOps();
  for (OpType op : {OpType::kConv2d, OpType::kDepthwiseConv2d, OpType::kAdd, OpType::kMul, OpType::kRelu,
                    OpType::kPrelu, OpType::kLogistic, OpType::kHardSwish, OpType::kPad, OpType::kReshape,
                    OpType::kMaxPool2d, OpType::kAveragePool2d, OpType::kConcatenation, OpType::kFullyConnected,
                    OpType::kMean, OpType::kResizeBilinear, OpType::kDepthToSpace,
                    OpType::kConvolution2DTransposeBias, OpType::kTransformTensorBilinear,
                    OpType::kTransformLandmarks, OpType::kLandmarks2TransformMatrix}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << OpTypeName(op);
  }
}

}  // namespace
}  // namespace gld::testing

namespace gld::testing {
namespace {

// Random nodes over random tensors (bad indices, odd shapes and types, wrong
// attributes): the support query answers, it never crashes or throws.
TEST(SupportTest, RandomMalformedNodesNeverCrash) {
  std::mt19937 rng(99);
  const std::vector<OpType>& ops = AllOpTypes();
  const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kInt8,
                            DataType::kUInt8, DataType::kInt16, DataType::kBool, DataType::kInt64};
  const Attributes attrs[] = {std::monostate{}, Conv2dAttributes{}, DepthwiseConv2dAttributes{},
                              TransposeConvAttributes{}, Pool2dAttributes{}, FullyConnectedAttributes{},
                              BinaryAttributes{}, ConcatenationAttributes{5, Activation::kNone},
                              ReshapeAttributes{}, ReduceAttributes{}, ResizeAttributes{true, true},
                              BlockSizeAttributes{0}, SoftmaxAttributes{}, LeakyReluAttributes{},
                              MirrorPadAttributes{}, StridedSliceAttributes{}, AxisAttributes{}};
  int supported = 0;
  for (int round = 0; round < 20000; ++round) {
    Graph g;
    const int num_tensors = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < num_tensors; ++i) {
      Tensor t;
      t.name = "t" + std::to_string(i);
      t.type = types[rng() % 8];
      const int rank = static_cast<int>(rng() % 6);
      for (int d = 0; d < rank; ++d) t.shape.push_back(static_cast<int32_t>(rng() % 7) - 1);
      if (rng() % 3 == 0) {
        t.is_constant = true;
        std::vector<uint8_t> bytes(rng() % 64);
        for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
        t.data = std::move(bytes);
      }
      if (rng() % 5 == 0) {
        t.quant.scale = {0.1f};
        t.quant.zero_point = {static_cast<int64_t>(rng() % 300) - 100};
      }
      g.tensors.push_back(std::move(t));
    }
    Node n;
    n.op = ops[rng() % ops.size()];
    n.attributes = attrs[rng() % (sizeof(attrs) / sizeof(attrs[0]))];
    const int num_inputs = static_cast<int>(rng() % 5), num_outputs = static_cast<int>(rng() % 3);
    for (int i = 0; i < num_inputs; ++i) n.inputs.push_back(static_cast<int>(rng() % (num_tensors + 2)) - 1);
    for (int i = 0; i < num_outputs; ++i) n.outputs.push_back(static_cast<int>(rng() % (num_tensors + 2)) - 1);
    g.nodes.push_back(std::move(n));
    for (Precision p : BothPrecisions()) {
      std::string reason;
      if (gl::IsNodeSupported(g, 0, &reason, p)) {
        ++supported;
      } else {
        EXPECT_FALSE(reason.empty());
      }
    }
  }
  // Some random nodes are well formed; the query must accept those.
  EXPECT_GT(supported, 0);
}

}  // namespace
}  // namespace gld::testing
