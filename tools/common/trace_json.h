// An Interpreter's trace (Options::enable_trace, Interpreter::trace()) as a
// Trace Event Format document: {"traceEvents": [...], "displayTimeUnit":
// "ms"}, which ui.perfetto.dev and chrome://tracing open
// (docs/TRACE_AND_PAGE.md).
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"

namespace gld::tools {

// One event as the format has it: name, cat, ph, ts, dur ('X' only), pid,
// tid, args (numbers as numbers, texts as strings).
JsonReport TraceEventJson(const TraceEvent& event);
JsonReport TraceJson(const std::vector<TraceEvent>& events);
// TraceJson written to `path`; an error naming `flag` when it cannot be.
Status WriteTraceFile(const std::string& path, const std::vector<TraceEvent>& events, const std::string& flag);

}  // namespace gld::tools
