// gld_warmup: fills a program cache folder ahead of time, so that the
// models' first start on this machine (or on any machine with the same GL
// driver the folder is copied to) skips shader compilation.
//
//   gld_warmup --graph=a.tflite,b.tflite --cache_dir=C [--precision=fp32,fp16] [--jobs=N] [--verify]
//   gld_warmup --graph_dir=D --cache_dir=C
//   gld_warmup --cache_dir=C --verify
//   gld_warmup --graph=a.tflite --cache_dir=C --tune
//
// Each model is created once per precision on the GL backend and run once on
// zero inputs: drivers that compile at the first dispatch (Mesa) then store
// their machine code in the driver cache inside the folder too. With --tune
// it also times a few workgroup shapes per dispatch and keeps the fastest in
// C/workgroups.gldt (keyed by renderer and driver); later runs with that
// cache folder use them without timing.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/flags.h"
#include "common/printable.h"
#include "gldelegate/gldelegate.hpp"

namespace {

constexpr const char* kTool = "gld_warmup";

struct Job {
  std::string model;  // path
  gld::Precision precision = gld::Precision::kFp32;
  // Results.
  bool ok = false;
  std::string error;
  int programs = 0, compiled = 0, reused = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  int tuned = 0, timing_runs = 0;  // --tune
};

std::string Basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

void RunJob(Job& job, const gld::Options& base) {
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](const std::string& error) {
    job.ok = error.empty();
    job.error = error;
    job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto model = gld::Model::FromFile(job.model);
  if (!model.ok()) return finish(model.status().message());
  gld::Options options = base;
  options.backend = gld::Backend::kGl;
  options.precision = job.precision;
  auto interp = gld::Interpreter::Create(**model, options);
  if (!interp.ok()) return finish(interp.status().message());
  // The inputs are zero (the runtime clears them); one run makes the driver
  // build what it builds at the first dispatch.
  gld::Status run = (*interp)->Invoke();
  if (!run.ok()) return finish("first run: " + run.message());
  const gld::InterpreterReport& r = (*interp)->report();
  job.reused = r.cache_hits;
  job.compiled = r.cache_misses;
  job.programs = r.cache_hits + r.cache_misses;
  job.bytes = r.cache_file_bytes;
  job.tuned = r.tuned_dispatches;
  job.timing_runs = r.workgroup_timing_runs;
  if (r.cache_file.empty()) {
    return finish(r.gpu_nodes == 0 ? "no node runs on the GPU, nothing to cache"
                                   : "the program cache is not in use (see the warnings above)");
  }
  if (r.cache_misses > 0 && r.cache_file_bytes == 0) return finish("the entry could not be written (see the warnings above)");
  finish("");
}

// On a terminal one bar line, rewritten as models finish: models done of
// all, programs compiled so far, elapsed time and an estimate of what is
// left; otherwise a plain line per model.
class Progress {
 public:
  explicit Progress(size_t total)
      : total_(total), tty_(isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  void Done(const Job& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    compiled_ += job.compiled;
    const std::string what = Basename(job.model) + " (" + gld::PrecisionName(job.precision) + ")";
    if (tty_) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
      const int width = 30;
      const int filled = static_cast<int>(done_ * width / std::max<size_t>(total_, 1));
      std::fprintf(stderr, "\r[%s%s] %zu/%zu models, %d programs compiled, %.0f s, ETA %.0f s  %-40s",
                   std::string(static_cast<size_t>(filled), '#').c_str(),
                   std::string(static_cast<size_t>(width - filled), '.').c_str(), done_, total_, compiled_, elapsed,
                   eta, what.c_str());
      if (done_ == total_) std::fprintf(stderr, "\n");
    } else if (job.ok) {
      std::fprintf(stderr, "%s: [%zu/%zu] %s: %d programs, %d compiled, %d reused, %.2f s\n", kTool, done_, total_,
                   what.c_str(), job.programs, job.compiled, job.reused, job.seconds);
    } else {
      std::fprintf(stderr, "%s: [%zu/%zu] %s: FAILED: %s\n", kTool, done_, total_, what.c_str(), job.error.c_str());
    }
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  size_t total_, done_ = 0;
  int compiled_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

void PrintSummary(const std::vector<Job>& jobs) {
  size_t width = 5;
  for (const Job& j : jobs) width = std::max(width, Basename(j.model).size());
  std::printf("%-*s  %-9s %8s %8s %8s %10s %8s  %s\n", static_cast<int>(width), "model", "precision", "programs",
              "compiled", "reused", "bytes", "seconds", "status");
  for (const Job& j : jobs) {
    std::printf("%-*s  %-9s %8d %8d %8d %10llu %8.2f  %s\n", static_cast<int>(width), Basename(j.model).c_str(),
                gld::PrecisionName(j.precision), j.programs, j.compiled, j.reused,
                static_cast<unsigned long long>(j.bytes), j.seconds, j.ok ? "ok" : ("FAILED: " + j.error).c_str());
  }
}

void PrintTuning(const std::vector<Job>& jobs, const std::string& cache_dir) {
  std::printf("\nworkgroup tuning (%s/workgroups.gldt):\n", cache_dir.c_str());
  for (const Job& j : jobs) {
    std::printf("  %s (%s): %d dispatches tuned, %d timed runs\n", Basename(j.model).c_str(),
                gld::PrecisionName(j.precision), j.tuned, j.timing_runs);
  }
}

// 0 when every entry is good.
int Verify(const std::string& cache_dir, const gld::Options& options) {
  auto checks = gld::VerifyProgramCache(cache_dir, options);
  if (!checks.ok()) return gld::tools::Fail(kTool, "--verify: " + checks.status().message());
  int bad = 0;
  std::printf("\nverify %s: %zu entries\n", cache_dir.c_str(), checks->size());
  for (const gld::CacheFileCheck& c : *checks) {
    std::printf("  %s  token=%s programs=%d linked=%d bytes=%llu  %s\n", Basename(c.file).c_str(),
                c.model_token.c_str(), c.programs, c.loaded, static_cast<unsigned long long>(c.bytes),
                c.problem.empty() ? "ok" : c.problem.c_str());
    if (!c.problem.empty()) ++bad;
  }
  if (bad > 0) std::printf("%d of %zu entries are stale or bad\n", bad, checks->size());
  return bad > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  gld::tools::EscapeStandardStreams();  // model-supplied names reach the terminal escaped
  CLI::App app("Compiles every GPU program the models need into a program cache folder, ahead of time.", kTool);
  std::string graphs, graph_dir, precisions = "fp32";
  bool verify = false, tune = false;
  int jobs_flag = 1;
  gld::tools::BackendFlags flags;
  app.add_option("--graph", graphs, "comma-separated .tflite models");
  app.add_option("--graph_dir", graph_dir, "every .tflite file in this folder");
  app.add_option("--cache_dir", flags.cache_dir, "the program cache folder (created when missing)")->required();
  app.add_option("--precision", precisions, "comma-separated precisions to warm: fp32, fp16, fp16_mediump")->capture_default_str();
  app.add_option("--gpu_deny_ops", flags.gpu_deny_ops, "comma-separated op names forced to the CPU, as at run time");
  app.add_option("--log_level", flags.log_level, "trace, debug, info, warn, error or off");
  gld::tools::AddCustomOpsFlag(app, flags);
  gld::tools::AddOptionFlags(app, flags, {"--cache_allow_shared"});
  app.add_flag("--verify", verify, "afterwards, load and link every entry in --cache_dir and report stale or bad ones");
  app.add_option("--jobs", jobs_flag, "models warmed at once (one with --tune)")->capture_default_str();
  app.add_flag("--tune", tune,
               "time a few workgroup shapes per dispatch and keep the fastest in --cache_dir (one model at a time)");
  if (auto code = gld::tools::ParseFlags(app, argc, argv)) return *code;

  auto options = gld::tools::MakeOptions(flags);
  if (!options.ok()) return gld::tools::Fail(kTool, options.status());
  options->tune_workgroups = tune;
  if (tune) jobs_flag = 1;  // timings of models warmed at once would disturb each other
  if (jobs_flag < 1 || jobs_flag > 64) return gld::tools::Fail(kTool, "--jobs must be in [1, 64], got " + std::to_string(jobs_flag));

  std::vector<std::string> models = gld::tools::SplitList(graphs);
  if (!graph_dir.empty()) {
    std::error_code ec;
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(graph_dir, ec)) {
      if (e.path().extension() == ".tflite") found.push_back(e.path().string());
    }
    if (ec) return gld::tools::Fail(kTool, "--graph_dir '" + graph_dir + "': " + ec.message());
    if (found.empty()) return gld::tools::Fail(kTool, "--graph_dir '" + graph_dir + "' holds no .tflite file");
    std::sort(found.begin(), found.end());
    models.insert(models.end(), found.begin(), found.end());
  }
  if (models.empty() && !verify) return gld::tools::Fail(kTool, "give --graph, --graph_dir or --verify");
  std::vector<gld::Precision> precision_list;
  for (const std::string& p : gld::tools::SplitList(precisions)) {
    auto parsed = gld::ParsePrecision(p);
    if (!parsed.ok()) return gld::tools::Fail(kTool, "--precision: " + parsed.status().message());
    precision_list.push_back(*parsed);
  }
  if (precision_list.empty()) return gld::tools::Fail(kTool, "--precision names no precision");

  // A folder made here is private (0700), as the library's own folders: the
  // cache trusts only what this user can write (Options::cache_allow_shared).
  std::error_code ec;
  if (std::filesystem::create_directories(flags.cache_dir, ec)) {
    std::filesystem::permissions(flags.cache_dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
  }
  if (!std::filesystem::is_directory(flags.cache_dir)) {
    return gld::tools::Fail(kTool, "cannot create --cache_dir '" + flags.cache_dir + "': " + ec.message());
  }

  std::vector<Job> jobs;
  for (const std::string& m : models) {
    for (gld::Precision p : precision_list) {
      Job j;
      j.model = m;
      j.precision = p;
      jobs.push_back(j);
    }
  }
  int status = 0;
  if (!jobs.empty()) {
    Progress progress(jobs.size());
    // The first job alone: it opens the EGL display, which points the
    // driver's cache into the folder (a process-wide setting) before any
    // other thread uses GL.
    RunJob(jobs[0], *options);
    progress.Done(jobs[0]);
    std::atomic<size_t> next{1};
    auto worker = [&] {
      for (size_t i = next++; i < jobs.size(); i = next++) {
        RunJob(jobs[i], *options);
        progress.Done(jobs[i]);
      }
    };
    std::vector<std::thread> threads;
    const size_t n = std::min<size_t>(static_cast<size_t>(jobs_flag), jobs.size() - 1);
    for (size_t t = 0; t < n; ++t) {
      try {
        threads.emplace_back(worker);
      } catch (const std::system_error& e) {
        // The process limit reached: the threads that started (and this
        // one, when none did) take the jobs.
        std::fprintf(stderr, "gld_warmup: warning: started %zu of %zu job threads (%s)\n", threads.size(), n,
                     e.what());
        break;
      }
    }
    if (threads.empty()) worker();
    for (std::thread& t : threads) t.join();
    PrintSummary(jobs);
    // With --tune, or when a stored tuning was used.
    if (tune || std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.tuned > 0; })) {
      PrintTuning(jobs, flags.cache_dir);
    }
    for (const Job& j : jobs) {
      if (!j.ok) status = 1;
    }
  }
  if (verify && Verify(flags.cache_dir, *options) != 0) status = 1;
  return status;
}
