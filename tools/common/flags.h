// Flag parsing shared by the gld_* tools (CLI11): the backend/precision/
// deny-list/threads/log-level/cache flags (from gldelegate/options.inc),
// one-line errors, list splitting.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gldelegate/gldelegate.hpp"

namespace gld::tools {

// The values of the shared flags. The options.inc rows marked GLD_FLAG(name)
// are registered and turned into Options from the table: their field here
// is called `name`, as the flag, and holds the option's default.
struct BackendFlags {
  std::string backend = "auto";
  std::string precision = "fp32";
  std::string gpu_deny_ops;  // comma-separated op names
  int threads = 1;
  std::string log_level;
  std::string cache_dir;    // --cache_dir (AddCacheFlags)
  std::string model_token;  // --model_token (AddCacheFlags)
  bool cache_allow_shared = false;  // --cache_allow_shared (AddCacheFlags)
  int trace_max_invokes = 256;      // --trace_max_invokes (AddOptionFlags)
  std::string gl_limits = "driver";
  // --custom_ops (AddCustomOpsFlag): comma-separated custom-op libraries.
  std::string custom_ops;
  // --signature (AddBackendFlags): the signature to run; empty: the first.
  std::string signature;
};

// --custom_ops=lib.so[,lib2.so]: libraries whose gld_register_custom_ops
// (gldelegate/gldelegate.h) registers the app's custom ops; AddBackendFlags
// adds it.
void AddCustomOpsFlag(CLI::App& app, BackendFlags& flags);

// --backend, --precision, --gpu_deny_ops, --gl_limits, --signature;
// --threads and --log_level when asked.
void AddBackendFlags(CLI::App& app, BackendFlags& flags, bool with_threads, bool with_log_level);

// --cache_dir, --model_token and --cache_allow_shared (the program cache,
// Options::cache_dir).
void AddCacheFlags(CLI::App& app, BackendFlags& flags);

// The table's flags named (e.g. {"--trace_max_invokes"}), for a tool that
// registers the others itself.
void AddOptionFlags(CLI::App& app, BackendFlags& flags, std::initializer_list<std::string> names);

// Options from the flags; InvalidArgument naming a bad value, or a
// --custom_ops library that cannot be loaded (LoadCustomOpLibrary's line).
StatusOr<Options> MakeOptions(const BackendFlags& flags);

// Parses argv. Returns an exit code when the tool should stop now: 0 after
// --help (printed to stdout), 2 after a bad flag (one line on stderr:
// "<tool>: error: <what>").
std::optional<int> ParseFlags(CLI::App& app, int argc, char** argv);

// Prints "<tool>: error: <status>" to stderr and returns 1.
int Fail(const std::string& tool, const Status& status);
int Fail(const std::string& tool, const std::string& message);

// "A,B,,C" -> {"A", "B", "C"} (empty items dropped, spaces trimmed).
std::vector<std::string> SplitList(const std::string& list, char sep = ',');

}  // namespace gld::tools
