// The tools' shared flags come from gldelegate/options.inc: each GLD_FLAG
// row is registered under its name, its BackendFlags field starts at the
// option's default, and MakeOptions sets and checks the option from it.
#include <gtest/gtest.h>

#ifdef GLD_HAVE_TOOL_COMMON
#include <string>

#include "common/flags.h"
#include "gldelegate/options.hpp"

namespace gld::tools {
namespace {

TEST(ToolFlagsTable, EveryTableFlagIsRegisteredAndStartsAtTheDefault) {
  CLI::App app("test", "test");
  BackendFlags flags;
  AddBackendFlags(app, flags, true, true);
  AddCacheFlags(app, flags);
  AddOptionFlags(app, flags, {"--trace_max_invokes"});
  auto made = MakeOptions(flags);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const Options defaults;
  int flagged = 0;
#define GLD_FLAG(name) "--" #name
#define GLD_NO_FLAG ""
#define GLD_OPTION(field, kind, c_name, flag, ...)                                      \
  if (std::string(flag).size() > 0) {                                                   \
    ++flagged;                                                                          \
    EXPECT_NE(app.get_option_no_throw(flag), nullptr) << flag;                          \
    EXPECT_TRUE(made->field == defaults.field) << #field;                               \
  }
#include "gldelegate/options.inc"
#undef GLD_OPTION
#undef GLD_FLAG
#undef GLD_NO_FLAG
  EXPECT_EQ(flagged, 10);
}

TEST(ToolFlagsTable, MakeOptionsChecksThroughTheTable) {
  BackendFlags flags;
  flags.threads = -1;
  flags.log_level = "debug";
  flags.cache_dir = "/tmp/c";
  flags.model_token = "t";
  flags.precision = "fp16_mediump";
  auto made = MakeOptions(flags);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(made->num_threads, -1);
  EXPECT_EQ(made->log_level, "debug");
  EXPECT_EQ(made->cache_dir, "/tmp/c");
  EXPECT_EQ(made->model_token, "t");
  EXPECT_EQ(made->precision, Precision::kFp16Mediump);
  flags.threads = -3;
  made = MakeOptions(flags);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(), "--threads must be -1 (every core) or >= 1, got -3");
  flags.threads = 1;
  // The program cache's opt-in and the trace's bound are table flags too.
  flags.cache_allow_shared = true;
  flags.trace_max_invokes = 7;
  made = MakeOptions(flags);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(made->cache_allow_shared);
  EXPECT_EQ(made->trace_max_invokes, 7);
  flags.trace_max_invokes = 0;
  EXPECT_EQ(MakeOptions(flags).status().message(), "--trace_max_invokes must be >= 1, got 0");
  flags.trace_max_invokes = 256;
  CLI::App app("test", "test");
  BackendFlags parsed;
  AddCacheFlags(app, parsed);
  AddOptionFlags(app, parsed, {"--trace_max_invokes"});
  app.parse("--cache_allow_shared --trace_max_invokes=9", false);
  EXPECT_TRUE(parsed.cache_allow_shared);
  EXPECT_EQ(parsed.trace_max_invokes, 9);
  flags.backend = "vulkan";
  EXPECT_NE(MakeOptions(flags).status().message().find("vulkan"), std::string::npos);
}

}  // namespace
}  // namespace gld::tools
#endif  // GLD_HAVE_TOOL_COMMON
