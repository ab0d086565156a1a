#include "common/flags.h"

#include <iostream>

namespace gld::tools {

void AddBackendFlags(CLI::App& app, BackendFlags& flags, bool with_threads, bool with_log_level) {
  app.add_option("--backend", flags.backend, "auto, gl or cpu")->capture_default_str();
  app.add_option("--precision", flags.precision, "fp32, fp16 (fp16 storage, fp32 arithmetic) or fp16_mediump (fp16 storage and mediump arithmetic)")->capture_default_str();
  app.add_option("--gpu_deny_ops", flags.gpu_deny_ops, "comma-separated op names forced to the CPU, e.g. ADD,MUL");
  AddCustomOpsFlag(app, flags);
  if (with_threads) app.add_option("--threads", flags.threads, "CPU kernel threads (-1: every core)")->capture_default_str();
  if (with_log_level) {
    app.add_option("--log_level", flags.log_level,
                   "trace, debug, info, warn, error or off (default: $GLD_LOG_LEVEL, else warn)");
  }
}

void AddCustomOpsFlag(CLI::App& app, BackendFlags& flags) {
  app.add_option("--custom_ops", flags.custom_ops,
                 "comma-separated shared libraries defining gld_register_custom_ops, which register the app's "
                 "custom ops (README: Custom ops)");
}

void AddCacheFlags(CLI::App& app, BackendFlags& flags) {
  app.add_option("--cache_dir", flags.cache_dir,
                 "program cache folder (compiled GPU programs and the driver's shader cache); off when empty");
  app.add_option("--model_token", flags.model_token,
                 "names the model's cache entry (default: fingerprint of the model bytes)");
}

StatusOr<Options> MakeOptions(const BackendFlags& flags) {
  Options o;
  GLD_ASSIGN_OR_RETURN(o.backend, ParseBackend(flags.backend));
  GLD_ASSIGN_OR_RETURN(o.precision, ParsePrecision(flags.precision));
  if (flags.threads < 1 && flags.threads != -1) {
    return InvalidArgumentError("--threads must be -1 (every core) or at least 1, got " + std::to_string(flags.threads));
  }
  o.num_threads = flags.threads;
  o.log_level = flags.log_level;
  o.gpu_deny_ops = SplitList(flags.gpu_deny_ops);
  o.cache_dir = flags.cache_dir;
  o.model_token = flags.model_token;
  for (const std::string& path : SplitList(flags.custom_ops)) {
    Status s = LoadCustomOpLibrary(path, &o);
    if (!s.ok()) return Status(s.code(), "--custom_ops: " + s.message());
  }
  return o;
}

std::optional<int> ParseFlags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n') c = ' ';
    }
    std::cerr << app.get_name() << ": error: " << what << " (see --help)\n";
    return 2;
  }
  return std::nullopt;
}

int Fail(const std::string& tool, const Status& status) { return Fail(tool, status.ToString()); }

int Fail(const std::string& tool, const std::string& message) {
  std::cerr << tool << ": error: " << message << "\n";
  return 1;
}

std::vector<std::string> SplitList(const std::string& list, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(sep, start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace gld::tools
