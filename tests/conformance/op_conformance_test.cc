// Per-op conformance: every case in tests/data/ops/<op>__<variant>/ (a small
// .tflite model, its stored inputs and LiteRT's outputs, made by
// tools/reference/make_op_cases.py with LiteRT's reference kernels) runs on our
// CPU backend, and each output is compared with LiteRT's:
//   float outputs   max|ours - ref| / max|ref| <= 1e-5 (1e-4 for the
//                   transcendental ops in kTranscendentalOps)
//   other outputs   (int, bool, quantized) equal element for element
//   int8 / uint8 outputs of cases whose manifest holds outputs_default (the
//                   int8 op cases): against LiteRT's default kernels
//                   (XNNPACK's delegate where it takes the node, else the
//                   builtin kernels), as the integer kernels reproduce them:
//                   at least 99% equal and none more than one step apart;
//                   the reference kernels' agreement is printed only; and
//                   every node of such a case must run on integers
// A stateful case (variable tensors of the recurrent ops, resource
// variables) lists further invokes in its manifest's "steps"; they run on the
// same Interpreter and are compared the same way, so the state one invoke
// leaves for the next is LiteRT's.
// A case whose op has no CPU kernel fails like any other wrong result. To
// mark ops as known missing, list them in kKnownUnimplementedOps: their cases
// are skipped, and fail as soon as they pass, so the list only shrinks.
// Running the binary directly prints a per-op summary at the end.
// The ops of kGlCheckedOps also run on the GL backend (every node on the GPU)
// and are compared with LiteRT's outputs: fp32 at 1e-4, fp16 storage at 1e-2
// of the reference's largest magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "model/tflite_ops.h"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kExactTolerance = 1e-5;
constexpr double kIntegerEqualFraction = 0.99;
constexpr double kIntegerMaxSteps = 1;
constexpr double kTranscendentalTolerance = 1e-4;

// Ops whose results go through exp/log/pow/trig/tanh (or erf, for GELU), which
// libm implementations round differently in the last bits; everything else is
// + - * / sqrt, comparisons and data movement.
const std::set<std::string> kTranscendentalOps = {
    "COS",  "ELU",      "EXP",   "GELU",        "LOCAL_RESPONSE_NORMALIZATION",
    "LOG",  "LOG_SOFTMAX", "LOGISTIC", "POW", "RSQRT", "SIN", "SOFTMAX", "TANH",
    // the recurrent ops' gates (sigmoid, tanh)
    "LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM", "BIDIRECTIONAL_SEQUENCE_LSTM", "RNN", "UNIDIRECTIONAL_SEQUENCE_RNN",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    // soft suppression scales scores by exp(-0.5 iou^2 / sigma)
    "NON_MAX_SUPPRESSION_V5",
};

// Ops known to have no CPU kernel yet. Their cases are skipped (and fail once
// they pass). Keep this list short and empty it as kernels land.
const std::set<std::string> kKnownUnimplementedOps = {};

// Every builtin op of the op table (graph/op_list.inc, elementwise_ops.inc)
// must have at least two cases; MediaPipe's custom ops and an app's (the
// CUSTOM row) are tested by their own suites.
std::vector<std::string> RequiredOps() {
  std::vector<std::string> ops;
  for (OpType op : AllOpTypes()) {
    int32_t code = 0;
    if (op != OpType::kCustom && tflite_ops::BuiltinFromOpType(op, &code)) ops.push_back(OpTypeName(op));
  }
  return ops;
}

// Ops whose GL kernels are checked against LiteRT's outputs here, on every
// case of theirs (GlBackendMatchesLiteRT).
const std::set<std::string> kGlCheckedOps = {
    "BATCH_MATMUL", "GATHER",      "SELECT",      "SELECT_V2",   "LESS",        "LESS_EQUAL", "GREATER",
    "GREATER_EQUAL", "EQUAL",      "NOT_EQUAL",   "LOGICAL_AND", "LOGICAL_OR",  "LOGICAL_NOT", "CAST",
    "LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM", "REVERSE_V2", "GATHER_ND", "EMBEDDING_LOOKUP", "BROADCAST_TO",
    "LOG_SOFTMAX", "L2_NORMALIZATION", "FLOOR_DIV", "FLOOR_MOD", "CONV_2D", "REDUCE_ALL", "REDUCE_ANY",
    "STABLEHLO_SCATTER"};
// And these cases of other ops: converter graphs a pass turns into one of the
// library's own GL ops (fuse_layer_norm); PyTorch's GroupNorm, MEAN over
// (2, 3) of [1, G, C/G, H*W] rows, alone and between TRANSPOSEs (issue 46).
const std::set<std::string> kGlCheckedCases = {
    "mean__tf_layer_norm",          "mean__tf_layer_norm_no_offset",  "mean__groupnorm_rows_keepdims",
    "mean__groupnorm_rows_axes_3_2", "mean__groupnorm_rows_2_groups",  "mean__groupnorm_rows_drop",
    "mean__groupnorm_rows_large",
    "mean__groupnorm_transposed",   "mean__groupnorm_transposed_2_groups"};
// Their cases the GL backend leaves (partly) to the CPU, on purpose: integer
// data (the GPU holds int32 only as indices or a CAST's input), int64
// outputs, SELECT's row-picking rank-1 condition. They still run and match.
const std::set<std::string> kGlPartlyCpuCases = {
    "cast__float_to_int32", "cast__int64_to_int32", "equal__int32", "greater__int32", "greater_equal__int32",
    "less__int32", "less_equal__int32", "not_equal__int32", "gather__int32_params", "select__rank1_condition",
    "broadcast_to__4d_int32", "floor_div__int32", "floor_mod__int32",
    // LSTM variants the GL cell does not compute (peephole, projection, layer
    // normalisation): the support query refuses them with the reason
    // (tests/gl/codegen/recurrent_test.cc).
    "lstm__cifg_layer_norm", "lstm__peephole_projection_clip", "unidirectional_sequence_lstm__cifg_layer_norm_projection",
    "unidirectional_sequence_lstm__cifg_peephole", "unidirectional_sequence_lstm__layer_norm",
    "unidirectional_sequence_lstm__peephole_projection_clip",
    // More values per output than llvmpipe lets one invocation loop over.
    "mean__groupnorm_rows_large"};
constexpr double kGlFp32Tolerance = 1e-4;
constexpr double kGlFp16Tolerance = 1e-2;

struct CaseResult {
  std::string op;
  bool passed = false;
  std::string failure;  // first reason, when not passed
  std::vector<std::string> measures;
};

// One invoke of a case: its inputs' bytes and the files of LiteRT's outputs.
struct Invocation {
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::string> outputs;
};

// The invocations of a case: the first (its inputs from the reference
// files, its outputs output_<i>.npy), then the manifest's "steps" (stateful
// cases: further invokes on the same Interpreter, whose state carries over).
StatusOr<std::vector<Invocation>> ReadInvocations(const std::string& dir, const nlohmann::json& manifest,
                                                  const Interpreter& it) {
  std::vector<Invocation> invocations(1);
  for (size_t i = 0; i < it.inputs().size(); ++i) {
    GLD_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                         LoadReferenceInput(dir, manifest, static_cast<int>(i), it.inputs()[i]));
    invocations[0].inputs.push_back(std::move(bytes));
  }
  size_t stored = 0;
  while (FileExists(dir + "/output_" + std::to_string(stored) + ".npy")) ++stored;
  for (size_t i = 0; i < stored; ++i) invocations[0].outputs.push_back(dir + "/output_" + std::to_string(i) + ".npy");
  if (manifest.contains("steps")) {
    for (const auto& step : manifest["steps"]) {
      Invocation inv;
      for (const auto& f : step.at("inputs")) {
        GLD_ASSIGN_OR_RETURN(auto array, ReadNpy(dir + "/" + f.get<std::string>()));
        inv.inputs.push_back(std::move(array.data));
      }
      for (const auto& f : step.at("outputs")) inv.outputs.push_back(dir + "/" + f.get<std::string>());
      invocations.push_back(std::move(inv));
    }
  }
  return invocations;
}

// One output against its reference: the measure line and whether it passes,
// or `error` (the case fails with it at once).
struct OutputCheck {
  std::string error;
  std::string line;
  bool ok = false;
};

OutputCheck Failed(std::string error) {
  OutputCheck check;
  check.error = std::move(error);
  return check;
}

// An int8/uint8 output of the integer kernels against LiteRT's default
// kernels' (`default_file`): most elements equal, the rest a step or so off.
OutputCheck CheckIntegerOutput(const std::string& label, const std::vector<double>& ours,
                               const std::string& default_file, const Comparison& c) {
  OutputCheck check;
  auto def = ReadNpy(default_file);
  if (!def.ok()) return Failed(def.status().ToString());
  auto def_d = ToDoubles(def->data.data(), def->type, def->num_elements());
  if (!def_d.ok()) return Failed(def_d.status().ToString());
  if (def_d->size() != ours.size()) return Failed(label + ": default outputs hold another element count");
  size_t equal = 0;
  double max_steps = 0;
  for (size_t e = 0; e < def_d->size(); ++e) {
    equal += ours[e] == (*def_d)[e] ? 1 : 0;
    max_steps = std::max(max_steps, std::abs(ours[e] - (*def_d)[e]));
  }
  const double fraction = def_d->empty() ? 1.0 : static_cast<double>(equal) / static_cast<double>(def_d->size());
  check.ok = fraction >= kIntegerEqualFraction && max_steps <= kIntegerMaxSteps;
  char line[320];
  std::snprintf(line, sizeof(line),
                "%s: vs LiteRT default kernels %.2f%% of %zu equal, max %.0f steps (limits %.0f%%, %.0f); "
                "vs reference kernels %zu differ",
                label.c_str(), 100.0 * fraction, def_d->size(), max_steps, 100.0 * kIntegerEqualFraction,
                kIntegerMaxSteps, c.mismatches);
  check.line = line;
  return check;
}

// Output `i` of `it` after an invoke against the reference file `ref_file`
// (floats within `tolerance`, other types exact), or, with `default_file`
// and an int8/uint8 output, against LiteRT's default kernels.
OutputCheck CheckOutput(Interpreter& it, size_t i, const std::string& step, const std::string& ref_file,
                        const std::string* default_file, double tolerance) {
  const TensorInfo& info = it.outputs()[i];
  const std::string label = step + "output " + std::to_string(i) + " " + ShapeString(info.shape);
  auto ref = ReadNpy(ref_file);
  if (!ref.ok()) return Failed(ref.status().ToString());
  if (ref->shape != info.shape) {
    return Failed(label + ": shape differs from the reference " + ShapeString(ref->shape));
  }
  if (ref->type != info.type) {
    return Failed(label + ": type " + ElementTypeName(info.type) + ", reference " + ElementTypeName(ref->type));
  }
  std::vector<uint8_t> ours(info.bytes);
  const Status got = it.GetOutput(static_cast<int>(i), ours.data(), ours.size());
  if (!got.ok()) return Failed("get " + label + ": " + got.ToString());
  auto ours_d = ToDoubles(ours.data(), info.type, ElementCount(info.shape));
  auto ref_d = ToDoubles(ref->data.data(), ref->type, ref->num_elements());
  if (!ours_d.ok()) return Failed(ours_d.status().ToString());
  if (!ref_d.ok()) return Failed(ref_d.status().ToString());
  const Comparison c = Compare(*ours_d, *ref_d);
  const bool is_float = info.type == ElementType::kFloat32 || info.type == ElementType::kFloat64;
  if (default_file != nullptr && (info.type == ElementType::kInt8 || info.type == ElementType::kUInt8)) {
    return CheckIntegerOutput(label, *ours_d, *default_file, c);
  }
  OutputCheck check;
  char line[320];
  if (is_float) {
    check.ok = c.relative <= tolerance;
    std::snprintf(line, sizeof(line), "%s: max|ours-ref|/max|ref| = %.3e (limit %.0e; worst at %zu: ours %.9g ref %.9g)",
                  label.c_str(), c.relative, tolerance, c.worst_index, c.worst_ours, c.worst_ref);
  } else {
    check.ok = c.mismatches == 0;
    std::snprintf(line, sizeof(line), "%s: %zu of %zu elements differ (exact; first worst at %zu: ours %.9g ref %.9g)",
                  label.c_str(), c.mismatches, ref_d->size(), c.worst_index, c.worst_ours, c.worst_ref);
  }
  check.line = line;
  return check;
}

// Everything one case needs, without gtest assertions, so that known
// unimplemented ops can be told apart from passing ones.
CaseResult RunCase(const std::string& name, Backend backend = Backend::kCpu,
                   Precision precision = Precision::kFp32) {
  CaseResult result;
  const std::string dir = OpCasesDir() + "/" + name;
  auto manifest = ReadManifest(dir);
  if (!manifest.ok()) {
    result.failure = manifest.status().ToString();
    return result;
  }
  auto op = ManifestString(*manifest, "op");
  if (!op.ok()) {
    result.failure = op.status().ToString();
    return result;
  }
  result.op = *op;
  double tolerance = kTranscendentalOps.count(result.op) ? kTranscendentalTolerance : kExactTolerance;
  if (backend == Backend::kGl) tolerance = precision == Precision::kFp32 ? kGlFp32Tolerance : kGlFp16Tolerance;

  auto fail = [&](const std::string& why) {
    result.failure = why;
    return result;
  };
  auto model = Model::FromFile(dir + "/model.tflite");
  if (!model.ok()) return fail("load: " + model.status().ToString());
  Options options;
  options.backend = backend;
  options.precision = precision;
  auto interp = Interpreter::Create(**model, options);
  if (!interp.ok()) return fail("create: " + interp.status().ToString());
  Interpreter& it = **interp;
  if (backend == Backend::kGl && !kGlPartlyCpuCases.count(name) &&
      it.report().gpu_nodes != it.report().total_nodes) {
    return fail("not every node runs on the GPU: " + it.report().placement_line);
  }

  auto invocations = ReadInvocations(dir, *manifest, it);
  if (!invocations.ok()) return fail(invocations.status().ToString());

  // LiteRT's default kernels' outputs of the first invoke (int8 op cases).
  std::vector<std::string> defaults;
  if (manifest->contains("outputs_default")) {
    for (const auto& f : (*manifest)["outputs_default"]) defaults.push_back(dir + "/" + f.get<std::string>());
  }

  // The int8 op cases are the integer kernels': none of their nodes may keep
  // the float view (the integer_view pass's line says how many do).
  if (!defaults.empty() && backend == Backend::kCpu) {
    for (const std::string& line : it.report().pass_log) {
      if (line.rfind("integer_view: ", 0) == 0 && line.find(", 0 in the float view") == std::string::npos) {
        return fail("not every node runs on integers: " + line);
      }
    }
  }

  bool all_ok = true;
  for (size_t k = 0; k < invocations->size(); ++k) {
    const Invocation& inv = (*invocations)[k];
    const std::string step = k == 0 ? "" : "step " + std::to_string(k) + " ";
    for (size_t i = 0; i < it.inputs().size() && i < inv.inputs.size(); ++i) {
      const Status set = it.SetInput(static_cast<int>(i), inv.inputs[i].data(), inv.inputs[i].size());
      if (!set.ok()) return fail(step + "set input " + std::to_string(i) + ": " + set.ToString());
    }
    const Status invoked = it.Invoke();
    if (!invoked.ok()) return fail(step + "invoke: " + invoked.ToString());
    if (inv.outputs.size() != it.outputs().size())
      return fail(step + "model has " + std::to_string(it.outputs().size()) + " outputs, reference " +
                  std::to_string(inv.outputs.size()));
    for (size_t i = 0; i < it.outputs().size(); ++i) {
      const bool integer_kernel = backend == Backend::kCpu && k == 0 && i < defaults.size();
      const OutputCheck check =
          CheckOutput(it, i, step, inv.outputs[i], integer_kernel ? &defaults[i] : nullptr, tolerance);
      if (!check.error.empty()) return fail(check.error);
      result.measures.push_back(check.line);
      if (!check.ok && all_ok) result.failure = check.line;
      all_ok = all_ok && check.ok;
    }
  }
  result.passed = all_ok;
  return result;
}

// Per-op tally, printed when the binary ends.
std::map<std::string, std::pair<int, int>>& Tally() {  // op -> (passed, run)
  static std::map<std::string, std::pair<int, int>> tally;
  return tally;
}
std::vector<std::string>& FailedCases() {
  static std::vector<std::string> failed;
  return failed;
}

class SummaryEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (Tally().empty()) return;
    int passed = 0, run = 0;
    std::string failing_ops;
    for (const auto& [op, counts] : Tally()) {
      passed += counts.first;
      run += counts.second;
      if (counts.first != counts.second) failing_ops += " " + op;
    }
    std::printf("[ summary  ] conformance: %d of %d cases pass; %zu ops run, failing ops:%s\n", passed, run,
                Tally().size(), failing_ops.empty() ? " none" : failing_ops.c_str());
    for (const std::string& f : FailedCases()) std::printf("[ failed   ] %s\n", f.c_str());
  }
};
[[maybe_unused]] const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new SummaryEnvironment);

class OpConformanceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OpConformanceTest, CpuBackendMatchesLiteRT) {
  const std::string name = GetParam();
  const CaseResult r = RunCase(name);
  for (const std::string& m : r.measures) std::printf("[ measure  ] %s %s\n", name.c_str(), m.c_str());
  auto& counts = Tally()[r.op.empty() ? name : r.op];
  counts.second += 1;
  counts.first += r.passed ? 1 : 0;
  if (!r.passed) FailedCases().push_back(name + ": " + r.failure);

  if (kKnownUnimplementedOps.count(r.op)) {
    if (r.passed) {
      FAIL() << name << " passes: remove " << r.op << " from kKnownUnimplementedOps";
    }
    GTEST_SKIP() << name << ": " << r.op << " is listed as known unimplemented (" << r.failure << ")";
  }
  EXPECT_TRUE(r.passed) << name << " (" << r.op << "): " << r.failure;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpConformanceTest, ::testing::ValuesIn(ListOpCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The cases of kGlCheckedOps and kGlCheckedCases on the GL backend, in fp32 and fp16 storage.
std::vector<std::string> GlCheckedCases() {
  std::vector<std::string> cases;
  for (const std::string& name : ListOpCases()) {
    auto manifest = ReadManifest(OpCasesDir() + "/" + name);
    if (!manifest.ok()) continue;
    auto op = ManifestString(*manifest, "op");
    // The int8 op cases (outputs_default) are the CPU's integer kernels';
    // the GL backend's float view of integer graphs is held to its own rule
    // by the networks test.
    if (manifest->contains("outputs_default")) continue;
    if ((op.ok() && kGlCheckedOps.count(*op)) || kGlCheckedCases.count(name)) cases.push_back(name);
  }
  return cases;
}

class OpConformanceGlTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OpConformanceGlTest, GlBackendMatchesLiteRT) {
  if (const char* v = std::getenv("GLD_SKIP_GL_TESTS"); v != nullptr && *v != '\0' && std::string(v) != "0") {
    GTEST_SKIP() << "GLD_SKIP_GL_TESTS is set";
  }
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
    const CaseResult r = RunCase(GetParam(), Backend::kGl, p);
    for (const std::string& m : r.measures) std::printf("[ measure  ] gl %s %s\n", GetParam().c_str(), m.c_str());
    EXPECT_TRUE(r.passed) << GetParam() << " (" << r.op << ") on GL, " << PrecisionName(p) << ": " << r.failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpConformanceGlTest, ::testing::ValuesIn(GlCheckedCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The stored cases cover every op of the list, at least twice each.
TEST(OpConformanceCoverage, EveryRequiredOpHasTwoCases) {
  const std::vector<std::string> cases = ListOpCases();
  ASSERT_FALSE(cases.empty()) << "no cases in " << OpCasesDir() << " (run tools/reference/make_op_cases.py)";
  std::map<std::string, int> per_op;
  for (const std::string& name : cases) {
    auto manifest = ReadManifest(OpCasesDir() + "/" + name);
    ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
    auto op = ManifestString(*manifest, "op");
    ASSERT_TRUE(op.ok()) << name << ": " << op.status().ToString();
    per_op[*op] += 1;
  }
  const std::vector<std::string> required = RequiredOps();
  EXPECT_GE(required.size(), 90u) << "the op table lost its builtin ops";
  for (const std::string& op : required) EXPECT_GE(per_op[op], 2) << "op " << op;
  for (const std::string& op : kKnownUnimplementedOps)
    EXPECT_TRUE(per_op.count(op)) << "kKnownUnimplementedOps names " << op << ", which has no case";
}

}  // namespace
}  // namespace gld::testing
