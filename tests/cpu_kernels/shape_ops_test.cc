// PAD, PADV2, MIRROR_PAD, RESHAPE, SQUEEZE, EXPAND_DIMS, CONCATENATION, PACK,
// UNPACK, SPLIT, SPLIT_V, TRANSPOSE, TILE, SLICE, STRIDED_SLICE, REVERSE_V2,
// BROADCAST_TO, SHAPE, GATHER, GATHER_ND, ONE_HOT.
#include "op_test_util.h"

namespace gld::testing {
namespace {

std::vector<float> Iota(size_t n, float start = 1.f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// ---- padding ------------------------------------------------------------------

TEST(Pad, Nhwc) {
  auto r = RunFloatOp(OpType::kPad, {{{1, 2, 2, 1}, {1, 2, 3, 4}}}, {}, {{{4, 2}, {0, 0, 1, 0, 0, 2, 0, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 3, 4, 1}));
  ExpectNear(r.values, {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0});
}

TEST(Pad, Rank5WithInt64Paddings) {
  OpTest t;
  const int in = t.Input<float>({1, 1, 1, 1, 2}, {5, 6});
  const int p = t.Const<int64_t>({5, 2}, {0, 0, 0, 0, 1, 0, 0, 0, 1, 1});
  const int out = t.Output();
  t.Node(OpType::kPad, {in, p}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 1, 2, 1, 4}));
  ExpectNear(t.Get(out), {0, 0, 0, 0, 0, 5, 6, 0});
}

TEST(PadV2, ConstantValue) {
  OpTest t;
  const int in = t.Input<float>({2}, {1, 2});
  const int p = t.Const<int32_t>({1, 2}, {2, 1});
  const int v = t.Const<float>({}, {9});
  const int out = t.Output();
  t.Node(OpType::kPadV2, {in, p, v}, {out});
  GLD_ASSERT_OK(t.Run());
  ExpectNear(t.Get(out), {9, 9, 1, 2, 9});
  OpTest u;  // int32 data
  const int in2 = u.Input<int32_t>({1, 2}, {1, 2});
  const int p2 = u.Const<int32_t>({2, 2}, {1, 0, 0, 1});
  const int v2 = u.Const<int32_t>({1}, {-1});
  const int o2 = u.Output(DataType::kInt32);
  u.Node(OpType::kPadV2, {in2, p2, v2}, {o2});
  GLD_ASSERT_OK(u.Run());
  EXPECT_EQ(u.Get<int32_t>(o2), (std::vector<int32_t>{-1, -1, -1, 1, 2, -1}));
}

// Padding in every dimension, rows written from several chunks on two
// threads (each chunk starts its row index mid-tensor), for 4-byte floats and
// 1-byte integers with a pad value, against a direct reference.
TEST(Pad, EveryDimensionFromSeveralChunks) {
  const Shape in_shape = {2, 20, 30, 3};
  const std::vector<int32_t> pads = {1, 0, 0, 2, 1, 1, 2, 3};
  const Shape out_shape = {3, 22, 32, 8};
  auto reference = [&](const auto& in, auto value) {
    std::vector<std::decay_t<decltype(value)>> out(static_cast<size_t>(NumElements(out_shape)), value);
    for (int n = 0; n < 2; ++n) {
      for (int h = 0; h < 20; ++h) {
        for (int w = 0; w < 30; ++w) {
          for (int c = 0; c < 3; ++c) {
            out[static_cast<size_t>((((n + 1) * 22 + h) * 32 + w + 1) * 8 + c + 2)] =
                in[static_cast<size_t>(((n * 20 + h) * 30 + w) * 3 + c)];
          }
        }
      }
    }
    return out;
  };
  const std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(in_shape)), 31);
  OpTest f;
  const int fo = f.Output();
  f.Node(OpType::kPad, {f.Input<float>(in_shape, x), f.Const<int32_t>({4, 2}, pads)}, {fo});
  GLD_ASSERT_OK(f.RunPrepared(2));
  EXPECT_EQ(f.Get<float>(fo), reference(x, 0.f));
  std::vector<uint8_t> bytes(x.size());
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  OpTest u;
  const int uo = u.Output(DataType::kUInt8);
  u.Node(OpType::kPadV2,
         {u.Input<uint8_t>(in_shape, bytes), u.Const<int32_t>({4, 2}, pads), u.Const<uint8_t>({1}, {200})}, {uo});
  GLD_ASSERT_OK(u.RunPrepared(2));
  EXPECT_EQ(u.Get<uint8_t>(uo), reference(bytes, static_cast<uint8_t>(200)));
}

// The channel-last case of a convolution's padding: H and W padded, C not,
// so each row is W * C elements (the kernel merges the unpadded trailing
// dimensions into its rows); also no padding at all (one row), for 4-, 2-
// and 1-byte elements with a non-zero pad value, on two threads, against
// an element-by-element reference.
TEST(Pad, UnpaddedTrailingDimensionsJoinTheRows) {
  auto reference = [](const Shape& in_shape, const std::vector<int32_t>& pads, const auto& in, auto value) {
    Shape out_shape = in_shape;
    for (size_t d = 0; d < in_shape.size(); ++d) out_shape[d] += pads[2 * d] + pads[2 * d + 1];
    std::vector<std::decay_t<decltype(value)>> out(static_cast<size_t>(NumElements(out_shape)), value);
    const size_t rank = in_shape.size();
    for (int64_t i = 0; i < NumElements(in_shape); ++i) {
      int64_t rest = i, o = 0, stride = 1;
      for (size_t d = rank; d-- > 0;) {
        o += (rest % in_shape[d] + pads[2 * d]) * stride;
        rest /= in_shape[d];
        stride *= out_shape[d];
      }
      out[static_cast<size_t>(o)] = in[static_cast<size_t>(i)];
    }
    return out;
  };
  const Shape in_shape = {2, 9, 7, 3};
  for (const std::vector<int32_t>& pads : {std::vector<int32_t>{0, 0, 1, 1, 1, 1, 0, 0},
                                           std::vector<int32_t>{1, 0, 2, 0, 0, 0, 0, 0},
                                           std::vector<int32_t>{0, 0, 0, 0, 0, 0, 0, 0}}) {
    SCOPED_TRACE(::testing::PrintToString(pads));
    const size_t n = static_cast<size_t>(NumElements(in_shape));
    const std::vector<float> x = RandomFloats(n, 5);
    OpTest f;
    const int fo = f.Output();
    f.Node(OpType::kPadV2, {f.Input<float>(in_shape, x), f.Const<int32_t>({4, 2}, pads), f.Const<float>({}, {-2.5f})},
           {fo});
    GLD_ASSERT_OK(f.RunPrepared(2));
    EXPECT_EQ(f.Get<float>(fo), reference(in_shape, pads, x, -2.5f));
    std::vector<int16_t> halves(n);
    std::vector<int8_t> bytes(n);
    for (size_t i = 0; i < n; ++i) {
      halves[i] = static_cast<int16_t>(i * 37 - 900);
      bytes[i] = static_cast<int8_t>(i * 7 + 1);
    }
    OpTest h;
    const int ho = h.Output(DataType::kInt16);
    h.Node(OpType::kPadV2,
           {h.Input<int16_t>(in_shape, halves), h.Const<int32_t>({4, 2}, pads), h.Const<int16_t>({1}, {-300})}, {ho});
    GLD_ASSERT_OK(h.RunPrepared(2));
    EXPECT_EQ(h.Get<int16_t>(ho), reference(in_shape, pads, halves, static_cast<int16_t>(-300)));
    OpTest b;
    const int bo = b.Output(DataType::kInt8);
    b.Node(OpType::kPadV2,
           {b.Input<int8_t>(in_shape, bytes), b.Const<int32_t>({4, 2}, pads), b.Const<int8_t>({1}, {-128})}, {bo});
    GLD_ASSERT_OK(b.RunPrepared(2));
    EXPECT_EQ(b.Get<int8_t>(bo), reference(in_shape, pads, bytes, static_cast<int8_t>(-128)));
  }
}

TEST(Pad, RejectsNegativeAndMismatchedPaddings) {
  auto r = RunFloatOp(OpType::kPad, {{{2}, {1, 2}}}, {}, {{{1, 2}, {-1, 0}}});
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 0 (PAD)"), std::string::npos) << r.status.message();
  r = RunFloatOp(OpType::kPad, {{{2, 2}, {1, 2, 3, 4}}}, {}, {{{1, 2}, {1, 1}}});
  EXPECT_FALSE(r.status.ok());
}

TEST(MirrorPad, ReflectAndSymmetric) {
  auto r = RunFloatOp(OpType::kMirrorPad, {{{3}, {1, 2, 3}}}, MirrorPadAttributes{false}, {{{1, 2}, {2, 2}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {3, 2, 1, 2, 3, 2, 1});
  r = RunFloatOp(OpType::kMirrorPad, {{{3}, {1, 2, 3}}}, MirrorPadAttributes{true}, {{{1, 2}, {2, 3}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {2, 1, 1, 2, 3, 3, 2, 1});
  // 2-D reflect: [[1,2],[3,4]] padded by 1 on each side of both dims.
  r = RunFloatOp(OpType::kMirrorPad, {{{2, 2}, {1, 2, 3, 4}}}, MirrorPadAttributes{false}, {{{2, 2}, {1, 1, 1, 1}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1});
  r = RunFloatOp(OpType::kMirrorPad, {{{3}, {1, 2, 3}}}, MirrorPadAttributes{false}, {{{1, 2}, {3, 0}}});
  EXPECT_FALSE(r.status.ok());
}

// ---- reshape family -----------------------------------------------------------

TEST(Reshape, ShapeInputWithMinusOne) {
  auto r = RunFloatOp(OpType::kReshape, {{{1, 2, 3}, Iota(6)}}, {}, {{{2}, {-1, 2}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  ExpectNear(r.values, Iota(6));
}

TEST(Reshape, AttributeAndLegacyScalar) {
  ReshapeAttributes a;
  a.has_new_shape = true;
  a.new_shape = {2, 1, 3};
  auto r = RunFloatOp(OpType::kReshape, {{{6}, Iota(6)}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 1, 3}));
  a.new_shape = {0};
  r = RunFloatOp(OpType::kReshape, {{{1, 1}, {7}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, Shape{});
  ExpectNear(r.values, {7});
}

TEST(Reshape, Errors) {
  auto r = RunFloatOp(OpType::kReshape, {{{6}, Iota(6)}}, {}, {{{2}, {-1, -1}}});
  EXPECT_FALSE(r.status.ok());
  r = RunFloatOp(OpType::kReshape, {{{6}, Iota(6)}}, {}, {{{2}, {4, 2}}});
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 0 (RESHAPE)"), std::string::npos);
  EXPECT_NE(r.status.message().find("[4, 2]"), std::string::npos) << r.status.message();
  r = RunFloatOp(OpType::kReshape, {{{6}, Iota(6)}}, {}, {{{2}, {-1, 4}}});
  EXPECT_FALSE(r.status.ok());
}

TEST(Reshape, NonConstantShapeKeepsStoredOrFails) {
  OpTest t;
  const int in = t.Input<float>({6}, Iota(6));
  const int s = t.Input<int32_t>({2}, {3, 2});
  const int out = t.Output(DataType::kFloat32, {3, 2});
  t.Node(OpType::kReshape, {in, s}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{3, 2}));
  OpTest u;
  const int in2 = u.Input<float>({6}, Iota(6));
  const int s2 = u.Input<int32_t>({2}, {3, 2});
  const int out2 = u.Output(DataType::kFloat32, {-1, 2});
  u.Node(OpType::kReshape, {in2, s2}, {out2});
  Status st = InferShapes(u.graph);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("node 0 (RESHAPE)"), std::string::npos) << st.message();
}

TEST(Reshape, ShapeComputedThroughShapeOps) {
  // SHAPE -> STRIDED_SLICE (first dim) -> PACK with -1 -> RESHAPE: values
  // computed during shape inference.
  OpTest t;
  const int in = t.Input<float>({2, 3, 2}, Iota(12));
  const int shape = t.Output(DataType::kInt32);
  t.Node(OpType::kShape, {in}, {shape});
  const int b = t.Const<int32_t>({1}, {0});
  const int e = t.Const<int32_t>({1}, {1});
  const int st = t.Const<int32_t>({1}, {1});
  const int first = t.Output(DataType::kInt32);
  StridedSliceAttributes ss;
  ss.shrink_axis_mask = 1;
  t.Node(OpType::kStridedSlice, {shape, b, e, st}, {first}, ss);
  const int minus1 = t.Const<int32_t>({}, {-1});
  const int packed = t.Output(DataType::kInt32);
  AxisAttributes pa;
  pa.count = 2;
  t.Node(OpType::kPack, {first, minus1}, {packed}, pa);
  const int out = t.Output();
  t.Node(OpType::kReshape, {in, packed}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(first), Shape{});
  EXPECT_EQ(t.ShapeOf(packed), (Shape{2}));
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 6}));
  EXPECT_EQ(t.Get<int32_t>(packed), (std::vector<int32_t>{2, -1}));
  ExpectNear(t.Get(out), Iota(12));
}

TEST(Reshape, ShapeFromValuesNeedsTheValueOracle) {
  // SHAPE -> ABS -> RESHAPE: shape inference knows SHAPE's values itself,
  // ABS's only through the oracle; without one the output shape stays unknown.
  auto build = [](OpTest& t) {
    const int in = t.Input<float>({2, 3}, Iota(6));
    const int shape = t.Output(DataType::kInt32);
    t.Node(OpType::kShape, {in}, {shape});
    const int abs = t.Output(DataType::kInt32);
    t.Node(OpType::kAbs, {shape}, {abs});
    const int out = t.Output(DataType::kFloat32, {-1, 3});
    t.Node(OpType::kReshape, {in, abs}, {out});
    return out;
  };
  OpTest without;
  build(without);
  Status st = InferShapes(without.graph);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented) << st.ToString();
  EXPECT_NE(st.message().find("node 2 (RESHAPE)"), std::string::npos) << st.message();
  OpTest with;
  const int out = build(with);
  GLD_ASSERT_OK(InferShapes(with.graph, cpu::KnownValueOracle()));
  EXPECT_EQ(with.ShapeOf(out), (Shape{2, 3}));
}

TEST(Reshape, OpsWhoseValuesShapeInferenceComputesHaveCpuKernels) {
  for (OpType op : AllOpTypes()) {
    EXPECT_TRUE(!GetOpInfo(op).known_values || cpu::FindCpuKernel(op) != nullptr) << OpTypeName(op);
  }
}

TEST(Squeeze, AllAndNegativeDims) {
  auto r = RunFloatOp(OpType::kSqueeze, {{{1, 2, 1, 3}, Iota(6)}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  SqueezeAttributes a;
  a.squeeze_dims = {-2};
  r = RunFloatOp(OpType::kSqueeze, {{{1, 2, 1, 3}, Iota(6)}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 3}));
  a.squeeze_dims = {1};
  r = RunFloatOp(OpType::kSqueeze, {{{1, 2, 1, 3}, Iota(6)}}, a);
  EXPECT_FALSE(r.status.ok());
}

TEST(ExpandDims, NegativeAndZeroAxis) {
  auto r = RunFloatOp(OpType::kExpandDims, {{{2, 3}, Iota(6)}}, {}, {{{}, {-1}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3, 1}));
  r = RunFloatOp(OpType::kExpandDims, {{{2, 3}, Iota(6)}}, {}, {{{1}, {0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 3}));
  ExpectNear(r.values, Iota(6));
  r = RunFloatOp(OpType::kExpandDims, {{{2, 3}, Iota(6)}}, {}, {{{1}, {4}}});
  EXPECT_FALSE(r.status.ok());
}

// ---- concatenation, pack, split ---------------------------------------------

TEST(Concatenation, NegativeAxisAndRelu) {
  ConcatenationAttributes a;
  a.axis = -1;
  auto r = RunFloatOp(OpType::kConcatenation, {{{2, 1}, {-1, 2}}, {{2, 2}, {3, -4, 5, 6}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  ExpectNear(r.values, {-1, 3, -4, 2, 5, 6});
  a.activation = Activation::kRelu;
  r = RunFloatOp(OpType::kConcatenation, {{{2, 1}, {-1, 2}}, {{2, 2}, {3, -4, 5, 6}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 3, 0, 2, 5, 6});
}

TEST(Concatenation, AxisZeroThreeInputsAndChannels5) {
  ConcatenationAttributes a;
  a.axis = 0;
  auto r = RunFloatOp(OpType::kConcatenation, {{{1, 2}, {1, 2}}, {{2, 2}, {3, 4, 5, 6}}, {{1, 2}, {7, 8}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{4, 2}));
  ExpectNear(r.values, Iota(8));
  a.axis = 3;
  r = RunFloatOp(OpType::kConcatenation, {{{1, 1, 2, 2}, {1, 2, 3, 4}}, {{1, 1, 2, 3}, {5, 6, 7, 8, 9, 10}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 2, 5}));
  ExpectNear(r.values, {1, 2, 5, 6, 7, 3, 4, 8, 9, 10});
}

TEST(Concatenation, MismatchedDimsError) {
  ConcatenationAttributes a;
  a.axis = 1;
  auto r = RunFloatOp(OpType::kConcatenation, {{{2, 1}, {1, 2}}, {{3, 1}, {3, 4, 5}}}, a);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("CONCATENATION"), std::string::npos);
  a.axis = 2;
  r = RunFloatOp(OpType::kConcatenation, {{{2, 1}, {1, 2}}, {{2, 1}, {3, 4}}}, a);
  EXPECT_FALSE(r.status.ok());
}

TEST(Pack, AxisOneAndZero) {
  AxisAttributes a;
  a.axis = 1;
  a.count = 2;
  auto r = RunFloatOp(OpType::kPack, {{{2}, {1, 2}}, {{2}, {3, 4}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 2}));
  ExpectNear(r.values, {1, 3, 2, 4});
  a.axis = -2;
  r = RunFloatOp(OpType::kPack, {{{2}, {1, 2}}, {{2}, {3, 4}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 2, 3, 4});
}

TEST(Unpack, LastAxis) {
  OpTest t;
  const int in = t.Input<float>({2, 3}, Iota(6));
  const int o0 = t.Output(), o1 = t.Output(), o2 = t.Output();
  AxisAttributes a;
  a.axis = -1;
  a.count = 3;
  t.Node(OpType::kUnpack, {in}, {o0, o1, o2}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(o1), (Shape{2}));
  ExpectNear(t.Get(o0), {1, 4});
  ExpectNear(t.Get(o1), {2, 5});
  ExpectNear(t.Get(o2), {3, 6});
  OpTest u;  // wrong output count
  const int in2 = u.Input<float>({2, 3}, Iota(6));
  const int p0 = u.Output(), p1 = u.Output();
  u.Node(OpType::kUnpack, {in2}, {p0, p1}, a);
  EXPECT_FALSE(InferShapes(u.graph).ok());
}

TEST(Split, EqualParts) {
  OpTest t;
  const int axis = t.Const<int32_t>({}, {1});
  const int in = t.Input<float>({2, 4}, Iota(8));
  const int o0 = t.Output(), o1 = t.Output();
  AxisAttributes a;
  a.count = 2;
  t.Node(OpType::kSplit, {axis, in}, {o0, o1}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(o0), (Shape{2, 2}));
  ExpectNear(t.Get(o0), {1, 2, 5, 6});
  ExpectNear(t.Get(o1), {3, 4, 7, 8});
  OpTest u;
  const int ax2 = u.Const<int32_t>({}, {-1});
  const int in2 = u.Input<float>({2, 3}, Iota(6));
  const int q0 = u.Output(), q1 = u.Output();
  u.Node(OpType::kSplit, {ax2, in2}, {q0, q1}, a);
  EXPECT_FALSE(InferShapes(u.graph).ok());
}

TEST(SplitV, SizesWithMinusOne) {
  OpTest t;
  const int in = t.Input<float>({3, 2}, Iota(6));
  const int sizes = t.Const<int32_t>({2}, {1, -1});
  const int axis = t.Const<int32_t>({}, {0});
  const int o0 = t.Output(), o1 = t.Output();
  t.Node(OpType::kSplitV, {in, sizes, axis}, {o0, o1});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(o0), (Shape{1, 2}));
  EXPECT_EQ(t.ShapeOf(o1), (Shape{2, 2}));
  ExpectNear(t.Get(o0), {1, 2});
  ExpectNear(t.Get(o1), {3, 4, 5, 6});
}

TEST(SplitV, ThreeWaysOnNegativeAxis) {
  OpTest t;
  const int in = t.Input<float>({2, 5}, Iota(10));
  const int sizes = t.Const<int64_t>({3}, {2, 0, 3});
  const int axis = t.Const<int32_t>({1}, {-1});
  const int o0 = t.Output(), o1 = t.Output(), o2 = t.Output();
  t.Node(OpType::kSplitV, {in, sizes, axis}, {o0, o1, o2});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(o1), (Shape{2, 0}));
  ExpectNear(t.Get(o0), {1, 2, 6, 7});
  ExpectNear(t.Get(o2), {3, 4, 5, 8, 9, 10});
  OpTest u;
  const int in2 = u.Input<float>({2, 5}, Iota(10));
  const int s2 = u.Const<int32_t>({2}, {2, 2});
  const int a2 = u.Const<int32_t>({}, {1});
  const int p0 = u.Output(), p1 = u.Output();
  u.Node(OpType::kSplitV, {in2, s2, a2}, {p0, p1});
  EXPECT_FALSE(InferShapes(u.graph).ok());
}

// ---- transpose, tile, slices -------------------------------------------------

TEST(Transpose, TwoDAndNhwcToNchw) {
  auto r = RunFloatOp(OpType::kTranspose, {{{2, 3}, Iota(6)}}, {}, {{{2}, {1, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  ExpectNear(r.values, {1, 4, 2, 5, 3, 6});
  // [1, 2, 2, 3] NHWC -> NCHW: channel planes
  r = RunFloatOp(OpType::kTranspose, {{{1, 2, 2, 3}, Iota(12, 0.f)}}, {}, {{{4}, {0, 3, 1, 2}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 3, 2, 2}));
  ExpectNear(r.values, {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  r = RunFloatOp(OpType::kTranspose, {{{2, 3}, Iota(6)}}, {}, {{{2}, {0, 0}}});
  EXPECT_FALSE(r.status.ok());
}

// The element-at-a-time TRANSPOSE: out[i] = in[sum_d index_d(i) * stride(perm[d])].
std::vector<float> NaiveTranspose(const Shape& in, const std::vector<float>& x, const std::vector<int32_t>& perm) {
  std::vector<int64_t> is(in.size(), 1);
  for (size_t d = in.size(); d-- > 1;) is[d - 1] = is[d] * in[d];
  Shape out;
  for (int32_t p : perm) out.push_back(in[static_cast<size_t>(p)]);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < y.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), off = 0;
    for (size_t d = out.size(); d-- > 0;) {
      off += (rem % out[d]) * is[static_cast<size_t>(perm[d])];
      rem /= out[d];
    }
    y[i] = x[static_cast<size_t>(off)];
  }
  return y;
}

// The converter's image transposes with 1-4 channels (the interleave and
// deinterleave paths, chunked past 1024 pixels and threaded), others whose
// unit and mergeable dimensions fold away, and the tiled and strided
// paths, each against the element-at-a-time transpose.
TEST(Transpose, FewChannelsAndFoldedDimensionsMatchTheElementwiseTranspose) {
  struct Case {
    Shape in;
    std::vector<int32_t> perm;
  };
  const Case cases[] = {
      {{1, 3, 40, 37}, {0, 2, 3, 1}},   {{1, 37, 40, 3}, {0, 3, 1, 2}}, {{2, 4, 33, 35}, {0, 2, 3, 1}},
      {{2, 35, 33, 2}, {0, 3, 1, 2}},   {{1, 1, 50, 30}, {0, 2, 3, 1}}, {{3, 50, 30, 1}, {0, 3, 1, 2}},
      {{1, 16, 20, 20}, {0, 2, 3, 1}},  {{1, 5, 6, 7}, {0, 2, 3, 1}},   {{2, 3, 4, 5, 6}, {0, 3, 4, 1, 2}},
      {{4, 3, 1, 9}, {2, 3, 0, 1}},     {{1, 2, 1, 3}, {3, 2, 1, 0}},
      // Three planes into RGB pixels, four pixels a step: rows that end in
      // 3 or 1 leftover pixels, a chunk of 1024 and a rest, two images.
      {{1, 3, 7, 5}, {0, 2, 3, 1}},     {{2, 3, 33, 35}, {0, 2, 3, 1}}, {{1, 3, 1, 1}, {0, 2, 3, 1}},
      // The last dimension stays last with 2 or 4 floats: moved as 8- or
      // 16-byte elements (MobileViT's patches), tiles and few-channel forms.
      {{256, 2, 8, 2}, {0, 2, 1, 3}},   {{64, 8, 2, 2}, {0, 2, 1, 3}},  {{3, 17, 19, 4}, {0, 2, 1, 3}},
      {{2, 5, 3, 7, 2}, {0, 3, 2, 1, 4}}, {{40, 3, 4}, {1, 0, 2}},       {{2, 9, 2, 3}, {0, 2, 1, 3}},
  };
  for (const Case& c : cases) {
    std::vector<float> x(static_cast<size_t>(NumElements(c.in)));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 997) - 300.f;
    for (int threads : {1, 2}) {
      auto r = RunFloatOp(OpType::kTranspose, {{c.in, x}}, {}, {{{static_cast<int>(c.perm.size())}, c.perm}}, threads);
      GLD_ASSERT_OK(r.status);
      EXPECT_EQ(r.values, NaiveTranspose(c.in, x, c.perm)) << ShapeToString(c.in) << " threads " << threads;
    }
  }
}

TEST(Tile, OneAndTwoD) {
  auto r = RunFloatOp(OpType::kTile, {{{2}, {1, 2}}}, {}, {{{1}, {3}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 2, 1, 2, 1, 2});
  r = RunFloatOp(OpType::kTile, {{{1, 2}, {1, 2}}}, {}, {{{2}, {2, 2}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 4}));
  ExpectNear(r.values, {1, 2, 1, 2, 1, 2, 1, 2});
  r = RunFloatOp(OpType::kTile, {{{2, 1}, {1, 2}}}, {}, {{{2}, {1, 3}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 1, 1, 2, 2, 2});
}

TEST(Slice, BeginSizeWithMinusOne) {
  auto r = RunFloatOp(OpType::kSlice, {{{3, 3}, Iota(9)}}, {}, {{{2}, {1, 0}}, {{2}, {2, -1}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  ExpectNear(r.values, {4, 5, 6, 7, 8, 9});
  r = RunFloatOp(OpType::kSlice, {{{3, 3}, Iota(9)}}, {}, {{{2}, {1, 1}}, {{2}, {1, 2}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {5, 6});
  r = RunFloatOp(OpType::kSlice, {{{3, 3}, Iota(9)}}, {}, {{{2}, {2, 0}}, {{2}, {2, 1}}});
  EXPECT_FALSE(r.status.ok());
}

SimpleRun StridedSlice(const Shape& s, const std::vector<float>& x, std::vector<int32_t> b, std::vector<int32_t> e,
                       std::vector<int32_t> st, StridedSliceAttributes a) {
  const int32_t n = static_cast<int32_t>(b.size());
  return RunFloatOp(OpType::kStridedSlice, {{s, x}}, a, {{{n}, b}, {{n}, e}, {{n}, st}});
}

TEST(StridedSlice, StepsAndNegativeStride) {
  auto r = StridedSlice({10}, Iota(10, 0.f), {1}, {8}, {3}, {});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 4, 7});
  StridedSliceAttributes a;
  a.begin_mask = 1;
  r = StridedSlice({10}, Iota(10, 0.f), {0}, {0}, {-3}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {9, 6, 3});
  r = StridedSlice({10}, Iota(10, 0.f), {-2}, {-6}, {-1}, {});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {8, 7, 6, 5});
  // end clamps past the dimension
  r = StridedSlice({4}, Iota(4, 0.f), {-3}, {100}, {1}, {});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 2, 3});
}

TEST(StridedSlice, MasksShrinkEllipsisNewAxisOffset) {
  StridedSliceAttributes a;
  a.shrink_axis_mask = 1;
  auto r = StridedSlice({2, 3}, Iota(6), {1, 0}, {2, 3}, {1, 1}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{3}));
  ExpectNear(r.values, {4, 5, 6});
  a = {};
  a.end_mask = 2;
  a.begin_mask = 1;
  r = StridedSlice({2, 3}, Iota(6), {1, 1}, {1, 0}, {1, 1}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2}));
  ExpectNear(r.values, {2, 3});
  a = {};  // [..., new axis] on [2, 3] -> [2, 3, 1]
  a.ellipsis_mask = 1;
  a.new_axis_mask = 2;
  r = StridedSlice({2, 3}, Iota(6), {0, 0}, {0, 0}, {1, 1}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3, 1}));
  ExpectNear(r.values, Iota(6));
  a = {};  // [..., 1:] on [2, 2, 3]: ellipsis covers two dims
  a.ellipsis_mask = 1;
  r = StridedSlice({2, 2, 3}, Iota(12), {0, 1}, {0, 3}, {1, 1}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 2, 2}));
  ExpectNear(r.values, {2, 3, 5, 6, 8, 9, 11, 12});
  a = {};  // offset: end is relative to begin
  a.offset = true;
  r = StridedSlice({5}, Iota(5, 0.f), {1}, {2}, {1}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 2});
}

TEST(StridedSlice, Errors) {
  auto r = StridedSlice({3}, Iota(3), {0}, {3}, {0}, {});
  EXPECT_FALSE(r.status.ok());
  StridedSliceAttributes a;
  a.shrink_axis_mask = 1;
  r = StridedSlice({3}, Iota(3), {5}, {6}, {1}, a);
  EXPECT_FALSE(r.status.ok());
  r = StridedSlice({3}, Iota(3), {0, 0}, {1, 1}, {1, 1}, {});
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("STRIDED_SLICE"), std::string::npos);
}

TEST(ReverseV2, OneAndTwoAxes) {
  auto r = RunFloatOp(OpType::kReverseV2, {{{2, 3}, Iota(6)}}, {}, {{{1}, {-1}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {3, 2, 1, 6, 5, 4});
  r = RunFloatOp(OpType::kReverseV2, {{{2, 3}, Iota(6)}}, {}, {{{2}, {0, 1}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {6, 5, 4, 3, 2, 1});
}

TEST(BroadcastTo, RowAndInt) {
  auto r = RunFloatOp(OpType::kBroadcastTo, {{{3}, {1, 2, 3}}}, {}, {{{2}, {2, 3}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  ExpectNear(r.values, {1, 2, 3, 1, 2, 3});
  OpTest t;
  const int in = t.Input<int32_t>({2, 1}, {7, 8});
  const int s = t.Const<int32_t>({3}, {2, 2, 2});
  const int out = t.Output(DataType::kInt32);
  t.Node(OpType::kBroadcastTo, {in, s}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{7, 7, 8, 8, 7, 7, 8, 8}));
  r = RunFloatOp(OpType::kBroadcastTo, {{{3}, {1, 2, 3}}}, {}, {{{2}, {2, 2}}});
  EXPECT_FALSE(r.status.ok());
}

TEST(Shape, Int32AndInt64) {
  for (DataType type : {DataType::kInt32, DataType::kInt64}) {
    OpTest t;
    const int in = t.Input<float>({2, 3, 4}, std::vector<float>(24));
    const int out = t.Output(type);
    t.Node(OpType::kShape, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.ShapeOf(out), (Shape{3}));
    if (type == DataType::kInt32) {
      EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{2, 3, 4}));
    } else {
      EXPECT_EQ(t.Get<int64_t>(out), (std::vector<int64_t>{2, 3, 4}));
    }
  }
}

// ---- gather ------------------------------------------------------------------

TEST(Gather, AxisZeroAndOne) {
  OpTest t;
  const int p = t.Input<float>({3, 2}, Iota(6));
  const int i = t.Const<int32_t>({2}, {2, 0});
  const int out = t.Output();
  t.Node(OpType::kGather, {p, i}, {out}, AxisAttributes{});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  ExpectNear(t.Get(out), {5, 6, 1, 2});
  OpTest u;  // axis -1 with 2-D indices
  const int p2 = u.Input<float>({2, 3}, Iota(6));
  const int i2 = u.Const<int64_t>({2, 1}, {2, 0});
  const int o2 = u.Output();
  AxisAttributes a;
  a.axis = -1;
  u.Node(OpType::kGather, {p2, i2}, {o2}, a);
  GLD_ASSERT_OK(u.Run());
  EXPECT_EQ(u.ShapeOf(o2), (Shape{2, 2, 1}));
  ExpectNear(u.Get(o2), {3, 1, 6, 4});
}

TEST(Gather, BatchDimsAndOutOfRange) {
  OpTest t;
  const int p = t.Input<float>({2, 3}, Iota(6));
  const int i = t.Const<int32_t>({2, 2}, {0, 2, 1, 1});
  const int out = t.Output();
  AxisAttributes a;
  a.axis = 1;
  a.batch_dims = 1;
  t.Node(OpType::kGather, {p, i}, {out}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  ExpectNear(t.Get(out), {1, 3, 5, 5});
  OpTest u;
  const int p2 = u.Input<float>({3}, Iota(3));
  const int i2 = u.Input<int32_t>({1}, {3});
  const int o2 = u.Output();
  u.Node(OpType::kGather, {p2, i2}, {o2}, AxisAttributes{});
  Status s = u.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
}

TEST(GatherNd, ElementsAndRows) {
  OpTest t;
  const int p = t.Input<float>({2, 2}, {1, 2, 3, 4});
  const int i = t.Const<int32_t>({2, 2}, {1, 0, 0, 1});
  const int out = t.Output();
  t.Node(OpType::kGatherNd, {p, i}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2}));
  ExpectNear(t.Get(out), {3, 2});
  OpTest u;
  const int p2 = u.Input<float>({2, 2}, {1, 2, 3, 4});
  const int i2 = u.Const<int32_t>({1, 1}, {1});
  const int o2 = u.Output();
  u.Node(OpType::kGatherNd, {p2, i2}, {o2});
  GLD_ASSERT_OK(u.Run());
  EXPECT_EQ(u.ShapeOf(o2), (Shape{1, 2}));
  ExpectNear(u.Get(o2), {3, 4});
}

TEST(OneHot, LastAxisAndAxisZero) {
  for (int axis : {-1, 0}) {
    OpTest t;
    const int idx = t.Input<int32_t>({3}, {0, 2, -1});
    const int depth = t.Const<int32_t>({}, {3});
    const int on = t.Const<float>({}, {5});
    const int off = t.Const<float>({}, {-1});
    const int out = t.Output();
    AxisAttributes a;
    a.axis = axis;
    t.Node(OpType::kOneHot, {idx, depth, on, off}, {out}, a);
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.ShapeOf(out), (Shape{3, 3}));
    if (axis == -1) {
      ExpectNear(t.Get(out), {5, -1, -1, -1, -1, 5, -1, -1, -1});
    } else {
      ExpectNear(t.Get(out), {5, -1, -1, -1, -1, -1, -1, 5, -1});
    }
  }
}

}  // namespace
}  // namespace gld::testing
