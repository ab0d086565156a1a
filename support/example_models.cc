#include "gldelegate/example_models.hpp"

#include <string>

#include "gldelegate/model_builder.hpp"

namespace gld {

std::vector<uint8_t> FlexbufferMap(const std::function<void(flexbuffers::Builder&)>& fill) {
  flexbuffers::Builder fbb;
  fbb.Map([&]() { fill(fbb); });
  fbb.Finish();
  return fbb.GetBuffer();
}

namespace {

// Deterministic values in [-1, 1): a 32-bit LCG per stream.
std::vector<float> Uniform(uint32_t seed, size_t n) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int32_t>(s >> 8) - (1 << 23)) / 8388608.f;
  }
  return v;
}

// A SAME stride-1 k x k convolution of `in` (in_c channels) to `out_c`
// channels: weights in [-scale, scale), `bias` on every channel.
StatusOr<int> Conv(ModelBuilder& b, const std::string& name, int in, int in_c, int out_c, int k, float scale,
                   float bias, const std::vector<int>& out_shape, uint32_t seed) {
  std::vector<float> w = Uniform(seed, static_cast<size_t>(out_c * k * k * in_c));
  for (float& v : w) v *= scale;
  const int wt = b.AddConstantFloat(name + "_w", {out_c, k, k, in_c}, w);
  const int bt = b.AddConstantFloat(name + "_b", {out_c}, std::vector<float>(static_cast<size_t>(out_c), bias));
  const int out = b.AddTensor(name, ElementType::kFloat32, out_shape);
  GLD_RETURN_IF_ERROR(b.AddOp("CONV_2D", {in, wt, bt}, {out},
                              {{"padding", "SAME"}, {"stride_w", 1}, {"stride_h", 1},
                               {"fused_activation_function", "NONE"}}));
  return out;
}

}  // namespace

StatusOr<std::vector<uint8_t>> MediaPipeTransformModel(int image, int crop) {
  if (image < 12 || crop < 1) return InvalidArgumentError("MediaPipeTransformModel: image >= 12 and crop >= 1");
  const int s = image, c = crop;
  const float spread = 0.4f * static_cast<float>(s) / 12.f;
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {1, s, s, 3});
  const float centre = 0.5f * static_cast<float>(s);
  GLD_ASSIGN_OR_RETURN(int lm, Conv(b, "landmarks", x, 3, 6, 3, spread, centre, {1, s, s, 6}, 11));
  GLD_ASSIGN_OR_RETURN(int feat, Conv(b, "features", x, 3, 5, 3, 0.5f, 0.1f, {1, s, s, 5}, 12));
  GLD_ASSIGN_OR_RETURN(int pts, Conv(b, "points", x, 3, 6, 1, 0.8f, 2.f, {1, s, s, 6}, 13));
  const int last = 2 * s * s - 1;  // the last landmark
  const int m = b.AddTensor("matrix", ElementType::kFloat32, {1, 4, 4});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("Landmarks2TransformMatrix", {lm}, {m}, FlexbufferMap([&](flexbuffers::Builder& f) {
                                      f.Vector("subset_idxs", [&]() {
                                        for (int i : {3, 40, 77, 150, 201, 260}) f.Int(i);
                                        f.Int(last);
                                      });
                                      f.Float("target_rotation_radians", 0.3f);
                                      f.Int("output_height", c);
                                      f.Int("output_width", c);
                                      f.Float("scale_x", 1.2f);
                                      f.Float("scale_y", 1.4f);
                                      f.Int("left_rotation_idx", 10);
                                      f.Int("right_rotation_idx", 130);
                                    }),
                                    2));
  const int cropped = b.AddTensor("crop", ElementType::kFloat32, {1, c, c, 5});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("TransformTensorBilinear", {feat, m}, {cropped},
                                    FlexbufferMap([&](flexbuffers::Builder& f) {
                                      f.Int("output_height", c);
                                      f.Int("output_width", c);
                                    }),
                                    2));
  const int moved = b.AddTensor("moved", ElementType::kFloat32, {1, s, s, 6});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("TransformLandmarks", {pts, m}, {moved}, FlexbufferMap([](flexbuffers::Builder& f) {
                                      f.Int("dimensions", 3);
                                      f.Float("scale", 0.5f);
                                    }),
                                    1));
  GLD_ASSIGN_OR_RETURN(int crop_out, Conv(b, "crop_out", cropped, 5, 4, 3, 0.5f, 0.f, {1, c, c, 4}, 14));
  GLD_ASSIGN_OR_RETURN(int landmarks_out, Conv(b, "landmarks_out", moved, 6, 6, 1, 0.5f, 0.f, {1, s, s, 6}, 15));
  b.SetOutputs({crop_out, landmarks_out});
  BuildOptions options;
  options.description = "gldelegate MediaPipe transform ops model";
  return b.Finish(options);
}

}  // namespace gld
