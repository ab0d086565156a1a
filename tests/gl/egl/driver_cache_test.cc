// The driver's shader cache goes into cache_dir only where the space Mesa
// maps is really there (gl/egl/driver_cache.h: ReserveDriverCacheSpace), and
// the cache's own writes fail cleanly when the disk is full. The full disk
// is simulated without privileges by a file-size limit (RLIMIT_FSIZE, with
// SIGXFSZ ignored: writes past it fail with EFBIG) in a forked child;
// tests/tools/hostile_environment_test.cc mounts a real full tmpfs.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/process_limits.h"
#include "common/tool_run.h"
#include "gl/egl/driver_cache.h"
#include "util/file_util.h"

namespace gld {
namespace {

namespace fs = std::filesystem;

class DriverCacheSpaceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("gld_driver_cache"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Index() const { return (dir_ / "driver" / "mesa_shader_cache" / "index").string(); }
  fs::path dir_;
};

TEST_F(DriverCacheSpaceTest, ReservesEveryBlockOfMesasIndex) {
  Status s = gl::ReserveDriverCacheSpace((dir_ / "driver").string());
  if (!s.ok() && s.message().find("bytes free") != std::string::npos) GTEST_SKIP() << s.message();
  ASSERT_TRUE(s.ok()) << s.ToString();
  struct stat st {};
  ASSERT_EQ(::stat(Index().c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), gl::kMesaIndexBytes);
  // Allocated, not sparse: Mesa's stores into its mapping cannot fault.
  EXPECT_GE(static_cast<uint64_t>(st.st_blocks) * 512, gl::kMesaIndexBytes);
}

TEST_F(DriverCacheSpaceTest, AnExistingIndexKeepsItsContents) {
  fs::create_directories(dir_ / "driver" / "mesa_shader_cache");
  {
    std::ofstream out(Index(), std::ios::binary);
    const char used[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    out.write(used, sizeof used);
  }
  fs::resize_file(Index(), gl::kMesaIndexBytes);  // sparse, as Mesa's ftruncate leaves it
  Status s = gl::ReserveDriverCacheSpace((dir_ / "driver").string());
  if (!s.ok() && s.message().find("bytes free") != std::string::npos) GTEST_SKIP() << s.message();
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string bytes = testing::ReadWholeFile(Index());
  ASSERT_EQ(bytes.size(), gl::kMesaIndexBytes);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\1\2\3\4\5\6\7\10"));
  struct stat st {};
  ASSERT_EQ(::stat(Index().c_str(), &st), 0);
  EXPECT_GE(static_cast<uint64_t>(st.st_blocks) * 512, gl::kMesaIndexBytes);
}

// Codes the child returns: 0 when every check holds.
int UnderFileSizeLimit(const fs::path& dir) {
  ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {64 * 1024, RLIM_INFINITY};
  if (::getrlimit(RLIMIT_FSIZE, &lim) != 0) return 1;
  lim.rlim_cur = 64 * 1024;
  if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return 2;
  // Mesa's index cannot be had: refused, with the reason, nothing left.
  const std::string driver = (dir / "driver").string();
  Status s = gl::ReserveDriverCacheSpace(driver);
  if (s.ok()) return 3;
  if (s.message().find("that Mesa maps") == std::string::npos) return 4;
  if (fs::exists(driver + "/mesa_shader_cache/index")) return 5;
  // A cache file past the limit: an error naming the cause, the old file
  // untouched, no temporary left.
  const std::string entry = (dir / "entry.gldc").string();
  const std::vector<uint8_t> small(1000, 7), big(200 * 1024, 9);
  if (!WriteFileAtomic(entry, small.data(), small.size()).ok()) return 6;
  s = WriteFileAtomic(entry, big.data(), big.size());
  if (s.ok()) return 7;
  if (s.message().find("File too large") == std::string::npos) return 8;
  if (fs::file_size(entry) != small.size()) return 9;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().string().find(".tmp.") != std::string::npos) return 10;
  }
  return 0;
}

TEST_F(DriverCacheSpaceTest, AFullDiskRefusesTheIndexAndFailsWritesCleanly) {
  const fs::path dir = dir_;
  testing::ChildResult r = testing::RunInChild([dir] { return UnderFileSizeLimit(dir); }, 60);
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
}

}  // namespace
}  // namespace gld
