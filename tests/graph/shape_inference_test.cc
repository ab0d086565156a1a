// Shape inference as a whole: graph-level validation, error messages, type
// rules, value propagation; and the kernel registry.
#include "cpu_kernels/op_test_util.h"

namespace gld::testing {
namespace {

// STABLEHLO_COMPOSITE has none: the first pass (inline_composites) puts
// its decomposition subgraph's nodes in its place, and the CPU kernels of
// those run.
TEST(Registry, EveryOpHasACpuKernel) {
  for (OpType op : AllOpTypes()) {
    if (op == OpType::kStablehloComposite) continue;
    const cpu::CpuKernel* k = cpu::FindCpuKernel(op);
    ASSERT_NE(k, nullptr) << OpTypeName(op);
    EXPECT_EQ(k->op, op) << OpTypeName(op);
  }
}

TEST(InferShapes, LabelsUseSourceIndex) {
  OpTest t;
  const int a = t.Input<float>({2}, {1, 2});
  const int b = t.Input<float>({3}, {1, 2, 3});
  const int out = t.Output();
  t.Node(OpType::kMul, {a, b}, {out}, BinaryAttributes{});
  t.graph.nodes[0].source_index = 41;
  Status s = InferShapes(t.graph);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("node 41 (MUL)"), std::string::npos) << s.message();
}

TEST(InferShapes, BadTensorReferences) {
  {
    OpTest t;
    const int a = t.Input<float>({2}, {1, 2});
    const int out = t.Output();
    t.Node(OpType::kRelu, {a + 100}, {out});
    Status s = InferShapes(t.graph);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("refers to tensor"), std::string::npos) << s.message();
  }
  {
    OpTest t;
    const int a = t.Input<float>({2}, {1, 2});
    t.Node(OpType::kRelu, {a}, {-5});
    EXPECT_FALSE(InferShapes(t.graph).ok());
  }
  {
    OpTest t;  // writing into a constant
    const int a = t.Input<float>({2}, {1, 2});
    const int c = t.Const<float>({2}, {1, 2});
    t.Node(OpType::kRelu, {a}, {c});
    Status s = InferShapes(t.graph);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("constant"), std::string::npos) << s.message();
  }
  {
    OpTest t;  // graph input with an unknown dimension
    const int a = t.Input<float>({-1, 2}, {});
    const int out = t.Output();
    t.Node(OpType::kRelu, {a}, {out});
    Status s = InferShapes(t.graph);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'in0'"), std::string::npos) << s.message();
  }
}

TEST(InferShapes, WrongInputCountsAndAttributes) {
  {
    OpTest t;
    const int a = t.Input<float>({2}, {1, 2});
    const int out = t.Output();
    t.Node(OpType::kAdd, {a}, {out}, BinaryAttributes{});
    Status s = InferShapes(t.graph);
    EXPECT_NE(s.message().find("expected 2 inputs"), std::string::npos) << s.message();
  }
  {
    OpTest t;  // conv without Conv2dAttributes
    const int a = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
    const int w = t.Const<float>({1, 1, 1, 1}, {1});
    const int out = t.Output();
    t.Node(OpType::kConv2d, {a, w}, {out});
    Status s = InferShapes(t.graph);
    EXPECT_NE(s.message().find("attributes"), std::string::npos) << s.message();
  }
  {
    OpTest t;  // required input marked absent
    const int w = t.Const<float>({1, 1, 1, 1}, {1});
    const int out = t.Output();
    t.Node(OpType::kConv2d, {kNoTensor, w}, {out}, Conv2dAttributes{});
    Status s = InferShapes(t.graph);
    EXPECT_NE(s.message().find("missing"), std::string::npos) << s.message();
  }
}

TEST(InferShapes, TypesFollowTheOp) {
  OpTest t;
  const int a = t.Input<int32_t>({2, 2}, {1, 2, 3, 4});
  const int b = t.Input<int32_t>({2}, {1, 5});
  const int sum = t.Output(DataType::kUnknown);
  const int cmp = t.Output(DataType::kUnknown);
  const int f = t.Output(DataType::kFloat32);
  t.Node(OpType::kAdd, {a, b}, {sum}, BinaryAttributes{});
  t.Node(OpType::kGreater, {sum, b}, {cmp});
  t.Node(OpType::kCast, {cmp}, {f});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.TypeOfTensor(sum), DataType::kInt32);
  EXPECT_EQ(t.TypeOfTensor(cmp), DataType::kBool);
  EXPECT_EQ(t.TypeOfTensor(f), DataType::kFloat32);
  // sums 2, 7, 4, 9 vs 1, 5
  ExpectNear(t.Get(f), {1, 1, 1, 1});
}

TEST(InferShapes, ChainOfModelOps) {
  // conv -> pad -> depthwise -> max pool -> reshape -> fully connected ->
  // concatenation with a constant: shapes flow through every rule.
  OpTest t;
  const int in = t.Input<float>({1, 8, 8, 3}, RandomFloats(192, 5));
  const int w1 = t.Const<float>({4, 3, 3, 3}, RandomFloats(108, 6));
  const int c1 = t.Output();
  Conv2dAttributes ca;
  ca.padding = Padding::kSame;
  ca.stride_h = ca.stride_w = 2;
  t.Node(OpType::kConv2d, {in, w1}, {c1}, ca);
  const int pads = t.Const<int32_t>({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
  const int p1 = t.Output();
  t.Node(OpType::kPad, {c1, pads}, {p1});
  const int dw = t.Const<float>({1, 3, 3, 4}, RandomFloats(36, 7));
  const int d1 = t.Output();
  t.Node(OpType::kDepthwiseConv2d, {p1, dw}, {d1}, DepthwiseConv2dAttributes{});
  const int m1 = t.Output();
  Pool2dAttributes pa;
  pa.filter_h = pa.filter_w = 2;
  pa.stride_h = pa.stride_w = 2;
  t.Node(OpType::kMaxPool2d, {d1}, {m1}, pa);
  const int shape = t.Const<int32_t>({2}, {1, -1});
  const int r1 = t.Output();
  t.Node(OpType::kReshape, {m1, shape}, {r1});
  const int fw = t.Const<float>({5, 16}, RandomFloats(80, 8));
  const int f1 = t.Output();
  t.Node(OpType::kFullyConnected, {r1, fw}, {f1}, FullyConnectedAttributes{});
  const int extra = t.Const<float>({1, 2}, {7, 8});
  const int cat = t.Output();
  ConcatenationAttributes cc;
  cc.axis = -1;
  t.Node(OpType::kConcatenation, {f1, extra}, {cat}, cc);
  GLD_ASSERT_OK(t.Run(2));
  EXPECT_EQ(t.ShapeOf(c1), (Shape{1, 4, 4, 4}));
  EXPECT_EQ(t.ShapeOf(p1), (Shape{1, 6, 6, 4}));
  EXPECT_EQ(t.ShapeOf(d1), (Shape{1, 4, 4, 4}));
  EXPECT_EQ(t.ShapeOf(m1), (Shape{1, 2, 2, 4}));
  EXPECT_EQ(t.ShapeOf(r1), (Shape{1, 16}));
  EXPECT_EQ(t.ShapeOf(f1), (Shape{1, 5}));
  EXPECT_EQ(t.ShapeOf(cat), (Shape{1, 7}));
  const auto v = t.Get(cat);
  EXPECT_EQ(v[5], 7.f);
  EXPECT_EQ(v[6], 8.f);
}

TEST(InferShapes, NodeAloneUsesStoredShapeForUnknownValues) {
  OpTest t;
  const int in = t.Input<float>({2, 3}, std::vector<float>(6));
  const int axes = t.Input<int32_t>({1}, {1});  // not constant
  const int out = t.Output(DataType::kFloat32, {2});
  t.Node(OpType::kMean, {in, axes}, {out}, ReduceAttributes{});
  GLD_ASSERT_OK(InferNodeShapes(t.graph, 0));
  EXPECT_EQ(t.ShapeOf(out), (Shape{2}));
  EXPECT_FALSE(InferNodeShapes(t.graph, 5).ok());
}

TEST(InferShapes, AbsurdSizesAreRejected) {
  OpTest t;
  const int in = t.Input<float>({1, 1}, {1});
  const int mult = t.Const<int32_t>({2}, {1 << 20, 1 << 20});
  const int out = t.Output();
  t.Node(OpType::kTile, {in, mult}, {out});
  EXPECT_FALSE(InferShapes(t.graph).ok());
  OpTest u;
  const int in2 = u.Input<float>({1}, {1});
  const int dims = u.Const<int32_t>({3}, {1 << 20, 1 << 20, 1 << 20});
  const int v = u.Const<float>({}, {0});
  const int out2 = u.Output();
  u.Node(OpType::kFill, {dims, v}, {out2});
  (void)in2;
  EXPECT_FALSE(InferShapes(u.graph).ok());
}

TEST(InferShapes, DeclaredOutputTypeOtherThanTheOpProducesIsAnError) {
  OpTest t;
  const int a = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
  const int b = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
  const int out = t.Output(DataType::kInt32);
  t.graph.tensors[static_cast<size_t>(out)].type_declared = true;
  t.Node(OpType::kAdd, {a, b}, {out}, BinaryAttributes{});
  t.graph.nodes[0].source_index = 7;
  Status s = InferShapes(t.graph);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  for (const char* part : {"node 7 (ADD)", "'out2'", "declared int32", "produces float32"}) {
    EXPECT_NE(s.message().find(part), std::string::npos) << part << " not in: " << s.message();
  }
}

TEST(InferShapes, ConvWindowReachingPast2To30IsAnError) {
  // SAME padding, so no output size goes negative: only the reach of the
  // dilated filter (39999 * 32767 + 1 input positions) is out of bounds.
  OpTest t;
  const int x = t.Input<float>({1, 1, 1, 1}, {1});
  const int w = t.Const<float>({1, 1, 40000, 1}, std::vector<float>(40000, 1.0f));
  const int out = t.Output();
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.dilation_w = 32767;
  t.Node(OpType::kConv2d, {x, w}, {out}, a);
  Status s = InferShapes(t.graph);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  for (const char* part : {"(CONV_2D)", "width window", "dilation 32767", "reaches 1310647234"}) {
    EXPECT_NE(s.message().find(part), std::string::npos) << part << " not in: " << s.message();
  }
}

TEST(InferShapes, PoolWindowReachingPast2To30IsAnError) {
  OpTest t;
  const int x = t.Input<float>({1, 1, 1, 1}, {1});
  const int out = t.Output();
  Pool2dAttributes a;
  a.padding = Padding::kSame;
  a.filter_h = 1;
  a.filter_w = 2147483647;
  a.stride_h = a.stride_w = 1;
  t.Node(OpType::kMaxPool2d, {x}, {out}, a);
  Status s = InferShapes(t.graph);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("width window (filter 2147483647"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gld::testing
