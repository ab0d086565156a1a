#include <gtest/gtest.h>

#include <cstdlib>

#include "util/logging.h"

namespace gld {
namespace {

TEST(Logging, LevelFromOptionThenEnvironmentThenWarn) {
  ::unsetenv("GLD_LOG_LEVEL");
  ASSERT_TRUE(ConfigureLogging("debug").ok());
  EXPECT_EQ(Log().level(), spdlog::level::debug);
  EXPECT_EQ(Log().name(), "gldelegate");
  EXPECT_EQ(spdlog::get("gldelegate").get(), &Log()) << "registered by name";

  ASSERT_TRUE(ConfigureLogging("").ok());
  EXPECT_EQ(Log().level(), spdlog::level::warn);

  ::setenv("GLD_LOG_LEVEL", "error", 1);
  ASSERT_TRUE(ConfigureLogging("").ok());
  EXPECT_EQ(Log().level(), spdlog::level::err);
  ASSERT_TRUE(ConfigureLogging("info").ok()) << "the option wins over the environment";
  EXPECT_EQ(Log().level(), spdlog::level::info);

  ::setenv("GLD_LOG_LEVEL", "chatty", 1);
  EXPECT_TRUE(ConfigureLogging("").ok()) << "a bad environment value is ignored";
  EXPECT_EQ(Log().level(), spdlog::level::warn);
  ::unsetenv("GLD_LOG_LEVEL");

  Status s = ConfigureLogging("verbose");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'verbose'"), std::string::npos);
  ASSERT_TRUE(ConfigureLogging("warn").ok());
}

}  // namespace
}  // namespace gld
