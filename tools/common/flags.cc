#include "common/flags.h"

#include <algorithm>
#include <initializer_list>
#include <iostream>
#include <type_traits>

#include "common/printable.h"
#include "gldelegate/options.hpp"

namespace gld::tools {
namespace {

// The flags of gldelegate/options.inc: a row's GLD_FLAG(name) is the flag
// --name, its help the row's, and the BackendFlags field `name` holds its
// value; MakeOptions parses and checks each (gld::CheckOption).
template <typename Field>
struct TableFlag {
  const char* name;  // "--threads"
  Field field;       // BackendFlags& -> its field
};
template <typename Field>
TableFlag<Field> MakeTableFlag(const char* name, Field field) {
  return {name, field};
}
#define GLD_FLAG(name) MakeTableFlag("--" #name, [](auto& held) -> auto& { return held.name; })
#define GLD_NO_FLAG nullptr

template <typename Field>
void AddTableFlag(CLI::App& app, BackendFlags& flags, const std::string& wanted, TableFlag<Field> flag,
                  const char* help) {
  if (wanted != flag.name) return;
  auto& value = flag.field(flags);
  if constexpr (std::is_same_v<std::decay_t<decltype(value)>, bool>) {
    app.add_flag(flag.name, value, help);  // --name, or --name=true|false
    return;
  }
  CLI::Option* option = app.add_option(flag.name, value, help);
  // --help shows a default unless it is empty.
  if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
    if (value.empty()) return;
  }
  option->capture_default_str();
}
void AddTableFlag(CLI::App&, BackendFlags&, const std::string&, std::nullptr_t, const char*) {}

// Registers the table's flags named in `names`, in that order.
void AddTableFlags(CLI::App& app, BackendFlags& flags, std::initializer_list<std::string> names) {
  for (const std::string& name : names) {
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, range, help) \
  AddTableFlag(app, flags, name, flag, help);
#include "gldelegate/options.inc"
#undef GLD_OPTION
  }
}

// A flag's value as the option's type.
template <typename Enum, typename = std::enable_if_t<std::is_enum_v<Enum>>>
Status FromFlag(const std::string& value, Enum* out) {
  return ParseEnum(value, out);
}
Status FromFlag(int value, int* out) {
  *out = value;
  return OkStatus();
}
Status FromFlag(bool value, bool* out) {
  *out = value;
  return OkStatus();
}
Status FromFlag(const std::string& value, std::string* out) {
  *out = value;
  return OkStatus();
}
// A list flag keeps its empty items ("ADD,,MUL", ",,,") for the check to
// refuse; only an empty value is an empty list.
Status FromFlag(const std::string& value, std::vector<std::string>* out) {
  out->clear();
  if (value.find_first_not_of(" \t") == std::string::npos) return OkStatus();
  for (size_t start = 0; start <= value.size();) {
    const size_t end = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, end - start);
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out->push_back(b == std::string::npos ? std::string() : item.substr(b, e - b + 1));
    start = end + 1;
  }
  return OkStatus();
}

// Sets option `member` of `o` from its flag and checks it (gld::CheckOption,
// naming the flag).
template <typename Field, typename T>
Status SetFromFlag(const BackendFlags& flags, TableFlag<Field> flag, const char* member, T* out, const Options& o) {
  GLD_RETURN_IF_ERROR(FromFlag(flag.field(flags), out));
  return CheckOption(o, member, flag.name);
}
template <typename T>
Status SetFromFlag(const BackendFlags&, std::nullptr_t, const char*, T*, const Options&) {
  return OkStatus();
}

}  // namespace

void AddBackendFlags(CLI::App& app, BackendFlags& flags, bool with_threads, bool with_log_level) {
  AddTableFlags(app, flags, {"--backend", "--precision", "--gpu_deny_ops", "--gl_limits"});
  AddCustomOpsFlag(app, flags);
  app.add_option("--signature", flags.signature,
                 "the signature to run, by its key (a decoder's prefill or decode); default: the model's first");
  if (with_threads) AddTableFlags(app, flags, {"--threads"});
  if (with_log_level) AddTableFlags(app, flags, {"--log_level"});
}

void AddCustomOpsFlag(CLI::App& app, BackendFlags& flags) {
  app.add_option("--custom_ops", flags.custom_ops,
                 "comma-separated shared libraries defining gld_register_custom_ops, which register the app's "
                 "custom ops (docs/USER_GUIDE.md: Custom ops)");
}

void AddCacheFlags(CLI::App& app, BackendFlags& flags) {
  AddTableFlags(app, flags, {"--cache_dir", "--model_token", "--cache_allow_shared"});
}

void AddOptionFlags(CLI::App& app, BackendFlags& flags, std::initializer_list<std::string> names) {
  AddTableFlags(app, flags, names);
}

StatusOr<Options> MakeOptions(const BackendFlags& flags) {
  Options o;
#define GLD_OPTION(field, kind, c_name, flag, ...) GLD_RETURN_IF_ERROR(SetFromFlag(flags, flag, #field, &o.field, o));
#include "gldelegate/options.inc"
#undef GLD_OPTION
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
  std::cerr << tool << ": error: " << Printable(message) << "\n";
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
