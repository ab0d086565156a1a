// gld_benchmark: measures a .tflite model the way TensorFlow Lite's
// benchmark_model does (init, first inference, warmup, timed runs, memory),
// with TFLite's flag names where they mean the same thing, optional per-op
// profiling, a JSON report and the outputs as .npy files. SIGINT or SIGTERM
// stops the runs at the next run boundary: the figures of the runs done are
// printed and written, and the exit status is 128 + the signal.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/bench_stats.h"
#include "common/flags.h"
#include "common/interrupt.h"
#include "common/json.h"
#include "common/printable.h"
#include "common/progress.h"
#include "common/tensor_io.h"
#include "common/tensors.h"
#include "common/trace_json.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"

namespace {

constexpr char kTool[] = "gld_benchmark";
using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double Mb(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

using gld::tools::SignalName;
using gld::tools::StopRequested;

// Sleeps `seconds` in short steps, returning early once a stop is requested.
void SleepUnlessStopped(double seconds) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (!StopRequested() && Clock::now() < until) {
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(20)));
  }
}

struct Flags {
  std::string graph;
  int num_runs = 50;
  int warmup_runs = 1;
  double min_secs = 0;
  gld::tools::BackendFlags backend;
  std::string use_gpu;                     // TFLite: true -> gl, false -> cpu
  std::string gpu_precision_loss_allowed;  // TFLite: true -> fp16
  int max_delegated_partitions = 0;
  std::string cache_dir, delegate_serialize_dir;
  std::string model_token, delegate_serialize_token;
  bool enable_op_profiling = false;
  bool report_peak_memory_footprint = false;
  bool startup_phases = false;  // --startup_phases: where the start-up went (the startup trace)
  std::string input_layer_value_files;
  uint64_t seed = 0;
  std::string json, output_dir;
  std::string trace;  // --trace: the timed runs' timeline (Trace Event Format JSON)
  // benchmark_model's flags beyond those above.
  double max_secs = 150;    // stop the timed runs after this long (0: no limit)
  double run_delay = -1;    // seconds between timed runs (-1: none)
  std::string input_layer, input_layer_shape;  // checked against the model
  bool verbose = false, dry_run = false, print_preinvoke_state = false;
  bool resident_state = false;  // --resident_state: state input/output pairs on one host buffer each
  bool gpu_experimental_enable_quant = true;
  int min_nodes_per_partition = 0;
  std::string profiling_output_csv_file;
  std::string external_delegate_path, external_delegate_options;
};

// benchmark_model's flags that gldelegate takes differently or not at all,
// for --help.
constexpr char kTfliteFlagNotes[] =
    "TensorFlow Lite benchmark_model flags taken with another meaning or refused:\n"
    "  --use_gpu=true           runs --backend=gl in fp16 unless --precision or --gpu_precision_loss_allowed says fp32\n"
    "                           (benchmark_model's default: precision loss allowed)\n"
    "  --num_threads            CPU threads of the CPU backend (-1: every core), as --threads\n"
    "  --input_layer, --input_layer_shape  checked against the model: input shapes are fixed, a different shape is an error\n"
    "  --gpu_experimental_enable_quant     true (the default) only: quantized models always run, in float on the GPU\n"
    "  --external_delegate_path, --external_delegate_options  refused: gldelegate is the delegate (custom op\n"
    "                           plugins load with --custom_ops). To run gldelegate inside TFLite/LiteRT instead,\n"
    "                           give TFLite's own benchmark_model --external_delegate_path=libgldelegate.so\n"
    "                           --external_delegate_options='backend:gl;precision:fp32', or in Python\n"
    "                           Interpreter(..., experimental_delegates=[gldelegate.load_delegate(backend=\"gl\")])\n"
    "                           (docs/DELEGATE.md)\n"
    "  --profiling_output_csv_file  needs --enable_op_profiling; 'first' is the average (the first run is not\n"
    "                           profiled), 'start' the row's offset in plan order, 'mem KB' 0\n"
    "  --use_xnnpack, --use_nnapi, --use_hexagon, --gpu_backend and other delegate flags: unknown (use --backend)";

// "true"/"false" (also 1/0) as TFLite's boolean flags take them.
gld::StatusOr<bool> ParseBool(const std::string& flag, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return gld::InvalidArgumentError(flag + " expects true or false, got '" + value + "'");
}

// One of two synonymous flags (ours and TFLite's); an error when both are
// given with different values.
gld::StatusOr<std::string> EitherFlag(const std::string& a_name, const std::string& a, const std::string& b_name,
                                      const std::string& b) {
  if (!a.empty() && !b.empty() && a != b) {
    return gld::InvalidArgumentError(a_name + " '" + a + "' and " + b_name + " '" + b + "' disagree; give one");
  }
  return a.empty() ? b : a;
}

// Options from the flags; also settles the TFLite synonyms.
gld::StatusOr<gld::Options> MakeBenchmarkOptions(const CLI::App& app, Flags& f) {
  if (f.num_runs < 1) return gld::InvalidArgumentError("--num_runs must be at least 1, got " + std::to_string(f.num_runs));
  if (f.warmup_runs < 0) {
    return gld::InvalidArgumentError("--warmup_runs must be 0 or more, got " + std::to_string(f.warmup_runs));
  }
  if (!(f.min_secs >= 0) || f.min_secs > 86400) {
    return gld::InvalidArgumentError("--min_secs must be in [0, 86400], got " + std::to_string(f.min_secs));
  }
  if (!(f.max_secs >= 0) || f.max_secs > 86400) {
    return gld::InvalidArgumentError("--max_secs must be in [0, 86400], got " + std::to_string(f.max_secs));
  }
  if (!(f.run_delay == -1 || (f.run_delay >= 0 && f.run_delay <= 3600))) {
    return gld::InvalidArgumentError("--run_delay must be -1 (none) or in [0, 3600] seconds, got " +
                                     std::to_string(f.run_delay));
  }
  if (!f.external_delegate_path.empty() || !f.external_delegate_options.empty()) {
    return gld::InvalidArgumentError(
        "--external_delegate_path/--external_delegate_options are not supported: gldelegate is the delegate "
        "(choose --backend=auto|gl|cpu; custom op plugins load with --custom_ops); to run gldelegate inside "
        "TFLite, give libgldelegate.so to TFLite's own benchmark_model --external_delegate_path (docs/DELEGATE.md)");
  }
  if (!f.gpu_experimental_enable_quant) {
    return gld::InvalidArgumentError(
        "--gpu_experimental_enable_quant=false is not supported: quantized models always run (in float on the GPU); "
        "keep quantized ops on the CPU with --gpu_deny_ops");
  }
  if (!f.profiling_output_csv_file.empty() && !f.enable_op_profiling) {
    return gld::InvalidArgumentError("--profiling_output_csv_file needs --enable_op_profiling");
  }
  if (!f.use_gpu.empty()) {
    GLD_ASSIGN_OR_RETURN(bool gpu, ParseBool("--use_gpu", f.use_gpu));
    const std::string implied = gpu ? "gl" : "cpu";
    if (app.count("--backend") > 0 && f.backend.backend != implied) {
      return gld::InvalidArgumentError("--use_gpu=" + f.use_gpu + " and --backend=" + f.backend.backend + " disagree");
    }
    f.backend.backend = implied;
    // benchmark_model's --gpu_precision_loss_allowed defaults to true.
    if (gpu && app.count("--precision") == 0 && f.gpu_precision_loss_allowed.empty()) f.backend.precision = "fp16";
  }
  if (!f.gpu_precision_loss_allowed.empty()) {
    GLD_ASSIGN_OR_RETURN(bool fp16, ParseBool("--gpu_precision_loss_allowed", f.gpu_precision_loss_allowed));
    const std::string implied = fp16 ? "fp16" : "fp32";
    if (app.count("--precision") > 0 && f.backend.precision != implied) {
      return gld::InvalidArgumentError("--gpu_precision_loss_allowed=" + f.gpu_precision_loss_allowed +
                                       " and --precision=" + f.backend.precision + " disagree");
    }
    f.backend.precision = implied;
  }
  GLD_ASSIGN_OR_RETURN(gld::Options o, gld::tools::MakeOptions(f.backend));
  GLD_ASSIGN_OR_RETURN(o.cache_dir, EitherFlag("--cache_dir", f.cache_dir, "--delegate_serialize_dir",
                                               f.delegate_serialize_dir));
  GLD_ASSIGN_OR_RETURN(o.model_token, EitherFlag("--model_token", f.model_token, "--delegate_serialize_token",
                                                 f.delegate_serialize_token));
  o.max_delegated_partitions = f.max_delegated_partitions;
  o.min_nodes_per_partition = f.min_nodes_per_partition;
  o.enable_profiling = f.enable_op_profiling;
  o.enable_trace = !f.trace.empty() || f.startup_phases;
  // The ranges of gldelegate/options.inc, naming this tool's flags.
  GLD_RETURN_IF_ERROR(gld::CheckOption(o, "max_delegated_partitions", "--max_delegated_partitions"));
  GLD_RETURN_IF_ERROR(gld::CheckOption(o, "min_nodes_per_partition", "--min_nodes_per_partition"));
  return o;
}

struct Results {
  int stop_signal = 0;  // SIGINT/SIGTERM that ended the runs early; 0 when they all ran
  double load_us = 0, init_us = 0;
  std::vector<double> warmup_us, run_us;
  double first_us = 0;
  gld::tools::ProcessMemory start_mem, init_mem, first_mem, end_mem;
  // --startup_phases: each startup trace event's name, summed time and count,
  // in the order they began.
  struct Phase {
    std::string name;
    double us = 0;
    int count = 0;
  };
  std::vector<Phase> phases;
  std::vector<gld::ProfileRow> profile;
  gld::DispatchIssueStats issue;
};

// Host cost per dispatch in microseconds (0 without dispatches).
double PerDispatch(double total_us, int64_t dispatches) {
  return dispatches > 0 ? total_us / static_cast<double>(dispatches) : 0.0;
}

// Host CPU time per dispatch spent issuing: the issuing loop's thread CPU
// time less that inside the dispatch and barrier calls (where llvmpipe runs
// shaders).
double IssueOnly(const gld::DispatchIssueStats& s) {
  return PerDispatch(s.issue_cpu_us - s.dispatch_call_cpu_us, s.dispatches);
}

// Memory figures are best effort: zeros where /proc is missing.
gld::tools::ProcessMemory MemoryNow() {
  auto m = gld::tools::ReadProcessMemory();
  return m.ok() ? *m : gld::tools::ProcessMemory{};
}

// --startup_phases: the startup events of Create's trace (before any run),
// summed by name. Those on the model's own track (loading and the passes,
// once per Model) are named "load: ..." and "prepare: ...".
std::vector<Results::Phase> StartupPhases(const std::vector<gld::TraceEvent>& events) {
  std::vector<Results::Phase> phases;
  std::vector<const gld::TraceEvent*> ordered;
  for (const gld::TraceEvent& e : events) {
    if (e.phase == 'X' && e.category == "startup") ordered.push_back(&e);
  }
  // The model's track starts at 0 too: by track, then time.
  std::stable_sort(ordered.begin(), ordered.end(), [](const gld::TraceEvent* a, const gld::TraceEvent* b) {
    return a->tid != b->tid ? a->tid > b->tid : a->ts_us < b->ts_us;
  });
  for (const gld::TraceEvent* e : ordered) {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const Results::Phase& p) { return p.name == e->name; });
    if (it == phases.end()) it = phases.insert(phases.end(), Results::Phase{e->name, 0, 0});
    it->us += e->dur_us;
    ++it->count;
  }
  return phases;
}

void PrintStartupPhases(const std::vector<Results::Phase>& phases) {
  std::printf("\nStart-up phases (ms; 'prepare step: X' rows are summed over the steps, which prepare on the pool):\n");
  for (const Results::Phase& p : phases) {
    std::printf("%10.3f  %5d  %s\n", p.us / 1000.0, p.count, gld::tools::Printable(p.name).c_str());
  }
}

using InputFiles = std::vector<std::pair<std::string, std::string>>;

// The host buffers of --resident_state (8-byte aligned), alive for the runs.
using StateBuffers = std::vector<std::vector<uint64_t>>;

// --resident_state: each input of the signature run (--signature, or the
// model's first) that an output of the same signature name gives back (a
// decoder's KV cache) is bound with that output to one host buffer, so every
// run updates it in place as a decode loop would, instead of reading the
// same input each run and writing a new output.
gld::Status BindResidentState(gld::Interpreter& interp, const gld::Model& model, const std::string& key,
                              StateBuffers* buffers) {
  const gld::SignatureInfo* sig = nullptr;
  for (const gld::SignatureInfo& s : model.signatures()) {
    if (s.key == key || (key.empty() && sig == nullptr)) sig = &s;
  }
  if (sig == nullptr) return gld::InvalidArgumentError("--resident_state: the model has no signatures");
  auto position = [](const std::vector<gld::TensorInfo>& io, int tensor) {
    for (size_t i = 0; i < io.size(); ++i) {
      if (io[i].index == tensor) return static_cast<int>(i);
    }
    return -1;
  };
  std::string names;
  for (const gld::SignatureTensor& in : sig->inputs) {
    for (const gld::SignatureTensor& out : sig->outputs) {
      if (in.name != out.name) continue;
      const int i = position(interp.inputs(), in.tensor_index), o = position(interp.outputs(), out.tensor_index);
      if (i < 0 || o < 0) continue;
      const size_t bytes = interp.inputs()[static_cast<size_t>(i)].bytes;
      buffers->emplace_back((bytes + 7) / 8, 0);
      GLD_RETURN_IF_ERROR(interp.BindInputHostBuffer(i, buffers->back().data(), bytes));
      gld::Status s = interp.BindOutputHostBuffer(o, buffers->back().data(), bytes);
      if (!s.ok()) return gld::Status(s.code(), "--resident_state: '" + in.name + "': " + s.message());
      names += (names.empty() ? "" : ", ") + in.name;
    }
  }
  if (names.empty()) {
    return gld::InvalidArgumentError("--resident_state: signature '" + sig->key +
                                     "' has no input that an output of the same name gives back");
  }
  std::cout << "Resident state (signature '" << sig->key << "'): " << buffers->size()
            << " input/output pair(s) on one host buffer each, updated in place by every run: " << names << "\n";
  return gld::OkStatus();
}

// Inputs from --input_layer_value_files, the rest seeded random values.
gld::Status SetInputs(gld::Interpreter& interp, const InputFiles& specs, const Flags& f) {
  std::map<int, std::string> files;
  for (const auto& [name, file] : specs) {
    GLD_ASSIGN_OR_RETURN(int index, gld::tools::FindInputIndex(interp.inputs(), name, "--input_layer_value_files"));
    files[index] = file;
  }
  for (size_t i = 0; i < interp.inputs().size(); ++i) {
    const gld::TensorInfo& info = interp.inputs()[i];
    std::vector<uint8_t> data;
    auto it = files.find(static_cast<int>(i));
    if (it != files.end()) {
      GLD_ASSIGN_OR_RETURN(data, gld::tools::LoadInputNpy(info, it->second));
      std::cout << "Input " << i << " " << gld::tools::DescribeTensor(info) << " from " << it->second << "\n";
    } else {
      GLD_ASSIGN_OR_RETURN(data, gld::tools::MakeRandomInput(info, f.seed, static_cast<int>(i)));
      std::cout << "Input " << i << " " << gld::tools::DescribeTensor(info) << " random (seed " << f.seed << ")\n";
    }
    GLD_RETURN_IF_ERROR(interp.SetInput(static_cast<int>(i), data.data(), data.size()));
  }
  return gld::OkStatus();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// --input_layer / --input_layer_shape: benchmark_model resizes the named
// inputs to the shapes given; gldelegate's input shapes are fixed, so each
// name must be an input and each shape its own.
gld::Status CheckInputLayers(const std::vector<gld::TensorInfo>& inputs, const Flags& f) {
  const std::vector<std::string> names = gld::tools::SplitList(f.input_layer, ',');
  const std::vector<std::string> shapes = gld::tools::SplitList(f.input_layer_shape, ':');
  if (!shapes.empty() && shapes.size() != names.size()) {
    return gld::InvalidArgumentError("--input_layer names " + std::to_string(names.size()) +
                                     " inputs but --input_layer_shape gives " + std::to_string(shapes.size()) +
                                     " shapes");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    GLD_ASSIGN_OR_RETURN(int index, gld::tools::FindInputIndex(inputs, names[i], "--input_layer"));
    if (shapes.empty()) continue;
    std::vector<int> shape;
    for (const std::string& d : gld::tools::SplitList(shapes[i], ',')) {
      char* end = nullptr;
      const long v = std::strtol(d.c_str(), &end, 10);
      if (end == d.c_str() || *end != '\0' || v < -1 || v > (1L << 30)) {
        return gld::InvalidArgumentError("--input_layer_shape: '" + shapes[i] + "' is not a list of dimensions");
      }
      shape.push_back(static_cast<int>(v));
    }
    const gld::TensorInfo& info = inputs[static_cast<size_t>(index)];
    if (shape != info.shape) {
      return gld::InvalidArgumentError("--input_layer_shape: input '" + info.name + "' has the fixed shape " +
                                       gld::tools::FormatShape(info.shape) + "; gldelegate cannot resize it to " +
                                       gld::tools::FormatShape(shape));
    }
  }
  return gld::OkStatus();
}

// --print_preinvoke_state: the tensors and the placement before any run.
void PrintPreinvokeState(const gld::Interpreter& interp) {
  const gld::InterpreterReport& rep = interp.report();
  std::printf("Interpreter state before the first invoke:\n");
  for (size_t i = 0; i < interp.inputs().size(); ++i) {
    std::printf("  input %zu: %s, tensor %d\n", i, gld::tools::DescribeTensor(interp.inputs()[i]).c_str(),
                interp.inputs()[i].index);
  }
  for (size_t i = 0; i < interp.outputs().size(); ++i) {
    std::printf("  output %zu: %s, tensor %d\n", i, gld::tools::DescribeTensor(interp.outputs()[i]).c_str(),
                interp.outputs()[i].index);
  }
  for (const gld::PlacementInfo& n : rep.nodes) {
    if (n.on_gpu) {
      std::printf("  %s: GPU segment %d\n", gld::tools::Printable(n.label).c_str(), n.segment);
    } else {
      std::printf("  %s: CPU (%s)\n", gld::tools::Printable(n.label).c_str(),
                  gld::tools::Printable(n.reason).c_str());
    }
  }
  std::printf("  host tensor bytes planned: %llu; GPU bytes planned: %llu\n",
              static_cast<unsigned long long>(rep.cpu_bytes_planned),
              static_cast<unsigned long long>(rep.gpu_bytes_planned));
}

// --verbose: every flag and its value, as benchmark_model lists its params.
void PrintFlags(const CLI::App& app) {
  std::printf("Flags:\n");
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_name() == "--help") continue;
    std::string value;
    for (const std::string& r : opt->results()) value += (value.empty() ? "" : ",") + r;
    const bool given = opt->count() > 0;
    if (!given) value = opt->get_default_str();
    std::printf("  %s: [%s]%s\n", opt->get_name().c_str(), value.c_str(), given ? "" : " (default)");
  }
}

// --profiling_output_csv_file: benchmark_model's CSV columns, one row per
// profile row in plan order.
gld::Status WriteProfileCsv(const std::string& path, const std::vector<gld::ProfileRow>& rows) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return gld::InvalidArgumentError("cannot write --profiling_output_csv_file '" + path + "'");
  double total = 0;
  for (const auto& r : rows) total += r.time_us;
  out << "node type,start,first,avg_ms,%,cdf%,mem KB,times called,name\n";
  double start_ms = 0, cdf = 0;
  for (const auto& r : rows) {
    const double avg_ms = r.time_us / 1000.0;
    const double pct = total > 0 ? 100.0 * r.time_us / total : 0;
    cdf += pct;
    std::string name = r.name;
    if (!r.fused.empty()) name += " {" + JoinNames(r.fused) + "}";
    std::string quoted;
    for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    char line[256];
    std::snprintf(line, sizeof(line), "%s,%.3f,%.3f,%.3f,%.3f%%,%.3f%%,0,%lld,", r.op.c_str(), start_ms, avg_ms,
                  avg_ms, pct, cdf, static_cast<long long>(r.count));
    out << line << '"' << quoted << "\"\n";
    start_ms += avg_ms;
  }
  out.close();
  if (!out) return gld::InvalidArgumentError("cannot write --profiling_output_csv_file '" + path + "'");
  return gld::OkStatus();
}

// The timed runs' progress: runs done of --num_runs, seconds of --min_secs,
// whichever is further from done, and --max_secs's cap.
void ShowRunProgress(gld::tools::TerminalProgress& progress, const Flags& f, size_t runs, double seconds) {
  if (!progress.active()) return;
  double fraction = f.num_runs > 0 ? static_cast<double>(runs) / f.num_runs : 1.0;
  if (f.min_secs > 0) fraction = std::min(fraction, seconds / f.min_secs);
  if (f.max_secs > 0) fraction = std::max(fraction, seconds / f.max_secs);
  auto number = [](const char* format, double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), format, v);
    return std::string(buf);
  };
  std::string text = "timed run " + std::to_string(runs + 1) + " of at least " + std::to_string(f.num_runs) + ", " +
                     number("%.1f", seconds) + " s";
  if (f.min_secs > 0) text += " of at least " + number("%g", f.min_secs) + " s";
  if (runs > 0 && fraction > 0) text += ", about " + number("%.0f", seconds / fraction - seconds) + " s left";
  if (f.max_secs > 0) text += " (stops at " + number("%g", f.max_secs) + " s)";
  progress.Show(fraction, text);
}

// The first call also reads the memory after that run (`first_mem`).
gld::Status TimedInvoke(gld::Interpreter& interp, std::vector<double>* times, Results& res) {
  const bool first = res.warmup_us.empty() && res.run_us.empty();
  const auto start = Clock::now();
  GLD_RETURN_IF_ERROR(interp.Invoke());
  times->push_back(MicrosSince(start));
  if (first) res.first_mem = MemoryNow();
  return gld::OkStatus();
}

void PrintProfile(const std::vector<gld::ProfileRow>& rows, int64_t runs) {
  double total = 0;
  for (const auto& r : rows) total += r.time_us;
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows[a].time_us > rows[b].time_us; });
  std::map<std::string, int> timings;
  for (const auto& r : rows) ++timings[r.timing];
  std::string how;
  for (const auto& [t, n] : timings) how += (how.empty() ? "" : ", ") + std::to_string(n) + " " + t;
  std::printf("\nOperator-wise profiling: %zu rows, average over %lld runs (timing: %s)\n", rows.size(),
              static_cast<long long>(runs), how.c_str());
  std::printf("  gpu_timer: GL_EXT_disjoint_timer_query; gl_finish: wall time between glFinish; wall: steady clock\n");
  std::printf("%12s %7s %7s  %-4s %-24s %s\n", "[time us]", "[%]", "[cum %]", "[be]", "[op]", "[name] {fused}");
  double cumulative = 0;
  for (size_t i : order) {
    const auto& r = rows[i];
    const double pct = total > 0 ? 100.0 * r.time_us / total : 0;
    cumulative += pct;
    std::string name = r.name;
    if (!r.fused.empty()) name += " {" + JoinNames(r.fused) + "}";
    std::printf("%12.1f %6.2f%% %6.2f%%  %-4s %-24s %s\n", r.time_us, pct, cumulative, r.backend.c_str(),
                gld::tools::Printable(r.op).c_str(), gld::tools::Printable(name).c_str());
  }
  struct OpTotal {
    std::string op, backend;
    int rows = 0;
    double time_us = 0;
  };
  std::map<std::pair<std::string, std::string>, OpTotal> by_op;
  for (const auto& r : rows) {
    OpTotal& t = by_op[{r.op, r.backend}];
    t.op = r.op;
    t.backend = r.backend;
    ++t.rows;
    t.time_us += r.time_us;
  }
  std::vector<OpTotal> totals;
  for (auto& [key, t] : by_op) totals.push_back(t);
  std::stable_sort(totals.begin(), totals.end(), [](const OpTotal& a, const OpTotal& b) { return a.time_us > b.time_us; });
  std::printf("\nTotals per op type:\n%-24s %-4s %6s %12s %7s\n", "[op]", "[be]", "[rows]", "[time us]", "[%]");
  for (const auto& t : totals) {
    std::printf("%-24s %-4s %6d %12.1f %6.2f%%\n", gld::tools::Printable(t.op).c_str(), t.backend.c_str(), t.rows,
                t.time_us,
                total > 0 ? 100.0 * t.time_us / total : 0);
  }
  std::printf("%-24s %-4s %6zu %12.1f\n", "total", "", rows.size(), total);
}

std::string MakeJson(const Flags& f, const gld::Options& o, const gld::InterpreterReport& rep, const Results& res) {
  const gld::tools::TimingStats warm = gld::tools::ComputeTimingStats(res.warmup_us);
  const gld::tools::TimingStats run = gld::tools::ComputeTimingStats(res.run_us);
  gld::tools::JsonReport j;
  j["tool"] = kTool;
  j["version"] = gld::VersionString();
  j["graph"] = f.graph;
  j["resident_state"] = f.resident_state;
  j["backend"] = gld::BackendName(rep.backend);
  j["backend_requested"] = gld::BackendName(o.backend);
  j["precision"] = gld::PrecisionName(rep.precision);
  j["threads"] = o.num_threads;
  j["gl_renderer"] = rep.gl_renderer;
  j["load_us"] = res.load_us;
  j["init_us"] = res.init_us;
  j["first_inference_us"] = res.first_us;
  j["warmup_runs"] = res.warmup_us.size();
  j["warmup_avg_us"] = warm.mean;
  j["num_runs"] = run.count;
  j["inference_avg_us"] = run.mean;
  j["inference_std_us"] = run.std;
  j["inference_min_us"] = run.min;
  j["inference_median_us"] = run.median;
  j["inference_p90_us"] = run.p90;
  j["inference_max_us"] = run.max;
  j["startup_cost_us"] = res.init_us + res.first_us - run.median;
  j["run_times_us"] = res.run_us;
  // Stopped early by a signal: the figures above are over the runs completed.
  j["interrupted"] = res.stop_signal != 0;
  j["interrupt_signal"] = SignalName(res.stop_signal);
  j["runs_completed"] = res.run_us.size();
  j["num_runs_requested"] = f.num_runs;
  j["placement"] = rep.placement_line;
  j["gpu_nodes"] = rep.gpu_nodes;
  j["total_nodes"] = rep.total_nodes;
  j["original_nodes"] = rep.original_nodes;
  j["segments"] = rep.segments;
  j["dispatches"] = rep.dispatches;
  j["gpu_bytes_planned"] = rep.gpu_bytes_planned;
  j["gpu_bytes_naive"] = rep.gpu_bytes_naive;
  j["cpu_bytes_planned"] = rep.cpu_bytes_planned;
  j["rss_start_bytes"] = res.start_mem.rss_bytes;
  j["rss_after_init_bytes"] = res.init_mem.rss_bytes;
  j["peak_rss_after_init_bytes"] = res.init_mem.peak_rss_bytes;
  j["peak_rss_bytes"] = res.end_mem.peak_rss_bytes;
  j["peak_rss_after_first_bytes"] = res.first_mem.peak_rss_bytes;  // VmHWM after the first run
  if (f.startup_phases) {
    gld::tools::JsonReport& phases = j["startup_phases"] = gld::tools::JsonReport::array();
    for (const Results::Phase& p : res.phases) {
      gld::tools::JsonReport row;
      row["name"] = p.name;
      row["us"] = p.us;
      row["count"] = p.count;
      phases.push_back(std::move(row));
    }
  }
  j["issued_dispatches"] = res.issue.dispatches;
  j["host_cpu_us_per_dispatch"] = PerDispatch(res.issue.issue_cpu_us, res.issue.dispatches);
  j["host_wall_us_per_dispatch"] = PerDispatch(res.issue.issue_wall_us, res.issue.dispatches);
  j["host_issue_us_per_dispatch"] = IssueOnly(res.issue);
  j["cache_dir"] = o.cache_dir;
  j["cache_hits"] = rep.cache_hits;
  j["cache_misses"] = rep.cache_misses;
  if (f.enable_op_profiling) {
    gld::tools::JsonReport& ops = j["ops"] = gld::tools::JsonReport::array();
    for (const auto& r : res.profile) {
      gld::tools::JsonReport row;
      row["name"] = r.name;
      row["op"] = r.op;
      row["backend"] = r.backend;
      row["fused"] = r.fused;
      row["time_us"] = r.time_us;
      row["count"] = r.count;
      row["timing"] = r.timing;
      ops.push_back(std::move(row));
    }
  }
  return gld::tools::JsonReportText(j);
}

// The memory lines: ours, benchmark_model's footprint delta (always, as it
// prints it) and its peak footprint (--report_peak_memory_footprint).
void PrintMemory(const Results& res, const Flags& f) {
  std::printf("Memory (MB): RSS at start %.2f, after init %.2f, peak %.2f (VmHWM)\n", Mb(res.start_mem.rss_bytes),
              Mb(res.init_mem.rss_bytes), Mb(res.end_mem.peak_rss_bytes));
  auto delta = [&](uint64_t peak) {
    return peak > res.start_mem.peak_rss_bytes ? Mb(peak - res.start_mem.peak_rss_bytes) : 0.0;
  };
  std::printf("Memory footprint delta from the start of the tool (MB): init=%.4f overall=%.4f\n",
              delta(res.init_mem.peak_rss_bytes), delta(res.end_mem.peak_rss_bytes));
  if (f.report_peak_memory_footprint) {
    std::printf("Peak memory footprint (MB): init=%.2f overall=%.2f\n", Mb(res.init_mem.peak_rss_bytes),
                Mb(res.end_mem.peak_rss_bytes));
  }
}

// The warmup and timed runs, until they are done or a stop signal came (a
// run a signal cancelled is not counted).
gld::Status RunAll(gld::Interpreter& interp, const Flags& f, Results& res) {
  // On a terminal, a line with the runs done and the time left (erased
  // before the results are printed).
  gld::tools::TerminalProgress progress;
  for (int i = 0; i < f.warmup_runs && !StopRequested(); ++i) {
    progress.Show(static_cast<double>(i) / f.warmup_runs,
                  "warmup run " + std::to_string(i + 1) + " of " + std::to_string(f.warmup_runs));
    gld::Status s = TimedInvoke(interp, &res.warmup_us, res);
    if (!s.ok() && StopRequested()) break;  // the signal cancelled it
    GLD_RETURN_IF_ERROR(s);
  }
  progress.Clear();
  // The profile and the trace keep the timed runs only (the trace keeps
  // Create's program builds too).
  interp.ResetProfile();
  std::printf("Running benchmark for at least %d iterations and at least %g seconds\n", f.num_runs, f.min_secs);
  // What was printed so far is seen now even through a pipe or a file (one
  // watching it knows the runs have started).
  std::fflush(stdout);
  const auto runs_start = Clock::now();
  // As benchmark_model: at least num_runs and min_secs, at most max_secs
  // (after one run).
  auto more = [&] {
    const double elapsed = MicrosSince(runs_start);
    const bool wanted = static_cast<int>(res.run_us.size()) < f.num_runs || elapsed < f.min_secs * 1e6;
    const bool allowed = res.run_us.empty() || f.max_secs <= 0 || elapsed < f.max_secs * 1e6;
    return wanted && allowed;
  };
  while (!StopRequested() && more()) {
    if (f.run_delay > 0 && !res.run_us.empty()) {
      SleepUnlessStopped(f.run_delay);
      if (StopRequested()) break;
    }
    ShowRunProgress(progress, f, res.run_us.size(), MicrosSince(runs_start) / 1e6);
    gld::Status s = TimedInvoke(interp, &res.run_us, res);
    if (!s.ok() && StopRequested()) break;  // the signal cancelled it
    GLD_RETURN_IF_ERROR(s);
  }
  progress.Clear();
  return gld::OkStatus();
}

// What Create made: the load and init times, backend, placement, memory plan
// and program cache.
void PrintSession(const Results& res, const gld::InterpreterReport& rep, const gld::Options& options) {
  std::printf("Loaded model in %.3f ms\n", res.load_us / 1000.0);
  std::printf("Initialized session in %.3f ms.\n", res.init_us / 1000.0);
  std::printf("Backend: %s (asked for %s), precision %s, %d thread(s)\n", gld::BackendName(rep.backend),
              gld::BackendName(options.backend), gld::PrecisionName(rep.precision), options.num_threads);
  if (!rep.gl_renderer.empty()) std::printf("GL renderer: %s\n", rep.gl_renderer.c_str());
  std::printf("%s (%d nodes in the file, %d after transforms), %d dispatches\n", rep.placement_line.c_str(),
              rep.original_nodes, rep.total_nodes, rep.dispatches);
  std::printf("Planned GPU bytes: %llu (one object per tensor: %llu); planned CPU bytes: %llu\n",
              static_cast<unsigned long long>(rep.gpu_bytes_planned),
              static_cast<unsigned long long>(rep.gpu_bytes_naive),
              static_cast<unsigned long long>(rep.cpu_bytes_planned));
  if (!options.cache_dir.empty()) {
    std::printf("Program cache %s: %d hits, %d misses\n", options.cache_dir.c_str(), rep.cache_hits,
                rep.cache_misses);
  }
}

// --output_dir, --trace and --json, after the runs.
gld::Status WriteFiles(gld::Interpreter& interp, const Flags& f, const gld::Options& options, const Results& res,
                       bool invoked) {
  // Outputs exist once a run completed (an interrupted start has none).
  if (!f.output_dir.empty() && invoked) {
    std::vector<std::string> written;
    gld::Status s = gld::tools::WriteOutputsNpy(interp, f.output_dir, &written);
    GLD_RETURN_IF_ERROR(s);
    for (const std::string& p : written) std::cout << "Wrote " << p << "\n";
  }
  if (!f.trace.empty()) {
    gld::Status s = gld::tools::WriteTraceFile(f.trace, interp.trace(), "--trace");
    GLD_RETURN_IF_ERROR(s);
    std::cout << "Wrote " << f.trace << " (open it in ui.perfetto.dev or chrome://tracing)\n";
  }
  if (!f.json.empty()) {
    std::ofstream out(f.json, std::ios::binary | std::ios::trunc);
    out << MakeJson(f, options, interp.report(), res);
    out.close();
    if (!out) return gld::InvalidArgumentError("cannot write --json file '" + f.json + "'");
    std::cout << "Wrote " << f.json << "\n";
  }
  return gld::OkStatus();
}

int Run(const CLI::App& app, Flags& f) {
  auto options = MakeBenchmarkOptions(app, f);
  if (!options.ok()) {
    std::cerr << kTool << ": error: " << options.status().message() << "\n";
    return 2;
  }
  auto input_files = gld::tools::ParseInputLayerValueFiles(f.input_layer_value_files);
  if (!input_files.ok()) {
    std::cerr << kTool << ": error: " << input_files.status().message() << "\n";
    return 2;
  }
  gld::tools::InstallStopHandlers();
  Results res;
  auto memory = MemoryNow;
  res.start_mem = memory();

  std::cout << kTool << " " << gld::VersionString() << "\nGraph: [" << f.graph << "]\n";
  const auto init_start = Clock::now();
  auto model = gld::Model::FromFile(f.graph);
  if (!model.ok()) return gld::tools::Fail(kTool, model.status());
  res.load_us = MicrosSince(init_start);
  auto created = gld::tools::CreateWithProgress(**model, *options, f.backend.signature);
  if (!created.ok()) return gld::tools::Fail(kTool, created.status());
  res.init_us = MicrosSince(init_start);
  res.init_mem = memory();
  gld::Interpreter& interp = **created;
  // A stop signal cancels the run in progress too (it is not counted).
  const gld::tools::CancelOnStop cancel_on_stop(interp);
  const gld::InterpreterReport& rep = interp.report();

  PrintSession(res, rep, *options);
  if (f.startup_phases) {
    res.phases = StartupPhases(interp.trace());
    PrintStartupPhases(res.phases);
  }

  if (f.verbose) PrintFlags(app);
  gld::Status s = CheckInputLayers(interp.inputs(), f);
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  if (f.print_preinvoke_state) PrintPreinvokeState(interp);
  if (f.dry_run) {
    res.end_mem = memory();
    std::printf("Dry run: the model was loaded and the interpreter created; nothing was invoked\n");
    PrintMemory(res, f);
    return 0;
  }
  StateBuffers state;
  if (f.resident_state) s = BindResidentState(interp, **model, f.backend.signature, &state);
  if (s.ok()) s = SetInputs(interp, *input_files, f);
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  if (!f.output_dir.empty()) {
    s = gld::tools::MakeOutputDir(f.output_dir, "--output_dir");
    if (!s.ok()) return gld::tools::Fail(kTool, s);
  }

  s = RunAll(interp, f, res);
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  res.stop_signal = gld::tools::StopSignal();
  if (res.stop_signal != 0) {
    std::printf("Interrupted by %s: %zu of %d timed runs and %zu of %d warmup runs done; the figures below are "
                "over those\n",
                SignalName(res.stop_signal), res.run_us.size(), f.num_runs, res.warmup_us.size(), f.warmup_runs);
  }
  const bool invoked = !res.warmup_us.empty() || !res.run_us.empty();
  res.first_us = !res.warmup_us.empty() ? res.warmup_us.front() : !res.run_us.empty() ? res.run_us.front() : 0.0;
  res.end_mem = memory();
  if (f.enable_op_profiling) res.profile = interp.profile();
  res.issue = interp.dispatch_issue_stats();

  const gld::tools::TimingStats warm = gld::tools::ComputeTimingStats(res.warmup_us);
  const gld::tools::TimingStats run = gld::tools::ComputeTimingStats(res.run_us);
  std::printf("count=%zu first=%.0f min=%.0f median=%.0f p90=%.0f max=%.0f avg=%.1f std=%.1f\n", run.count, run.first,
              run.min, run.median, run.p90, run.max, run.mean, run.std);
  std::printf("Inference timings in us: Init: %.0f, First inference: %.0f, Warmup (avg): %.1f, Inference (avg): %.1f\n",
              res.init_us, res.first_us, warm.mean, run.mean);
  std::printf("Inference (us): std %.1f, min %.1f, median %.1f, p90 %.1f, max %.1f over %zu runs\n", run.std, run.min,
              run.median, run.p90, run.max, run.count);
  // What a user waits for beyond one steady inference (program compilation
  // happens partly at init, partly at the first dispatch).
  std::printf("Start-up cost (init + first inference - median inference): %.1f ms\n",
              (res.init_us + res.first_us - run.median) / 1000.0);
  PrintMemory(res, f);
  const gld::TransferStats moved = interp.transfer_stats();
  if (rep.backend == gld::Backend::kGl) {
    std::printf("Bytes between host and GPU in the last run: %llu up, %llu down\n",
                static_cast<unsigned long long>(moved.uploaded_bytes),
                static_cast<unsigned long long>(moved.downloaded_bytes));
  }
  if (res.issue.dispatches > 0) {
    std::printf("Host cost per dispatch: %.2f us CPU issuing (outside glDispatchCompute/glMemoryBarrier); whole issuing "
                "loop %.2f us CPU, %.2f us wall; %lld dispatches\n",
                IssueOnly(res.issue), PerDispatch(res.issue.issue_cpu_us, res.issue.dispatches),
                PerDispatch(res.issue.issue_wall_us, res.issue.dispatches),
                static_cast<long long>(res.issue.dispatches));
  } else if (f.enable_op_profiling && rep.dispatches > 0) {
    std::printf("Host cost per dispatch: not measured while profiling (glFinish after each dispatch)\n");
  }
  if (f.enable_op_profiling) {
    PrintProfile(res.profile, res.profile.empty() ? 0 : res.profile.front().count);
    std::printf("(timings above include the profiling's own waits: glFinish or timer queries per dispatch)\n");
    if (!f.profiling_output_csv_file.empty()) {
      s = WriteProfileCsv(f.profiling_output_csv_file, res.profile);
      if (!s.ok()) return gld::tools::Fail(kTool, s);
      std::cout << "Wrote " << f.profiling_output_csv_file << "\n";
    }
  }

  s = WriteFiles(interp, f, *options, res, invoked);
  if (!s.ok()) return gld::tools::Fail(kTool, s);
  if (res.stop_signal != 0) {
    std::cout.flush();
    std::fflush(stdout);
    std::fprintf(stderr, "%s: interrupted by %s after %zu timed runs\n", kTool, SignalName(res.stop_signal),
                 res.run_us.size());
    return 128 + res.stop_signal;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gld::tools::EscapeStandardStreams();  // model-supplied names reach the terminal escaped
  CLI::App app("Benchmarks a .tflite model: init, first inference, warmup and timed runs, memory, optional "
               "per-op profiling (TensorFlow Lite benchmark_model's flag names where they agree).",
               kTool);
  Flags f;
  app.add_option("--graph", f.graph, "the .tflite model")->required();
  app.add_option("--num_runs", f.num_runs, "timed runs (at least)")->capture_default_str();
  app.add_option("--warmup_runs", f.warmup_runs, "untimed runs before them; the first is 'First inference'")
      ->capture_default_str();
  app.add_option("--min_secs", f.min_secs, "keep running until the timed runs took at least this long")
      ->capture_default_str();
  gld::tools::AddBackendFlags(app, f.backend, true, true);
  app.add_option("--num_threads", f.backend.threads, "TFLite's name for --threads");
  app.add_option("--use_gpu", f.use_gpu, "TFLite's name: true = --backend=gl, false = --backend=cpu");
  app.add_option("--gpu_precision_loss_allowed", f.gpu_precision_loss_allowed,
                 "TFLite's name: true = --precision=fp16, false = fp32");
  app.add_option("--max_delegated_partitions", f.max_delegated_partitions,
                 "at most N GPU segments (the largest); the rest runs on the CPU; 0: no limit")
      ->capture_default_str();
  app.add_option("--cache_dir", f.cache_dir, "program cache folder");
  app.add_option("--delegate_serialize_dir", f.delegate_serialize_dir, "TFLite's name for --cache_dir");
  gld::tools::AddOptionFlags(app, f.backend, {"--cache_allow_shared", "--trace_max_invokes"});
  app.add_option("--model_token", f.model_token, "cache key for the model (default: fingerprint of its bytes)");
  app.add_option("--delegate_serialize_token", f.delegate_serialize_token, "TFLite's name for --model_token");
  app.add_flag("--enable_op_profiling", f.enable_op_profiling, "time every GPU dispatch and CPU node");
  app.add_flag("--startup_phases", f.startup_phases,
               "print where the start-up went (and --json's startup_phases): loading, the passes, shapes, "
               "partition, plan, each kind of step's preparation; turns the trace on (its cost is in the runs)");
  app.add_flag("--report_peak_memory_footprint", f.report_peak_memory_footprint,
               "also print TFLite's 'Peak memory footprint (MB): init= overall=' line");
  app.add_option("--input_layer_value_files", f.input_layer_value_files,
                 "NAME:FILE.npy,NAME2:FILE2.npy ('::' for a ':' in a name); other inputs are random");
  app.add_option("--seed", f.seed, "seed of the random inputs (as gld_run)")->capture_default_str();
  app.add_option("--json", f.json, "write every figure to this JSON file");
  app.add_option("--trace", f.trace,
                 "write a timeline of the timed runs (and of the interpreter's creation: program builds) to this "
                 "JSON file, for ui.perfetto.dev or chrome://tracing: one event per GL dispatch, CPU node, upload "
                 "and download, and bytes moved per run (times GPU dispatches as --enable_op_profiling does)");
  app.add_option("--output_dir", f.output_dir, "write output i after the last run as DIR/<i>_<name>.npy");
  app.add_option("--max_secs", f.max_secs, "stop the timed runs after this many seconds (after one run; 0: no limit)")
      ->capture_default_str();
  app.add_option("--run_delay", f.run_delay, "seconds to wait between timed runs (-1: none)")->capture_default_str();
  app.add_option("--input_layer", f.input_layer, "comma-separated input names (checked: shapes are fixed)");
  app.add_option("--input_layer_shape", f.input_layer_shape,
                 "colon-separated shapes of --input_layer, e.g. 1,224,224,3:1,10 (must be the model's own)");
  app.add_flag("--verbose", f.verbose, "print every flag and its value");
  app.add_flag("--dry_run", f.dry_run, "load the model and create the interpreter, but run nothing");
  app.add_flag("--print_preinvoke_state", f.print_preinvoke_state,
               "print the tensors and each node's placement before the first invoke");
  app.add_flag("--resident_state", f.resident_state,
               "keep a state across the runs, as a decode loop does: each input of the signature (--signature, "
               "default the first) that an output of the same name gives back (a KV cache) is bound with it to "
               "one host buffer, updated in place by every run (on GL still uploaded and downloaded per run)");
  app.add_flag("--gpu_experimental_enable_quant", f.gpu_experimental_enable_quant,
               "quantized models on the GPU (true only: they always run, in float)")
      ->capture_default_str();
  app.add_option("--min_nodes_per_partition", f.min_nodes_per_partition,
                 "GPU segments of fewer nodes run on the CPU (0: keep all)")
      ->capture_default_str();
  app.add_option("--profiling_output_csv_file", f.profiling_output_csv_file,
                 "with --enable_op_profiling: also write the rows as benchmark_model's CSV");
  app.add_option("--external_delegate_path", f.external_delegate_path,
                 "refused: gldelegate is the delegate (libgldelegate.so is one for TFLite's benchmark_model)");
  app.add_option("--external_delegate_options", f.external_delegate_options, "refused: gldelegate is the delegate");
  app.footer(kTfliteFlagNotes);
  if (auto code = gld::tools::ParseFlags(app, argc, argv)) return *code;
  return Run(app, f);
}
