// Whole networks made by tools/reference/make_networks.py with seeded random
// weights, with LiteRT's outputs (BUILTIN_REF resolver: the reference
// kernels) on seeded inputs, stored in tests/data/networks/<name>_<variant>/:
// vision CNNs (a MobileNetV2 cut after block 12, an EfficientNet-lite-style
// network) float32 and integer; sequence and stateful models (Keras 3 LSTM /
// GRU / SimpleRNN as WHILE loops, tf_keras LSTM as
// UNIDIRECTIONAL_SEQUENCE_LSTM, bidirectional LSTM, resource variables, IF,
// keyword spotting, a free batch dimension); transformers (ViT, DeiT, BERT,
// a Whisper-style block); networks written in PyTorch and converted with
// litert-torch (pt_*: tools/reference/torch_networks.py). Every folder with a
// manifest.json is a test.
//
// A manifest's "steps" are further invokes on the same Interpreter (state
// carries over; a step may resize the inputs first), each compared like the
// first.
//
// Float networks: max|ours - ref| / max|ref| <= 1e-4 on the CPU backend; the
// GL backend against the CPU backend within 1e-4 (fp32) and 1e-2 (fp16).
// Integer networks run on integers on the CPU backend
// (transforms/integer_view.cc): at least 99% of the integer output values
// equal to LiteRT's default kernels' (XNNPACK: the manifest's
// outputs_default) and none more than one step apart, whatever nodes keep
// the float view (the integer_view pass says how many; printed). The GL
// backend runs them in float view (transforms/quantized_float_view.cc): at
// least 99% of the integer output elements within one quantization step of
// the nearer of LiteRT's reference and default kernels in fp32, and in fp16 within two steps of GL fp32
// (float outputs: 2e-2 of the CPU backend's). Float outputs of quantized models
// (float I/O, int16x8, dynamic range): within twice the spread between
// LiteRT's own two kernel sets (at least 1e-4) of the nearer of them. Every
// measured figure is printed as a "[ measure  ]" line.
#include <gtest/gtest.h>

#include <algorithm>
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
// GL fp16 on quantized models (float view): integer outputs within two steps
// of GL fp32, float outputs within 2e-2 of the CPU backend's.
constexpr double kFp16QuantizedSteps = 2;
constexpr double kFp16QuantizedTolerance = 2e-2;

std::string NetworksDir() { return std::string(GLD_TEST_DATA_DIR) + "/networks"; }
std::string NetworkDir(const std::string& name) { return NetworksDir() + "/" + name; }

std::vector<std::string> NetworkNames() { return ListCaseDirs(NetworksDir()); }

bool IsInteger(ElementType t) { return t == ElementType::kInt8 || t == ElementType::kUInt8; }

// One invoke of a network's reference: its input and LiteRT's output files
// (the first from the manifest's inputs/outputs, later ones from "steps"),
// and the input shapes set before it when it resizes.
struct Invocation {
  std::vector<std::string> inputs;  // .npy paths; empty: regenerate the first's
  std::vector<std::string> outputs;
  std::vector<std::string> default_outputs;  // LiteRT's default kernels, integer models
  std::vector<std::vector<int>> resize;
};

struct Network {
  std::string dir;
  nlohmann::json manifest;
  std::shared_ptr<const Model> model;
  std::vector<Invocation> invocations;
};

std::vector<std::string> Paths(const std::string& dir, const nlohmann::json& files) {
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(dir + "/" + f.get<std::string>());
  return paths;
}

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
  Invocation first;
  for (size_t i = 0; i < net->model->outputs().size(); ++i) {
    first.outputs.push_back(net->dir + "/output_" + std::to_string(i) + ".npy");
  }
  if (net->manifest.contains("outputs_default")) first.default_outputs = Paths(net->dir, net->manifest["outputs_default"]);
  net->invocations.push_back(first);
  if (net->manifest.contains("steps")) {
    for (const auto& step : net->manifest["steps"]) {
      Invocation inv;
      inv.inputs = Paths(net->dir, step.at("inputs"));
      inv.outputs = Paths(net->dir, step.at("outputs"));
      if (!step.at("resize").is_null()) inv.resize = step.at("resize").get<std::vector<std::vector<int>>>();
      net->invocations.push_back(std::move(inv));
    }
  }
  return ::testing::AssertionSuccess();
}

StatusOr<std::vector<uint8_t>> ReadInput(const std::string& path, const TensorInfo& info) {
  GLD_ASSIGN_OR_RETURN(NpyArray array, ReadNpy(path));
  if (array.type != info.type || array.shape != info.shape) {
    return InvalidArgumentError(path + ": " + ElementTypeName(array.type) + ShapeString(array.shape) +
                                ", the model wants " + ElementTypeName(info.type) + ShapeString(info.shape));
  }
  return std::move(array.data);
}

// The outputs of each invocation of `net`, in order, on one Interpreter made
// with `options`, as doubles (the integer values for integer outputs).
using Outputs = std::vector<std::vector<double>>;
::testing::AssertionResult RunNetwork(const Network& net, const Options& options, std::vector<Outputs>* runs,
                                      InterpreterReport* report = nullptr, std::vector<std::string>* pass_log = nullptr) {
  auto interp = Interpreter::Create(*net.model, options);
  if (!interp.ok()) return ::testing::AssertionFailure() << interp.status().ToString();
  Interpreter& it = **interp;
  runs->clear();
  for (size_t k = 0; k < net.invocations.size(); ++k) {
    const Invocation& inv = net.invocations[k];
    if (!inv.resize.empty()) {
      const Status resized = it.ResizeInputs(inv.resize);
      if (!resized.ok()) return ::testing::AssertionFailure() << "invocation " << k << ": " << resized.ToString();
    }
    for (size_t i = 0; i < it.inputs().size(); ++i) {
      auto bytes = inv.inputs.empty()
                       ? LoadReferenceInput(net.dir, net.manifest, static_cast<int>(i), it.inputs()[i])
                       : ReadInput(inv.inputs.at(i), it.inputs()[i]);
      if (!bytes.ok()) return ::testing::AssertionFailure() << bytes.status().ToString();
      const Status set = it.SetInput(static_cast<int>(i), bytes->data(), bytes->size());
      if (!set.ok()) return ::testing::AssertionFailure() << set.ToString();
    }
    const Status invoked = it.Invoke();
    if (!invoked.ok()) return ::testing::AssertionFailure() << "invocation " << k << ": " << invoked.ToString();
    Outputs outs;
    for (size_t i = 0; i < it.outputs().size(); ++i) {
      const TensorInfo& info = it.outputs()[i];
      std::vector<uint8_t> bytes(info.bytes);
      const Status got = it.GetOutput(static_cast<int>(i), bytes.data(), bytes.size());
      if (!got.ok()) return ::testing::AssertionFailure() << got.ToString();
      auto d = ToDoubles(bytes.data(), info.type, ElementCount(info.shape));
      if (!d.ok()) return ::testing::AssertionFailure() << d.status().ToString();
      outs.push_back(std::move(d).value());
    }
    runs->push_back(std::move(outs));
  }
  if (report != nullptr) *report = it.report();
  if (pass_log != nullptr) *pass_log = it.report().pass_log;
  return ::testing::AssertionSuccess();
}

// The nodes of the CPU's integer form that run in the float view, from the
// integer_view pass's line ("27 node(s) run on integers, 20 in the float
// view; ..."); 0 without that line (no quantized activations).
int FloatViewNodes(const std::vector<std::string>& pass_log) {
  for (const std::string& line : pass_log) {
    if (line.rfind("integer_view: ", 0) != 0) continue;
    const size_t end = line.find(" in the float view");
    const size_t start = line.rfind(", ", end);
    if (end == std::string::npos || start == std::string::npos) return -1;
    return std::stoi(line.substr(start + 2, end - start - 2));
  }
  return 0;
}

// LiteRT's outputs in `files`, checked against the model's outputs (their
// element counts too unless `resized`: then the outputs' shapes follow the
// inputs').
::testing::AssertionResult LoadOutputs(const std::vector<std::string>& files, const std::vector<TensorInfo>& infos,
                                       Outputs* outs, bool resized = false) {
  outs->clear();
  if (files.size() != infos.size()) {
    return ::testing::AssertionFailure() << files.size() << " reference outputs, the model has " << infos.size();
  }
  for (size_t i = 0; i < files.size(); ++i) {
    auto ref = ReadNpy(files[i]);
    if (!ref.ok()) return ::testing::AssertionFailure() << ref.status().ToString();
    // A dynamic output (-1 in its signature: WHERE's count) has its size
    // from the run; the run's output is compared element by element.
    const bool dynamic = std::find(infos[i].shape_signature.begin(), infos[i].shape_signature.end(), -1) !=
                         infos[i].shape_signature.end();
    if (ref->type != infos[i].type ||
        (!resized && !dynamic && static_cast<size_t>(ref->num_elements()) != ElementCount(infos[i].shape))) {
      return ::testing::AssertionFailure() << files[i] << ": " << ElementTypeName(ref->type)
                                           << ShapeString(ref->shape) << ", model output "
                                           << ElementTypeName(infos[i].type) << ShapeString(infos[i].shape);
    }
    auto d = ToDoubles(ref->data.data(), ref->type, static_cast<size_t>(ref->num_elements()));
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
// prints the measured figure. Integer outputs: 99% within one quantization
// step, and (`max_steps` > 0) none further than `max_steps`.
void ExpectAgreement(const std::string& what, const TensorInfo& info, const std::vector<double>& ours,
                     const std::vector<double>& ref, double float_tolerance, double max_steps = 0) {
  ASSERT_EQ(ours.size(), ref.size()) << what;
  if (IsInteger(info.type)) {
    const StepAgreement a = CompareSteps(ours, ref);
    std::printf("[ measure  ] %s %s %s: %.2f%% of %zu elements within one quantization step (%.2f%% exact), "
                "max %.0f steps\n",
                what.c_str(), info.name.c_str(), ElementTypeName(info.type), 100.0 * a.within_one, a.count,
                100.0 * static_cast<double>(a.exact) / static_cast<double>(a.count), a.max_steps);
    if (max_steps > 0) {
      EXPECT_LE(a.max_steps, max_steps) << what << " " << info.name;
      return;
    }
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
    for (const Invocation& inv : net_.invocations) {
      ref_.emplace_back();
      ASSERT_TRUE(LoadOutputs(inv.outputs, net_.model->outputs(), &ref_.back(), !inv.resize.empty()));
      defaults_.emplace_back();
      if (!inv.default_outputs.empty()) {
        ASSERT_TRUE(LoadOutputs(inv.default_outputs, infos(), &defaults_.back()));
      }
    }
    Options options;
    options.backend = Backend::kCpu;
    std::vector<std::string> pass_log;
    ASSERT_TRUE(RunNetwork(net_, options, &cpu_, nullptr, &pass_log));
    cpu_float_view_nodes_ = FloatViewNodes(pass_log);
    ASSERT_GE(cpu_float_view_nodes_, 0);
    ASSERT_EQ(cpu_.size(), ref_.size());
  }

  // "vit_tiny_float32 cpu", "... step 2" for the later invocations.
  std::string What(const std::string& backend, size_t k) const {
    return GetParam() + " " + backend + (k == 0 ? "" : " step " + std::to_string(k));
  }

  const std::vector<TensorInfo>& infos() const { return net_.model->outputs(); }

  // The tolerance of float output i of invocation k: 1e-4 of the output's
  // range; for a quantized model's float output (float I/O, 16-bit
  // activations, dynamic range) twice the spread between LiteRT's own two
  // kernel sets (reference and default), where larger.
  double FloatTolerance(size_t k, size_t i) const {
    if (defaults_[k].empty()) return kFp32Tolerance;
    return std::max(kFp32Tolerance, 2 * Compare(defaults_[k][i], ref_[k][i]).relative);
  }
  // The LiteRT output a float output of a quantized model is held to: the
  // nearer of LiteRT's two kernel sets (the CPU backend computes a
  // dynamic-range model's layers in float32 on dequantized weights, which
  // neither of LiteRT's hybrid kernels does).
  const std::vector<double>& NearestLiteRT(size_t k, size_t i, const std::vector<double>& ours) const {
    if (defaults_[k].empty()) return ref_[k][i];
    return Compare(ours, defaults_[k][i]).relative < Compare(ours, ref_[k][i]).relative ? defaults_[k][i]
                                                                                          : ref_[k][i];
  }
  bool Quantized() const { return net_.manifest.value("variant", "float32") != "float32"; }

  Network net_;
  // LiteRT's outputs per invocation (reference kernels; default kernels
  // where the manifest has them, else empty), ours on the CPU backend.
  std::vector<Outputs> ref_, defaults_, cpu_;
  int cpu_float_view_nodes_ = 0;
};

TEST_P(NetworkTest, CpuBackendMatchesLiteRT) {
  for (size_t k = 0; k < ref_.size(); ++k) {
    for (size_t i = 0; i < ref_[k].size(); ++i) {
      if (defaults_[k].empty() || !IsInteger(infos()[i].type)) {
        const bool nearer_default = &NearestLiteRT(k, i, cpu_[k][i]) != &ref_[k][i];
        ExpectAgreement(What("cpu", k) + (nearer_default ? " vs LiteRT default kernels" : " vs LiteRT"), infos()[i],
                        cpu_[k][i], NearestLiteRT(k, i, cpu_[k][i]), FloatTolerance(k, i));
        continue;
      }
      // The CPU's integer kernels requantize in float, as LiteRT's default
      // kernels do; its reference kernels in fixed point, a step or two
      // apart on some values (printed only).
      const StepAgreement r = CompareSteps(cpu_[k][i], ref_[k][i]);
      std::printf("[ measure  ] %s vs LiteRT reference kernels %s: %.2f%% of %zu elements equal, max %.0f steps\n",
                  What("cpu", k).c_str(), infos()[i].name.c_str(),
                  100.0 * static_cast<double>(r.exact) / static_cast<double>(r.count), r.count, r.max_steps);
      const StepAgreement a = CompareSteps(cpu_[k][i], defaults_[k][i]);
      const double equal = static_cast<double>(a.exact) / static_cast<double>(a.count);
      std::printf("[ measure  ] %s vs LiteRT default kernels %s: %.2f%% of %zu elements equal, max %.0f steps "
                  "(%d node(s) in the float view)\n",
                  What("cpu", k).c_str(), infos()[i].name.c_str(), 100.0 * equal, a.count, a.max_steps,
                  cpu_float_view_nodes_);
      // The recorded default-kernel integers are LiteRT's on x86 (XNNPACK's
      // x86 kernels), which ours equal there. Elsewhere (aarch64 under qemu:
      // XNNPACK's ARM kernels, other integers, as LiteRT's own aarch64 wheel
      // gives on qemu's default CPU) only within one step.
#if defined(__x86_64__) || defined(__i386__)
      EXPECT_GE(equal, kWithinOneStepFraction) << What("cpu", k) << " " << infos()[i].name;
#else
      EXPECT_GE(a.within_one, kWithinOneStepFraction) << What("cpu", k) << " " << infos()[i].name;
#endif
      EXPECT_LE(a.max_steps, 1) << What("cpu", k) << " " << infos()[i].name;
    }
  }
}

// The integer steps split across threads (the GEMM's row blocks and
// channel panels, output rows, XNNPACK's tiles), each output value computed
// alike whatever its chunk: a quantized network gives the same values on 2
// threads as on 1, bit for bit.
TEST_P(NetworkTest, QuantizedNetworkGivesTheSameValuesOnTwoThreads) {
  if (!Quantized()) GTEST_SKIP() << "a float32 network";
  Options options;
  options.backend = Backend::kCpu;
  options.num_threads = 2;
  std::vector<Outputs> two;
  ASSERT_TRUE(RunNetwork(net_, options, &two));
  ASSERT_EQ(two.size(), cpu_.size());
  for (size_t k = 0; k < two.size(); ++k) {
    ASSERT_EQ(two[k].size(), cpu_[k].size());
    for (size_t i = 0; i < two[k].size(); ++i) {
      ASSERT_EQ(two[k][i].size(), cpu_[k][i].size());
      size_t differ = 0, first = 0;
      for (size_t e = 0; e < two[k][i].size(); ++e) {
        if (two[k][i][e] == cpu_[k][i][e]) continue;
        if (differ++ == 0) first = e;
      }
      EXPECT_EQ(differ, 0u) << What("cpu", k) << " output " << infos()[i].name << ": first at " << first;
    }
  }
}

// LiteRT's shape_signature of each input, where the manifest records it.
TEST_P(NetworkTest, ShapeSignaturesAreLiteRTs) {
  if (!net_.manifest.contains("shape_signatures")) GTEST_SKIP() << "the manifest records no shape_signatures";
  const auto want = net_.manifest["shape_signatures"].get<std::vector<std::vector<int>>>();
  ASSERT_EQ(want.size(), net_.model->inputs().size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(net_.model->inputs()[i].shape_signature, want[i]) << i;
}

// GL placement of the PyTorch networks: segments and CPU steps.
struct PyTorchPlacement {
  const char* name;
  int segments, cpu_steps;
};
constexpr PyTorchPlacement kPyTorchPlacements[] = {
    // One segment since the rank passes (transpose_to_rank4, slice_to_rank4,
    // fully_connected_to_rank4, merge_reshapes); before them ViT 5 segments
    // (16 CPU steps), Swin 10 (33), MobileViT 3 (8), ShuffleNetV2 4 (9).
    {"pt_vit_float32", 1, 0},
    {"pt_swin_float32", 1, 0},
    {"pt_mobilevit_float32", 1, 0},
    {"pt_shufflenet_float32", 1, 0},
    {"pt_mobilenet_v3_float32", 1, 0},
    {"pt_resnet_float32", 1, 0},
    {"pt_encoder_float32", 1, 0},
    {"pt_audio_float32", 1, 0},
    // RegNetY: one segment since grouped CONV_2D runs on GL (before: 5
    // segments, its four grouped convolutions on the CPU).
    {"pt_regnet_float32", 1, 0},
    // grid_sample: one segment since its int32 index math (CAST, SELECT_V2,
    // LESS, ADD, SELECT, CONCATENATION) runs on GL held as floats
    // (gl/codegen/int32_need.h) and concat_gather_nd_to_rank4 brings its
    // rank-5 gather indices to rank 4 (before: 9 segments, 57 CPU steps).
    // Three CPU steps stay at the input edge: the rank-5 BROADCAST_TO of the
    // constant grid and its two RESHAPEs.
    {"pt_pixel_grid_float32", 1, 3},
    // PT2E-quantized (torch_networks.py): the static int8 forms' QUANTIZE /
    // DEQUANTIZE and int8 kernels, and the dynamic-range forms' int8 weights
    // (dequantized at load on GL), each in one segment.
    {"pt_resnet_int8", 1, 0},
    {"pt_resnet_dynamic_range", 1, 0},
    {"pt_mobilenet_v3_int8", 1, 0},
    {"pt_mobilenet_v3_dynamic_range", 1, 0},
};

TEST_P(NetworkTest, GlBackendMatches) {
  GLD_REQUIRE_GL(env);
  (void)env;
  // fp16_mediump: on llvmpipe mediump computes in fp32 (fp16 storage only).
  std::vector<Outputs> gl_fp32;
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump}) {
    const bool fp32 = p == Precision::kFp32;
    Options options;
    options.backend = Backend::kGl;
    options.precision = p;
    std::vector<Outputs> gl;
    InterpreterReport report;
    ASSERT_TRUE(RunNetwork(net_, options, &gl, &report)) << PrecisionName(p);
    std::printf("[ measure  ] %s gl %s %s, %d CPU step(s)\n", GetParam().c_str(), PrecisionName(p),
                report.placement_line.c_str(), report.cpu_steps);
    // The transformers run as one GL segment; BERT's int32 id wrap too, in
    // every precision (its 500 ids fit fp16; docs/design/gl_backend.md "int32
    // on the GPU"; before: one CPU step at the input edge).
    for (const auto& [name, cpu_steps] : {std::pair<const char*, int>{"bert_tiny_float32", 0},
                                          {"vit_tiny_float32", 0}, {"deit_tiny_float32", 0},
                                          {"whisper_block_float32", 0}}) {
      if (GetParam() != name) continue;
      EXPECT_EQ(report.segments, 1) << report.placement_line;
      EXPECT_EQ(report.cpu_steps, cpu_steps) << PrecisionName(p);
    }
    // The PyTorch networks (tools/reference/torch_networks.py): GL segments
    // and CPU steps as they are today; each rank / kernel change lowers them.
    for (const PyTorchPlacement& want : kPyTorchPlacements) {
      if (GetParam() != want.name) continue;
      EXPECT_EQ(report.segments, want.segments) << PrecisionName(p) << " " << report.placement_line;
      EXPECT_EQ(report.cpu_steps, want.cpu_steps) << PrecisionName(p) << " " << report.placement_line;
    }
    if (fp32) gl_fp32 = gl;
    for (size_t k = 0; k < gl.size(); ++k) {
      for (size_t i = 0; i < cpu_[k].size(); ++i) {
        // Integer outputs are held to LiteRT in fp32; fp16 rounds activations
        // off the quantization grid, so there GL fp32 (the same float view;
        // the CPU runs integers) is the reference.
        const std::string what = What(std::string("gl ") + PrecisionName(p), k);
        if (IsInteger(infos()[i].type)) {
          if (fp32) {
            // The nearer of LiteRT's two kernel sets: where its reference and
            // default kernels part (an int8 LOGISTIC's fixed point against
            // XNNPACK's float table), the float view may side with either.
            const bool has_default = k < defaults_.size() && i < defaults_[k].size();
            const bool to_default = has_default && CompareSteps(gl[k][i], defaults_[k][i]).within_one >
                                                       CompareSteps(gl[k][i], ref_[k][i]).within_one;
            ExpectAgreement(what + (to_default ? " vs LiteRT default kernels" : " vs LiteRT"), infos()[i], gl[k][i],
                            to_default ? defaults_[k][i] : ref_[k][i], kFp32Tolerance);
          } else {
            // fp16 storage moves a float-view activation off the grid, and
            // a value that rounds the other way at one layer can move the
            // next layers' by a step: two steps at most.
            ExpectAgreement(what + " vs gl fp32", infos()[i], gl[k][i], gl_fp32[k][i], kFp16Tolerance,
                            kFp16QuantizedSteps);
          }
          continue;
        }
        // A quantized model's float output in fp16: two steps of its last
        // quantized tensor can be 2% of the output's range.
        ExpectAgreement(what + " vs cpu", infos()[i], gl[k][i], cpu_[k][i],
                        fp32 ? FloatTolerance(k, i) : (Quantized() ? kFp16QuantizedTolerance : kFp16Tolerance));
      }
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
