// Hostile models: every mutant of tests/hostile/model_mutants.h, made at test
// time from each shared model, and each shared model fed NaN and infinity,
// runs through gld_run on the CPU and on the GL backend, under a 60 s timeout
// and an address-space limit. Each run must end in one of two ways:
//   ran          exit 0;
//   clean error  exit 1..123 and exactly one line on stderr.
// Anything else fails: a crash (a signal, exit > 128), a hang (the timeout's
// 124 or 137), or an error of several lines. When both backends ran, their
// outputs must agree (NaN where the other has NaN, the same infinities,
// finite values within 1e-3 of the output's largest finite magnitude): a
// disagreement is a wrong result. The table of the classes is printed at the
// end of each test; GLD_HOSTILE_VERBOSE=1 also prints every run's error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "common/model_paths.h"
#include "common/process_limits.h"
#include "common/special_values.h"
#include "common/tool_run.h"
#include "gldelegate/npy.hpp"
#include "hostile/model_mutants.h"
#include "models/reference_data.h"

#ifndef GLD_RUN_PATH
#define GLD_RUN_PATH ""
#endif

namespace gld::testing {
namespace {

namespace fs = std::filesystem;

// Room for the models' tensors and llvmpipe, not for a wild allocation.
// None under AddressSanitizer: its shadow memory is a reservation of
// terabytes, which any address-space limit refuses (the tool then aborts
// before main); there ASan's own allocator reports a wild allocation.
const char* MemoryLimit() { return UnderAddressSanitizer() ? "" : "ulimit -v 12000000;"; }
constexpr int kTimeoutSeconds = 60;
constexpr double kTolerance = 1e-3;

enum class Outcome { kRan, kCleanError, kMessyError, kCrash, kHang };

Outcome Classify(const ToolResult& r) {
  if (r.exit_code == 0) return Outcome::kRan;
  if (r.exit_code == 124 || r.exit_code == 137) return Outcome::kHang;
  if (r.exit_code < 0 || r.exit_code > 123) return Outcome::kCrash;
  return CountLines(r.err) == 1 ? Outcome::kCleanError : Outcome::kMessyError;
}

struct Tally {
  int cases = 0, runs = 0, ran = 0, clean = 0, messy = 0, crashes = 0, hangs = 0, wrong = 0;
};

// The float32 outputs gld_run wrote into `dir`, in file-name order.
std::vector<std::vector<float>> ReadOutputs(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".npy") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::vector<float>> outputs;
  for (const fs::path& f : files) {
    auto a = ReadNpy(f.string());
    std::vector<float> v;
    if (a.ok() && a->type == ElementType::kFloat32) {
      v.resize(a->data.size() / sizeof(float));
      if (!v.empty()) std::memcpy(v.data(), a->data.data(), v.size() * sizeof(float));  // an empty output: no data
    }
    outputs.push_back(std::move(v));
  }
  return outputs;
}

// "" when the two runs agree, else the first difference.
std::string CompareRuns(const fs::path& cpu_dir, const fs::path& gl_dir) {
  const auto cpu = ReadOutputs(cpu_dir), gl = ReadOutputs(gl_dir);
  if (cpu.size() != gl.size()) return "cpu wrote " + std::to_string(cpu.size()) + " outputs, gl " + std::to_string(gl.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (cpu[i].size() != gl[i].size()) return "output " + std::to_string(i) + " sizes differ";
    const std::string diff = CompareWithSpecialValues(cpu[i], gl[i], kTolerance);
    if (!diff.empty()) return "output " + std::to_string(i) + " " + diff + " (reference: cpu, ours: gl)";
  }
  return "";
}

// A parameter "op_<case>" names a control-flow op case (several subgraphs:
// tests/data/ops/<case>/model.tflite); others a shared model.
constexpr char kOpCasePrefix[] = "op_";

fs::path HostileModelPath(const std::string& name) {
  if (name.rfind(kOpCasePrefix, 0) == 0) {
    return fs::path(OpCasesDir()) / name.substr(sizeof(kOpCasePrefix) - 1) / "model.tflite";
  }
  return ModelPath(name);
}

class HostileModelsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (std::string(GLD_RUN_PATH).empty()) GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
    if (GetParam().rfind(kOpCasePrefix, 0) == 0) {
      if (!fs::exists(HostileModelPath(GetParam()))) GTEST_SKIP() << "no op case " << HostileModelPath(GetParam());
    } else if (!SharedModelsPresent()) {
      GTEST_SKIP() << MissingModelsMessage();
    }
    dir_ = FreshTestDir("gld_hostile_models");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
    PrintTable();
  }

  // Runs `model` on both backends with `extra` flags and records the outcome
  // under `kind`; failures are test failures naming `label`.
  void RunBoth(const std::string& kind, const std::string& label, const fs::path& model, const std::string& extra) {
    Tally& t = tallies_[kind];
    t.cases += 1;
    Outcome outcomes[2];
    const char* backends[2] = {"cpu", "gl"};
    for (int b = 0; b < 2; ++b) {
      const fs::path out = dir_ / backends[b];
      fs::remove_all(out);
      fs::create_directories(out);
      const std::string args = "--graph='" + model.string() + "' --backend=" + backends[b] + " --seed=1 --output_dir='" +
                               out.string() + "' --cache_dir='" + (dir_ / "cache").string() + "' --model_token=" +
                               GetParam() + " " + extra;
      const ToolResult r = RunTool(dir_, GLD_RUN_PATH, args, "", MemoryLimit(), kTimeoutSeconds);
      outcomes[b] = Classify(r);
      if (std::getenv("GLD_HOSTILE_VERBOSE") != nullptr) {
        std::printf("[ mutant   ] %s | %s | %s | exit %d | %s", kind.c_str(), label.c_str(), backends[b], r.exit_code,
                    r.err.empty() ? "\n" : r.err.c_str());
      }
      t.runs += 1;
      switch (outcomes[b]) {
        case Outcome::kRan: t.ran += 1; break;
        case Outcome::kCleanError: t.clean += 1; break;
        case Outcome::kMessyError: t.messy += 1; break;
        case Outcome::kCrash: t.crashes += 1; break;
        case Outcome::kHang: t.hangs += 1; break;
      }
      EXPECT_TRUE(outcomes[b] == Outcome::kRan || outcomes[b] == Outcome::kCleanError)
          << GetParam() << " " << kind << " (" << label << ") on " << backends[b] << ": exit " << r.exit_code
          << ", stderr:\n" << r.err;
    }
    if (outcomes[0] == Outcome::kRan && outcomes[1] == Outcome::kRan) {
      const std::string diff = CompareRuns(dir_ / "cpu", dir_ / "gl");
      if (!diff.empty()) t.wrong += 1;
      EXPECT_EQ(diff, "") << GetParam() << " " << kind << " (" << label << "): cpu and gl disagree";
    }
  }

  void PrintTable() const {
    if (tallies_.empty()) return;
    std::printf("[ hostile  ] %s: class | cases | runs | ran | clean errors | other errors | crashes | hangs | wrong results\n",
                GetParam().c_str());
    for (const auto& [kind, t] : tallies_) {
      std::printf("[ hostile  ] %s: %s | %d | %d | %d | %d | %d | %d | %d | %d\n", GetParam().c_str(), kind.c_str(),
                  t.cases, t.runs, t.ran, t.clean, t.messy, t.crashes, t.hangs, t.wrong);
    }
  }

  fs::path dir_;
  std::map<std::string, Tally> tallies_;
};

uint64_t SeedOf(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

TEST_P(HostileModelsTest, MutantsEndInACleanErrorOrAgreeingRuns) {
  std::ifstream in(HostileModelPath(GetParam()), std::ios::binary);
  const std::vector<uint8_t> model((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(model.empty());
  const std::vector<Mutant> mutants = MakeMutants(model, SeedOf(GetParam()));
  ASSERT_GE(mutants.size(), 30u);
  for (size_t i = 0; i < mutants.size(); ++i) {
    const fs::path path = dir_ / ("mutant_" + std::to_string(i) + ".tflite");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(mutants[i].bytes.data()), static_cast<std::streamsize>(mutants[i].bytes.size()));
    RunBoth(mutants[i].kind, mutants[i].label, path, "");
  }
}

// NaN, +inf or -inf in a few elements of the first input, the rest of it
// uniform in [0, 1) like an image.
TEST_P(HostileModelsTest, NanAndInfinityInputsGiveTheSameOnBothBackends) {
  const fs::path model = HostileModelPath(GetParam());
  auto loaded = Model::FromFile(model.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const TensorInfo& info = (*loaded)->inputs()[0];
  ASSERT_EQ(info.type, ElementType::kFloat32) << GetParam();
  const struct {
    const char* name;
    float value;
  } specials[] = {{"NaN", std::numeric_limits<float>::quiet_NaN()},
                  {"+inf", std::numeric_limits<float>::infinity()},
                  {"-inf", -std::numeric_limits<float>::infinity()}};
  for (const auto& special : specials) {
    NpyArray input;
    input.type = ElementType::kFloat32;
    input.shape = info.shape;
    std::vector<float> values = UniformPm1(11, 0, info.bytes / sizeof(float));
    for (float& v : values) v = 0.5f * (v + 1.f);
    for (size_t k = 1; k <= 4; ++k) values[values.size() * k / 5] = special.value;
    input.data.resize(info.bytes);
    std::memcpy(input.data.data(), values.data(), info.bytes);
    const fs::path file = dir_ / "poisoned.npy";
    ASSERT_TRUE(WriteNpy(file.string(), input).ok());
    RunBoth("NaN and infinity inputs", std::string("4 ") + special.name + " elements", model,
            "--input='0=" + file.string() + "'");
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, HostileModelsTest, ::testing::ValuesIn(SharedModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           return n;
                         });
// Models of several subgraphs (control flow, variables) whose loops do not
// depend on their inputs' values.
INSTANTIATE_TEST_SUITE_P(ControlFlowCases, HostileModelsTest,
                         ::testing::Values("op_while__counter_tanh", "op_while__if_in_body",
                                           "op_call_once__init_accumulator"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gld::testing
