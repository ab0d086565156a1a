// What the program cache trusts (Options::cache_allow_shared off): only a
// folder and entries this user (or root) owns and nobody else may write;
// no link is followed at an entry's name; what it creates is private
// whatever the umask. Ownership by another user is made with chown, which
// needs root: those cases skip (saying so) otherwise.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cache_test_util.h"
#include "gl/egl/driver_cache.h"
#include "util/file_util.h"

namespace gld::testing {
namespace {

constexpr float kAdd = 0.25f;
constexpr uid_t kNobody = 65534;

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

uid_t OwnerOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_uid;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class CacheTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* skip = std::getenv("GLD_SKIP_GL_TESTS");
    if (skip != nullptr && *skip != '\0' && std::string(skip) != "0") {
      GTEST_SKIP() << "GLD_SKIP_GL_TESTS is set; the program cache needs GL";
    }
    model_ = CacheTestModel(4, 4, 8, kAdd);
    ASSERT_FALSE(model_.empty());
  }

  // A first run: every program compiled and the entry written.
  std::string Warm(const Options& o) {
    InterpreterReport r = RunAndCheck(model_, o, kAdd);
    EXPECT_GT(r.cache_misses, 0);
    EXPECT_EQ(r.cache_hits, 0);
    return r.cache_file;
  }

  std::vector<uint8_t> model_;
  TempDir dir_;
};

TEST_F(CacheTrustTest, EntryOfAnotherUserIsAMissWarnedAndRewritten) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving the entry to another user needs root (chown)";
  const Options o = GlOptions(dir_.path());
  const std::string entry = Warm(o);
  ASSERT_EQ(::chown(entry.c_str(), kNobody, kNobody), 0);
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_GT(r.cache_misses, 0);
  EXPECT_EQ(warnings.Count("is owned by uid 65534"), 1) << warnings.text();
  EXPECT_EQ(OwnerOf(entry), ::geteuid());  // rewritten as this user's
  // The app that shares its cache on purpose uses such entries.
  ASSERT_EQ(::chown(entry.c_str(), kNobody, kNobody), 0);
  Options shared = o;
  shared.cache_allow_shared = true;
  r = RunAndCheck(model_, shared, kAdd);
  EXPECT_GT(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, 0);
}

TEST_F(CacheTrustTest, EntryOthersMayWriteIsNotUsed) {
  const Options o = GlOptions(dir_.path());
  const std::string entry = Warm(o);
  ASSERT_EQ(::chmod(entry.c_str(), 0666), 0);
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(warnings.Count("is writable by its group or others (mode 0666)"), 1) << warnings.text();
  EXPECT_EQ(ModeOf(entry), 0600u);
}

TEST_F(CacheTrustTest, FolderOthersMayWriteRunsWithoutTheCacheUnlessShared) {
  const std::string shared_dir = dir_.Sub("shared");
  ASSERT_EQ(::mkdir(shared_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(shared_dir.c_str(), 01777), 0);  // like /tmp
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, GlOptions(shared_dir), kAdd);
  EXPECT_EQ(r.cache_hits + r.cache_misses, 0);
  EXPECT_TRUE(r.cache_file.empty());
  EXPECT_EQ(warnings.Count("running without the program cache"), 1) << warnings.text();
  EXPECT_TRUE(EntryFiles(shared_dir).empty());
  EXPECT_FALSE(std::filesystem::exists(shared_dir + "/driver"));
  Options shared = GlOptions(shared_dir);
  shared.cache_allow_shared = true;
  r = RunAndCheck(model_, shared, kAdd);
  EXPECT_GT(r.cache_misses, 0);
  EXPECT_EQ(EntryFiles(shared_dir).size(), 1u);
}

TEST_F(CacheTrustTest, FolderOfAnotherUserRunsWithoutTheCache) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving the folder to another user needs root (chown)";
  const std::string theirs = dir_.Sub("theirs");
  ASSERT_EQ(::mkdir(theirs.c_str(), 0755), 0);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, GlOptions(theirs), kAdd);
  EXPECT_EQ(r.cache_hits + r.cache_misses, 0);
  EXPECT_EQ(warnings.Count("is owned by uid 65534"), 1) << warnings.text();
  EXPECT_TRUE(EntryFiles(theirs).empty());
  auto verify = VerifyProgramCache(theirs, GlOptions(theirs));
  ASSERT_FALSE(verify.ok());
  EXPECT_NE(verify.status().message().find("is owned by uid 65534"), std::string::npos) << verify.status().message();
}

TEST_F(CacheTrustTest, LinkAtTheEntryIsNotFollowed) {
  const Options o = GlOptions(dir_.path());
  const std::string entry = Warm(o);
  const std::string victim = dir_.Sub("victim.txt");
  {
    std::ofstream(victim) << "precious";
  }
  ASSERT_EQ(std::remove(entry.c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), entry.c_str()), 0);
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(warnings.Count("is a symbolic link (not followed)"), 1) << warnings.text();
  EXPECT_EQ(ReadText(victim), "precious");
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(entry)));  // the link replaced
}

TEST_F(CacheTrustTest, WhatTheCacheCreatesIsPrivateWhateverTheUmask) {
  const mode_t old = ::umask(0);
  const std::string entry = Warm(GlOptions(dir_.path()));
  ::umask(old);
  EXPECT_EQ(ModeOf(entry), 0600u);
  // The driver's folders: made by the first cache of the process only, so
  // checked when this run made them.
  const std::string driver = gl::DriverCacheDir(dir_.path());
  if (std::filesystem::exists(driver)) {
    EXPECT_EQ(ModeOf(driver), 0700u);
    EXPECT_EQ(ModeOf(driver + "/mesa_shader_cache"), 0700u);
    EXPECT_EQ(ModeOf(driver + "/mesa_shader_cache/index"), 0600u);
  }
}

TEST(CacheTrust, LinkAtMesasIndexIsNotExtended) {
  TempDir dir;
  const std::string driver = dir.Sub("driver");
  const std::string victim = dir.Sub("victim.bin");
  {
    std::ofstream(victim) << "12345678";
  }
  ASSERT_TRUE(CreateDirectories(driver + "/mesa_shader_cache", FileTrust::kOwner).ok());
  ASSERT_EQ(::symlink(victim.c_str(), (driver + "/mesa_shader_cache/index").c_str()), 0);
  const Status s = gl::ReserveDriverCacheSpace(driver, FileTrust::kOwner);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("symbolic link"), std::string::npos) << s.ToString();
  EXPECT_EQ(std::filesystem::file_size(victim), 8u);
}

TEST(CacheTrust, WritesNeverFollowALinkAndPrivateFilesAre0600) {
  TempDir dir;
  const std::string victim = dir.Sub("victim.txt");
  const std::string path = dir.Sub("entry.bin");
  {
    std::ofstream(victim) << "precious";
  }
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  const mode_t old = ::umask(0);
  const Status s = WriteFileAtomic(path, "new", 3, FileTrust::kOwner);
  ::umask(old);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadText(victim), "precious");
  EXPECT_EQ(ReadText(path), "new");
  EXPECT_EQ(ModeOf(path), 0600u);
  // Nothing is left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2);
  // A private read refuses the link; an ordinary one follows it.
  ASSERT_EQ(std::remove(path.c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  auto refused = ReadFileBytes(path, 1 << 20, "", FileTrust::kOwner);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(ReadFileBytes(path).ok());
}

TEST(CacheTrust, PrivateFoldersAre0700AndALinkedFolderIsRefused) {
  TempDir dir;
  const mode_t old = ::umask(0);
  const Status made = CreateDirectories(dir.Sub("a/b/c"), FileTrust::kOwner);
  ::umask(old);
  ASSERT_TRUE(made.ok()) << made.ToString();
  EXPECT_EQ(ModeOf(dir.Sub("a")), 0700u);
  EXPECT_EQ(ModeOf(dir.Sub("a/b/c")), 0700u);
  ASSERT_EQ(::symlink(dir.Sub("a").c_str(), dir.Sub("link").c_str()), 0);
  const Status linked = CreateDirectories(dir.Sub("link"), FileTrust::kOwner);
  EXPECT_EQ(linked.code(), StatusCode::kFailedPrecondition) << linked.ToString();
}

}  // namespace
}  // namespace gld::testing
