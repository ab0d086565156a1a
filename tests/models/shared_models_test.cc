// The six shared MediaPipe models on our CPU backend, every output compared
// with LiteRT's.
//
// How the references were made (tests/data/models/<stem>/manifest.json says it
// too): tools/reference/make_all.py ran LiteRT (ai-edge-litert, op resolver
// BUILTIN_REF, i.e. the reference kernels without XNNPACK) on inputs uniform in
// [-1, 1) from the "splitmix64_pm1" rule, which reference_data.h regenerates
// here bit for bit (checked against the stored input_<i>_head.npy).
// selfie_segmentation.tflite holds MediaPipe's Convolution2DTransposeBias custom
// op, which stock LiteRT cannot run: its reference is LiteRT on a rewritten copy
// where tools/reference/replace_transpose_conv_bias.py replaced the op by an
// equivalent builtin TRANSPOSE_CONV (explicit output_shape, the same OHWI
// weights, the bias as 4th input); that rewrite is checked by the script's
// --self-test against a NumPy transcription of MediaPipe's kernel.
//
// Tolerance: max|ours - ref| / max|ref| <= 1e-4 per output (DESIGN.md, fp32).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "models/reference_data.h"
#include "common/model_paths.h"

namespace gld::testing {
namespace {

constexpr double kModelTolerance = 1e-4;

std::string Stem(const std::string& file) {
  const size_t dot = file.rfind(".tflite");
  return dot == std::string::npos ? file : file.substr(0, dot);
}

long FileSize(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return -1;
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fclose(f);
  return size;
}

class SharedModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModelTest, CpuBackendMatchesLiteRT) {
  const std::string file = GetParam();
  const std::string path = ModelPath(file);
  if (!FileExists(path)) GTEST_SKIP() << MissingModelsMessage() << " (missing " << file << ")";

  const std::string dir = std::string(GLD_TEST_DATA_DIR) + "/models/" + Stem(file);
  auto manifest = ReadManifest(dir);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString()
                             << " (regenerate with tools/reference/make_all.py)";
  auto expected_bytes = ManifestInt(*manifest, "model_bytes");
  ASSERT_TRUE(expected_bytes.ok()) << expected_bytes.status().ToString();
  ASSERT_EQ(FileSize(path), *expected_bytes)
      << path << " is not the file the references in " << dir
      << " were made from; run tools/reference/make_all.py";

  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options options;
  options.backend = Backend::kCpu;
  auto interp = Interpreter::Create(**model, options);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  Interpreter& it = **interp;

  for (size_t i = 0; i < it.inputs().size(); ++i) {
    const TensorInfo& info = it.inputs()[i];
    auto bytes = LoadReferenceInput(dir, *manifest, static_cast<int>(i), info);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    const Status set = it.SetInput(static_cast<int>(i), bytes->data(), bytes->size());
    ASSERT_TRUE(set.ok()) << set.ToString();
  }
  const Status invoked = it.Invoke();
  ASSERT_TRUE(invoked.ok()) << invoked.ToString();

  size_t stored_outputs = 0;
  while (FileExists(dir + "/output_" + std::to_string(stored_outputs) + ".npy")) ++stored_outputs;
  ASSERT_EQ(it.outputs().size(), stored_outputs) << "outputs in the model vs output_<i>.npy in " << dir;

  for (size_t i = 0; i < it.outputs().size(); ++i) {
    const TensorInfo& info = it.outputs()[i];
    auto ref = ReadNpy(dir + "/output_" + std::to_string(i) + ".npy");
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    ASSERT_EQ(ref->shape, info.shape) << "output " << i << " (" << info.name << "): reference "
                                      << ShapeString(ref->shape) << ", ours " << ShapeString(info.shape);
    ASSERT_EQ(ref->type, info.type) << "output " << i << " (" << info.name << ")";
    std::vector<uint8_t> ours(info.bytes);
    const Status got = it.GetOutput(static_cast<int>(i), ours.data(), ours.size());
    ASSERT_TRUE(got.ok()) << got.ToString();
    auto ours_d = ToDoubles(ours.data(), info.type, ElementCount(info.shape));
    auto ref_d = ToDoubles(ref->data.data(), ref->type, ref->num_elements());
    ASSERT_TRUE(ours_d.ok() && ref_d.ok());
    const Comparison c = Compare(*ours_d, *ref_d);
    std::printf("[ measure  ] %s output %zu %s %s: max|ours-ref|/max|ref| = %.3e (max|ref| %.4g, worst at %zu: "
                "ours %.7g ref %.7g)\n",
                file.c_str(), i, info.name.c_str(), ShapeString(info.shape).c_str(), c.relative, c.max_abs_ref,
                c.worst_index, c.worst_ours, c.worst_ref);
    RecordProperty("rel_error_output_" + std::to_string(i), std::to_string(c.relative));
    EXPECT_LE(c.relative, kModelTolerance)
        << file << " output " << i << " (" << info.name << "): worst at flat index " << c.worst_index
        << " ours " << c.worst_ours << " ref " << c.worst_ref;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedModelTest, ::testing::ValuesIn(SharedModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return Stem(info.param); });

}  // namespace
}  // namespace gld::testing
