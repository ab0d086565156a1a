// Running the built gld_* tools from tests as a user would: a shell command
// with stdout and stderr captured, optionally under `timeout` so that a hang
// shows as exit 124 instead of blocking CTest.
#pragma once

#include <filesystem>
#include <string>

namespace gld::testing {

struct ToolResult {
  int exit_code = -1;  // the shell's: 128 + N after signal N; 124 after a timeout
  std::string out, err;
};

// The whole file as text ("" when it cannot be read).
std::string ReadWholeFile(const std::filesystem::path& path);

int CountLines(const std::string& text);

// Runs `'tool' args` in a shell with GLD_LOG_LEVEL=off and `env` (VAR=value
// ...); `shell` runs first in the same shell (e.g. a ulimit). With
// timeout_s > 0 the tool runs under `timeout -k 5 timeout_s`. stdout and
// stderr go through files in `dir`.
ToolResult RunTool(const std::filesystem::path& dir, const std::string& tool, const std::string& args,
                   const std::string& env = "", const std::string& shell = "", int timeout_s = 0);

// A fresh, empty folder under the temporary directory named after the
// running test (and the process, so parallel runs do not meet).
std::filesystem::path FreshTestDir(const std::string& prefix);

}  // namespace gld::testing
