// gld_run and gld_inspect on a chain of 5,000 nested CALL_ONCE subgraphs
// (no recursion; a file of 240 KB): a one-line error naming the chain and the
// limit, exit 1 (was: SIGSEGV in the preparation's recursion from about
// 2,000 levels); a chain at the limit runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/control_flow_models.h"
#include "common/tool_run.h"
#include "graph/graph_check.h"

#ifndef GLD_RUN_PATH
#define GLD_RUN_PATH ""
#endif
#ifndef GLD_INSPECT_PATH
#define GLD_INSPECT_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;

void WriteBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(NestingTools, DeepChainIsAOneLineError) {
  if (std::string(GLD_RUN_PATH).empty() || std::string(GLD_INSPECT_PATH).empty()) {
    GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
  }
  const fs::path dir = testing::FreshTestDir("gld_nesting_tools");
  const fs::path deep = dir / "chain_5000.tflite", ok = dir / "chain_limit.tflite";
  WriteBytes(deep, testing::CallOnceChainModel(5000));
  WriteBytes(ok, testing::CallOnceChainModel(kMaxSubgraphNesting));
  // Both backends: gld_run --backend=cpu and --backend=gl, gld_inspect.
  const std::vector<std::pair<std::string, std::string>> runs = {
      {GLD_RUN_PATH, " --backend=cpu"}, {GLD_RUN_PATH, " --backend=gl"}, {GLD_INSPECT_PATH, ""}};
  for (const auto& [tool, flags] : runs) {
    const testing::ToolResult r = testing::RunTool(dir, tool, "--graph=" + deep.string() + flags, "", "", 120);
    EXPECT_EQ(r.exit_code, 1) << tool << flags << "\n" << r.err;
    EXPECT_EQ(testing::CountLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("starts a chain of 5000 nested subgraph calls"), std::string::npos) << r.err;
  }
  for (const char* backend : {"cpu", "gl"}) {
    const testing::ToolResult r =
        testing::RunTool(dir, GLD_RUN_PATH, "--graph=" + ok.string() + " --backend=" + backend, "", "", 120);
    if (r.exit_code != 0 && r.err.find("UNAVAILABLE") != std::string::npos) continue;  // no GL here
    EXPECT_EQ(r.exit_code, 0) << backend << "\n" << r.err;
    EXPECT_NE(r.out.find("output 0"), std::string::npos) << r.out;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gld
