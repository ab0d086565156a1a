// gld_run: runs a .tflite model once on inputs from .npy files or seeded
// random values, prints each output's shape and statistics, optionally writes
// the outputs as .npy files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "common/flags.h"
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

gld::StatusOr<int> FindInput(const gld::Interpreter& interp, const std::string& name) {
  const auto& inputs = interp.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == name) return static_cast<int>(i);
  }
  bool digits = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  if (digits && name.size() < 6 && std::stoul(name) < inputs.size()) return static_cast<int>(std::stoul(name));
  std::string names;
  for (const auto& in : inputs) names += (names.empty() ? "'" : ", '") + in.name + "'";
  return gld::NotFoundError("--input: the model has no input named '" + name + "' (inputs: " + names + ")");
}

gld::StatusOr<std::vector<uint8_t>> LoadInput(const gld::TensorInfo& info, const std::string& file) {
  GLD_ASSIGN_OR_RETURN(gld::NpyArray a, gld::ReadNpy(file));
  if (a.type != info.type) {
    return gld::InvalidArgumentError("'" + file + "' holds " + gld::ElementTypeName(a.type) + ", input " +
                                     gld::tools::DescribeTensor(info) + " needs " + gld::ElementTypeName(info.type));
  }
  if (a.shape != info.shape) {
    return gld::InvalidArgumentError("'" + file + "' has shape " + gld::tools::FormatShape(a.shape) + ", input " +
                                     gld::tools::DescribeTensor(info) + " needs " +
                                     gld::tools::FormatShape(info.shape));
  }
  return std::move(a.data);
}

int Run(const std::string& graph, const gld::Options& options, const std::vector<std::string>& input_specs,
        uint64_t seed, const std::string& output_dir) {
  auto model = gld::Model::FromFile(graph);
  if (!model.ok()) return gld::tools::Fail(kTool, model.status());
  auto created = gld::Interpreter::Create(**model, options);
  if (!created.ok()) return gld::tools::Fail(kTool, created.status());
  gld::Interpreter& interp = **created;
  std::cout << interp.report().placement_line << "\n";

  std::map<int, std::string> files;
  for (const std::string& spec : input_specs) {
    auto parsed = ParseInputSpec(spec);
    if (!parsed.ok()) return gld::tools::Fail(kTool, parsed.status());
    auto index = FindInput(interp, parsed->name);
    if (!index.ok()) return gld::tools::Fail(kTool, index.status());
    files[*index] = parsed->file;
  }
  for (size_t i = 0; i < interp.inputs().size(); ++i) {
    const gld::TensorInfo& info = interp.inputs()[i];
    std::vector<uint8_t> data;
    auto it = files.find(static_cast<int>(i));
    if (it != files.end()) {
      auto loaded = LoadInput(info, it->second);
      if (!loaded.ok()) return gld::tools::Fail(kTool, loaded.status());
      data = std::move(loaded).value();
      std::cout << "input " << i << " " << gld::tools::DescribeTensor(info) << " from " << it->second << "\n";
    } else {
      data = gld::tools::MakeRandomInput(info, seed, static_cast<int>(i));
      std::cout << "input " << i << " " << gld::tools::DescribeTensor(info) << " random (seed " << seed << ")\n";
    }
    gld::Status s = interp.SetInput(static_cast<int>(i), data.data(), data.size());
    if (!s.ok()) return gld::tools::Fail(kTool, s);
  }

  auto start = std::chrono::steady_clock::now();
  gld::Status s = interp.Invoke();
  auto end = std::chrono::steady_clock::now();
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  std::printf("invoke: %.3f ms\n", std::chrono::duration<double, std::milli>(end - start).count());

  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) return gld::tools::Fail(kTool, "cannot create --output_dir '" + output_dir + "': " + ec.message());
  }
  for (size_t i = 0; i < interp.outputs().size(); ++i) {
    const gld::TensorInfo& info = interp.outputs()[i];
    gld::NpyArray a;
    a.type = info.type;
    a.shape = info.shape;
    a.data.resize(info.bytes);
    s = interp.GetOutput(static_cast<int>(i), a.data.data(), a.data.size());
    if (!s.ok()) return gld::tools::Fail(kTool, s);
    std::cout << "output " << i << " " << gld::tools::DescribeTensor(info);
    auto stats = gld::tools::ComputeStats(info.type, a.data.data(), a.data.size());
    if (stats.ok()) {
      std::printf(" min=%.6g max=%.6g mean=%.6g", stats->min, stats->max, stats->mean);
      if (stats->nan) std::printf(" nan=%zu", stats->nan);
    }
    std::cout << "\n";
    if (!output_dir.empty()) {
      std::string path = output_dir + "/" + std::to_string(i) + "_" + gld::tools::SanitizeName(info.name) + ".npy";
      s = gld::WriteNpy(path, a);
      if (!s.ok()) return gld::tools::Fail(kTool, s);
      std::cout << "  wrote " << path << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Runs a .tflite model once and prints its outputs' shapes and statistics.", kTool);
  std::string graph, output_dir;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  gld::tools::BackendFlags backend;
  app.add_option("--graph", graph, "the .tflite model")->required();
  gld::tools::AddBackendFlags(app, backend, true, true);
  app.add_option("--input", inputs,
                 "NAME=FILE.npy (NAME: input name or index; repeatable); other inputs are random");
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
  return Run(graph, *options, inputs, seed, output_dir);
}
