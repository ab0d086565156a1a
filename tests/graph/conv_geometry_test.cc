#include "graph/conv_geometry.h"

#include <gtest/gtest.h>

#include <string>

namespace gld {
namespace {

void ExpectAxis(const WindowAxis& x, int32_t out, int32_t before, int32_t after) {
  EXPECT_EQ(x.out, out);
  EXPECT_EQ(x.pad_before, before);
  EXPECT_EQ(x.pad_after, after);
}

void ExpectMessage(const Status& s, const std::string& message) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), message);
}

Conv2dAttributes Conv(Padding padding, int32_t stride, int32_t dilation = 1) {
  Conv2dAttributes a;
  a.padding = padding;
  a.stride_h = a.stride_w = stride;
  a.dilation_h = a.dilation_w = dilation;
  return a;
}

TEST(WindowAxis, SameOddAndEvenFilters) {
  // An odd filter pads evenly; an even one puts the extra zero after.
  ExpectAxis(MakeWindowAxis(Padding::kSame, 5, 3, 1, 1), 5, 1, 1);
  ExpectAxis(MakeWindowAxis(Padding::kSame, 4, 2, 1, 1), 4, 0, 1);
  ExpectAxis(MakeWindowAxis(Padding::kSame, 4, 4, 1, 1), 4, 1, 2);
  ExpectAxis(MakeWindowAxis(Padding::kSame, 1, 1, 1, 1), 1, 0, 0);
}

TEST(WindowAxis, SameStrides) {
  ExpectAxis(MakeWindowAxis(Padding::kSame, 5, 3, 2, 1), 3, 1, 1);  // total (3 - 1) * 2 + 3 - 5 = 2
  ExpectAxis(MakeWindowAxis(Padding::kSame, 6, 3, 2, 1), 3, 0, 1);  // total 1: the zero goes after
  ExpectAxis(MakeWindowAxis(Padding::kSame, 4, 1, 2, 1), 2, 0, 0);  // stride past the filter: no padding
  ExpectAxis(MakeWindowAxis(Padding::kSame, 7, 3, 3, 1), 3, 1, 1);
}

TEST(WindowAxis, ValidNeverPads) {
  ExpectAxis(MakeWindowAxis(Padding::kValid, 7, 3, 2, 1), 3, 0, 0);
  ExpectAxis(MakeWindowAxis(Padding::kValid, 8, 3, 2, 1), 3, 0, 0);  // the last input position unread
  ExpectAxis(MakeWindowAxis(Padding::kValid, 3, 3, 1, 1), 1, 0, 0);
  EXPECT_LT(MakeWindowAxis(Padding::kValid, 2, 3, 1, 1).out, 0);
}

TEST(WindowAxis, Dilations) {
  // A 3-tap filter of dilation 2 spans 5 positions.
  const WindowAxis same = MakeWindowAxis(Padding::kSame, 5, 3, 1, 2);
  EXPECT_EQ(same.Extent(), 5);
  ExpectAxis(same, 5, 2, 2);
  ExpectAxis(MakeWindowAxis(Padding::kValid, 7, 3, 1, 3), 1, 0, 0);
  EXPECT_LT(MakeWindowAxis(Padding::kValid, 6, 3, 1, 3).out, 0);
  ExpectAxis(MakeWindowAxis(Padding::kSame, 9, 2, 2, 3), 5, 1, 2);  // total 4 * 2 + 4 - 9 = 3
}

TEST(WindowAxis, MergedPadWidensTheInput) {
  // VALID over 1 + 4 + 2 positions: the merged zeros are the padding.
  ExpectAxis(MakeWindowAxis(Padding::kValid, 4, 3, 1, 1, 1, 2), 5, 1, 2);
  // SAME over the widened 5 positions adds its own (1, 1).
  ExpectAxis(MakeWindowAxis(Padding::kSame, 4, 3, 2, 1, 1, 0), 3, 2, 1);
}

TEST(ConvGeometry, Conv2dReadsFilterAndExplicitPadding) {
  Conv2dAttributes a = Conv(Padding::kSame, 1);
  a.stride_w = 2;
  a.dilation_h = 2;
  a.explicit_padding = {1, 0, 0, 3};
  ConvGeometry g;
  ASSERT_TRUE(MakeConvGeometry(a, {1, 6, 7, 3}, {8, 3, 2, 3}, &g).ok());
  EXPECT_EQ(g.num_axes, 2);
  EXPECT_EQ(g.h().in, 6);
  EXPECT_EQ(g.h().filter, 3);
  EXPECT_EQ(g.h().dilation, 2);
  ExpectAxis(g.h(), 7, 3, 2);  // SAME over 7 rows of a 5-row extent: total 4, after the merged 1
  EXPECT_EQ(g.w().stride, 2);
  ExpectAxis(g.w(), 5, 0, 3);  // SAME over 10 columns, stride 2, filter 2: total 0; the merged 3 after
  EXPECT_TRUE(g.Gives({1, 7, 5, 8}));
  EXPECT_FALSE(g.Gives({1, 7, 6, 8}));
  EXPECT_FALSE(g.Gives({7, 5, 8}));
}

TEST(ConvGeometry, DepthwiseAndPool) {
  DepthwiseConv2dAttributes d;
  d.padding = Padding::kValid;
  d.stride_h = d.stride_w = 2;
  ConvGeometry g;
  ASSERT_TRUE(MakeConvGeometry(d, {1, 9, 8, 4}, {1, 3, 3, 8}, &g).ok());
  ExpectAxis(g.h(), 4, 0, 0);
  ExpectAxis(g.w(), 3, 0, 0);

  Pool2dAttributes p;
  p.padding = Padding::kSame;
  p.filter_h = 2;
  p.filter_w = 3;
  p.stride_h = p.stride_w = 2;
  ASSERT_TRUE(MakePoolGeometry(p, {1, 5, 5, 1}, &g).ok());
  EXPECT_EQ(g.h().dilation, 1);
  ExpectAxis(g.h(), 3, 0, 1);  // total (3 - 1) * 2 + 2 - 5 = 1
  ExpectAxis(g.w(), 3, 1, 1);
}

TEST(ConvGeometry, Conv3dHasThreeAxes) {
  Conv3dAttributes a;
  a.padding = Padding::kSame;
  a.stride_d = 2;
  ConvGeometry g;
  ASSERT_TRUE(MakeConvGeometry(a, {1, 4, 5, 6, 2}, {2, 3, 1, 2, 7}, &g).ok());
  EXPECT_EQ(g.num_axes, 3);
  ExpectAxis(g.axes[0], 2, 0, 0);  // total (2 - 1) * 2 + 2 - 4 = 0
  ExpectAxis(g.h(), 5, 1, 1);
  ExpectAxis(g.w(), 6, 0, 0);
  EXPECT_TRUE(g.Gives({1, 2, 5, 6, 7}));
}

TEST(ConvGeometry, TransposedConvolutions) {
  TransposeConvAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  // TFLite: the padding of a CONV_2D over the output, of output ceil(out / stride).
  ConvGeometry g = TransposeConvGeometry(a, {1, 3, 4, 2}, {5, 3, 4, 2}, {1, 6, 7, 5});
  EXPECT_EQ(g.h().in, 6);
  ExpectAxis(g.h(), 3, 0, 1);  // total (3 - 1) * 2 + 3 - 6 = 1
  ExpectAxis(g.w(), 4, 1, 2);  // total (4 - 1) * 2 + 4 - 7 = 3
  a.padding = Padding::kValid;
  g = TransposeConvGeometry(a, {1, 3, 4, 2}, {5, 3, 4, 2}, {1, 7, 10, 5});
  ExpectAxis(g.h(), 3, 0, 0);
  ExpectAxis(g.w(), 4, 0, 0);

  // MediaPipe: the output follows from the input.
  a.padding = Padding::kSame;
  ASSERT_TRUE(MakeTransposeConvBiasGeometry(a, {1, 3, 3, 2}, {5, 4, 3, 2}, &g).ok());
  EXPECT_EQ(g.h().in, 5);  // 2 * 2 + 4 - 3
  ExpectAxis(g.h(), 3, 1, 2);
  EXPECT_EQ(g.w().in, 5);  // total max(0, 3 - 0 - 1) = 2
  ExpectAxis(g.w(), 3, 1, 1);
  a.padding = Padding::kValid;
  ASSERT_TRUE(MakeTransposeConvBiasGeometry(a, {1, 3, 3, 2}, {5, 4, 3, 2}, &g).ok());
  EXPECT_EQ(g.h().in, 8);
  ExpectAxis(g.h(), 3, 0, 0);
}

TEST(ConvGeometry, MaxUnpoolingPadsAsThePoolBack) {
  Pool2dAttributes p;
  p.padding = Padding::kValid;  // ignored: MediaPipe pads as SAME
  p.filter_h = 4;
  p.filter_w = 2;
  p.stride_h = p.stride_w = 2;
  const ConvGeometry g = MaxUnpoolingGeometry(p, {1, 3, 3, 1}, {1, 6, 6, 1});
  ExpectAxis(g.h(), 3, 1, 1);  // total (3 - 1) * 2 + 4 - 6 = 2
  ExpectAxis(g.w(), 3, 0, 0);
}

TEST(ConvGeometry, StepErrors) {
  ConvGeometry g;
  Conv2dAttributes c = Conv(Padding::kSame, 1);
  c.stride_h = 0;
  ExpectMessage(MakeConvGeometry(c, {1, 4, 4, 1}, {1, 1, 1, 1}, &g),
                "strides (0, 1) and dilations (1, 1) must be positive");
  DepthwiseConv2dAttributes d;
  d.dilation_w = -1;
  ExpectMessage(CheckConvSteps(d), "strides (1, 1) and dilations (1, -1) must be positive");
  Conv3dAttributes c3;
  c3.dilation_d = 0;
  ExpectMessage(MakeConvGeometry(c3, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, &g),
                "strides and dilations must be positive");
  Pool2dAttributes p;
  p.filter_w = 0;
  ExpectMessage(MakePoolGeometry(p, {1, 2, 2, 1}, &g), "filter (1, 0) and strides (1, 1) must be positive");
  TransposeConvAttributes t;
  t.stride_w = 0;
  ExpectMessage(CheckConvSteps(t), "strides must be positive");
  ExpectMessage(MakeTransposeConvBiasGeometry(t, {1, 2, 2, 1}, {1, 2, 2, 1}, &g), "strides must be positive");
}

TEST(ConvGeometry, SizeErrors) {
  ConvGeometry g;
  ExpectMessage(MakeConvGeometry(Conv(Padding::kValid, 1, 2), {1, 4, 9, 1}, {1, 3, 3, 1}, &g),
                "VALID filter [1, 3, 3, 1] with dilation (2, 2) is larger than input [1, 4, 9, 1]");
  DepthwiseConv2dAttributes d;
  ExpectMessage(MakeConvGeometry(d, {1, 2, 2, 1}, {1, 3, 1, 1}, &g),
                "VALID filter [1, 3, 1, 1] is larger than input [1, 2, 2, 1]");
  Pool2dAttributes p;
  p.filter_h = 3;
  ExpectMessage(MakePoolGeometry(p, {1, 2, 2, 1}, &g), "VALID filter (3, 1) is larger than input [1, 2, 2, 1]");
  Conv3dAttributes c3;
  ExpectMessage(MakeConvGeometry(c3, {1, 3, 3, 1, 1}, {1, 1, 2, 1, 1}, &g),
                "VALID filter [1, 1, 2, 1, 1] is larger than input [1, 3, 3, 1, 1] along width");
  TransposeConvAttributes t;
  ExpectMessage(MakeTransposeConvBiasGeometry(t, {1, 0, 2, 1}, {1, 2, 2, 1}, &g), "empty input [1, 0, 2, 1]");
  ExpectMessage(MakeTransposeConvBiasGeometry(t, {1, 1, 2, 1}, {1, 0, 2, 1}, &g),
                "empty output for input [1, 1, 2, 1] and weights [1, 0, 2, 1]");
}

TEST(ConvGeometry, WindowsReachingPast2To30) {
  ConvGeometry g;
  Conv2dAttributes c = Conv(Padding::kSame, 1);
  c.dilation_w = 32767;
  ExpectMessage(MakeConvGeometry(c, {1, 1, 1, 1}, {1, 1, 40000, 1}, &g),
                "width window (filter 40000, stride 1, dilation 32767) reaches 1310647234 input positions, "
                "more than 2^30");
  // A window that just fits: (out - 1) * stride + extent = 2^30.
  Pool2dAttributes p;
  p.padding = Padding::kSame;
  p.filter_h = 1 << 30;
  EXPECT_TRUE(MakePoolGeometry(p, {1, 1, 1, 1}, &g).ok());
  p.filter_h = (1 << 30) + 1;
  ExpectMessage(MakePoolGeometry(p, {1, 1, 1, 1}, &g),
                "height window (filter 1073741825, stride 1, dilation 1) reaches 1073741825 input positions, "
                "more than 2^30");
  // CONV_3D checks axis by axis: the depth's reach before the width's size
  // (2-D checks both sizes first).
  Conv3dAttributes c3;
  c3.stride_d = 1 << 30;
  ExpectMessage(MakeConvGeometry(c3, {1, (1 << 30) + 1, 1, 1, 1}, {1, 1, 2, 1, 1}, &g),
                "depth window (filter 1, stride 1073741824, dilation 1) reaches 1073741825 input positions, "
                "more than 2^30");
}

}  // namespace
}  // namespace gld
