// The program cache (Options::cache_dir): hits, misses on option and driver
// changes, every kind of bad entry file, a binary the driver refuses, a
// read-only and a missing folder, two processes writing one folder at once,
// the driver blob store, and VerifyProgramCache.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/gl_stack_probe.h"
#include "gl/cache/cache_test_util.h"
#include "gl/cache/binary_cache.h"
#include "gldelegate/binary_cache_generated.h"

namespace gld::testing {
namespace {

constexpr float kAdd = 0.5f;

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* skip = std::getenv("GLD_SKIP_GL_TESTS");
    if (skip != nullptr && *skip != '\0' && std::string(skip) != "0") {
      GTEST_SKIP() << "GLD_SKIP_GL_TESTS is set; the program cache needs GL";
    }
    model_ = CacheTestModel(8, 8, 8, kAdd);
    ASSERT_FALSE(model_.empty());
  }
  ~CacheTest() override { gl::SetRendererOverrideForTesting(""); }

  // A first run into an empty folder: every program is a miss and the entry
  // file is written.
  InterpreterReport Warm(const Options& options) {
    InterpreterReport r = RunAndCheck(model_, options, kAdd);
    EXPECT_GT(r.cache_misses, 0);
    EXPECT_EQ(r.cache_hits, 0);
    EXPECT_EQ(EntryFiles(options.cache_dir).size(), 1u);
    return r;
  }

  // The entry now decodes with the key of a fresh run and holds `programs`.
  void ExpectValidEntry(const std::string& path, int programs) {
    const std::vector<uint8_t> bytes = ReadAll(path);
    auto entry = gl::DecodeCacheEntry(bytes.data(), bytes.size(), "");
    ASSERT_TRUE(entry.ok()) << entry.status().ToString();
    EXPECT_EQ(static_cast<int>(entry->programs.size()), programs);
  }

  std::vector<uint8_t> model_;
  TempDir dir_;
};

TEST_F(CacheTest, SecondCreateLoadsEveryProgram) {
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  EXPECT_FALSE(cold.cache_file.empty());
  EXPECT_GT(cold.cache_file_bytes, 0u);
  InterpreterReport warm = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(warm.cache_hits, cold.cache_misses);
  EXPECT_EQ(warm.cache_misses, 0);
  EXPECT_EQ(warm.cache_file, cold.cache_file);
  // The driver's own cache goes into the folder too.
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Sub("driver")));
}

TEST_F(CacheTest, CacheOffCountsNothing) {
  InterpreterReport r = RunAndCheck(model_, GlOptions(""), kAdd);
  EXPECT_EQ(r.cache_hits + r.cache_misses, 0);
  EXPECT_TRUE(r.cache_file.empty());
}

TEST_F(CacheTest, PrecisionChangeIsAMiss) {
  GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();  // its fp16 run packs halves
  Options o = GlOptions(dir_.path());
  InterpreterReport fp32 = Warm(o);
  o.precision = Precision::kFp16;
  InterpreterReport fp16 = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(fp16.cache_hits, 0);
  EXPECT_GT(fp16.cache_misses, 0);
  EXPECT_NE(fp16.cache_file, fp32.cache_file);
  EXPECT_EQ(EntryFiles(dir_.path()).size(), 2u);
  // Both stay usable.
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_misses, 0);
  o.precision = Precision::kFp32;
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_misses, 0);
}

TEST_F(CacheTest, DenyListChangeIsAMiss) {
  Options o = GlOptions(dir_.path());
  Warm(o);
  o.gpu_deny_ops = {"MUL"};
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_GT(r.cache_misses, 0);
}

TEST_F(CacheTest, ModelTokenNamesTheEntry) {
  Options o = GlOptions(dir_.path());
  o.model_token = "face-v1";
  InterpreterReport r = Warm(o);
  EXPECT_EQ(std::filesystem::path(r.cache_file).filename().string().rfind("face-v1-", 0), 0u) << r.cache_file;
  o.model_token = "../../etc/passwd";  // not a plain name: hashed, stays inside the folder
  InterpreterReport odd = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(std::filesystem::path(odd.cache_file).parent_path().string(), dir_.path());
  EXPECT_EQ(odd.cache_file.find(".."), std::string::npos);
}

TEST_F(CacheTest, RendererChangeIsAMissAndRewritesTheEntry) {
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  gl::SetRendererOverrideForTesting("Imaginary GPU 9000");
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, cold.cache_misses);
  EXPECT_EQ(warnings.Count("key differs"), 1) << warnings.text();
  EXPECT_EQ(warnings.Count("Imaginary GPU 9000"), 1) << warnings.text();
  // Rewritten for the new renderer: a second run with it hits.
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, cold.cache_misses);
  // and the real renderer is a miss again.
  gl::SetRendererOverrideForTesting("");
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, 0);
}

// Each way a file can be bad: one warning, every program recompiled, the
// outputs right, the file rewritten valid.
struct Corruption {
  const char* name;
  const char* warning;  // part of the warning text
  std::vector<uint8_t> (*apply)(std::vector<uint8_t>);
};

std::vector<uint8_t> Truncate(std::vector<uint8_t> b) {
  b.resize(b.size() * 2 / 3);
  return b;
}
std::vector<uint8_t> FlipPayloadBit(std::vector<uint8_t> b) {
  // Late in the file lies the payload (the binaries); the outer table and
  // key come first.
  b[b.size() - b.size() / 4] ^= 0x10;
  return b;
}
std::vector<uint8_t> DropLastByte(std::vector<uint8_t> b) {
  b.pop_back();
  return b;
}
std::vector<uint8_t> Empty(std::vector<uint8_t>) { return {}; }
std::vector<uint8_t> Foreign(std::vector<uint8_t> b) {
  // Another program's file: same size, a PNG signature and noise.
  const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  for (size_t i = 0; i < b.size(); ++i) b[i] = i < 8 ? png[i] : static_cast<uint8_t>(i * 37);
  return b;
}
std::vector<uint8_t> FutureVersion(std::vector<uint8_t> b) {
  // Rebuilt with a newer format number and otherwise the same fields.
  const auto* file = gl::cachefmt::GetCacheFile(b.data());
  flatbuffers::FlatBufferBuilder fbb;
  auto key = fbb.CreateString(file->key()->str());
  auto payload = fbb.CreateVector(file->payload()->data(), file->payload()->size());
  fbb.Finish(gl::cachefmt::CreateCacheFile(fbb, gl::kCacheFormatVersion + 1, key, file->payload_checksum(), payload),
             gl::cachefmt::CacheFileIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

class CorruptionTest : public CacheTest, public ::testing::WithParamInterface<Corruption> {};

TEST_P(CorruptionTest, DetectedWarnedRecompiledRewritten) {
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  const std::string path = cold.cache_file;
  WriteAll(path, GetParam().apply(ReadAll(path)));
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, cold.cache_misses);
  EXPECT_EQ(warnings.Count("program cache: ignoring"), 1) << warnings.text();
  EXPECT_EQ(warnings.Count(GetParam().warning), 1) << warnings.text();
  ExpectValidEntry(path, cold.cache_misses);
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, cold.cache_misses);
}

INSTANTIATE_TEST_SUITE_P(Files, CorruptionTest,
                         ::testing::Values(Corruption{"truncated", "truncated or corrupt", Truncate},
                                           Corruption{"lastbyte", "truncated or corrupt", DropLastByte},
                                           Corruption{"bitflip", "checksum mismatch", FlipPayloadBit},
                                           Corruption{"empty", "empty file", Empty},
                                           Corruption{"foreign", "not a gldelegate cache file", Foreign},
                                           Corruption{"future", "is newer than this library", FutureVersion}),
                         [](const ::testing::TestParamInfo<Corruption>& i) { return std::string(i.param.name); });

TEST_F(CacheTest, BinaryTheDriverRefusesIsRecompiledAndReplaced) {
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  // Garble every binary inside a well-formed entry with a correct checksum.
  std::vector<uint8_t> bytes = ReadAll(cold.cache_file);
  auto entry = gl::DecodeCacheEntry(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  std::map<gl::SourceHash, std::vector<uint8_t>> garbled;
  for (auto& [hash, bin] : entry->programs) {
    for (size_t i = bin.bytes.size() / 2; i < bin.bytes.size(); i += 7) bin.bytes[i] ^= 0x5a;
    garbled[hash] = bin.bytes;
  }
  WriteAll(cold.cache_file, gl::EncodeCacheEntry(*entry));
  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, cold.cache_misses);
  EXPECT_EQ(warnings.Count("refused"), cold.cache_misses) << warnings.text();
  // Replaced by good binaries (a recompile need not give the same bytes:
  // Mesa's are not deterministic), which the next run restores.
  bytes = ReadAll(cold.cache_file);
  auto rewritten = gl::DecodeCacheEntry(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(rewritten.ok());
  ASSERT_EQ(rewritten->programs.size(), garbled.size());
  for (const auto& [hash, bin] : rewritten->programs) EXPECT_NE(bin.bytes, garbled.at(hash));
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, cold.cache_misses);
}

// An entry whose program binaries were rotated between records (each
// record keeps its source hash, workgroup and fingerprint), with a correct
// payload checksum and length: what a careless merge of two cache folders,
// or a deliberate edit, gives.
std::vector<uint8_t> RotateBinaries(const std::vector<uint8_t>& bytes) {
  const auto* file = gl::cachefmt::GetCacheFile(bytes.data());
  const auto* payload = flatbuffers::GetRoot<gl::cachefmt::CachePayload>(file->payload()->data());
  const auto& programs = *payload->programs();
  flatbuffers::FlatBufferBuilder inner;
  std::vector<flatbuffers::Offset<gl::cachefmt::CachedProgram>> list;
  for (flatbuffers::uoffset_t i = 0; i < programs.size(); ++i) {
    const auto* p = programs.Get(i);
    const auto* donor = programs.Get((i + 1) % programs.size());
    auto label = inner.CreateString(p->label()->str());
    auto binary = inner.CreateVector(donor->binary()->data(), donor->binary()->size());
    auto wg = inner.CreateVector(p->workgroup()->data(), p->workgroup()->size());
    list.push_back(gl::cachefmt::CreateCachedProgram(inner, p->source_hash_low(), p->source_hash_high(),
                                                     p->source_bytes(), label, donor->binary_format(), binary, wg,
                                                     p->key_fingerprint()));
  }
  auto token = inner.CreateString(payload->model_token()->str());
  auto vec = inner.CreateVector(list);
  inner.Finish(gl::cachefmt::CreateCachePayload(inner, token, vec));
  const uint64_t checksum = XXH3_64bits(inner.GetBufferPointer(), inner.GetSize());
  uint64_t size = 0;
  for (int pass = 0; pass < 2; ++pass) {
    flatbuffers::FlatBufferBuilder outer;
    outer.ForceDefaults(true);
    auto key = outer.CreateString(file->key()->str());
    auto nested = outer.CreateVector(inner.GetBufferPointer(), inner.GetSize());
    outer.Finish(gl::cachefmt::CreateCacheFile(outer, file->format_version(), key, checksum, nested, size),
                 gl::cachefmt::CacheFileIdentifier());
    if (pass == 1) return std::vector<uint8_t>(outer.GetBufferPointer(), outer.GetBufferPointer() + outer.GetSize());
    size = outer.GetSize();
  }
  return {};
}

TEST_F(CacheTest, BinariesSwappedBetweenProgramsAreRecompiledAndVerifyCallsThemBad) {
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  ASSERT_GE(cold.cache_misses, 2);
  WriteAll(cold.cache_file, RotateBinaries(ReadAll(cold.cache_file)));

  auto checks = VerifyProgramCache(dir_.path(), o);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 1u);
  EXPECT_EQ((*checks)[0].problem.rfind("bad: ", 0), 0u) << (*checks)[0].problem;
  EXPECT_NE((*checks)[0].problem.find("not bound to this entry's key"), std::string::npos) << (*checks)[0].problem;

  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);  // checks every output
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, cold.cache_misses);
  EXPECT_EQ(warnings.Count("not bound to this entry's key"), 1) << warnings.text();
  ExpectValidEntry(cold.cache_file, cold.cache_misses);
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, cold.cache_misses);
}

// A folder where the entry file belongs: moved out of the way on the next
// run, the entry written, and the run after that hits.
class FolderEntryTest : public CacheTest, public ::testing::WithParamInterface<bool> {};

TEST_P(FolderEntryTest, RepairedOnTheNextRun) {
  const bool full = GetParam();
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  const std::string path = cold.cache_file;
  ASSERT_TRUE(std::filesystem::remove(path));
  ASSERT_TRUE(std::filesystem::create_directory(path));
  if (full) WriteAll(path + "/note.txt", {'h', 'i'});

  auto checks = VerifyProgramCache(dir_.path(), o);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 1u);
  EXPECT_EQ((*checks)[0].problem.rfind("unreadable: ", 0), 0u) << (*checks)[0].problem;

  WarningCounter warnings;
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, 0);
  EXPECT_EQ(r.cache_misses, cold.cache_misses);
  EXPECT_EQ(warnings.Count(full ? "renamed it to" : "removed the empty folder"), 1) << warnings.text();
  EXPECT_EQ(warnings.Count("cannot"), 0) << warnings.text();
  ExpectValidEntry(path, cold.cache_misses);
  if (full) {
    EXPECT_TRUE(std::filesystem::exists(path + ".folder/note.txt"));
  }

  WarningCounter later;
  EXPECT_EQ(RunAndCheck(model_, o, kAdd).cache_hits, cold.cache_misses);
  EXPECT_EQ(later.Count("program cache"), 0) << later.text();
}

INSTANTIATE_TEST_SUITE_P(Folders, FolderEntryTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Full" : "Empty"; });

TEST_F(CacheTest, MissingFolderRunsWithoutCacheAndWarnsOnce) {
  const std::string missing = dir_.Sub("not/there");
  WarningCounter warnings;
  for (int i = 0; i < 2; ++i) {
    InterpreterReport r = RunAndCheck(model_, GlOptions(missing), kAdd);
    EXPECT_EQ(r.cache_hits + r.cache_misses, 0);
    EXPECT_TRUE(r.cache_file.empty());
  }
  EXPECT_EQ(warnings.Count("is not an existing folder"), 1) << warnings.text();
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST_F(CacheTest, ReadOnlyFolderRunsWithoutStoringAndWarnsOnce) {
  // root ignores permission bits; /proc/self is a folder nobody can create
  // files in.
  std::string ro = dir_.Sub("ro");
  if (geteuid() == 0) {
    ro = "/proc/self";
  } else {
    ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
  }
  WarningCounter warnings;
  for (int i = 0; i < 2; ++i) {
    InterpreterReport r = RunAndCheck(model_, GlOptions(ro), kAdd);
    EXPECT_EQ(r.cache_hits, 0);
    EXPECT_GT(r.cache_misses, 0);
    EXPECT_EQ(r.cache_file_bytes, 0u);
  }
  EXPECT_EQ(warnings.Count("cannot write to"), 1) << warnings.text();
  EXPECT_TRUE(EntryFiles(ro).empty());
}

TEST_F(CacheTest, PrewarmedReadOnlyFolderStillHits) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores permission bits";
  const Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  ASSERT_EQ(chmod(dir_.path().c_str(), 0555), 0);
  InterpreterReport r = RunAndCheck(model_, o, kAdd);
  EXPECT_EQ(r.cache_hits, cold.cache_misses);
}

TEST_F(CacheTest, VerifyReportsGoodStaleAndBadEntries) {
  Options o = GlOptions(dir_.path());
  InterpreterReport cold = Warm(o);
  auto checks = VerifyProgramCache(dir_.path(), o);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 1u);
  EXPECT_EQ((*checks)[0].problem, "");
  EXPECT_EQ((*checks)[0].programs, cold.cache_misses);
  EXPECT_EQ((*checks)[0].loaded, cold.cache_misses);

  gl::SetRendererOverrideForTesting("Imaginary GPU 9000");
  checks = VerifyProgramCache(dir_.path(), o);
  ASSERT_TRUE(checks.ok());
  EXPECT_EQ((*checks)[0].problem.rfind("stale: ", 0), 0u) << (*checks)[0].problem;
  gl::SetRendererOverrideForTesting("");

  std::vector<uint8_t> bytes = ReadAll(cold.cache_file);
  bytes.resize(bytes.size() / 2);
  WriteAll(cold.cache_file, bytes);
  checks = VerifyProgramCache(dir_.path(), o);
  ASSERT_TRUE(checks.ok());
  EXPECT_EQ((*checks)[0].problem.rfind("bad: ", 0), 0u) << (*checks)[0].problem;
}

// ---- Without GL ----

gl::CacheEntry SampleEntry() {
  gl::CacheEntry e;
  e.key = "gldelegate=test\nrenderer=r\n";
  e.model_token = "m";
  for (int i = 0; i < 3; ++i) {
    gl::CachedBinary b;
    b.label = "program " + std::to_string(i);
    b.format = 0x8741u + static_cast<uint32_t>(i);
    b.bytes.assign(100 + static_cast<size_t>(i) * 50, static_cast<uint8_t>(i + 1));
    b.workgroup = {8, 4, static_cast<uint32_t>(i + 1)};
    e.programs[gl::HashSource("source " + std::to_string(i))] = b;
  }
  return e;
}

TEST(CacheFormat, RoundTrip) {
  const gl::CacheEntry e = SampleEntry();
  const std::vector<uint8_t> bytes = gl::EncodeCacheEntry(e);
  auto back = gl::DecodeCacheEntry(bytes.data(), bytes.size(), e.key);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->model_token, "m");
  ASSERT_EQ(back->programs.size(), 3u);
  for (const auto& [hash, b] : e.programs) {
    const gl::CachedBinary& got = back->programs.at(hash);
    EXPECT_EQ(got.label, b.label);
    EXPECT_EQ(got.format, b.format);
    EXPECT_EQ(got.bytes, b.bytes);
    EXPECT_EQ(got.workgroup, b.workgroup);
  }
  auto other = gl::DecodeCacheEntry(bytes.data(), bytes.size(), "gldelegate=test\nrenderer=s\n");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("'renderer=r' in the file, 'renderer=s' now"), std::string::npos)
      << other.status().message();
}

TEST(CacheFormat, EveryTruncationAndEveryBitFlipIsRejected) {
  const gl::CacheEntry e = SampleEntry();
  const std::vector<uint8_t> bytes = gl::EncodeCacheEntry(e);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(gl::DecodeCacheEntry(bytes.data(), n, e.key).ok()) << "truncated to " << n;
  }
  // A flipped bit is either caught or lands in bytes nobody reads (padding,
  // unused vtable slack); it never yields different programs.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> b = bytes;
    b[i] ^= 0x04;
    auto d = gl::DecodeCacheEntry(b.data(), b.size(), e.key);
    if (!d.ok()) continue;
    ASSERT_EQ(d->programs.size(), e.programs.size()) << "flip at " << i;
    for (const auto& [hash, bin] : e.programs) {
      ASSERT_TRUE(d->programs.count(hash)) << "flip at " << i;
      EXPECT_EQ(d->programs.at(hash).bytes, bin.bytes) << "flip at " << i;
      EXPECT_EQ(d->programs.at(hash).format, bin.format) << "flip at " << i;
    }
  }
}

TEST(CacheFormat, FileNameKeepsPlainTokensAndHashesOthers) {
  Options o;
  const std::string plain = gl::CacheFileName("pose_v2.1", o);
  EXPECT_EQ(plain.rfind("pose_v2.1-", 0), 0u);
  EXPECT_EQ(plain.substr(plain.size() - 5), ".gldc");
  const std::string odd = gl::CacheFileName("a/b c", o);
  EXPECT_EQ(odd.find('/'), std::string::npos);
  EXPECT_EQ(odd.find(' '), std::string::npos);
  o.precision = Precision::kFp16;
  EXPECT_NE(gl::CacheFileName("pose_v2.1", o), plain);
}

TEST(BlobStore, RoundTripAndRejections) {
  TempDir dir;
  const std::string key = "driver key 1";
  const std::vector<uint8_t> value(300, 0x42);
  gl::BlobStorePut(dir.path(), FileTrust::kOwner, key.data(), key.size(), value.data(), value.size());
  std::vector<uint8_t> out(512, 0);
  EXPECT_EQ(gl::BlobStoreGet(dir.path(), FileTrust::kOwner, key.data(), key.size(), out.data(), out.size()), value.size());
  EXPECT_TRUE(std::equal(value.begin(), value.end(), out.begin()));
  // Too small a buffer: the size, nothing copied.
  std::vector<uint8_t> small(10, 0);
  EXPECT_EQ(gl::BlobStoreGet(dir.path(), FileTrust::kOwner, key.data(), key.size(), small.data(), small.size()), value.size());
  EXPECT_EQ(small, std::vector<uint8_t>(10, 0));
  const std::string other = "driver key 2";
  EXPECT_EQ(gl::BlobStoreGet(dir.path(), FileTrust::kOwner, other.data(), other.size(), out.data(), out.size()), 0u);
  // A corrupted blob is not trusted.
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("blob"))) {
    std::vector<uint8_t> b = ReadAll(e.path().string());
    b.back() ^= 1;
    WriteAll(e.path().string(), b);
  }
  EXPECT_EQ(gl::BlobStoreGet(dir.path(), FileTrust::kOwner, key.data(), key.size(), out.data(), out.size()), 0u);
}

}  // namespace
}  // namespace gld::testing
