// The benchmark's helpers in tools/common: timing statistics, /proc status
// parsing, TFLite's --input_layer_value_files syntax, and the JSON writer
// (read back with an independent strict reader).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "json_reader.h"

#ifdef GLD_HAVE_TOOL_COMMON
#include "common/bench_stats.h"
#include "common/json.h"
#include "common/tensor_io.h"

namespace gld::tools {
namespace {

TEST(TimingStats, FiguresOfAKnownList) {
  // Samples 4, 1, 3, 2, 10: sorted 1 2 3 4 10; mean 4; population variance
  // (9 + 0 + 1 + 4 + 36) / 5 = 10.
  TimingStats s = ComputeTimingStats({4, 1, 3, 2, 10});
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.first, 4);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(10.0));
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 10);
  EXPECT_EQ(s.median, 3);
  // p90: position 0.9 * 4 = 3.6 between 4 and 10 -> 4 + 0.6 * 6 = 7.6.
  EXPECT_DOUBLE_EQ(s.p90, 7.6);
}

TEST(TimingStats, EvenCountMedianInterpolatesAndEmptyIsZero) {
  EXPECT_DOUBLE_EQ(ComputeTimingStats({2, 1}).median, 1.5);
  TimingStats e = ComputeTimingStats({});
  EXPECT_EQ(e.count, 0u);
  EXPECT_EQ(e.mean, 0);
  EXPECT_EQ(e.max, 0);
  EXPECT_EQ(Quantile({5}, 0.9), 5);
}

TEST(ProcessMemory, ParsesStatusText) {
  auto m = ParseProcStatus("Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->rss_bytes, 1024u * 1024u);
  EXPECT_EQ(m->peak_rss_bytes, 2048u * 1024u);
  EXPECT_FALSE(ParseProcStatus("Name:\tx\nVmRSS:\t1 kB\n").ok());  // no VmHWM
  EXPECT_FALSE(ParseProcStatus("VmHWM:\tlots\nVmRSS:\t1 kB\n").ok());
}

TEST(ProcessMemory, ReadsThisProcess) {
  auto m = ReadProcessMemory();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_GT(m->rss_bytes, 0u);
  EXPECT_GE(m->peak_rss_bytes, m->rss_bytes);
}

TEST(InputLayerValueFiles, TfliteSyntaxWithEscapedColons) {
  auto v = ParseInputLayerValueFiles("a:x.npy, input::0:/tmp/y.npy,b:c:d.npy");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ((*v)[0], (std::pair<std::string, std::string>{"a", "x.npy"}));
  EXPECT_EQ((*v)[1], (std::pair<std::string, std::string>{"input:0", "/tmp/y.npy"}));
  // Only the first single ':' splits; the rest belongs to the path.
  EXPECT_EQ((*v)[2], (std::pair<std::string, std::string>{"b", "c:d.npy"}));
  EXPECT_TRUE(ParseInputLayerValueFiles("")->empty());
  for (const char* bad : {"a", "a:", ":x.npy", "a::b"}) {
    auto r = ParseInputLayerValueFiles(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  }
}

TEST(InputLayerValueFiles, FindsInputsByNameOrIndex) {
  std::vector<TensorInfo> inputs(2);
  inputs[0].name = "x";
  inputs[1].name = "input:0";
  EXPECT_EQ(*FindInputIndex(inputs, "input:0", "--f"), 1);
  EXPECT_EQ(*FindInputIndex(inputs, "0", "--f"), 0);
  auto missing = FindInputIndex(inputs, "z", "--f");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--f: the model has no input named 'z'"), std::string::npos);
  EXPECT_FALSE(FindInputIndex(inputs, "2", "--f").ok());
}

TEST(JsonWriter, WritesValidJsonThatReadsBack) {
  JsonWriter j;
  j.BeginObject();
  j.Key("s").String("quote \" back \\ nl \n tab \t ctl \x01 end");
  j.Key("n").Number(0.1).Key("big").Number(123456789.25).Key("neg").Number(-2.5e-7);
  j.Key("nan").Number(std::numeric_limits<double>::quiet_NaN());
  j.Key("i").Int(-42).Key("t").Bool(true).Key("f").Bool(false).Key("z").Null();
  j.Key("empty_array").BeginArray().EndArray();
  j.Key("empty_object").BeginObject().EndObject();
  j.Key("names").StringArray({"a", "b"});
  j.Key("rows").BeginArray();
  j.BeginObject().Key("k").Int(1).EndObject();
  j.BeginObject().Key("k").Int(2).EndObject();
  j.EndArray();
  j.EndObject();
  std::string error;
  auto v = gld::testing::JsonReader::Parse(j.str(), &error);
  ASSERT_TRUE(v.has_value()) << error << "\n" << j.str();
  EXPECT_EQ((*v)["s"].string, "quote \" back \\ nl \n tab \t ctl \x01 end");
  EXPECT_EQ((*v)["n"].number, 0.1);  // shortest form still reads back exactly
  EXPECT_EQ((*v)["big"].number, 123456789.25);
  EXPECT_EQ((*v)["neg"].number, -2.5e-7);
  EXPECT_EQ((*v)["nan"].kind, gld::testing::JsonValue::kNull);
  EXPECT_EQ((*v)["i"].number, -42);
  EXPECT_TRUE((*v)["t"].boolean);
  EXPECT_EQ((*v)["f"].kind, gld::testing::JsonValue::kBool);
  EXPECT_FALSE((*v)["f"].boolean);
  EXPECT_EQ((*v)["z"].kind, gld::testing::JsonValue::kNull);
  EXPECT_TRUE((*v)["empty_array"].array.empty());
  EXPECT_TRUE((*v)["empty_object"].object.empty());
  ASSERT_EQ((*v)["names"].array.size(), 2u);
  EXPECT_EQ((*v)["names"].array[1].string, "b");
  ASSERT_EQ((*v)["rows"].array.size(), 2u);
  EXPECT_EQ((*v)["rows"].array[1]["k"].number, 2);
}

TEST(JsonReader, RejectsWhatIsNotJson) {
  std::string error;
  for (const char* bad : {"", "{", "{\"a\":1,}", "[1 2]", "{\"a\":01}", "{\"a\":nan}", "{\"a\":1}x", "{'a':1}",
                          "{\"a\":1,\"a\":2}"}) {
    EXPECT_FALSE(gld::testing::JsonReader::Parse(bad, &error).has_value()) << bad;
  }
}

}  // namespace
}  // namespace gld::tools
#endif  // GLD_HAVE_TOOL_COMMON
