// gld::CheckOption: the one check of option values (gldelegate/options.inc
// gives each INT option's range), shared by every entry: the C API, the C++
// Interpreter::Create, the Python package, the tools, the TFLite delegate,
// and Runtime::Initialize below them. In util/ so that the runtime can call it.
#include "gldelegate/options.hpp"

#include <cctype>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graph/graph.h"

namespace gld {
namespace {

// One overload per kind, picked by the field's type; `o` for the rules
// between fields.
template <typename Enum, typename = std::enable_if_t<std::is_enum_v<Enum>>>
Status CheckValue(const Options&, Enum v, int, int, const char*, const std::string& name) {
  if (std::string(EnumName(v)) != "unknown") return OkStatus();
  return InvalidArgumentError("unknown " + name + " " + std::to_string(static_cast<int>(v)));
}

Status CheckValue(const Options&, int v, int min, int special, const char* range, const std::string& name) {
  if (v >= min || v == special) return OkStatus();
  return InvalidArgumentError(name + " must be " + range + ", got " + std::to_string(v));
}

Status CheckValue(const Options&, bool, int, int, const char*, const std::string&) { return OkStatus(); }
Status CheckValue(const Options&, const std::string&, int, int, const char*, const std::string&) { return OkStatus(); }
// The LIST kind's check is gpu_deny_ops': every item names an op as the IR
// does (OpTypeName: the schema's builtin names, CUSTOM for every custom op,
// the library's own ops such as GLD_LAYER_NORM).
constexpr int kListOptions = 0
#define GLD_OPTION(field, kind, ...) +(std::string_view(#kind) == "LIST" ? 1 : 0)
#include "gldelegate/options.inc"
#undef GLD_OPTION
    ;
static_assert(kListOptions == 1, "CheckValue(list) checks op names: give another LIST option its own check");

// "CONV2D" and "conv_2d" -> "CONV_2D": the op whose name matches but for
// case and underscores; empty when none does.
std::string CloseOpName(const std::string& name) {
  const auto fold = [](const std::string& s) {
    std::string f;
    for (char c : s) {
      if (c != '_' && c != '-' && c != ' ') f += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return f;
  };
  const std::string want = fold(name);
  for (OpType op : AllOpTypes()) {
    if (fold(OpTypeName(op)) == want) return OpTypeName(op);
  }
  return "";
}

Status CheckValue(const Options&, const std::vector<std::string>& ops, int, int, const char*, const std::string& name) {
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string where = name + " item " + std::to_string(i + 1) + " of " + std::to_string(ops.size());
    if (ops[i].empty()) return InvalidArgumentError(where + " is empty (an op name was expected, e.g. CONV_2D)");
    OpType op;
    if (OpTypeFromName(ops[i], &op)) continue;
    const std::string close = CloseOpName(ops[i]);
    return InvalidArgumentError(
        name + ": unknown op '" + ops[i] + "'" + (close.empty() ? "" : " (did you mean " + close + "?)") +
        "; op names are the model's, e.g. CONV_2D, and CUSTOM for every custom op (gld_inspect --list_ops)");
  }
  return OkStatus();
}

// The share context is a pair: both pointers, or neither.
Status CheckValue(const Options& o, void*, int, int, const char*, const std::string&) {
  if ((o.share_egl_display == nullptr) == (o.share_egl_context == nullptr)) return OkStatus();
  return InvalidArgumentError(
      "give both the EGLDisplay (share_egl_display) and the EGLContext (share_egl_context), or neither");
}

// options.inc covers gld::Options: a struct of the table's fields (and
// custom_ops, which is not a value) has Options' size.
struct OptionsFromTable {
#define GLD_OPTION(field, ...) decltype(Options::field) field;
#include "gldelegate/options.inc"
#undef GLD_OPTION
  decltype(Options::custom_ops) custom_ops;
};
static_assert(sizeof(OptionsFromTable) == sizeof(Options), "options.inc lists every field of gld::Options");

}  // namespace

Status CheckOption(const Options& options, const std::string& member, const std::string& shown_as) {
  const std::string& name = shown_as.empty() ? member : shown_as;
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, range, help) \
  if (member == #field) return CheckValue(options, options.field, min, special, range, name);
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return NotFoundError("no option named '" + member + "'");
}

Status CheckOptions(const Options& options) {
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, range, help) \
  GLD_RETURN_IF_ERROR(CheckOption(options, #field));
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return OkStatus();
}

}  // namespace gld
