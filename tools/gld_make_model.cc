// gld_make_model: writes the project's own demo model, so that the tools can
// be tried without downloading anything.
//
// --kind=demo: a small MobileNet-like float32 network on a [1, 64, 64, 3]
// image: CONV_2D 3x3 stride 2 + RELU6, depthwise/pointwise blocks (one with a
// residual ADD, one with stride 2), MEAN over height and width,
// FULLY_CONNECTED to 10 classes, SOFTMAX. Weights are deterministic
// (splitmix64, seed --seed) and scaled by 1/sqrt(fan_in).
//
// --kind=mediapipe_transforms: MediaPipe's three transform ops
// (Landmarks2TransformMatrix, TransformTensorBilinear, TransformLandmarks)
// between convolutions on a [1, 256, 256, 3] image with a 192x192 crop
// (gld::MediaPipeTransformModel, support/example_models.cc; --seed unused).
//
// --kind=custom_op: the demo with the custom op SwishBeta (examples/custom_op)
// in place of the stem's and block 2's RELU6.
#include <cmath>
#include <iostream>

#include "common/flags.h"
#include "common/printable.h"
#include "common/tensors.h"
#include "gldelegate/example_models.hpp"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/seeded_values.hpp"

namespace {

constexpr char kTool[] = "gld_make_model";

class DemoBuilder {
 public:
  // swish: the stem's and block 2's activations are the custom op SwishBeta
  // (examples/custom_op) instead of RELU6.
  DemoBuilder(uint64_t seed, bool swish) : seed_(seed), swish_(swish) {}

  gld::StatusOr<std::vector<uint8_t>> Build() {
    int x = b_.AddInput("image", gld::ElementType::kFloat32, {1, 64, 64, 3});
    // Stem: 3x3 stride 2, 3 -> 16 channels.
    GLD_ASSIGN_OR_RETURN(int stem, Conv("stem", x, 32, 3, 16, 3, 2, Activation()));
    GLD_ASSIGN_OR_RETURN(stem, Swish("stem_swish", stem, {1, 32, 32, 16}));
    // Block 1 (residual): depthwise 3x3 + pointwise 16 -> 16, added to the stem.
    GLD_ASSIGN_OR_RETURN(int dw1, Depthwise("block1_dw", stem, 32, 16, 1, "RELU6"));
    GLD_ASSIGN_OR_RETURN(int pw1, Conv("block1_pw", dw1, 32, 16, 16, 1, 1, "NONE"));
    int add1 = b_.AddTensor("block1_add", gld::ElementType::kFloat32, {1, 32, 32, 16});
    GLD_RETURN_IF_ERROR(b_.AddOp("ADD", {pw1, stem}, {add1}, {{"fused_activation_function", "RELU6"}}));
    // Block 2: depthwise 3x3 stride 2 + pointwise 16 -> 32.
    GLD_ASSIGN_OR_RETURN(int dw2, Depthwise("block2_dw", add1, 16, 16, 2, "RELU6"));
    GLD_ASSIGN_OR_RETURN(int pw2, Conv("block2_pw", dw2, 16, 16, 32, 1, 1, Activation()));
    GLD_ASSIGN_OR_RETURN(pw2, Swish("block2_swish", pw2, {1, 16, 16, 32}));
    // Head: mean over H and W, fully connected to 10 classes, softmax.
    int axes = b_.AddConstantInt32("mean_axes", {2}, {1, 2});
    int pooled = b_.AddTensor("pooled", gld::ElementType::kFloat32, {1, 32});
    GLD_RETURN_IF_ERROR(b_.AddOp("MEAN", {pw2, axes}, {pooled}, {{"keep_dims", false}}));
    int fc_w = b_.AddConstantFloat("logits_weights", {10, 32}, Weights(10 * 32, 32));
    int fc_b = b_.AddConstantFloat("logits_bias", {10}, Weights(10, 32));
    int logits = b_.AddTensor("logits", gld::ElementType::kFloat32, {1, 10});
    GLD_RETURN_IF_ERROR(b_.AddOp("FULLY_CONNECTED", {pooled, fc_w, fc_b}, {logits}));
    int probs = b_.AddTensor("probabilities", gld::ElementType::kFloat32, {1, 10});
    GLD_RETURN_IF_ERROR(b_.AddOp("SOFTMAX", {logits}, {probs}, {{"beta", 1.0f}}));
    b_.SetOutputs({probs});
    gld::BuildOptions options;
    options.description = swish_ ? "gldelegate demo model with the SwishBeta custom op (gld_make_model --kind=custom_op)"
                                 : "gldelegate demo model (gld_make_model --kind=demo)";
    return b_.Finish(options);
  }

 private:
  const char* Activation() const { return swish_ ? "NONE" : "RELU6"; }

  // SwishBeta (no custom options: beta 1) after `in`, when swish_.
  gld::StatusOr<int> Swish(const std::string& name, int in, std::vector<int> shape) {
    if (!swish_) return in;
    int y = b_.AddTensor(name, gld::ElementType::kFloat32, std::move(shape));
    GLD_RETURN_IF_ERROR(b_.AddCustomOp("SwishBeta", {in}, {y}));
    return y;
  }

  std::vector<float> Weights(size_t n, int fan_in) {
    std::vector<float> w = gld::UniformPm1(seed_, stream_, n);
    const float scale = 1.0f / std::sqrt(static_cast<float>(fan_in));
    for (float& x : w) x *= scale;
    ++stream_;
    return w;
  }

  gld::StatusOr<int> Conv(const std::string& name, int in, int out_size, int cin, int cout, int k, int stride,
                          const char* act) {
    int w = b_.AddConstantFloat(name + "_weights", {cout, k, k, cin}, Weights(size_t(cout) * k * k * cin, k * k * cin));
    int bias = b_.AddConstantFloat(name + "_bias", {cout}, Weights(cout, k * k * cin));
    int y = b_.AddTensor(name, gld::ElementType::kFloat32, {1, out_size, out_size, cout});
    GLD_RETURN_IF_ERROR(b_.AddOp("CONV_2D", {in, w, bias}, {y},
                                 {{"padding", "SAME"}, {"stride_w", stride}, {"stride_h", stride},
                                  {"fused_activation_function", act}}));
    return y;
  }

  gld::StatusOr<int> Depthwise(const std::string& name, int in, int out_size, int channels, int stride,
                               const char* act) {
    int w = b_.AddConstantFloat(name + "_weights", {1, 3, 3, channels}, Weights(size_t(9) * channels, 9));
    int bias = b_.AddConstantFloat(name + "_bias", {channels}, Weights(channels, 9));
    int y = b_.AddTensor(name, gld::ElementType::kFloat32, {1, out_size, out_size, channels});
    GLD_RETURN_IF_ERROR(b_.AddOp("DEPTHWISE_CONV_2D", {in, w, bias}, {y},
                                 {{"padding", "SAME"}, {"stride_w", stride}, {"stride_h", stride},
                                  {"depth_multiplier", 1}, {"fused_activation_function", act}}));
    return y;
  }

  gld::ModelBuilder b_;
  uint64_t seed_;
  bool swish_ = false;
  uint64_t stream_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  gld::tools::EscapeStandardStreams();  // model-supplied names reach the terminal escaped
  CLI::App app("Writes gldelegate's demo model (a small MobileNet-like float network).", kTool);
  std::string out, kind = "demo";
  uint64_t seed = 1;
  app.add_option("--out", out, "the .tflite file to write")->required();
  app.add_option("--kind", kind,
                 "which model: demo, mediapipe_transforms, or custom_op (the demo with the SwishBeta custom op "
                 "of examples/custom_op, for --custom_ops)")
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the weights")->capture_default_str();
  if (auto code = gld::tools::ParseFlags(app, argc, argv)) return *code;
  if (kind != "demo" && kind != "mediapipe_transforms" && kind != "custom_op") {
    std::cerr << kTool << ": error: unknown --kind '" << kind << "' (expected demo, mediapipe_transforms or custom_op)\n";
    return 2;
  }
  auto bytes = kind == "mediapipe_transforms" ? gld::MediaPipeTransformModel(256, 192)
                                              : DemoBuilder(seed, kind == "custom_op").Build();
  if (!bytes.ok()) return gld::tools::Fail(kTool, bytes.status());
  FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr) return gld::tools::Fail(kTool, "cannot create '" + out + "'");
  size_t written = std::fwrite(bytes->data(), 1, bytes->size(), f);
  bool ok = written == bytes->size() && std::fclose(f) == 0;
  if (!ok) return gld::tools::Fail(kTool, "cannot write " + std::to_string(bytes->size()) + " bytes to '" + out + "'");
  std::cout << "wrote " << out << " (" << bytes->size() << " bytes)\n";
  return 0;
}
