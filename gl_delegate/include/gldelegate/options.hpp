// The checks of gld::Options that the C API, the Python package and the
// tools share, and the enum helpers for code that walks the options table
// (gldelegate/options.inc: one row per option, with its range).
#pragma once

#include <string>

#include "gldelegate/export.h"
#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"

namespace gld {

// Checks option `member` of `options` ("num_threads": the field's name, as
// options.inc lists it) against the table; InvalidArgument naming it as
// `shown_as` (the member's name when empty) and the value:
//   "num_threads must be -1 (every core) or >= 1, got 0"
//   "unknown backend 9"
//   "give both the EGLDisplay (share_egl_display) and the EGLContext (share_egl_context), or neither"
// NotFound for a member the table does not list.
GLD_EXPORT Status CheckOption(const Options& options, const std::string& member, const std::string& shown_as = "");

// CheckOption for every option of the table, in its order.
GLD_EXPORT Status CheckOptions(const Options& options);

// The option enums by type, for code generated from options.inc.
inline const char* EnumName(Backend v) { return BackendName(v); }
inline const char* EnumName(Precision v) { return PrecisionName(v); }
inline const char* EnumName(ContextMode v) { return ContextModeName(v); }
inline const char* EnumName(GlLimits v) { return GlLimitsName(v); }
inline Status ParseEnum(const std::string& s, Backend* out) {
  GLD_ASSIGN_OR_RETURN(*out, ParseBackend(s));
  return OkStatus();
}
inline Status ParseEnum(const std::string& s, Precision* out) {
  GLD_ASSIGN_OR_RETURN(*out, ParsePrecision(s));
  return OkStatus();
}
inline Status ParseEnum(const std::string& s, ContextMode* out) {
  GLD_ASSIGN_OR_RETURN(*out, ParseContextMode(s));
  return OkStatus();
}
inline Status ParseEnum(const std::string& s, GlLimits* out) {
  GLD_ASSIGN_OR_RETURN(*out, ParseGlLimits(s));
  return OkStatus();
}

}  // namespace gld
