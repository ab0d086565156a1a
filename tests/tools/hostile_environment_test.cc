// Runs the built tools against a hostile environment: a FIFO or a directory
// where a file is expected, a broken libEGL first on the library path, and a
// lowered address-space limit. Each run is under `timeout`, so a hang fails
// the test (exit 124) instead of blocking CTest; a crash shows as an exit
// code above 128 (the shell's signal exit), which no case accepts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#if defined(GLD_RUN_PATH) && defined(GLD_INSPECT_PATH) && defined(GLD_BENCHMARK_PATH) && defined(GLD_WARMUP_PATH) && \
    defined(GLD_MAKE_MODEL_PATH)
#define GLD_HAVE_TOOLS 1
#else
#define GLD_HAVE_TOOLS 0
#define GLD_RUN_PATH ""
#define GLD_INSPECT_PATH ""
#define GLD_BENCHMARK_PATH ""
#define GLD_WARMUP_PATH ""
#define GLD_MAKE_MODEL_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;

using testing::CountLines;
using testing::ReadWholeFile;
using Result = testing::ToolResult;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A clean failure: an error exit (not timeout's 124, not a signal) and one
// line on stderr that contains `want`.
void ExpectOneLineError(const Result& r, const std::string& want) {
  EXPECT_GE(r.exit_code, 1) << r.err;
  EXPECT_LE(r.exit_code, 123) << r.err;
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_TRUE(Contains(r.err, want)) << "want '" << want << "' in: " << r.err;
}

class HostileEnvironmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GLD_HAVE_TOOLS) GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_hostile_test");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs `tool args` under a 60 s timeout with GLD_LOG_LEVEL=off and `env`
  // (VAR=value ...); `shell` runs first in the same shell (e.g. a ulimit).
  // Each tool run under a 60 s deadline (a hang fails the test), or longer.
  Result Run(const std::string& tool, const std::string& args, const std::string& env = "",
             const std::string& shell = "", int timeout_s = 60) {
    return testing::RunTool(dir_, tool, args, env, shell, timeout_s);
  }

  // y = x + c, float32 [1, 4].
  std::string WriteAddModel() {
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
    int c = b.AddConstantFloat("c", {1, 4}, {1, 2, 3, 4});
    int y = b.AddTensor("y", ElementType::kFloat32, {1, 4});
    EXPECT_TRUE(b.AddOp("ADD", {x, c}, {y}).ok());
    b.SetOutputs({y});
    std::string path = (dir_ / "add.tflite").string();
    EXPECT_TRUE(b.WriteFile(path).ok());
    return path;
  }

  // The mean over H and W of a 768 MiB float32 input [1, 8192, 8192, 3]: the
  // output is small, so the input is the one big allocation of each kind.
  std::string WriteHugeInputModel() {
    ModelBuilder b;
    int x = b.AddInput("big_image", ElementType::kFloat32, {1, 8192, 8192, 3});
    int axes = b.AddConstantInt32("axes", {2}, {1, 2});
    int y = b.AddTensor("y", ElementType::kFloat32, {1, 1, 1, 3});
    EXPECT_TRUE(b.AddOp("MEAN", {x, axes}, {y}, {{"keep_dims", true}}).ok());
    b.SetOutputs({y});
    std::string path = (dir_ / "huge_input.tflite").string();
    EXPECT_TRUE(b.WriteFile(path).ok());
    return path;
  }

  std::string MakeFifo(const std::string& name) {
    std::string path = (dir_ / name).string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
    return path;
  }

  fs::path dir_;
};

TEST_F(HostileEnvironmentTest, GraphThatIsADirectoryIsOneLineFromEveryTool) {
  const std::string folder = (dir_ / "models").string();
  fs::create_directories(folder);
  const std::string want = "'" + folder + "' is a directory, not a file";
  ExpectOneLineError(Run(GLD_RUN_PATH, "--graph=" + folder + " --backend=cpu"), want);
  ExpectOneLineError(Run(GLD_INSPECT_PATH, "--graph=" + folder), want);
  ExpectOneLineError(Run(GLD_BENCHMARK_PATH, "--graph=" + folder + " --backend=cpu --num_runs=1"), want);
  ExpectOneLineError(Run(GLD_WARMUP_PATH, "--graph=" + folder + " --cache_dir=" + (dir_ / "cache").string()), want);
}

TEST_F(HostileEnvironmentTest, FifoModelOrInputIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo_model = MakeFifo("model.tflite");
  const std::string want_model = "'" + fifo_model + "' is a FIFO, not a regular file";
  ExpectOneLineError(Run(GLD_RUN_PATH, "--graph=" + fifo_model + " --backend=cpu"), want_model);
  ExpectOneLineError(Run(GLD_INSPECT_PATH, "--graph=" + fifo_model), want_model);
  ExpectOneLineError(Run(GLD_BENCHMARK_PATH, "--graph=" + fifo_model + " --backend=cpu --num_runs=1"), want_model);

  const std::string model = WriteAddModel();
  const std::string fifo_npy = MakeFifo("x.npy");
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --input=x=" + fifo_npy);
  ExpectOneLineError(r, "'" + fifo_npy + "' is a FIFO, not a regular file");
  EXPECT_TRUE(Contains(r.err, "input 'x' [1, 4] float32")) << r.err;
  ExpectOneLineError(Run(GLD_BENCHMARK_PATH, "--graph=" + model +
                                                 " --backend=cpu --num_runs=1 --input_layer_value_files=x:" + fifo_npy),
                     "'" + fifo_npy + "' is a FIFO, not a regular file");
}

TEST_F(HostileEnvironmentTest, FifoProgramCacheEntryIsIgnoredWithAWarning) {
  const std::string model = WriteAddModel();
  const fs::path cache = dir_ / "cache";
  fs::create_directories(cache);
  const std::string args = "--graph=" + model + " --backend=gl --cache_dir=" + cache.string();
  Result r = Run(GLD_RUN_PATH, args);
  if (r.exit_code != 0) GTEST_SKIP() << "no GL context here: " << r.err;
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(cache)) {
    if (e.is_regular_file()) entries.push_back(e.path().string());
  }
  ASSERT_FALSE(entries.empty()) << "the run wrote no program cache entry";
  for (const std::string& entry : entries) {
    fs::remove(entry);
    ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0) << entry;
  }
  r = Run(GLD_RUN_PATH, args, "GLD_LOG_LEVEL=warn");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "output 0 'y' [1, 4] float32")) << r.out;
  EXPECT_TRUE(Contains(r.err, "is a FIFO, not a regular file")) << r.err;
  // The entries were rewritten as files.
  for (const std::string& entry : entries) EXPECT_TRUE(fs::is_regular_file(entry)) << entry;
}

class BrokenEglTest : public HostileEnvironmentTest {
 protected:
  // Puts `folder` (a broken GL library) first on the library path.
  std::string LibraryPath(const fs::path& folder) {
    const char* old = std::getenv("LD_LIBRARY_PATH");
    return "LD_LIBRARY_PATH='" + folder.string() + (old ? ":" + std::string(old) : "") + "'";
  }

  // A folder holding a zero-byte `name`.
  fs::path EmptyLibrary(const std::string& name) {
    const fs::path folder = dir_ / "empty";
    fs::create_directories(folder);
    std::ofstream(folder / name).close();
    return folder;
  }

  // A folder holding a shared library `name` without the expected symbols;
  // empty when no C compiler could build it.
  fs::path StubLibrary(const std::string& name) {
    const fs::path folder = dir_ / "stub";
    fs::create_directories(folder);
    const fs::path source = dir_ / "stub.c";
    std::ofstream(source) << "int not_gl(void) { return 1; }\n";
    const std::string compile = "cc -shared -fPIC -o '" + (folder / name).string() + "' '" + source.string() +
                                "' 2>'" + (dir_ / "cc.txt").string() + "'";
    return std::system(compile.c_str()) == 0 ? folder : fs::path();
  }

  void ExpectCpuFallbackAndGlError(const fs::path& folder, const std::string& why) {
    const std::string model = WriteAddModel();
    const std::string env = LibraryPath(folder);
    Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=auto", env + " GLD_LOG_LEVEL=warn");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(Contains(r.out, "placement: 0/1 nodes on GPU")) << r.out;
    EXPECT_TRUE(Contains(r.out, "output 0 'y' [1, 4] float32")) << r.out;
    EXPECT_TRUE(Contains(r.err, "GPU backend unavailable, running every node on the CPU")) << r.err;
    EXPECT_TRUE(Contains(r.err, why)) << r.err;

    r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=gl", env);
    ExpectOneLineError(r, why);
  }
};

TEST_F(BrokenEglTest, EmptyLibEglFallsBackToTheCpu) {
  ExpectCpuFallbackAndGlError(EmptyLibrary("libEGL.so.1"), "cannot load libEGL.so.1");
}

TEST_F(BrokenEglTest, LibEglWithoutEglSymbolsFallsBackToTheCpu) {
  const fs::path folder = StubLibrary("libEGL.so.1");
  if (folder.empty()) GTEST_SKIP() << "no C compiler: " << ReadWholeFile(dir_ / "cc.txt");
  ExpectCpuFallbackAndGlError(folder, "libEGL.so.1 is not a usable EGL library");
}

TEST_F(BrokenEglTest, EmptyLibGlesFallsBackToTheCpu) {
  ExpectCpuFallbackAndGlError(EmptyLibrary("libGLESv2.so.2"), "cannot load libGLESv2.so.2");
}

TEST_F(BrokenEglTest, LibGlesWithoutGlesSymbolsFallsBackToTheCpu) {
  const fs::path folder = StubLibrary("libGLESv2.so.2");
  if (folder.empty()) GTEST_SKIP() << "no C compiler: " << ReadWholeFile(dir_ / "cc.txt");
  ExpectCpuFallbackAndGlError(folder, "libGLESv2.so.2 is not a usable GLES library");
}

// The address-space limit leaves room for the interpreter's own input buffer
// (768 MiB) but not for a second copy of the input.
constexpr const char* kMemoryLimit = "ulimit -v 1400000;";

// AddressSanitizer reserves terabytes of address space when a program
// starts, so a tool built with it cannot start under an address-space limit.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
// Whether setrlimit(RLIMIT_AS) binds here: a child limited to 64 MiB fails
// to map 256 MiB. Under qemu-user it does not (qemu keeps RLIMIT_AS, DATA
// and STACK from the host: they would bind the emulator, not the program),
// so `ulimit -v` limits nothing and these tests cannot test anything.
bool AddressSpaceLimitsBind() {
  static const bool binds = [] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const rlimit limit{rlim_t{64} << 20, rlim_t{64} << 20};
      ::setrlimit(RLIMIT_AS, &limit);
      void* p = ::mmap(nullptr, size_t{256} << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ::_exit(p == MAP_FAILED ? 0 : 1);
    }
    int status = 0;
    return pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }();
  return binds;
}

#define GLD_SKIP_UNDER_ASAN() \
  if (kUnderAddressSanitizer) GTEST_SKIP() << "address-space limits cannot apply to AddressSanitizer builds"
#define GLD_SKIP_WITHOUT_ADDRESS_SPACE_LIMITS() \
  GLD_SKIP_UNDER_ASAN();                        \
  if (!AddressSpaceLimitsBind()) GTEST_SKIP() << "setrlimit(RLIMIT_AS) does not bind here (qemu-user keeps it from the host)"

TEST_F(HostileEnvironmentTest, RandomInputBeyondTheMemoryLimitIsAnError) {
  GLD_SKIP_WITHOUT_ADDRESS_SPACE_LIMITS();
  const std::string model = WriteHugeInputModel();
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --threads=1", "", kMemoryLimit);
  ExpectOneLineError(r, "cannot allocate 805306368 bytes for tensor 'big_image'");
  r = Run(GLD_BENCHMARK_PATH, "--graph=" + model + " --backend=cpu --threads=1 --num_runs=1", "", kMemoryLimit);
  ExpectOneLineError(r, "cannot allocate 805306368 bytes for tensor 'big_image'");
}

TEST_F(HostileEnvironmentTest, GlBuffersBeyondTheMemoryLimitAreAnError) {
  GLD_SKIP_WITHOUT_ADDRESS_SPACE_LIMITS();
  // y = x + 1 on 64 MiB tensors: the segment's staging and arena buffers are
  // made before any host buffer, and llvmpipe's buffers are host memory.
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 2048, 2048, 4});
  int c = b.AddConstantFloat("c", {1}, {1});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 2048, 2048, 4});
  ASSERT_TRUE(b.AddOp("ADD", {x, c}, {y}).ok());
  b.SetOutputs({y});
  std::string model = (dir_ / "big_add.tflite").string();
  ASSERT_TRUE(b.WriteFile(model).ok());
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=gl");
  if (r.exit_code != 0) GTEST_SKIP() << "no GL context here: " << r.err;
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=gl --threads=1", "", "ulimit -v 550000;");
  ExpectOneLineError(r, "cannot allocate");
  EXPECT_TRUE(Contains(r.err, "bytes for a GL buffer: GL error GL_OUT_OF_MEMORY")) << r.err;
}

TEST_F(HostileEnvironmentTest, NpyInputBeyondTheMemoryLimitIsAnError) {
  GLD_SKIP_WITHOUT_ADDRESS_SPACE_LIMITS();
  const std::string model = WriteHugeInputModel();
  // A sparse .npy file of the input's full size: its header and a hole.
  NpyArray header_only;
  header_only.type = ElementType::kFloat32;
  header_only.shape = {1, 1, 1, 3};
  header_only.data.resize(12);
  auto bytes = EncodeNpy(header_only);
  ASSERT_TRUE(bytes.ok());
  std::string text(bytes->begin(), bytes->end() - 12);
  const std::string small_shape = "(1, 1, 1, 3)", big_shape = "(1, 8192, 8192, 3)";
  const size_t at = text.find(small_shape);
  ASSERT_NE(at, std::string::npos) << text;
  // Keep the header's length: the padding spaces absorb the longer shape.
  text.replace(at, small_shape.size(), big_shape);
  text.erase(text.size() - 1 - (big_shape.size() - small_shape.size()), big_shape.size() - small_shape.size());
  const fs::path npy = dir_ / "big_image.npy";
  std::ofstream(npy, std::ios::binary) << text;
  fs::resize_file(npy, text.size() + uint64_t{805306368});
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --threads=1 --input=big_image=" + npy.string(), "",
                 kMemoryLimit);
  ExpectOneLineError(r, "cannot allocate");
  EXPECT_TRUE(Contains(r.err, "input 'big_image' [1, 8192, 8192, 3] float32")) << r.err;
  EXPECT_TRUE(Contains(r.err, npy.string())) << r.err;
}

// A long benchmark keeps memory flat: nothing grows per invoke. The peak
// after many runs is the peak after a few (within 2 MB, which a leak of
// 2 KB per invoke would pass on the CPU over 1,980 extra runs).
// Skipped under AddressSanitizer, whose quarantine holds freed memory.
TEST_F(HostileEnvironmentTest, BenchmarkMemoryStaysFlatOverLongRuns) {
  GLD_SKIP_UNDER_ASAN();
  const std::string model = (dir_ / "demo.tflite").string();
  ASSERT_EQ(Run(GLD_MAKE_MODEL_PATH, "--out=" + model).exit_code, 0);
  auto peak = [&](const std::string& backend, int runs) {
    // 600 s: 2,000 runs took over 60 s under qemu on a loaded machine (a few s here).
    Result r = Run(GLD_BENCHMARK_PATH,
                   "--graph=" + model + " --backend=" + backend + " --num_runs=" + std::to_string(runs) +
                       " --report_peak_memory_footprint",
                   "", "", 600);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string key = "Peak memory footprint (MB): init=";
    const size_t at = r.out.find(key);
    const size_t overall = r.out.find("overall=", at == std::string::npos ? 0 : at);
    EXPECT_NE(overall, std::string::npos) << r.out;
    return overall == std::string::npos ? -1.0 : std::atof(r.out.c_str() + overall + 8);
  };
  const double cpu_short = peak("cpu", 20), cpu_long = peak("cpu", 2000);
  EXPECT_LE(cpu_long - cpu_short, 2.0) << "cpu: " << cpu_short << " MB after 20 runs, " << cpu_long << " after 2000";
  // llvmpipe's first runs compile and vary; compare two longer runs.
  Result probe = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=gl");
  if (probe.exit_code != 0) GTEST_SKIP() << "no GL here: " << probe.err;
  const double gl_short = peak("gl", 300), gl_long = peak("gl", 1500);
  EXPECT_LE(gl_long - gl_short, 2.0) << "gl: " << gl_short << " MB after 300 runs, " << gl_long << " after 1500";
}

// The cache folder on a full filesystem: a tmpfs of 64 KiB, 512 KiB or
// 2 MiB, mounted in a private mount namespace (it goes with the namespace's
// last process, whatever happens). Mesa's shader cache used to be pointed
// into it and map a sparse 1.3 MB index that the filesystem cannot back:
// SIGBUS (exit 135) in the first shader compile. Now the driver's cache
// stays in its default folder (one warning naming the folder and why), the
// program cache's writes fail with a warning, and the runs succeed; no
// temporary file is left behind, and a second run over the same folder
// succeeds too.
TEST_F(HostileEnvironmentTest, CacheFolderOnAFullFilesystemWarnsAndRuns) {
  // The demo network: programs enough to fill 64 KiB (the one-ADD model
  // wrote too little for Mesa's index store to fault).
  const std::string model = (dir_ / "demo.tflite").string();
  ASSERT_EQ(Run(GLD_MAKE_MODEL_PATH, "--out=" + model).exit_code, 0);
  Result probe = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=gl");
  if (probe.exit_code != 0) GTEST_SKIP() << "no GL context here: " << probe.err;
  const fs::path mount = dir_ / "full";
  fs::create_directories(mount);
  // Root mounts in a namespace of its own; others may in a user namespace.
  std::string unshare_flags;
  for (const char* flags : {"-m", "-rm"}) {
    const std::string cmd = std::string("unshare ") + flags + " sh -c \"mount -t tmpfs -o size=64k tmpfs '" +
                            mount.string() + "'\" >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) {
      unshare_flags = flags;
      break;
    }
  }
  if (unshare_flags.empty()) GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here";
  const std::string d = mount.string();
  const std::string run = "'" + std::string(GLD_RUN_PATH) + "' --graph='" + model + "' --backend=gl --cache_dir='" +
                          d + "'";
  const std::string warmup = "'" + std::string(GLD_WARMUP_PATH) + "' --graph='" + model + "' --cache_dir='" + d + "'";
  for (const char* size : {"64k", "512k", "2m"}) {
    SCOPED_TRACE(size);
    // mode=0700: a tmpfs root is 1777 otherwise, a folder others may write,
    // which the program cache refuses before it would meet the full disk.
    const std::string script = "mount -t tmpfs -o size=" + std::string(size) + ",mode=0700 tmpfs '" + d +
                               "' || exit 99; " +
                               run + "; echo rc1=\\$?; " + run + "; echo rc2=\\$?; " + warmup +
                               " >/dev/null; echo rc3=\\$?; find '" + d + "' -name '*.tmp.*' | sed 's/^/leftover /'";
    // The driver's default cache folder goes into the test's folder.
    Result r = testing::RunTool(dir_, "unshare", unshare_flags + " sh -c \"" + script + "\"",
                                "GLD_LOG_LEVEL=warn XDG_CACHE_HOME='" + (dir_ / "xdg").string() + "'", "", 120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(Contains(r.out, "rc1=0")) << r.out << r.err;
    EXPECT_TRUE(Contains(r.out, "rc2=0")) << r.out << r.err;
    // gld_warmup fails (1) where the entry cannot be written, cleanly.
    EXPECT_TRUE(Contains(r.out, "rc3=0") || Contains(r.out, "rc3=1")) << r.out << r.err;
    const std::string output = "output 0 ";
    const size_t first = r.out.find(output);
    EXPECT_NE(first, std::string::npos) << r.out;
    EXPECT_NE(r.out.rfind(output), first) << "one of the two runs printed no output: " << r.out;
    EXPECT_FALSE(Contains(r.out, "leftover")) << r.out;
    EXPECT_TRUE(Contains(r.err, "the driver's shader cache is not put in '" + d + "/driver'")) << r.err;
  }
}

// The process limit reached (RLIMIT_NPROC of an unprivileged user, which
// does not bind root): gld_run with --threads=4 used to end in
// std::terminate (a std::system_error escaping Interpreter::Create). Now the
// CPU backend runs with the threads it got and one warning says so, and a
// GL run (llvmpipe's own threads are Mesa's business) ends cleanly too.
TEST_F(HostileEnvironmentTest, ProcessLimitRunsWithTheThreadsItGets) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run the tool as an unprivileged uid under a process limit";
  if (std::system("command -v prlimit >/dev/null && command -v setpriv >/dev/null") != 0) {
    GTEST_SKIP() << "prlimit or setpriv (util-linux) missing";
  }
  const std::string model = WriteAddModel();
  for (int limit = 1; limit <= 3; ++limit) {
    SCOPED_TRACE("nproc " + std::to_string(limit));
    for (const char* backend : {"cpu", "gl"}) {
      const std::string args = "--nproc=" + std::to_string(limit) +
                               " setpriv --reuid=65534 --regid=65534 --clear-groups '" + GLD_RUN_PATH +
                               "' --graph=" + model + " --backend=" + backend + " --threads=4";
      Result r = Run("prlimit", args, "GLD_LOG_LEVEL=warn");
      if (std::string(backend) == "gl" && r.exit_code != 0 && r.exit_code <= 123 && CountLines(r.err) == 1) {
        continue;  // no GL context here (or none under the limit): a one-line error is clean
      }
      ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.err;
      EXPECT_TRUE(Contains(r.out, "output 0 'y' [1, 4] float32")) << r.out;
      if (std::string(backend) == "cpu") {
        EXPECT_TRUE(Contains(r.err, "of the 4 threads asked for could be started")) << r.err;
      }
    }
  }
}

}  // namespace
}  // namespace gld
