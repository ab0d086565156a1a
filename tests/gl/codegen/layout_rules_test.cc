// Host-side pieces of the GL backend that need no context: the BHWC rank
// rule, PHWC4 packing, fp16 packing, shader generation, workgroup choice.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <set>

#include "gl/codegen/phwc4.h"
#include "gl/codegen/shader_generator.h"
#include "util/half.h"

namespace gld::gl {
namespace {

TEST(Phwc4Test, RankRule) {
  auto check = [](const Shape& s, Bhwc want) {
    auto got = ToBhwc(s);
    ASSERT_TRUE(got.ok()) << ShapeToString(s);
    EXPECT_EQ(*got, want) << ShapeToString(s) << " -> " << got->ToString();
  };
  check({}, {1, 1, 1, 1});
  check({7}, {1, 1, 1, 7});
  check({3, 7}, {3, 1, 1, 7});
  check({2, 3, 7}, {2, 1, 3, 7});
  check({2, 3, 4, 7}, {2, 3, 4, 7});
  EXPECT_FALSE(ToBhwc({1, 2, 3, 4, 5}).ok());
  EXPECT_FALSE(ToBhwc({1, -2}).ok());
  EXPECT_EQ(BhwcAxis(1, 0), 3);
  EXPECT_EQ(BhwcAxis(2, 0), 0);
  EXPECT_EQ(BhwcAxis(2, 1), 3);
  EXPECT_EQ(BhwcAxis(3, 1), 2);
  EXPECT_EQ(BhwcAxis(4, 1), 1);
  EXPECT_EQ(DimOfBhwcAxis(3), (std::array<int, 4>{0, -1, 1, 2}));
}

TEST(Phwc4Test, PacksSlicesWithZeroPadding) {
  const Bhwc s{2, 2, 3, 5};  // 2 slices, the second with 3 padded lanes
  std::vector<float> bhwc(static_cast<size_t>(s.elements()));
  for (size_t i = 0; i < bhwc.size(); ++i) bhwc[i] = static_cast<float>(i + 1);
  std::vector<float> phwc4(static_cast<size_t>(s.vec4s()) * 4, -1.f);
  BhwcToPhwc4(bhwc.data(), s, phwc4.data());
  EXPECT_EQ(s.slices(), 2);
  EXPECT_EQ(s.vec4s(), 2 * 2 * 2 * 3);
  // Element (b, h, w, c) is lane c % 4 of vec4 ((b * S + c / 4) * H + h) * W + w.
  for (int b = 0; b < s.b; ++b)
    for (int h = 0; h < s.h; ++h)
      for (int w = 0; w < s.w; ++w)
        for (int c = 0; c < 8; ++c) {
          const size_t v = static_cast<size_t>(((b * 2 + c / 4) * s.h + h) * s.w + w);
          const float got = phwc4[v * 4 + static_cast<size_t>(c % 4)];
          const float want = c < s.c ? bhwc[static_cast<size_t>(((b * s.h + h) * s.w + w) * s.c + c)] : 0.f;
          EXPECT_EQ(got, want) << b << h << w << c;
        }
  std::vector<float> back(bhwc.size(), 0.f);
  Phwc4ToBhwc(phwc4.data(), s, back.data());
  EXPECT_EQ(back, bhwc);
}

TEST(Phwc4Test, Fp16PackingMatchesPackHalf2x16) {
  std::vector<float> v = {1.0f, -2.5f, 65504.f, 0.1f};
  std::vector<uint8_t> packed = PackVec4s(v, Precision::kFp16);
  ASSERT_EQ(packed.size(), 8u);
  uint32_t w0, w1;
  std::memcpy(&w0, packed.data(), 4);
  std::memcpy(&w1, packed.data() + 4, 4);
  // packHalf2x16: the first component in the low 16 bits.
  EXPECT_EQ(w0 & 0xffffu, FloatToHalf(1.0f));
  EXPECT_EQ(w0 >> 16, FloatToHalf(-2.5f));
  EXPECT_EQ(w1 & 0xffffu, 0x7bffu);
  EXPECT_EQ(w1 >> 16, FloatToHalf(0.1f));
  EXPECT_EQ(PackVec4s(v, Precision::kFp32).size(), 16u);
  // Finite values beyond half's range saturate; infinities and NaN stay.
  const std::vector<float> big = {-1e9f, 7e4f, std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN()};
  packed = PackVec4s(big, Precision::kFp16);
  std::memcpy(&w0, packed.data(), 4);
  std::memcpy(&w1, packed.data() + 4, 4);
  EXPECT_EQ(w0 & 0xffffu, 0xfbffu);
  EXPECT_EQ(w0 >> 16, 0x7bffu);
  EXPECT_EQ(w1 & 0xffffu, 0x7c00u);
  EXPECT_EQ((w1 >> 16) & 0x7c00u, 0x7c00u);
  EXPECT_NE((w1 >> 16) & 0x03ffu, 0u) << "NaN";
  EXPECT_EQ(Vec4Bytes(Precision::kFp16), 8u);
  EXPECT_EQ(Phwc4Bytes(Bhwc{1, 2, 2, 5}, Precision::kFp32), 2u * 4 * 16);
}

TEST(ShaderGeneratorTest, EveryTemplateIsEmbeddedAndReadable) {
  for (const char* name : {"common.comp", "elementwise.comp", "conv2d.comp", "depthwise_conv.comp",
                           "transpose_conv.comp", "fully_connected.comp", "pooling.comp", "max_unpooling.comp",
                           "reduce.comp", "softmax.comp", "concat.comp", "pad.comp", "reshape.comp",
                           "resize.comp", "slice.comp", "depth_space.comp", "tile.comp", "transpose.comp",
                           "quantize.comp", "convert_to_phwc4.comp", "convert_from_phwc4.comp",
                           "elementwise_ops.comp", "epilogue.comp"}) {
    auto t = FindTemplate(name);
    ASSERT_TRUE(t.ok()) << name;
    // A template starts with a comment saying what it is.
    EXPECT_EQ(t->rfind(std::string("// ") + name, 0), 0u) << name;
  }
  EXPECT_EQ(FindTemplate("nope.comp").status().code(), StatusCode::kNotFound);
}

TEST(ShaderGeneratorTest, PrependsVersionAndDefinesOnly) {
  ShaderSpec spec;
  spec.template_name = "elementwise.comp";
  spec.Define("OP", "OP_ADD").Define("BINARY", 1);
  auto src = GenerateShader(spec, Precision::kFp16, {8, 4, 2});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ(src->rfind("#version 310 es\n", 0), 0u);
  for (const char* line : {"#define GLD_FP16 1\n", "#define WG_X 8\n", "#define WG_Y 4\n", "#define WG_Z 2\n",
                           "#define OP OP_ADD\n", "#define BINARY 1\n"}) {
    EXPECT_NE(src->find(line), std::string::npos) << line;
  }
  auto common = FindTemplate("common.comp");
  auto body = FindTemplate("elementwise.comp");
  EXPECT_NE(src->find(std::string(*common)), std::string::npos);
  EXPECT_NE(src->find(std::string(*body)), std::string::npos);
  EXPECT_EQ(src->find("#define GLD_MEDIUMP"), std::string::npos);
  // fp16_mediump: fp16 storage too, and mediump arithmetic.
  auto mediump = GenerateShader(spec, Precision::kFp16Mediump, {8, 4, 2});
  ASSERT_TRUE(mediump.ok()) << mediump.status().ToString();
  EXPECT_NE(mediump->find("#define GLD_FP16 1\n#define GLD_MEDIUMP 1\n"), std::string::npos);
  EXPECT_EQ(Vec4Bytes(Precision::kFp16Mediump), 8u);
  // Defines cannot smuggle code in.
  ShaderSpec bad = spec;
  bad.Define("OP", "1; } void evil() {");
  EXPECT_EQ(GenerateShader(bad, Precision::kFp32, {8, 4, 2}).status().code(), StatusCode::kInvalidArgument);
}

TEST(ShaderGeneratorTest, WorkgroupsComeFromASmallMenu) {
  std::set<Workgroup> seen;
  for (uint32_t x : {1u, 2u, 3u, 7u, 8u, 100u, 4000u})
    for (uint32_t y : {1u, 2u, 3u, 4u, 9u, 500u})
      for (uint32_t z : {1u, 2u, 5u, 64u, 1000u}) {
        Workgroup wg = ChooseWorkgroup({x, y, z});
        EXPECT_EQ(wg[0] * wg[1] * wg[2], 64u);
        seen.insert(wg);
      }
  EXPECT_LE(seen.size(), 4u);
  EXPECT_EQ(ChooseWorkgroup({224, 224, 8}), (Workgroup{8, 4, 2}));
  EXPECT_EQ(ChooseWorkgroup({1, 1, 351}), (Workgroup{1, 1, 64}));
  EXPECT_EQ(ChooseWorkgroup({2016, 1, 5}), (Workgroup{8, 1, 8}));
}

}  // namespace
}  // namespace gld::gl
