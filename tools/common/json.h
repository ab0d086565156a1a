// The tools' machine-readable reports (gld_benchmark --json) are
// nlohmann::ordered_json documents, so members are written in the order the
// tool sets them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gld::tools {

using JsonReport = nlohmann::ordered_json;

// `report` as the text of a file: two-space indents and a trailing newline.
// Never throws: non-finite numbers become null (JSON has no NaN or infinity)
// and bytes that are not UTF-8 in a string (a model's tensor name) become
// U+FFFD.
std::string JsonReportText(const JsonReport& report);

}  // namespace gld::tools
