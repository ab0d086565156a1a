// Data movement ops on the GPU vs the CPU kernels: CONCATENATION, PAD /
// PADV2 / MIRROR_PAD, RESHAPE, SLICE / STRIDED_SLICE, DEPTH_TO_SPACE /
// SPACE_TO_DEPTH, TILE, TRANSPOSE. Each exercises both the whole-slice and
// the lane-by-lane shader paths.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

TEST(LayoutTest, ConcatenationMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    std::vector<Shape> inputs;
    int axis;
  };
  const Case cases[] = {
      {{{1, 3, 4, 4}, {1, 3, 4, 8}}, 3},                 // channels, aligned
      {{{1, 3, 4, 3}, {1, 3, 4, 5}, {1, 3, 4, 1}}, -1},  // channels, unaligned
      {{{2, 2, 3, 17}, {2, 2, 3, 3}}, 3},
      {{{1, 2, 4, 5}, {1, 3, 4, 5}}, 1},                 // height
      {{{1, 3, 2, 3}, {1, 3, 5, 3}, {1, 3, 1, 3}}, 2},   // width
      {{{1, 2, 2, 6}, {2, 2, 2, 6}}, 0},                 // batch
      {{{1, 896, 16}, {1, 1152, 16}}, 1},                // rank 3 (face detector regressors)
      {{{3, 5}, {3, 2}}, 1},                             // rank 2 channels
      {{{3, 5}, {2, 5}}, 0},                             // rank 2 batch
      {{{1, 2, 3, 1}, {1, 4, 3, 1}}, 1},                 // height, C 1
      {{{1, 2, 3, 4}, {1, 2, 2, 4}}, 2},                 // width, C 4
      {{{2, 2, 3, 17}, {1, 2, 3, 17}}, 0},               // batch, C >= 17
      {{{1, 2, 2, 17}, {1, 3, 2, 17}}, -3},              // height, C >= 17
      {{{1, 2, 2, 1}, {1, 2, 2, 1}}, 3},                 // channels, C 1 + 1
      {{{1, 2, 3, 5}, {1, 2, 3, 17}, {1, 2, 3, 4}}, 3},  // channels, 5 + 17 + 4
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      std::vector<int> ins;
      std::string what = "CONCATENATION axis " + std::to_string(c.axis);
      for (const Shape& s : c.inputs) {
        ins.push_back(t.Input(s));
        what += " " + ShapeToString(s);
      }
      t.Op(OpType::kConcatenation, ins, ConcatenationAttributes{c.axis, Activation::kNone});
      t.ExpectGpuMatchesCpu(*env, p, what);
    }
  }
}

TEST(LayoutTest, ConcatenationWithConstantInputAndActivation) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    for (int axis : {3, 2}) {
      GlOpTest t(5);
      int a = t.Input({1, 2, 3, 5});
      int b = t.Const({1, 2, 3, 5});
      t.Op(OpType::kConcatenation, {a, b}, ConcatenationAttributes{axis, Activation::kRelu});
      t.ExpectGpuMatchesCpu(*env, p, "CONCATENATION const + RELU axis " + std::to_string(axis));
    }
  }
}

TEST(LayoutTest, PadMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    std::vector<int32_t> pads;  // before/after per dimension
    OpType op;
    bool symmetric;
  };
  const Case cases[] = {
      {{1, 4, 5, 3}, {0, 0, 1, 2, 2, 1, 0, 0}, OpType::kPad, false},     // spatial
      {{1, 4, 4, 5}, {0, 0, 0, 0, 0, 0, 0, 11}, OpType::kPad, false},    // channels after (BlazeFace)
      {{1, 3, 3, 4}, {0, 0, 1, 1, 1, 1, 4, 4}, OpType::kPad, false},     // channels before, aligned
      {{1, 3, 3, 3}, {0, 0, 0, 1, 0, 0, 2, 1}, OpType::kPad, false},     // channels before, unaligned
      {{2, 3, 2, 17}, {1, 0, 0, 1, 0, 0, 0, 3}, OpType::kPad, false},    // batch
      {{3, 5}, {1, 2, 2, 3}, OpType::kPad, false},                       // rank 2
      {{1, 4, 5, 3}, {0, 0, 2, 1, 1, 2, 1, 1}, OpType::kPadV2, false},   // constant value
      {{1, 4, 5, 3}, {0, 0, 2, 1, 1, 3, 0, 0}, OpType::kMirrorPad, false},
      {{1, 4, 5, 6}, {0, 0, 1, 3, 2, 0, 0, 0}, OpType::kMirrorPad, true},
      {{1, 3, 4, 5}, {0, 0, 1, 1, 0, 0, 2, 3}, OpType::kMirrorPad, false},  // channels
      {{1, 3, 4, 5}, {0, 0, 0, 0, 1, 1, 3, 1}, OpType::kMirrorPad, true},
      {{1, 3, 4, 1}, {0, 0, 1, 1, 0, 2, 0, 3}, OpType::kPad, false},     // C 1 -> 4
      {{1, 3, 3, 1}, {0, 0, 1, 0, 0, 1, 0, 0}, OpType::kPadV2, false},   // C 1
      {{1, 2, 3, 4}, {0, 0, 0, 1, 1, 0, 3, 0}, OpType::kPadV2, false},   // C 4, channels before
      {{1, 2, 2, 5}, {0, 0, 1, 1, 1, 1, 0, 2}, OpType::kPadV2, false},   // C 5
      {{1, 2, 3, 17}, {0, 0, 1, 0, 0, 2, 1, 2}, OpType::kPadV2, false},  // C >= 17
      {{1, 3, 3, 1}, {0, 0, 2, 1, 1, 2, 0, 0}, OpType::kMirrorPad, false},  // C 1
      {{1, 4, 3, 4}, {0, 0, 2, 1, 3, 0, 0, 0}, OpType::kMirrorPad, true},   // C 4
      {{1, 2, 3, 17}, {0, 0, 1, 0, 1, 1, 2, 3}, OpType::kMirrorPad, false}, // C >= 17, channels
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 20;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      const int32_t rank = static_cast<int32_t>(c.input.size());
      int pads = t.ConstInts<int32_t>({rank, 2}, c.pads);
      std::vector<int> ins = {x, pads};
      Attributes attrs;
      if (c.op == OpType::kPadV2) ins.push_back(t.ConstValues({}, {-1.5f}));
      if (c.op == OpType::kMirrorPad) attrs = MirrorPadAttributes{c.symmetric};
      t.Op(c.op, ins, attrs);
      std::string pads_text;
      for (int32_t v : c.pads) pads_text += std::to_string(v) + " ";
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(c.op)) + " " + ShapeToString(c.input) + " pads " + pads_text);
    }
  }
}

TEST(LayoutTest, ReshapeMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input, output;
  };
  const Case cases[] = {
      {{1, 16, 16, 16}, {1, 256, 16}},   // channels kept (detector heads)
      {{1, 4, 4, 6}, {1, 96}},           // flatten
      {{1, 2, 3, 5}, {1, 5, 3, 2}},      // channels change
      {{2, 3, 4, 5}, {6, 20}},
      {{1, 63}, {1, 21, 3}},             // landmarks
      {{1, 1, 1, 1404}, {1, 468, 3}},
      {{4, 5}, {20}},
      {{7}, {1, 1, 7, 1}},
      {{1, 3, 2, 1}, {1, 2, 3, 1}},      // C 1 kept
      {{1, 2, 2, 3}, {1, 3, 1, 4}},      // C 3 -> 4
      {{1, 2, 6, 4}, {1, 4, 3, 4}},      // C 4 kept
      {{1, 2, 2, 17}, {1, 17, 1, 4}},    // C 17 -> 4
      {{1, 4, 5, 4}, {1, 2, 2, 20}},     // C 4 -> 20
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 40;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      std::vector<int32_t> shape(c.output.begin(), c.output.end());
      int s = t.ConstInts<int32_t>({static_cast<int32_t>(shape.size())}, shape);
      t.Op(OpType::kReshape, {x, s}, ReshapeAttributes{});
      t.ExpectGpuMatchesCpu(*env, p, "RESHAPE " + ShapeToString(c.input) + " -> " + ShapeToString(c.output));
    }
  }
}

TEST(LayoutTest, SliceMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    std::vector<int32_t> begin, size;
  };
  const Case cases[] = {
      {{1, 5, 6, 8}, {0, 1, 2, 4}, {1, 3, 3, 4}},    // channel offset aligned
      {{1, 5, 6, 7}, {0, 0, 1, 2}, {1, 5, -1, 3}},   // unaligned, size -1
      {{2, 4, 3, 17}, {1, 1, 0, 0}, {1, 2, 3, 17}},
      {{4, 10}, {1, 3}, {2, 5}},
      {{3, 6, 5}, {0, 2, 1}, {3, 3, 4}},
      {{1, 4, 5, 1}, {0, 1, 1, 0}, {1, 2, 3, 1}},    // C 1
      {{1, 3, 4, 3}, {0, 0, 1, 1}, {1, 3, 2, 2}},    // C 3
      {{2, 3, 4, 4}, {1, 0, 2, 0}, {1, 3, 2, 4}},    // C 4
      {{1, 4, 3, 5}, {0, 1, 0, 1}, {1, 2, 3, 3}},    // C 5
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 60;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      const int32_t r = static_cast<int32_t>(c.input.size());
      int b = t.ConstInts<int32_t>({r}, c.begin);
      int s = t.ConstInts<int32_t>({r}, c.size);
      t.Op(OpType::kSlice, {x, b, s});
      t.ExpectGpuMatchesCpu(*env, p, "SLICE " + ShapeToString(c.input));
    }
  }
}

TEST(LayoutTest, StridedSliceMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    std::vector<int32_t> begin, end, strides;
    int begin_mask, end_mask, shrink_mask;
  };
  const Case cases[] = {
      {{1, 6, 7, 8}, {0, 1, 0, 0}, {1, 5, 7, 8}, {1, 1, 2, 1}, 0, 0, 0},
      {{1, 6, 7, 9}, {0, 0, 0, 1}, {1, 6, 7, 8}, {1, 2, 1, 3}, 0, 0, 0},    // channel stride
      {{1, 6, 7, 5}, {0, -1, 0, 0}, {1, 0, 7, 5}, {1, -1, 1, 1}, 0, 0, 0},  // reversed rows
      {{1, 6, 7, 5}, {0, 2, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, 0b1101, 0b1111, 0},  // masks
      {{1, 6, 7, 5}, {0, 2, 0, 0}, {1, 3, 7, 5}, {1, 1, 1, 1}, 0, 0, 0b0010},       // shrink H
      {{1, 4, 5, 6}, {0, 0, 0, 2}, {1, 4, 5, 3}, {1, 1, 1, 1}, 0, 0, 0b1000},       // shrink C
      {{2, 9}, {0, 1}, {2, 9}, {1, 3}, 0, 0, 0},
      {{3, 4, 10}, {1, 0, -4}, {2, 4, 10}, {1, 1, 1}, 0, 0, 0b001},                 // rank 3, shrink B
      {{1, 5, 4, 1}, {0, 1, 0, 0}, {1, 5, 4, 1}, {1, 2, 2, 1}, 0, 0, 0},            // C 1
      {{1, 4, 4, 3}, {0, 0, 1, 0}, {1, 4, 4, 3}, {1, 1, 1, 1}, 0, 0, 0},            // C 3
      {{1, 3, 5, 4}, {0, 0, 0, 0}, {1, 3, 5, 4}, {1, 1, 2, 2}, 0, 0, 0},            // C 4, channel stride
      {{1, 3, 3, 20}, {0, 0, 0, 1}, {1, 3, 3, 18}, {1, 1, 1, 1}, 0, 0, 0},          // C 20 -> 17
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 80;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      const int32_t r = static_cast<int32_t>(c.input.size());
      int b = t.ConstInts<int32_t>({r}, c.begin);
      int e = t.ConstInts<int32_t>({r}, c.end);
      int s = t.ConstInts<int32_t>({r}, c.strides);
      StridedSliceAttributes a;
      a.begin_mask = c.begin_mask;
      a.end_mask = c.end_mask;
      a.shrink_axis_mask = c.shrink_mask;
      t.Op(OpType::kStridedSlice, {x, b, e, s}, a);
      t.ExpectGpuMatchesCpu(*env, p, "STRIDED_SLICE " + ShapeToString(c.input) + " shrink " +
                                         std::to_string(c.shrink_mask));
    }
  }
}

TEST(LayoutTest, DepthToSpaceAndBackMatchCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    int block;
  };
  const Case d2s[] = {{{1, 3, 4, 16}, 2}, {{1, 2, 3, 12}, 2}, {{2, 2, 2, 9}, 3}, {{1, 4, 4, 68}, 2},
                      {{1, 2, 2, 20}, 2}};
  const Case s2d[] = {{{1, 4, 6, 4}, 2}, {{1, 4, 6, 3}, 2}, {{2, 6, 3, 1}, 3}, {{1, 4, 4, 17}, 2},
                      {{1, 2, 4, 5}, 2}};
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 100;
    for (const Case& c : d2s) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      t.Op(OpType::kDepthToSpace, {x}, BlockSizeAttributes{c.block});
      t.ExpectGpuMatchesCpu(*env, p, "DEPTH_TO_SPACE " + ShapeToString(c.input));
    }
    for (const Case& c : s2d) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      t.Op(OpType::kSpaceToDepth, {x}, BlockSizeAttributes{c.block});
      t.ExpectGpuMatchesCpu(*env, p, "SPACE_TO_DEPTH " + ShapeToString(c.input));
    }
  }
}

TEST(LayoutTest, TileMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    std::vector<int32_t> multiples;
  };
  const Case cases[] = {
      {{1, 2, 3, 4}, {1, 2, 3, 1}},  // spatial
      {{1, 2, 2, 3}, {2, 1, 1, 3}},  // channels tiled
      {{1, 1, 1, 5}, {1, 4, 3, 1}},
      {{2, 3}, {3, 2}},
      {{1, 2, 2, 1}, {1, 2, 1, 4}},  // C 1 -> 4
      {{1, 2, 1, 17}, {2, 1, 2, 1}}, // C >= 17
      {{1, 1, 2, 3}, {1, 2, 1, 2}},  // C 3 -> 6
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 120;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      int m = t.ConstInts<int32_t>({static_cast<int32_t>(c.multiples.size())}, c.multiples);
      t.Op(OpType::kTile, {x, m});
      t.ExpectGpuMatchesCpu(*env, p, "TILE " + ShapeToString(c.input));
    }
  }
}

TEST(LayoutTest, TransposeMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    std::vector<int32_t> perm;
  };
  const Case cases[] = {
      {{1, 3, 4, 5}, {0, 2, 1, 3}},  // swap H, W: channels stay
      {{1, 3, 4, 5}, {0, 3, 1, 2}},  // NHWC -> NCHW
      {{2, 3, 4, 6}, {3, 1, 2, 0}},
      {{2, 3, 17, 4}, {0, 1, 3, 2}},
      {{4, 6}, {1, 0}},
      {{2, 5, 3}, {0, 2, 1}},
      {{2, 5, 3}, {2, 0, 1}},
      {{1, 2, 3, 1}, {0, 2, 1, 3}},  // C 1
      {{1, 1, 3, 4}, {0, 3, 2, 1}},  // C 4 -> 1
      {{1, 3, 2, 17}, {0, 3, 1, 2}}, // C 17 -> 2
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 140;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      int perm = t.ConstInts<int32_t>({static_cast<int32_t>(c.perm.size())}, c.perm);
      t.Op(OpType::kTranspose, {x, perm});
      std::string perm_text;
      for (int32_t v : c.perm) perm_text += std::to_string(v);
      t.ExpectGpuMatchesCpu(*env, p, "TRANSPOSE " + ShapeToString(c.input) + " perm " + perm_text);
    }
  }
}

}  // namespace
}  // namespace gld::testing
