// Helpers for the program cache tests: a small GPU model, temporary folders,
// and a log sink that counts the library's warnings.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"
#include "util/logging.h"

namespace gld::testing {

// y = RELU(x + c) * 2 on [1, h, w, c] float32, c = `add` everywhere: an
// edge conversion in, an ADD (RELU fused), a MUL, an edge conversion out.
inline std::vector<uint8_t> CacheTestModel(int h, int w, int c, float add) {
  ModelBuilder b;
  const std::vector<int> shape = {1, h, w, c};
  int x = b.AddInput("x", ElementType::kFloat32, shape);
  int k = b.AddConstantFloat("k", shape, std::vector<float>(static_cast<size_t>(h * w * c), add));
  int two = b.AddConstantFloat("two", {1}, {2.0f});
  int s = b.AddTensor("s", ElementType::kFloat32, shape);
  int y = b.AddTensor("y", ElementType::kFloat32, shape);
  Status st = b.AddOp("ADD", {x, k}, {s}, {{"fused_activation_function", "RELU"}});
  if (st.ok()) st = b.AddOp("MUL", {s, two}, {y});
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!st.ok() || !bytes.ok()) return {};
  return std::move(bytes).value();
}

// Runs `model` with x[i] = i / 8 - 1 and checks y against RELU(x + add) * 2
// computed here. Returns the report.
inline InterpreterReport RunAndCheck(const std::vector<uint8_t>& bytes, const Options& options, float add) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  auto interp = Interpreter::Create(**model, options);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (!interp.ok()) return {};
  const size_t n = (*interp)->inputs()[0].bytes / 4;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) / 8.0f - 1.0f;
  EXPECT_TRUE((*interp)->SetInput(0, x.data(), n * 4).ok());
  Status s = (*interp)->Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE((*interp)->GetOutput(0, y.data(), n * 4).ok());
  for (size_t i = 0; i < n; ++i) {
    const float want = std::max(x[i] + add, 0.0f) * 2.0f;
    EXPECT_NEAR(y[i], want, 1e-4f * 8) << "element " << i;
  }
  EXPECT_EQ((*interp)->report().backend, Backend::kGl);
  return (*interp)->report();
}

// A fresh folder under /tmp, removed with the object.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/gld_cache_test_XXXXXX";
    const char* p = mkdtemp(tmpl);
    path_ = p != nullptr ? p : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Entry files (*.gldc) directly in `dir`.
inline std::vector<std::string> EntryFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".gldc") out.push_back(e.path().string());
  }
  return out;
}

inline std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void WriteAll(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Counts warnings of the "gldelegate" logger while alive.
class WarningCounter {
 public:
  WarningCounter() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_)) {
    sink_->set_pattern("%l|%v");
    sink_->set_level(spdlog::level::warn);
    Log().sinks().push_back(sink_);
  }
  ~WarningCounter() {
    auto& sinks = Log().sinks();
    for (auto it = sinks.begin(); it != sinks.end(); ++it) {
      if (*it == sink_) {
        sinks.erase(it);
        break;
      }
    }
  }
  // Warnings whose text contains `needle`.
  int Count(const std::string& needle) const {
    std::istringstream in(stream_.str());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      if (line.rfind("warning|", 0) == 0 && line.find(needle) != std::string::npos) ++n;
    }
    return n;
  }
  std::string text() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs a shell command line, capturing stdout and stderr through files in
// `scratch`.
inline CommandResult RunCommand(const std::string& command, const std::string& scratch) {
  const std::string out = scratch + "/stdout.txt", err = scratch + "/stderr.txt";
  const int status = std::system(("(" + command + ") >'" + out + "' 2>'" + err + "'").c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::vector<uint8_t> o = ReadAll(out), e = ReadAll(err);
  r.out.assign(o.begin(), o.end());
  r.err.assign(e.begin(), e.end());
  return r;
}

inline Options GlOptions(const std::string& cache_dir) {
  Options o;
  o.backend = Backend::kGl;
  o.cache_dir = cache_dir;
  return o;
}

}  // namespace gld::testing
