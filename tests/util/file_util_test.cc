// util/file_util on a 32-bit target: a file read or mapped whole past 2 GiB
// is refused with an error naming its size (its size_t would wrap, and a
// 2-3 GiB user address space cannot hold it), where a 64-bit process maps
// it. The file is sparse: no disk blocks, nothing read.
#include "util/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace gld {
namespace {

TEST(FileUtil, A32BitProcessRefusesFilesPast2GiB) {
  if (sizeof(size_t) >= 8) GTEST_SKIP() << "a 64-bit process: such a file is mapped";
  char dir[] = "/tmp/gld_file_util_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/big.tflite";
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  const uint64_t size = (uint64_t{1} << 31) + 4096;
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);  // 64-bit off_t: _FILE_OFFSET_BITS=64
  ::close(fd);
  const auto mapped = MapFileForRead(path, uint64_t{1} << 33, "model file");
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mapped.status().message().find(std::to_string(size) + " bytes"), std::string::npos)
      << mapped.status().message();
  EXPECT_NE(mapped.status().message().find("32-bit"), std::string::npos) << mapped.status().message();
  const auto read = ReadFileBytes(path, uint64_t{1} << 33);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
  ::unlink(path.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace gld
