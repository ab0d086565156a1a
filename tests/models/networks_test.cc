// Whole networks made by tools/reference/make_networks.py (a MobileNetV2 cut
// after block 12 and an EfficientNet-lite-style network, seeded random
// weights and BatchNorm statistics), each converted float32 and full-integer
// (int8 input/output; effnet_lite also uint8), with LiteRT's outputs
// (BUILTIN_REF resolver: the reference kernels) on seeded inputs, stored in
// tests/data/networks/<name>/.
//
// Float networks: max|ours - ref| / max|ref| <= 1e-4 on the CPU backend; the
// GL backend against the CPU backend within 1e-4 (fp32) and 1e-2 (fp16).
// Integer networks run on integers on the CPU backend
// (transforms/integer_view.cc): at least 99% of the output values equal to
// LiteRT's default kernels' (XNNPACK; output_<i>_default.npy, listed as the
// manifest's "outputs_default") and none more than one step apart. The GL
// backend runs them in float view (transforms/quantized_float_view.cc): at
// least 99% of the output elements within one quantization step of LiteRT's
// reference kernels in fp32, and fp16 within the same rule of GL fp32. Every
// measured figure is printed as a "[ measure  ]" line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gl/gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "model/tflite_reader.h"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kFp32Tolerance = 1e-4;
constexpr double kFp16Tolerance = 1e-2;
constexpr double kWithinOneStepFraction = 0.99;

const std::vector<std::string>& NetworkNames() {
  static const std::vector<std::string> names = {"mobilenet_v2_float32", "mobilenet_v2_int8", "effnet_lite_float32",
                                                 "effnet_lite_int8", "effnet_lite_uint8"};
  return names;
}

std::string NetworkDir(const std::string& name) { return std::string(GLD_TEST_DATA_DIR) + "/networks/" + name; }

bool IsInteger(ElementType t) { return t == ElementType::kInt8 || t == ElementType::kUInt8; }

struct Network {
  std::string dir;
  nlohmann::json manifest;
  std::shared_ptr<const Model> model;
};

::testing::AssertionResult LoadNetwork(const std::string& name, Network* net) {
  net->dir = NetworkDir(name);
  auto manifest = ReadManifest(net->dir);
  if (!manifest.ok()) {
    return ::testing::AssertionFailure() << manifest.status().ToString()
                                         << " (regenerate with tools/reference/make_networks.py)";
  }
  net->manifest = *manifest;
  auto model = Model::FromFile(net->dir + "/model.tflite");
  if (!model.ok()) return ::testing::AssertionFailure() << model.status().ToString();
  net->model = std::move(model).value();
  return ::testing::AssertionSuccess();
}

// Runs `net` with `options` on the stored inputs; the outputs as doubles (the
// integer values for integer outputs).
::testing::AssertionResult RunNetwork(const Network& net, const Options& options, std::vector<std::vector<double>>* outs,
                               std::string* placement = nullptr) {
  auto interp = Interpreter::Create(*net.model, options);
  if (!interp.ok()) return ::testing::AssertionFailure() << interp.status().ToString();
  Interpreter& it = **interp;
  for (size_t i = 0; i < it.inputs().size(); ++i) {
    auto bytes = LoadReferenceInput(net.dir, net.manifest, static_cast<int>(i), it.inputs()[i]);
    if (!bytes.ok()) return ::testing::AssertionFailure() << bytes.status().ToString();
    const Status set = it.SetInput(static_cast<int>(i), bytes->data(), bytes->size());
    if (!set.ok()) return ::testing::AssertionFailure() << set.ToString();
  }
  const Status invoked = it.Invoke();
  if (!invoked.ok()) return ::testing::AssertionFailure() << invoked.ToString();
  outs->clear();
  for (size_t i = 0; i < it.outputs().size(); ++i) {
    const TensorInfo& info = it.outputs()[i];
    std::vector<uint8_t> bytes(info.bytes);
    const Status got = it.GetOutput(static_cast<int>(i), bytes.data(), bytes.size());
    if (!got.ok()) return ::testing::AssertionFailure() << got.ToString();
    auto d = ToDoubles(bytes.data(), info.type, ElementCount(info.shape));
    if (!d.ok()) return ::testing::AssertionFailure() << d.status().ToString();
    outs->push_back(std::move(d).value());
  }
  if (placement != nullptr) *placement = it.report().placement_line;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult LoadReferenceOutputs(const Network& net, std::vector<std::vector<double>>* outs,
                                                std::vector<TensorInfo>* infos) {
  *infos = net.model->outputs();
  outs->clear();
  for (size_t i = 0; i < infos->size(); ++i) {
    const TensorInfo& info = (*infos)[i];
    auto ref = ReadNpy(net.dir + "/output_" + std::to_string(i) + ".npy");
    if (!ref.ok()) return ::testing::AssertionFailure() << ref.status().ToString();
    if (ref->shape != info.shape || ref->type != info.type) {
      return ::testing::AssertionFailure() << "output " << i << " (" << info.name << "): reference "
                                           << ElementTypeName(ref->type) << ShapeString(ref->shape) << ", model "
                                           << ElementTypeName(info.type) << ShapeString(info.shape);
    }
    auto d = ToDoubles(ref->data.data(), ref->type, ref->num_elements());
    if (!d.ok()) return ::testing::AssertionFailure() << d.status().ToString();
    outs->push_back(std::move(d).value());
  }
  return ::testing::AssertionSuccess();
}

// Integer outputs: the share of elements within one quantization step (one
// integer unit) of the reference, and the largest difference in steps.
struct StepAgreement {
  double within_one = 0;
  double max_steps = 0;
  size_t exact = 0, count = 0;
};

StepAgreement CompareSteps(const std::vector<double>& ours, const std::vector<double>& ref) {
  StepAgreement a;
  size_t within = 0;
  for (size_t i = 0; i < ref.size() && i < ours.size(); ++i) {
    const double d = std::fabs(ours[i] - ref[i]);
    if (d <= 1) ++within;
    if (d == 0) ++a.exact;
    a.max_steps = std::max(a.max_steps, d);
  }
  a.count = ref.size();
  a.within_one = ref.empty() ? 1.0 : static_cast<double>(within) / static_cast<double>(ref.size());
  return a;
}

// Checks one output against a reference with the rule for its type and
// prints the measured figure.
void ExpectAgreement(const std::string& what, const TensorInfo& info, const std::vector<double>& ours,
                     const std::vector<double>& ref, double float_tolerance) {
  ASSERT_EQ(ours.size(), ref.size()) << what;
  if (IsInteger(info.type)) {
    const StepAgreement a = CompareSteps(ours, ref);
    std::printf("[ measure  ] %s %s %s: %.2f%% of %zu elements within one quantization step (%.2f%% exact), "
                "max %.0f steps\n",
                what.c_str(), info.name.c_str(), ElementTypeName(info.type), 100.0 * a.within_one, a.count,
                100.0 * static_cast<double>(a.exact) / static_cast<double>(a.count), a.max_steps);
    EXPECT_GE(a.within_one, kWithinOneStepFraction) << what << " " << info.name << ": max " << a.max_steps
                                                    << " steps";
    return;
  }
  const Comparison c = Compare(ours, ref);
  std::printf("[ measure  ] %s %s: max|ours-ref|/max|ref| = %.3e (max|ref| %.4g)\n", what.c_str(),
              info.name.c_str(), c.relative, c.max_abs_ref);
  EXPECT_LE(c.relative, float_tolerance) << what << " " << info.name << ": worst at flat index " << c.worst_index
                                         << " ours " << c.worst_ours << " ref " << c.worst_ref;
}

// Loads the network, LiteRT's outputs and our CPU backend's outputs.
class NetworkTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoadNetwork(GetParam(), &net_));
    ASSERT_TRUE(LoadReferenceOutputs(net_, &ref_, &infos_));
    Options options;
    options.backend = Backend::kCpu;
    ASSERT_TRUE(RunNetwork(net_, options, &cpu_));
    ASSERT_EQ(cpu_.size(), ref_.size());
  }

  Network net_;
  std::vector<std::vector<double>> ref_, cpu_;
  std::vector<TensorInfo> infos_;
};

TEST_P(NetworkTest, CpuBackendMatchesLiteRT) {
  for (size_t i = 0; i < ref_.size(); ++i) {
    if (IsInteger(infos_[i].type)) {
      // LiteRT's reference kernels requantize in fixed point, its default
      // ones (and ours) in float: a step or two apart on some values.
      const StepAgreement a = CompareSteps(cpu_[i], ref_[i]);
      std::printf("[ measure  ] %s cpu vs LiteRT reference kernels %s: %.2f%% exact, max %.0f steps\n",
                  GetParam().c_str(), infos_[i].name.c_str(), 100.0 * static_cast<double>(a.exact) / a.count,
                  a.max_steps);
      continue;
    }
    ExpectAgreement(GetParam() + " cpu vs LiteRT", infos_[i], cpu_[i], ref_[i], kFp32Tolerance);
  }
}

// Integer outputs against LiteRT's default kernels: at least 99% equal, none
// more than one step apart.
TEST_P(NetworkTest, CpuBackendMatchesLiteRTDefaultKernels) {
  if (!net_.manifest.contains("outputs_default")) GTEST_SKIP() << GetParam() << ": no default-kernel outputs";
  const auto& files = net_.manifest["outputs_default"];
  ASSERT_EQ(files.size(), infos_.size());
  for (size_t i = 0; i < infos_.size(); ++i) {
    auto ref = ReadNpy(net_.dir + "/" + files[i].get<std::string>());
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    auto d = ToDoubles(ref->data.data(), ref->type, ref->num_elements());
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    if (!IsInteger(infos_[i].type)) continue;
    const StepAgreement a = CompareSteps(cpu_[i], *d);
    const double exact = static_cast<double>(a.exact) / static_cast<double>(a.count);
    std::printf("[ measure  ] %s cpu vs LiteRT default kernels %s: %.2f%% of %zu equal, max %.0f steps\n",
                GetParam().c_str(), infos_[i].name.c_str(), 100.0 * exact, a.count, a.max_steps);
    EXPECT_GE(exact, kWithinOneStepFraction) << GetParam() << " " << infos_[i].name;
    EXPECT_LE(a.max_steps, 1) << GetParam() << " " << infos_[i].name;
  }
}

TEST_P(NetworkTest, GlBackendMatches) {
  GLD_REQUIRE_GL(env);
  (void)env;
  // fp16_mediump: on llvmpipe mediump computes in fp32 (fp16 storage only).
  std::vector<std::vector<double>> gl_fp32;
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump}) {
    const bool fp32 = p == Precision::kFp32;
    Options options;
    options.backend = Backend::kGl;
    options.precision = p;
    std::vector<std::vector<double>> gl;
    std::string placement;
    ASSERT_TRUE(RunNetwork(net_, options, &gl, &placement)) << PrecisionName(p);
    std::printf("[ measure  ] %s gl %s %s\n", GetParam().c_str(), PrecisionName(p), placement.c_str());
    if (fp32) gl_fp32 = gl;
    for (size_t i = 0; i < cpu_.size(); ++i) {
      // Integer outputs are held to LiteRT in fp32; fp16 rounds activations
      // off the quantization grid, so there GL fp32 (the same float view;
      // the CPU runs integers) is the reference.
      if (IsInteger(infos_[i].type)) {
        if (fp32) {
          ExpectAgreement(GetParam() + " gl fp32 vs LiteRT", infos_[i], gl[i], ref_[i], kFp32Tolerance);
        } else {
          ExpectAgreement(GetParam() + " gl " + PrecisionName(p) + " vs gl fp32", infos_[i], gl[i], gl_fp32[i],
                          kFp16Tolerance);
        }
        continue;
      }
      ExpectAgreement(GetParam() + " gl " + PrecisionName(p) + " vs cpu", infos_[i], gl[i], cpu_[i],
                      fp32 ? kFp32Tolerance : kFp16Tolerance);
    }
  }
}

// The loader records the file's integer type of every quantized activation,
// which decides the grid once the tensor is a float view.
TEST(NetworkLoader, QuantizedActivationsKeepTheirStorageType) {
  struct Case {
    const char* name;
    DataType io_type;
  };
  for (const Case& c : {Case{"mobilenet_v2_int8", DataType::kInt8}, Case{"effnet_lite_uint8", DataType::kUInt8}}) {
    std::ifstream f(NetworkDir(c.name) + "/model.tflite", std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), {}};
    auto graph = ReadTfliteModel(bytes.data(), bytes.size());
    ASSERT_TRUE(graph.ok()) << c.name << ": " << graph.status().ToString();
    int quantized = 0;
    for (const Tensor& t : graph->tensors) {
      if (t.is_constant || t.quant.empty()) continue;
      ++quantized;
      EXPECT_EQ(t.quant.storage_type, t.type) << c.name << " tensor " << t.name;
    }
    EXPECT_GT(quantized, 20) << c.name;
    EXPECT_EQ(graph->tensors[static_cast<size_t>(graph->inputs[0])].quant.storage_type, c.io_type) << c.name;
    EXPECT_EQ(graph->tensors[static_cast<size_t>(graph->outputs[0])].quant.storage_type, c.io_type) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, NetworkTest, ::testing::ValuesIn(NetworkNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gld::testing
