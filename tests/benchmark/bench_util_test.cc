// The benchmark's helpers in tools/common: timing statistics, /proc status
// parsing, TFLite's --input_layer_value_files syntax, the JSON report text
// (read back strictly), and the strict JSON reading the tests use.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/strict_json.h"

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

TEST(JsonReport, WritesValidJsonThatReadsBack) {
  JsonReport j;
  j["s"] = "quote \" back \\ nl \n tab \t ctl \x01 end";
  j["n"] = 0.1;
  j["big"] = 123456789.25;
  j["neg"] = -2.5e-7;
  j["nan"] = std::numeric_limits<double>::quiet_NaN();
  j["inf"] = -std::numeric_limits<double>::infinity();
  j["i"] = -42;
  j["t"] = true;
  j["f"] = false;
  j["z"] = nullptr;
  j["bad_utf8"] = "a\xff";
  j["empty_array"] = JsonReport::array();
  j["empty_object"] = JsonReport::object();
  j["names"] = std::vector<std::string>{"a", "b"};
  j["rows"] = JsonReport::array();
  j["rows"].push_back({{"k", 1}});
  j["rows"].push_back({{"k", 2}});
  const std::string text = JsonReportText(j);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto parsed = gld::testing::ParseStrictJson(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << text;
  const nlohmann::json& v = *parsed;
  EXPECT_EQ(v.at("s").get<std::string>(), "quote \" back \\ nl \n tab \t ctl \x01 end");
  EXPECT_EQ(v.at("n").get<double>(), 0.1);  // shortest form still reads back exactly
  EXPECT_EQ(v.at("big").get<double>(), 123456789.25);
  EXPECT_EQ(v.at("neg").get<double>(), -2.5e-7);
  EXPECT_TRUE(v.at("nan").is_null());
  EXPECT_TRUE(v.at("inf").is_null());
  EXPECT_EQ(v.at("i").get<double>(), -42);
  EXPECT_TRUE(v.at("t").get<bool>());
  EXPECT_TRUE(v.at("f").is_boolean());
  EXPECT_FALSE(v.at("f").get<bool>());
  EXPECT_TRUE(v.at("z").is_null());
  EXPECT_EQ(v.at("bad_utf8").get<std::string>(), "a\xef\xbf\xbd");  // U+FFFD
  EXPECT_TRUE(v.at("empty_array").is_array());
  EXPECT_TRUE(v.at("empty_array").empty());
  EXPECT_TRUE(v.at("empty_object").is_object());
  EXPECT_TRUE(v.at("empty_object").empty());
  ASSERT_EQ(v.at("names").size(), 2u);
  EXPECT_EQ(v.at("names").at(1).get<std::string>(), "b");
  ASSERT_EQ(v.at("rows").size(), 2u);
  EXPECT_EQ(v.at("rows").at(1).at("k").get<double>(), 2);
  // Members stay in the order they were set.
  EXPECT_LT(text.find("\"s\""), text.find("\"n\""));
  EXPECT_LT(text.find("\"n\""), text.find("\"big\""));
}

TEST(StrictJson, RejectsWhatIsNotJson) {
  for (const char* bad : {"", "{", "{\"a\":1,}", "[1 2]", "{\"a\":01}", "{\"a\":nan}", "{\"a\":1}x", "{'a':1}",
                          "{\"a\":1,\"a\":2}", "{\"o\":{\"b\":1,\"b\":1}}", "[1] // comment", "\"\x01\""}) {
    auto v = gld::testing::ParseStrictJson(bad);
    EXPECT_FALSE(v.ok()) << bad;
  }
  // The same key in different objects is fine.
  auto v = gld::testing::ParseStrictJson("{\"a\":{\"k\":1},\"b\":{\"k\":2},\"k\":[{\"k\":3}]}");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v).at("k").at(0).at("k").get<int>(), 3);
}

}  // namespace
}  // namespace gld::tools
#endif  // GLD_HAVE_TOOL_COMMON
