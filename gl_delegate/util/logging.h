// The library's spdlog logger, "gldelegate": stderr, level from Options.log_level,
// else GLD_LOG_LEVEL, else warn.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "gldelegate/status.hpp"

namespace gld {

// The "gldelegate" logger (created on first use, registered with spdlog so
// applications can reconfigure it by name).
spdlog::logger& Log();

// Parses "trace|debug|info|warn|warning|error|critical|off"; InvalidArgument
// naming the value otherwise.
StatusOr<spdlog::level::level_enum> ParseLogLevel(const std::string& name);

// Sets the logger's level: `level` when non-empty, else GLD_LOG_LEVEL when set
// and valid, else warn. An invalid `level` is an error; an invalid environment
// value is reported as a warning and ignored.
Status ConfigureLogging(const std::string& level);

}  // namespace gld
