#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gldelegate/npy.hpp"

namespace gld {
namespace {

// A .npy file as numpy writes it, from its header dict and raw data.
std::vector<uint8_t> MakeNpy(const std::string& dict, const std::vector<uint8_t>& data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(Npy, ParsesNumpyFloat32Header) {
  auto bytes = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                       Bytes<float>({1, 2, 3, 4, 5, 6}));
  auto a = ParseNpy(bytes.data(), bytes.size(), "a.npy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->type, ElementType::kFloat32);
  EXPECT_EQ(a->shape, (std::vector<int>{2, 3}));
  EXPECT_EQ(a->data, Bytes<float>({1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ParsesEveryTypeAndScalarAnd1D) {
  struct Case {
    const char* descr;
    ElementType type;
    size_t size;
  } cases[] = {{"<f4", ElementType::kFloat32, 4}, {"<f2", ElementType::kFloat16, 2}, {"<f8", ElementType::kFloat64, 8},
               {"|i1", ElementType::kInt8, 1},    {"<i2", ElementType::kInt16, 2},   {"<i4", ElementType::kInt32, 4},
               {"<i8", ElementType::kInt64, 8},   {"|u1", ElementType::kUInt8, 1},   {"|b1", ElementType::kBool, 1}};
  for (const Case& c : cases) {
    auto bytes = MakeNpy(std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (3,), }",
                         std::vector<uint8_t>(3 * c.size, 1));
    auto a = ParseNpy(bytes.data(), bytes.size(), "t.npy");
    ASSERT_TRUE(a.ok()) << c.descr << ": " << a.status().ToString();
    EXPECT_EQ(a->type, c.type) << c.descr;
    EXPECT_EQ(a->shape, std::vector<int>{3});
  }
  auto scalar = MakeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", Bytes<int32_t>({42}));
  auto s = ParseNpy(scalar.data(), scalar.size(), "s.npy");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->shape.empty());
  EXPECT_EQ(s->num_elements(), 1u);
}

TEST(Npy, Version2And3Headers) {
  for (int major : {2, 3}) {
    auto bytes = MakeNpy("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}", Bytes<float>({7}), major);
    auto a = ParseNpy(bytes.data(), bytes.size(), "v.npy");
    ASSERT_TRUE(a.ok()) << major << ": " << a.status().ToString();
    EXPECT_EQ(a->shape, std::vector<int>{1});
  }
}

void ExpectParseError(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  auto a = ParseNpy(bytes.data(), bytes.size(), "bad.npy");
  ASSERT_FALSE(a.ok()) << "expected: " << fragment;
  EXPECT_NE(a.status().message().find("'bad.npy'"), std::string::npos) << a.status().message();
  EXPECT_NE(a.status().message().find(fragment), std::string::npos) << a.status().message();
}

TEST(Npy, RejectsWhatItCannotRead) {
  ExpectParseError({1, 2, 3}, "not a .npy file");
  ExpectParseError(MakeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", Bytes<float>({1})),
                   "big-endian");
  ExpectParseError(MakeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(8)),
                   "unsupported dtype '<c8'");
  ExpectParseError(MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", Bytes<float>({1, 2, 3, 4})),
                   "Fortran");
  ExpectParseError(MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", Bytes<float>({1})),
                   "structured");
  ExpectParseError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", Bytes<float>({1, 2})),
                   "truncated");
  ExpectParseError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", Bytes<float>({1, 2})),
                   "unexpected bytes");
  ExpectParseError(MakeNpy("{'descr': '<f4', 'shape': (1,), }", Bytes<float>({1})), "no 'fortran_order'");
  ExpectParseError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }", {}), "too large");
  auto header_cut = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", Bytes<float>({1}));
  header_cut.resize(30);
  ExpectParseError(header_cut, "truncated");
  auto v9 = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", Bytes<float>({1}));
  v9[6] = 9;
  ExpectParseError(v9, "version 9.0");
}

TEST(Npy, HugeShapeDoesNotAllocate) {
  // 2^31-1 x 2^31-1 x 8 bytes claimed, 0 present: must fail on the size check.
  ExpectParseError(MakeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647, 2147483647), }", {}),
                   "truncated");
}

TEST(Npy, ShapeWhoseByteCountWrapsIsRejected) {
  // 2^30 x 2^30 x 2 float64 values are 2^64 bytes, which wraps to 0 in 64
  // bits: an empty file body must not pass for that shape.
  ExpectParseError(MakeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824, 1073741824, 2), }", {}),
                   "needs more than 18446744073709551615 data bytes but the file has 0");
}

TEST(Npy, FifoIsRefusedWithoutWaitingForAWriter) {
  auto dir = std::filesystem::temp_directory_path() / ("gld_npy_fifo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "x.npy").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto a = ReadNpy(path);  // would block forever on a blocking open
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("'" + path + "' is a FIFO, not a regular file"), std::string::npos)
      << a.status().message();
  std::filesystem::remove_all(dir);
}

TEST(Npy, WriteThenReadRoundTrips) {
  auto dir = std::filesystem::temp_directory_path() / ("gld_npy_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  NpyArray a;
  a.type = ElementType::kInt16;
  a.shape = {2, 1, 3};
  a.data = Bytes<int16_t>({1, -2, 3, -4, 5, -32768});
  std::string path = (dir / "r.npy").string();
  ASSERT_TRUE(WriteNpy(path, a).ok());
  auto b = ReadNpy(path);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->type, a.type);
  EXPECT_EQ(b->shape, a.shape);
  EXPECT_EQ(b->data, a.data);
  // Header as numpy writes it, data 64-byte aligned.
  auto enc = EncodeNpy(a);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->size() % 64, a.data.size() % 64);
  std::string head(enc->begin() + 10, enc->begin() + 10 + 64);
  EXPECT_EQ(head.rfind("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 1, 3), }", 0), 0u) << head;
  std::filesystem::remove_all(dir);
}

TEST(Npy, WriteRejectsMismatchedData) {
  NpyArray a;
  a.type = ElementType::kFloat32;
  a.shape = {3};
  a.data.resize(8);
  EXPECT_EQ(EncodeNpy(a).status().code(), StatusCode::kInvalidArgument);
}

TEST(Npy, MissingFileIsNotFound) {
  auto a = ReadNpy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kNotFound);
  EXPECT_NE(a.status().message().find("/nonexistent/dir/x.npy"), std::string::npos);
}

}  // namespace
}  // namespace gld
