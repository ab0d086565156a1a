#include "util/logging.h"

#include <cstdlib>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace gld {

namespace {
constexpr char kLoggerName[] = "gldelegate";

std::shared_ptr<spdlog::logger> CreateLogger() {
  if (auto existing = spdlog::get(kLoggerName)) return existing;
  auto logger = spdlog::stderr_color_mt(kLoggerName);
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [gldelegate] [%l] %v");
  logger->set_level(spdlog::level::warn);
  const char* env = std::getenv("GLD_LOG_LEVEL");
  if (env != nullptr && *env != '\0') {
    auto level = ParseLogLevel(env);
    if (level.ok()) logger->set_level(*level);
  }
  return logger;
}
}  // namespace

spdlog::logger& Log() {
  // Held for the process lifetime so a caller's spdlog::drop_all cannot leave
  // us with a dangling logger.
  static const std::shared_ptr<spdlog::logger> logger = CreateLogger();
  return *logger;
}

StatusOr<spdlog::level::level_enum> ParseLogLevel(const std::string& name) {
  using spdlog::level::level_enum;
  if (name == "trace") return level_enum::trace;
  if (name == "debug") return level_enum::debug;
  if (name == "info") return level_enum::info;
  if (name == "warn" || name == "warning") return level_enum::warn;
  if (name == "error") return level_enum::err;
  if (name == "critical") return level_enum::critical;
  if (name == "off") return level_enum::off;
  return InvalidArgumentError("unknown log level '" + name +
                              "' (expected trace, debug, info, warn, error, critical or off)");
}

Status ConfigureLogging(const std::string& level) {
  spdlog::logger& logger = Log();
  if (!level.empty()) {
    GLD_ASSIGN_OR_RETURN(auto parsed, ParseLogLevel(level));
    logger.set_level(parsed);
    return OkStatus();
  }
  const char* env = std::getenv("GLD_LOG_LEVEL");
  if (env != nullptr && *env != '\0') {
    auto parsed = ParseLogLevel(env);
    if (parsed.ok()) {
      logger.set_level(*parsed);
    } else {
      logger.set_level(spdlog::level::warn);
      logger.warn("ignoring GLD_LOG_LEVEL: {}", parsed.status().message());
    }
    return OkStatus();
  }
  logger.set_level(spdlog::level::warn);
  return OkStatus();
}

}  // namespace gld
