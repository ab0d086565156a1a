#include "common/json.h"

namespace gld::tools {

std::string JsonReportText(const JsonReport& report) {
  return report.dump(2, ' ', /*ensure_ascii=*/false, JsonReport::error_handler_t::replace) + "\n";
}

}  // namespace gld::tools
