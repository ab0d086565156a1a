// gld_run: runs a .tflite model once on inputs from .npy files or seeded
// random values, prints each output's shape and statistics, optionally writes
// the outputs as .npy files. The first SIGINT or SIGTERM cancels the invoke
// (exit 128 + the signal, naming where it stopped); a second kills.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "common/flags.h"
#include "common/interrupt.h"
#include "common/printable.h"
#include "common/progress.h"
#include "common/tensor_io.h"
#include "common/tensors.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"

namespace {

constexpr char kTool[] = "gld_run";

struct InputSpec {
  std::string name;
  std::string file;
};

// "NAME=FILE.npy": the tensor name, or an input index, before the first '='.
gld::StatusOr<InputSpec> ParseInputSpec(const std::string& spec) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return gld::InvalidArgumentError("--input expects NAME=FILE.npy, got '" + spec + "'");
  }
  return InputSpec{spec.substr(0, eq), spec.substr(eq + 1)};
}

int Run(const std::string& graph, const gld::Options& options, const std::vector<std::string>& input_specs,
        uint64_t seed, const std::string& output_dir, const std::string& signature) {
  gld::tools::InstallStopHandlers();
  auto model = gld::Model::FromFile(graph);
  if (!model.ok()) return gld::tools::Fail(kTool, model.status());
  auto created = gld::tools::CreateWithProgress(**model, options, signature);
  if (!created.ok()) return gld::tools::Fail(kTool, created.status());
  gld::Interpreter& interp = **created;
  const gld::tools::CancelOnStop cancel_on_stop(interp);
  std::cout << interp.report().placement_line << "\n";

  std::map<int, std::string> files;
  for (const std::string& spec : input_specs) {
    auto parsed = ParseInputSpec(spec);
    if (!parsed.ok()) return gld::tools::Fail(kTool, parsed.status());
    auto index = gld::tools::FindInputIndex(interp.inputs(), parsed->name, "--input", (*model)->signatures());
    if (!index.ok()) return gld::tools::Fail(kTool, index.status());
    files[*index] = parsed->file;
  }
  for (size_t i = 0; i < interp.inputs().size(); ++i) {
    const gld::TensorInfo& info = interp.inputs()[i];
    std::vector<uint8_t> data;
    auto it = files.find(static_cast<int>(i));
    if (it != files.end()) {
      auto loaded = gld::tools::LoadInputNpy(info, it->second);
      if (!loaded.ok()) return gld::tools::Fail(kTool, loaded.status());
      data = std::move(loaded).value();
      std::cout << "input " << i << " " << gld::tools::DescribeTensor(info) << " from " << it->second << "\n";
    } else {
      auto made = gld::tools::MakeRandomInput(info, seed, static_cast<int>(i));
      if (!made.ok()) return gld::tools::Fail(kTool, made.status());
      data = std::move(made).value();
      std::cout << "input " << i << " " << gld::tools::DescribeTensor(info) << " random (seed " << seed << ")\n";
    }
    gld::Status s = interp.SetInput(static_cast<int>(i), data.data(), data.size());
    if (!s.ok()) return gld::tools::Fail(kTool, s);
  }

  std::cout << std::flush;  // what was printed is seen while the invoke runs
  auto start = std::chrono::steady_clock::now();
  // A signal before the invoke began is honoured too (Cancel ends only a
  // running invoke).
  gld::Status s = gld::tools::StopRequested() ? gld::CancelledError("invoke cancelled before it began") : interp.Invoke();
  auto end = std::chrono::steady_clock::now();
  if (!s.ok() && gld::tools::StopRequested()) {  // the signal cancelled it
    const int sig = gld::tools::StopSignal();
    std::cerr << kTool << ": interrupted by " << gld::tools::SignalName(sig) << ": " << s.message() << "\n";
    return 128 + sig;
  }
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  std::printf("invoke: %.3f ms\n", std::chrono::duration<double, std::milli>(end - start).count());

  if (!output_dir.empty()) {
    s = gld::tools::MakeOutputDir(output_dir, "--output_dir");
    if (!s.ok()) return gld::tools::Fail(kTool, s.message());
  }
  for (size_t i = 0; i < interp.outputs().size(); ++i) {
    const gld::TensorInfo& info = interp.outputs()[i];
    auto read = gld::tools::ReadOutput(interp, static_cast<int>(i));
    if (!read.ok()) return gld::tools::Fail(kTool, read.status());
    const gld::NpyArray& a = *read;
    std::cout << "output " << i << " " << gld::tools::DescribeTensor(info);
    auto stats = gld::tools::ComputeStats(info.type, a.data.data(), a.data.size());
    if (stats.ok()) {
      std::printf(" min=%.6g max=%.6g mean=%.6g", stats->min, stats->max, stats->mean);
      if (stats->nan) std::printf(" nan=%zu", stats->nan);
    }
    std::cout << "\n";
    if (!output_dir.empty()) {
      std::string path = gld::tools::OutputNpyPath(output_dir, static_cast<int>(i), info);
      s = gld::WriteNpy(path, a);
      if (!s.ok()) return gld::tools::Fail(kTool, s);
      std::cout << "  wrote " << path << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gld::tools::EscapeStandardStreams();  // model-supplied names reach the terminal escaped
  CLI::App app("Runs a .tflite model once and prints its outputs' shapes and statistics.", kTool);
  std::string graph, output_dir;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  gld::tools::BackendFlags backend;
  app.add_option("--graph", graph, "the .tflite model")->required();
  gld::tools::AddBackendFlags(app, backend, true, true);
  gld::tools::AddCacheFlags(app, backend);
  app.add_option("--input", inputs,
                 "NAME=FILE.npy (NAME: input tensor name, its signature name, or index; repeatable); other inputs are random");
  app.add_option("--seed", seed,
                 "seed of the random inputs: floats uniform in [-1, 1), integers in [0, 4), bools 0/1 "
                 "(splitmix64, same values on every machine)")
      ->capture_default_str();
  app.add_option("--output_dir", output_dir, "write output i as DIR/<i>_<name>.npy");
  if (auto code = gld::tools::ParseFlags(app, argc, argv)) return *code;
  auto options = gld::tools::MakeOptions(backend);
  if (!options.ok()) {
    std::cerr << kTool << ": error: " << options.status().message() << "\n";
    return 2;
  }
  return Run(graph, *options, inputs, seed, output_dir, backend.signature);
}
