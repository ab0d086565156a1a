// MediaPipe's Convolution2DTransposeBias custom op (selfie_segmentation uses
// it) against equivalent builtin graphs, all built with the public
// ModelBuilder and all run by our CPU backend on the same random input and
// weights:
//   A  Convolution2DTransposeBias(input, weights OHWI, bias), custom_options
//      written here byte by byte as MediaPipe does: int32 padding
//      (TfLitePadding: 1 SAME, 2 VALID), int32 stride_w, int32 stride_h
//   B  TRANSPOSE_CONV(output_shape, weights, input, bias)        (bias as input 3)
//   C  TRANSPOSE_CONV(output_shape, weights, input) -> ADD(bias)
// and all three against a direct double-precision transcription of
// MediaPipe's kernel loop (mediapipe/util/tflite/operations/transpose_conv_bias.cc).
// LiteRT's view of the same op: tests/data/ops/convolution2dtransposebias__*
// and transpose_conv__* in the conformance suite (references made by LiteRT on
// the rewrite of tools/reference/replace_transpose_conv_bias.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kTolerance = 1e-5;
constexpr int32_t kTfLitePaddingSame = 1, kTfLitePaddingValid = 2;

struct Geometry {
  const char* name;
  int batch, in_h, in_w, in_c, out_c, k_h, k_w;
  int32_t padding;  // TfLitePadding
  int stride_w, stride_h;
};

void PrintTo(const Geometry& g, std::ostream* os) { *os << g.name; }

// MediaPipe's output size and leading pad along one axis.
void MediaPipeAxis(int32_t padding, int stride, int in, int k, int* out, int* lead) {
  int total = 0;
  if (padding == kTfLitePaddingSame) total = std::max(0, k - (in - 1) % stride - 1);
  *out = stride * (in - 1) + k - total;
  *lead = total / 2;
}

// TFLite's leading pad for TRANSPOSE_CONV with an explicit output size.
int TfLiteTransposeConvLead(bool same, int stride, int out, int k) {
  const int computed = same ? (out + stride - 1) / stride : (out + stride - k) / stride;
  return std::max(0, ((computed - 1) * stride + k - out) / 2);
}

std::vector<uint8_t> MediaPipeOptions(int32_t padding, int32_t stride_w, int32_t stride_h) {
  std::vector<uint8_t> bytes;
  for (int32_t v : {padding, stride_w, stride_h})
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>((static_cast<uint32_t>(v) >> (8 * b)) & 0xff));
  return bytes;
}

StatusOr<std::vector<float>> RunCpu(const std::vector<uint8_t>& model_bytes, const std::vector<float>& input,
                                    std::vector<int>* out_shape) {
  GLD_ASSIGN_OR_RETURN(auto model, Model::FromBuffer(model_bytes.data(), model_bytes.size()));
  Options options;
  options.backend = Backend::kCpu;
  GLD_ASSIGN_OR_RETURN(auto interp, Interpreter::Create(*model, options));
  GLD_RETURN_IF_ERROR(interp->SetInput(0, input.data(), input.size() * sizeof(float)));
  GLD_RETURN_IF_ERROR(interp->Invoke());
  *out_shape = interp->outputs()[0].shape;
  std::vector<float> out(interp->outputs()[0].bytes / sizeof(float));
  GLD_RETURN_IF_ERROR(interp->GetOutput(0, out.data(), out.size() * sizeof(float)));
  return out;
}

class TransposeConvBiasTest : public ::testing::TestWithParam<Geometry> {};

TEST_P(TransposeConvBiasTest, CustomOpMatchesTransposeConvGraphs) {
  const Geometry g = GetParam();
  int out_h, out_w, lead_h, lead_w;
  MediaPipeAxis(g.padding, g.stride_h, g.in_h, g.k_h, &out_h, &lead_h);
  MediaPipeAxis(g.padding, g.stride_w, g.in_w, g.k_w, &out_w, &lead_w);
  const std::vector<int> in_shape = {g.batch, g.in_h, g.in_w, g.in_c};
  const std::vector<int> w_shape = {g.out_c, g.k_h, g.k_w, g.in_c};
  const std::vector<int> out_shape = {g.batch, out_h, out_w, g.out_c};

  const uint64_t seed = 20240 + static_cast<uint64_t>(g.k_h * 31 + g.in_c);
  const std::vector<float> input = UniformPm1(seed, 0, ElementCount(in_shape));
  const std::vector<float> weights = UniformPm1(seed, 1, ElementCount(w_shape));
  const std::vector<float> bias = UniformPm1(seed, 2, static_cast<size_t>(g.out_c));

  // The builtin padding that reproduces MediaPipe's leading pads.
  std::string tconv_padding;
  for (bool same : {true, false}) {
    if (TfLiteTransposeConvLead(same, g.stride_h, out_h, g.k_h) == lead_h &&
        TfLiteTransposeConvLead(same, g.stride_w, out_w, g.k_w) == lead_w) {
      tconv_padding = same ? "SAME" : "VALID";
      break;
    }
  }
  ASSERT_FALSE(tconv_padding.empty()) << "no TRANSPOSE_CONV padding matches this geometry";

  // A: the custom op.
  ModelBuilder a;
  {
    const int x = a.AddInput("input", ElementType::kFloat32, in_shape);
    const int w = a.AddConstantFloat("weights", w_shape, weights);
    const int b = a.AddConstantFloat("bias", {g.out_c}, bias);
    const int y = a.AddTensor("output", ElementType::kFloat32, out_shape);
    ASSERT_TRUE(a.AddCustomOp("Convolution2DTransposeBias", {x, w, b}, {y},
                              MediaPipeOptions(g.padding, g.stride_w, g.stride_h))
                    .ok());
    a.SetOutputs({y});
  }
  // B: TRANSPOSE_CONV with the bias as its fourth input; C: bias by ADD.
  ModelBuilder bld_b, bld_c;
  for (int variant = 0; variant < 2; ++variant) {
    ModelBuilder& m = variant == 0 ? bld_b : bld_c;
    const int x = m.AddInput("input", ElementType::kFloat32, in_shape);
    const int shape = m.AddConstantInt32("output_shape", {4}, {g.batch, out_h, out_w, g.out_c});
    const int w = m.AddConstantFloat("weights", w_shape, weights);
    const int b = m.AddConstantFloat("bias", {g.out_c}, bias);
    const int y = m.AddTensor("output", ElementType::kFloat32, out_shape);
    OpOptions options{{"padding", tconv_padding}, {"stride_w", g.stride_w}, {"stride_h", g.stride_h}};
    if (variant == 0) {
      options.version = 3;
      ASSERT_TRUE(m.AddOp("TRANSPOSE_CONV", {shape, w, x, b}, {y}, options).ok());
      m.SetOutputs({y});
    } else {
      const int t = m.AddTensor("tconv", ElementType::kFloat32, out_shape);
      ASSERT_TRUE(m.AddOp("TRANSPOSE_CONV", {shape, w, x}, {t}, options).ok());
      ASSERT_TRUE(m.AddOp("ADD", {t, b}, {y}, {{"fused_activation_function", "NONE"}}).ok());
      m.SetOutputs({y});
    }
  }

  // MediaPipe's loop: start from the bias, scatter input x weight.
  std::vector<double> expected(ElementCount(out_shape));
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = bias[i % static_cast<size_t>(g.out_c)];
  for (int n = 0; n < g.batch; ++n)
    for (int iy = 0; iy < g.in_h; ++iy)
      for (int ix = 0; ix < g.in_w; ++ix)
        for (int ic = 0; ic < g.in_c; ++ic)
          for (int fy = 0; fy < g.k_h; ++fy)
            for (int fx = 0; fx < g.k_w; ++fx)
              for (int oc = 0; oc < g.out_c; ++oc) {
                const int oy = iy * g.stride_h - lead_h + fy, ox = ix * g.stride_w - lead_w + fx;
                if (oy < 0 || oy >= out_h || ox < 0 || ox >= out_w) continue;
                const double v = input[((static_cast<size_t>(n) * g.in_h + iy) * g.in_w + ix) * g.in_c + ic];
                const double wv = weights[((static_cast<size_t>(oc) * g.k_h + fy) * g.k_w + fx) * g.in_c + ic];
                expected[((static_cast<size_t>(n) * out_h + oy) * out_w + ox) * g.out_c + oc] += v * wv;
              }

  const char* labels[] = {"Convolution2DTransposeBias", "TRANSPOSE_CONV+bias input", "TRANSPOSE_CONV->ADD"};
  ModelBuilder* builders[] = {&a, &bld_b, &bld_c};
  std::vector<std::vector<double>> results;
  for (int k = 0; k < 3; ++k) {
    auto bytes = builders[k]->Finish();
    ASSERT_TRUE(bytes.ok()) << labels[k] << ": " << bytes.status().ToString();
    std::vector<int> got_shape;
    auto out = RunCpu(*bytes, input, &got_shape);
    ASSERT_TRUE(out.ok()) << labels[k] << ": " << out.status().ToString();
    ASSERT_EQ(got_shape, out_shape) << labels[k];
    results.emplace_back(out->begin(), out->end());
    const Comparison c = Compare(results.back(), expected);
    std::printf("[ measure  ] %s %s vs MediaPipe loop: rel %.3e\n", g.name, labels[k], c.relative);
    EXPECT_LE(c.relative, kTolerance) << labels[k] << " vs the MediaPipe loop, worst at " << c.worst_index
                                      << ": " << c.worst_ours << " vs " << c.worst_ref;
  }
  for (int k = 1; k < 3; ++k) {
    const Comparison c = Compare(results[0], results[k]);
    std::printf("[ measure  ] %s custom op vs %s: rel %.3e\n", g.name, labels[k], c.relative);
    EXPECT_LE(c.relative, kTolerance) << "custom op vs " << labels[k];
  }
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, TransposeConvBiasTest,
    ::testing::Values(
        // selfie_segmentation's own: 2x2 kernel, stride 2, SAME, 16 -> 1 channels
        Geometry{"selfie_like", 1, 16, 16, 16, 1, 2, 2, kTfLitePaddingSame, 2, 2},
        Geometry{"k2_s2_same_odd_width", 1, 4, 3, 5, 3, 2, 2, kTfLitePaddingSame, 2, 2},
        Geometry{"k3_s2_same", 1, 5, 4, 3, 2, 3, 3, kTfLitePaddingSame, 2, 2},
        Geometry{"k3_s2_valid_batch2", 2, 3, 3, 4, 3, 3, 3, kTfLitePaddingValid, 2, 2},
        Geometry{"k3x2_stride_w1_h2", 1, 4, 5, 6, 5, 3, 2, kTfLitePaddingSame, 1, 2}),
    [](const ::testing::TestParamInfo<Geometry>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gld::testing
