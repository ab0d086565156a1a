// TOPK_V2, UNIQUE, WHERE, BUCKETIZE, the non-max suppressions (sort_select.cc),
// RANGE, SCATTER_ND, REDUCE_ANY / REDUCE_ALL and CONV_3D on the CPU; and the
// seam by which UNIQUE and WHERE size their value-sized outputs
// (RuleContext::SizedByKernel, KernelContext::SizeOutput). LiteRT's outputs
// for the same ops are the conformance cases (tests/data/ops).
#include <algorithm>
#include <string>
#include <utility>

#include "op_test_util.h"

namespace gld::testing {
namespace {

TEST(TopkV2, LargestFirstTiesByLowerIndex) {
  OpTest t;
  const int x = t.Input<float>({2, 5}, {1, 3, 3, -1, 2, 0, 0, 5, 0, -2});
  const int k = t.Const<int32_t>({}, {3});
  const int values = t.Output();
  const int indices = t.Output(DataType::kInt32);
  t.Node(OpType::kTopkV2, {x, k}, {values, indices});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(values), (Shape{2, 3}));
  EXPECT_EQ(t.Get<float>(values), (std::vector<float>{3, 3, 2, 5, 0, 0}));
  EXPECT_EQ(t.Get<int32_t>(indices), (std::vector<int32_t>{1, 2, 4, 2, 0, 1}));
}

TEST(TopkV2, RefusesKAboveTheRow) {
  OpTest t;
  const int x = t.Input<float>({4}, {1, 2, 3, 4});
  const int k = t.Const<int32_t>({}, {5});
  t.Node(OpType::kTopkV2, {x, k}, {t.Output(), t.Output(DataType::kInt32)});
  const Status s = t.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("k 5 is outside 0..4"), std::string::npos) << s.message();
}

// A model whose file fixes WHERE's output shape: the run must give it.
TEST(Where, FixedShapeFromTheFile) {
  OpTest t;
  const int x = t.Input<bool>({2, 3}, {true, false, true, false, false, true});
  const int out = t.Output(DataType::kInt64, {3, 2});
  t.Node(OpType::kWhere, {x}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int64_t>(out), (std::vector<int64_t>{0, 0, 0, 2, 1, 2}));

  OpTest u;
  const int y = u.Input<bool>({2, 3}, {true, true, true, false, false, true});
  u.Node(OpType::kWhere, {y}, {u.Output(DataType::kInt64, {3, 2})});
  const Status s = u.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has shape [4, 2] in this run, but the model fixes it to [3, 2]"), std::string::npos)
      << s.message();
}

// The dynamic path, as DynamicNodeStep runs it: the rule leaves -1 where the
// kernel decides, and the kernel sizes the output through size_output.
TEST(Where, KernelSizesTheOutput) {
  OpTest t;
  const int x = t.Input<float>({2, 2, 2}, {0, 1, 0, 0, -2, 0, 0, 3});
  const int out = t.Output(DataType::kInt64, {1, 3});
  t.graph.tensors[static_cast<size_t>(out)].signature = {-1, 3};
  t.Node(OpType::kWhere, {x}, {out});
  std::vector<uint8_t> dynamic;
  GLD_ASSERT_OK(InferShapes(t.graph, cpu::KnownValueOracle(), &dynamic));
  EXPECT_TRUE(dynamic[static_cast<size_t>(out)]);
  GLD_ASSERT_OK(InferNodeShapes(t.graph, 0));
  EXPECT_EQ(t.ShapeOf(out), (Shape{-1, 3}));

  std::vector<float> in = {0, 1, 0, 0, -2, 0, 0, 3};
  cpu::TensorData input{DataType::kFloat32, {2, 2, 2}, in.data(), in.size() * 4};
  cpu::TensorData output{DataType::kInt64, {-1, 3}, nullptr, 0};
  std::vector<int64_t> storage;
  cpu::NodeRunOptions options;
  int calls = 0;
  options.size_output = [&](size_t k, const Shape& shape) {
    EXPECT_EQ(k, 0u);
    ++calls;
    storage.assign(static_cast<size_t>(NumElements(shape)), -7);
    output.shape = shape;
    output.data = storage.data();
    output.bytes = storage.size() * 8;
    return OkStatus();
  };
  GLD_ASSERT_OK(cpu::EvaluateNode(t.graph, 0, {&input}, {&output}, options));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(output.shape, (Shape{3, 3}));
  EXPECT_EQ(storage, (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1, 1}));
}

TEST(Unique, FirstAppearanceOrderAndIndex) {
  OpTest t;
  const int x = t.Input<int32_t>({7}, {4, 2, 4, 9, 2, 2, 7});
  const int values = t.Output(DataType::kInt32, {4});
  const int idx = t.Output(DataType::kInt64);
  UniqueAttributes a;
  a.idx_int64 = true;
  t.Node(OpType::kUnique, {x}, {values, idx}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(values), (std::vector<int32_t>{4, 2, 9, 7}));
  EXPECT_EQ(t.TypeOfTensor(idx), DataType::kInt64);
  EXPECT_EQ(t.Get<int64_t>(idx), (std::vector<int64_t>{0, 1, 0, 2, 1, 1, 3}));
}

TEST(Unique, UnfixedShapeNeedsTheDynamicPath) {
  OpTest t;
  const int x = t.Input<float>({3}, {1, 1, 2});
  t.Node(OpType::kUnique, {x}, {t.Output(DataType::kFloat32, {-1}), t.Output(DataType::kInt32)}, UniqueAttributes{});
  const Status s = t.Run();  // shape inference without dynamic tensors
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_NE(s.message().find("distinct values"), std::string::npos) << s.message();
}

TEST(Bucketize, CountsBoundariesAtOrBelow) {
  OpTest t;
  const int x = t.Input<float>({6}, {-5, 0, 0.5f, 0.75f, 1, 9});
  const int out = t.Output(DataType::kInt32);
  BucketizeAttributes a;
  a.boundaries = {0, 0.5f, 1};
  t.Node(OpType::kBucketize, {x}, {out}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{0, 1, 2, 2, 3, 3}));
  OpTest u;
  BucketizeAttributes bad;
  bad.boundaries = {1, 0};
  u.Node(OpType::kBucketize, {u.Input<float>({1}, {0})}, {u.Output(DataType::kInt32)}, bad);
  EXPECT_FALSE(u.Run().ok());
}

// Box 1 overlaps box 0 (IoU 0.6), box 2 is apart: V4 drops box 1, pads with
// zeros; V5 with sigma puts box 1 back in the queue at a decayed score
// (0.8 exp(-0.36), below box 2's 0.7), so it comes after box 2.
TEST(NonMaxSuppression, HardAndSoft) {
  const std::vector<float> boxes = {0, 0, 1, 1, 0, 0.25f, 1, 1.25f, 2, 2, 3, 3};
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f};
  for (bool soft : {false, true}) {
    SCOPED_TRACE(soft ? "V5" : "V4");
    OpTest t;
    std::vector<int> ins = {t.Input<float>({3, 4}, boxes), t.Input<float>({3}, scores),
                            t.Const<int32_t>({}, {4}), t.Const<float>({}, {soft ? 0.7f : 0.5f}),
                            t.Const<float>({}, {0.1f})};
    if (soft) ins.push_back(t.Const<float>({}, {0.5f}));
    const int sel = t.Output(DataType::kInt32);
    const int sel_scores = soft ? t.Output() : -1;
    const int count = t.Output(DataType::kInt32);
    std::vector<int> outs = {sel};
    if (soft) outs.push_back(sel_scores);
    outs.push_back(count);
    t.Node(soft ? OpType::kNonMaxSuppressionV5 : OpType::kNonMaxSuppressionV4, ins, outs);
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.ShapeOf(sel), (Shape{4}));
    if (!soft) {
      EXPECT_EQ(t.Get<int32_t>(sel), (std::vector<int32_t>{0, 2, 0, 0}));
      EXPECT_EQ(t.Get<int32_t>(count), (std::vector<int32_t>{2}));
    } else {
      EXPECT_EQ(t.Get<int32_t>(sel), (std::vector<int32_t>{0, 2, 1, 0}));
      EXPECT_EQ(t.Get<int32_t>(count), (std::vector<int32_t>{3}));
      const std::vector<float> s = t.Get<float>(sel_scores);
      EXPECT_FLOAT_EQ(s[0], 0.9f);
      EXPECT_FLOAT_EQ(s[1], 0.7f);
      EXPECT_FLOAT_EQ(s[2], 0.8f * std::exp(-0.5f / 0.5f * 0.36f));
      EXPECT_EQ(s[3], 0.f);
    }
  }
}

TEST(Range, ValuesFromAKnownLimit) {
  OpTest t;
  const int start = t.Const<int32_t>({}, {2});
  const int limit = t.Const<int32_t>({}, {11});
  const int delta = t.Const<int32_t>({}, {3});
  const int out = t.Output(DataType::kInt32);
  t.Node(OpType::kRange, {start, limit, delta}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{2, 5, 8}));
  OpTest u;
  u.Node(OpType::kRange, {u.Const<float>({}, {0}), u.Const<float>({}, {1}), u.Const<float>({}, {-1})},
         {u.Output()});
  const Status s = u.Run();
  EXPECT_NE(s.message().find("moves away from limit"), std::string::npos) << s.message();
}

// A file that fixes RANGE's output while the limit comes at run time: a run
// whose values give another count is refused, not truncated.
TEST(Range, RefusesAValueCountTheShapeDoesNotHold) {
  OpTest t;
  const int limit = t.Input<int32_t>({}, {9});
  const int out = t.Output(DataType::kInt32, {3});
  t.Node(OpType::kRange, {t.Const<int32_t>({}, {0}), limit, t.Const<int32_t>({}, {1})}, {out});
  const Status s = t.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("give 9 values in this run"), std::string::npos) << s.message();
}

TEST(ScatterNd, AddsDuplicatesAndRefusesOutOfRange) {
  OpTest t;
  const int idx = t.Const<int32_t>({3, 1}, {2, 0, 2});
  const int upd = t.Input<float>({3, 2}, {1, 2, 3, 4, 10, 20});
  const int out = t.Output();
  t.Node(OpType::kScatterNd, {idx, upd, t.Const<int32_t>({2}, {3, 2})}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<float>(out), (std::vector<float>{3, 4, 0, 0, 11, 22}));
  OpTest u;
  const int bad = u.Input<int32_t>({1, 1}, {3});
  u.Node(OpType::kScatterNd, {bad, u.Input<float>({1, 2}, {1, 2}), u.Const<int32_t>({2}, {3, 2})}, {u.Output()});
  const Status s = u.Run();
  EXPECT_NE(s.message().find("index 3 out of range"), std::string::npos) << s.message();
}

TEST(ReduceAnyAll, RowsAndEmptyAxes) {
  for (OpType op : {OpType::kReduceAny, OpType::kReduceAll}) {
    OpTest t;
    const int x = t.Input<bool>({2, 3}, {true, false, true, true, true, true});
    const int out = t.Output(DataType::kBool);
    t.Node(op, {x, t.Const<int32_t>({1}, {1})}, {out}, ReduceAttributes{});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.Get<bool>(out), op == OpType::kReduceAny ? (std::vector<bool>{true, true})
                                                          : (std::vector<bool>{false, true}));
    OpTest e;  // reducing an empty axis: ANY false, ALL true
    const int out2 = e.Output(DataType::kBool);
    e.Node(op, {e.Input<bool>({2, 0}, {}), e.Const<int32_t>({1}, {1})}, {out2}, ReduceAttributes{});
    GLD_ASSERT_OK(e.Run());
    EXPECT_EQ(e.Get<bool>(out2), (std::vector<bool>(2, op == OpType::kReduceAll)));
  }
}

// CONV_3D against a direct sum over the window (SAME, strides 2, a bias).
TEST(Conv3d, MatchesADirectSum) {
  const Shape in_shape = {1, 3, 4, 5, 2}, f_shape = {2, 3, 3, 2, 3};
  std::vector<float> x(static_cast<size_t>(NumElements(in_shape))), w(static_cast<size_t>(NumElements(f_shape)));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) * 0.25f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) * 0.125f;
  OpTest t;
  const int out = t.Output();
  Conv3dAttributes a;
  a.padding = Padding::kSame;
  a.stride_d = 1;
  a.stride_h = 2;
  a.stride_w = 2;
  t.Node(OpType::kConv3d, {t.Input<float>(in_shape, x), t.Const<float>(f_shape, w), t.Const<float>({3}, {1, -1, 0.5f})},
         {out}, a);
  GLD_ASSERT_OK(t.Run(2));
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 3, 2, 3, 3}));
  const std::vector<float> y = t.Get<float>(out);
  // SAME: depth pads 0 before (total 1), height 1 (total 1 -> 0 before), width 1.
  const int pad[3] = {0, 0, 1};
  size_t p = 0;
  for (int z = 0; z < 3; ++z) {
    for (int yy = 0; yy < 2; ++yy) {
      for (int xx = 0; xx < 3; ++xx) {
        for (int c = 0; c < 3; ++c, ++p) {
          double acc = c == 0 ? 1 : c == 1 ? -1 : 0.5;
          for (int fz = 0; fz < 2; ++fz) {
            for (int fy = 0; fy < 3; ++fy) {
              for (int fx = 0; fx < 3; ++fx) {
                const int iz = z - pad[0] + fz, iy = yy * 2 - pad[1] + fy, ix = xx * 2 - pad[2] + fx;
                if (iz < 0 || iz >= 3 || iy < 0 || iy >= 4 || ix < 0 || ix >= 5) continue;
                for (int ci = 0; ci < 2; ++ci) {
                  acc += static_cast<double>(x[static_cast<size_t>(((iz * 4 + iy) * 5 + ix) * 2 + ci)]) *
                         w[static_cast<size_t>((((fz * 3 + fy) * 3 + fx) * 2 + ci) * 3 + c)];
                }
              }
            }
          }
          EXPECT_NEAR(y[p], acc, 1e-5) << "output " << p;
        }
      }
    }
  }
}

// The width taps as one run (undilated: stride 1 and 3 over SAME padding,
// the run clipped at both edges) and one by one (dilation 2 in width), each
// against a direct sum over the window; 5 output channels.
TEST(Conv3d, WidthRunsAndDilatedWidthTaps) {
  const Shape in_shape = {1, 2, 5, 7, 3}, f_shape = {1, 3, 4, 3, 5};
  const std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(in_shape)), 11);
  const std::vector<float> w = RandomFloats(static_cast<size_t>(NumElements(f_shape)), 12);
  for (const auto& [stride_w, dilation_w] : std::vector<std::pair<int, int>>{{1, 1}, {3, 1}, {1, 2}}) {
    SCOPED_TRACE("stride_w " + std::to_string(stride_w) + ", dilation_w " + std::to_string(dilation_w));
    OpTest t;
    const int out = t.Output();
    Conv3dAttributes a;
    a.padding = Padding::kSame;
    a.stride_w = stride_w;
    a.dilation_w = dilation_w;
    t.Node(OpType::kConv3d, {t.Input<float>(in_shape, x), t.Const<float>(f_shape, w)}, {out}, a);
    GLD_ASSERT_OK(t.Run(2));
    const int ow = (7 + stride_w - 1) / stride_w;
    ASSERT_EQ(t.ShapeOf(out), (Shape{1, 2, 5, ow, 5}));
    const std::vector<float> y = t.Get<float>(out);
    // SAME: height pads 1 before (3 taps); width (4 taps, dilated to
    // 3 * dilation + 1) pads half of what the window needs past the input.
    const int span = 3 * dilation_w + 1;
    const int pad_w = std::max(0, (ow - 1) * stride_w + span - 7) / 2;
    size_t p = 0;
    for (int z = 0; z < 2; ++z) {
      for (int yy = 0; yy < 5; ++yy) {
        for (int xx = 0; xx < ow; ++xx) {
          for (int c = 0; c < 5; ++c, ++p) {
            double acc = 0;
            for (int fy = 0; fy < 3; ++fy) {
              for (int fx = 0; fx < 4; ++fx) {
                const int iy = yy - 1 + fy, ix = xx * stride_w - pad_w + fx * dilation_w;
                if (iy < 0 || iy >= 5 || ix < 0 || ix >= 7) continue;
                for (int ci = 0; ci < 3; ++ci) {
                  acc += static_cast<double>(x[static_cast<size_t>(((z * 5 + iy) * 7 + ix) * 3 + ci)]) *
                         w[static_cast<size_t>(((fy * 4 + fx) * 3 + ci) * 5 + c)];
                }
              }
            }
            EXPECT_NEAR(y[p], acc, 1e-5) << "output " << p;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gld::testing
