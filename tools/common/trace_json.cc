#include "common/trace_json.h"

#include <fstream>

namespace gld::tools {

JsonReport TraceEventJson(const TraceEvent& event) {
  JsonReport e;
  e["name"] = event.name;
  if (!event.category.empty()) e["cat"] = event.category;
  e["ph"] = std::string(1, event.phase);
  e["ts"] = event.ts_us;
  if (event.phase == 'X') e["dur"] = event.dur_us;
  e["pid"] = event.pid;
  e["tid"] = event.tid;
  JsonReport args = JsonReport::object();
  for (const TraceArg& a : event.args) {
    if (a.is_number) {
      args[a.name] = a.number;
    } else {
      args[a.name] = a.text;
    }
  }
  e["args"] = std::move(args);
  return e;
}

JsonReport TraceJson(const std::vector<TraceEvent>& events) {
  JsonReport doc;
  JsonReport list = JsonReport::array();
  for (const TraceEvent& event : events) list.push_back(TraceEventJson(event));
  doc["traceEvents"] = std::move(list);
  doc["displayTimeUnit"] = "ms";
  return doc;
}

Status WriteTraceFile(const std::string& path, const std::vector<TraceEvent>& events, const std::string& flag) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << JsonReportText(TraceJson(events));
  out.close();
  if (!out) return InvalidArgumentError("cannot write " + flag + " file '" + path + "'");
  return OkStatus();
}

}  // namespace gld::tools
