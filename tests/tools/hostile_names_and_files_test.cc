// The tools against hostile text: a --profile JSON whose fields have the
// wrong types (an error naming the file and the field, never an abort), a
// model whose names hold terminal control sequences and bytes outside UTF-8
// (escaped on stdout and stderr), and --gpu_deny_ops lists with empty items
// or unknown names (an error naming the item).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#if defined(GLD_RUN_PATH) && defined(GLD_INSPECT_PATH) && defined(GLD_BENCHMARK_PATH)
#define GLD_HAVE_TOOLS 1
#else
#define GLD_HAVE_TOOLS 0
#define GLD_RUN_PATH ""
#define GLD_INSPECT_PATH ""
#define GLD_BENCHMARK_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;
using testing::CountLines;
using Result = testing::ToolResult;

// A terminal title, a screen clear, a C1 CSI (U+009B) and bytes that are
// not UTF-8.
const std::string kTitle = "\x1b]0;pwned\x07";
const std::string kClear = "\x1b[2J";
const std::string kC1 = "\xc2\x9b" "31m";
const std::string kNotUtf8 = "\xff\xfe";

class HostileNamesAndFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GLD_HAVE_TOOLS) GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_hostile_names_test");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  Result Run(const std::string& tool, const std::string& args) { return testing::RunTool(dir_, tool, args); }

  // y = RELU(x + c), x and y float32 [1, 4]; `hostile` puts control
  // sequences into every tensor name, the description and a custom op.
  std::string WriteModel(bool hostile, bool custom_op = false) {
    ModelBuilder b;
    const std::string p = hostile ? kTitle + kClear : "";
    int x = b.AddInput("x" + p, ElementType::kFloat32, {1, 4});
    int c = b.AddConstantFloat("c" + (hostile ? kC1 : ""), {1, 4}, {1, 2, 3, 4});
    int s = b.AddTensor("s" + (hostile ? kNotUtf8 : ""), ElementType::kFloat32, {1, 4});
    int y = b.AddTensor("y" + p + "\n" + kNotUtf8, ElementType::kFloat32, {1, 4});
    EXPECT_TRUE(b.AddOp("ADD", {x, c}, {s}).ok());
    if (custom_op) {
      EXPECT_TRUE(b.AddCustomOp("Evil" + p, {s}, {y}).ok());
    } else {
      EXPECT_TRUE(b.AddOp("RELU", {s}, {y}).ok());
    }
    b.SetOutputs({y});
    BuildOptions o;
    if (hostile) o.description = "model" + kTitle + kC1;
    const std::string path = (dir_ / (std::string(hostile ? "hostile" : "plain") + ".tflite")).string();
    EXPECT_TRUE(b.WriteFile(path, o).ok());
    return path;
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

// No ESC, BEL, C1 control or byte outside UTF-8 reaches the terminal.
void ExpectNoRawControls(const Result& r, const std::string& what) {
  for (const std::string* text : {&r.out, &r.err}) {
    EXPECT_EQ(text->find('\x1b'), std::string::npos) << what << ": raw ESC in\n" << *text;
    EXPECT_EQ(text->find('\x07'), std::string::npos) << what << ": raw BEL";
    EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos) << what << ": raw C1 CSI";
    EXPECT_EQ(text->find('\xff'), std::string::npos) << what << ": raw 0xff";
  }
}

TEST_F(HostileNamesAndFilesTest, ProfileFieldsOfTheWrongTypeNameTheFileAndTheField) {
  const std::string model = WriteModel(false);
  const std::string html = (dir_ / "page.html").string();
  const std::string good_row = R"j({"name": "node 0 (ADD)", "time_us": 2.5, "timing": "wall"})j";
  const std::string rows3 = good_row + ", " + good_row + ", " + good_row + ", ";
  struct Case {
    std::string json, message;
  };
  const Case cases[] = {
      {R"j({"ops": [{"name": 7, "time_us": 1}]})j", "P.json: ops[0].name: expected a string, got a number"},
      {"{\"ops\": [" + rows3 + R"j({"name": "node 1 (RELU)", "time_us": "fast"}]})j",
       "P.json: ops[3].time_us: expected a number, got a string"},
      {R"j({"ops": [{"name": "node 0 (ADD)", "time_us": 1, "timing": [1]}]})j",
       "P.json: ops[0].timing: expected a string, got an array"},
      {R"j({"ops": {"name": "x"}})j", "P.json: ops: expected an array, got an object"},
      {R"j({"ops": [3]})j", "P.json: ops[0]: expected an object, got a number"},
      {R"j({"ops": [{"name": "node 0 (ADD)"}]})j", "P.json: ops[0].time_us: missing"},
      {R"j([1, 2])j", "P.json: the document: expected an object, got an array"},
      {"{\"ops\": [{\"name\": \"\xff\"}]}", "is not JSON"},
      {"{\"ops\": [", "is not JSON"},
  };
  for (const Case& c : cases) {
    const std::string profile = WriteFile("P.json", c.json);
    Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu --html=" + html + " --profile=" + profile);
    EXPECT_EQ(r.exit_code, 1) << c.json << "\n" << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << c.json << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gld_inspect: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("--profile: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.json << "\n" << r.err;
  }
  // A well-formed profile still lays its times on the nodes.
  const std::string profile = WriteFile("P.json", "{\"ops\": [" + good_row + "]}");
  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu --html=" + html + " --profile=" + profile);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(testing::ReadWholeFile(html).find("data-time-us=\"2.5\""), std::string::npos);
}

TEST_F(HostileNamesAndFilesTest, ModelNamesReachTheTerminalEscaped) {
  const std::string model = WriteModel(true);
  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoRawControls(r, "gld_inspect");
  EXPECT_NE(r.out.find("'x\\x1b]0;pwned\\x07\\x1b[2J'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\u009b31m"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'y\\x1b]0;pwned\\x07\\x1b[2J\\n\\xff\\xfe'"), std::string::npos) << r.out;

  r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --plan");
  ExpectNoRawControls(r, "gld_inspect --plan");

  // gld_run's error line: the input names it lists, and a wrong .npy.
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --input=nope=" + (dir_ / "x.npy").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'x\\x1b]0;pwned"), std::string::npos) << r.err;
  ExpectNoRawControls(r, "gld_run --input=nope");
  NpyArray wrong;
  wrong.type = ElementType::kFloat32;
  wrong.shape = {2, 2};
  wrong.data.resize(16);
  const std::string npy = (dir_ / "wrong.npy").string();
  ASSERT_TRUE(WriteNpy(npy, wrong).ok());
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --input=0=" + npy);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  ExpectNoRawControls(r, "gld_run wrong .npy");

  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoRawControls(r, "gld_run");
  r = Run(GLD_BENCHMARK_PATH, "--graph=" + model + " --backend=cpu --num_runs=1 --warmup_runs=0 "
                              "--enable_op_profiling --print_preinvoke_state");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectNoRawControls(r, "gld_benchmark");

  // A library error naming a custom op nobody registered.
  r = Run(GLD_RUN_PATH, "--graph=" + WriteModel(true, /*custom_op=*/true) + " --backend=cpu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Evil\\x1b]0;pwned"), std::string::npos) << r.err;
  ExpectNoRawControls(r, "gld_run custom op");
}

TEST_F(HostileNamesAndFilesTest, DenyListTyposAreErrorsNamingThem) {
  const std::string model = WriteModel(false);
  struct Case {
    std::string list, message;
  };
  const Case cases[] = {
      {",,,", "--gpu_deny_ops item 1 of 4 is empty"},
      {"ADD,,RELU", "--gpu_deny_ops item 2 of 3 is empty"},
      {"ADD,", "--gpu_deny_ops item 2 of 2 is empty"},
      {"CONV2D", "--gpu_deny_ops: unknown op 'CONV2D' (did you mean CONV_2D?)"},
      {"relu", "unknown op 'relu' (did you mean RELU?)"},
      {"NOT_AN_OP", "unknown op 'NOT_AN_OP'; op names are the model's"},
  };
  for (const Case& c : cases) {
    for (const char* tool : {GLD_RUN_PATH, GLD_INSPECT_PATH}) {
      Result r = Run(tool, "--graph=" + model + " --backend=cpu '--gpu_deny_ops=" + c.list + "'");
      EXPECT_NE(r.exit_code, 0) << tool << " " << c.list;
      EXPECT_EQ(CountLines(r.err), 1) << r.err;
      EXPECT_NE(r.err.find(c.message), std::string::npos) << tool << " " << c.list << "\n" << r.err;
    }
  }
  // What worked before still does: builtin names, spaces around them,
  // CUSTOM, and a value of spaces only (an empty list).
  for (const std::string list : {"ADD", " ADD , RELU ", "CUSTOM", "  "}) {
    Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu '--gpu_deny_ops=" + list + "'");
    EXPECT_EQ(r.exit_code, 0) << "'" << list << "': " << r.err;
  }
}

}  // namespace
}  // namespace gld
