// The options and the report walked through their tables
// (gldelegate/options.inc, gldelegate/report.inc): every option set to
// values other than its default through C and through C++ comes back the
// same on the other side, and every C report field is the C++ report's.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "api/c_custom_op.h"  // GldOptions, to see the gld::Options a C setter wrote
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"
#include "test_models.h"

namespace gld {
namespace {

struct COptions {
  GldOptions* o = GldOptionsCreate();
  ~COptions() { GldOptionsDelete(o); }
};

template <typename T>
T As(T value) {
  return value;
}

TEST(OptionsTable, DefaultsAreThoseOfOptions) {
  const Options defaults;
#define GLD_OPTION(field, kind, c_name, flag, default_value, ...) \
  EXPECT_TRUE(defaults.field == As<decltype(Options::field)>(default_value)) << #field;
#include "gldelegate/options.inc"
#undef GLD_OPTION
  EXPECT_TRUE(CheckOptions(defaults).ok());
}

// ---- Values other than the default, by kind ----

// Every value of an option enum (its name is not "unknown").
template <typename Enum>
std::vector<Enum> EnumValues() {
  std::vector<Enum> values;
  for (int i = 0; std::string(EnumName(static_cast<Enum>(i))) != "unknown"; ++i) values.push_back(static_cast<Enum>(i));
  return values;
}

// The C API's side of one option, by kind: sets `value` through
// GldOptionsSet*, checks that the gld::Options field holds it and that
// GldOptionsGet* gives it back; then the other way, from the C++ field to the
// getter. Bad values are refused and leave the option as it was.
template <typename Enum, typename CEnum>
void RoundTripEnum(const char* field, Enum Options::*member, GldStatus (*set)(GldOptions*, CEnum),
                   GldStatus (*get)(const GldOptions*, CEnum*)) {
  SCOPED_TRACE(field);
  COptions c;
  for (Enum value : EnumValues<Enum>()) {
    SCOPED_TRACE(EnumName(value));
    ASSERT_EQ(set(c.o, static_cast<CEnum>(value)), GLD_OK) << GldLastErrorMessage();
    EXPECT_EQ(c.o->options.*member, value);
    CEnum back{};
    ASSERT_EQ(get(c.o, &back), GLD_OK);
    EXPECT_EQ(static_cast<int>(back), static_cast<int>(value));
  }
  const Enum last = c.o->options.*member;
  EXPECT_EQ(set(c.o, static_cast<CEnum>(99)), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("99"), std::string::npos) << GldLastErrorMessage();
  EXPECT_EQ(c.o->options.*member, last);
  for (Enum value : EnumValues<Enum>()) {
    c.o->options.*member = value;
    CEnum back{};
    ASSERT_EQ(get(c.o, &back), GLD_OK);
    EXPECT_EQ(static_cast<int>(back), static_cast<int>(value));
  }
  EXPECT_EQ(get(nullptr, nullptr), GLD_INVALID_ARGUMENT);
}

void RoundTripInt(const char* field, int Options::*member, int min, int special, GldStatus (*set)(GldOptions*, int32_t),
                  GldStatus (*get)(const GldOptions*, int32_t*)) {
  SCOPED_TRACE(field);
  COptions c;
  const int default_value = Options{}.*member;
  for (int value : {special, min, min + 3, min + 1000}) {
    if (value == default_value) continue;
    ASSERT_EQ(set(c.o, value), GLD_OK) << GldLastErrorMessage();
    EXPECT_EQ(c.o->options.*member, value);
    int32_t back = 0;
    ASSERT_EQ(get(c.o, &back), GLD_OK);
    EXPECT_EQ(back, value);
    c.o->options.*member = value + 1;
    ASSERT_EQ(get(c.o, &back), GLD_OK);
    EXPECT_EQ(back, value + 1);
  }
  const int bad = min - 1 == special ? min - 2 : min - 1;
  c.o->options.*member = min;
  EXPECT_EQ(set(c.o, bad), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find(field), std::string::npos) << GldLastErrorMessage();
  EXPECT_NE(std::string(GldLastErrorMessage()).find(std::to_string(bad)), std::string::npos) << GldLastErrorMessage();
  EXPECT_EQ(c.o->options.*member, min);
  Options o;
  o.*member = bad;
  EXPECT_EQ(CheckOption(o, field).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckOptions(o).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(get(nullptr, nullptr), GLD_INVALID_ARGUMENT);
}

void RoundTripBool(const char* field, bool Options::*member, GldStatus (*set)(GldOptions*, int32_t),
                   GldStatus (*get)(const GldOptions*, int32_t*)) {
  SCOPED_TRACE(field);
  COptions c;
  for (int32_t value : {1, 0, 7}) {
    ASSERT_EQ(set(c.o, value), GLD_OK) << GldLastErrorMessage();
    EXPECT_EQ(c.o->options.*member, value != 0);
    int32_t back = -1;
    ASSERT_EQ(get(c.o, &back), GLD_OK);
    EXPECT_EQ(back, value != 0 ? 1 : 0);
  }
  c.o->options.*member = true;
  int32_t back = 0;
  ASSERT_EQ(get(c.o, &back), GLD_OK);
  EXPECT_EQ(back, 1);
  EXPECT_EQ(get(nullptr, nullptr), GLD_INVALID_ARGUMENT);
}

void RoundTripString(const char* field, std::string Options::*member, GldStatus (*set)(GldOptions*, const char*),
                     GldStatus (*get)(const GldOptions*, const char**)) {
  SCOPED_TRACE(field);
  COptions c;
  const std::string value = std::string("value of ") + field;
  ASSERT_EQ(set(c.o, value.c_str()), GLD_OK) << GldLastErrorMessage();
  EXPECT_EQ(c.o->options.*member, value);
  const char* back = nullptr;
  ASSERT_EQ(get(c.o, &back), GLD_OK);
  EXPECT_STREQ(back, value.c_str());
  ASSERT_EQ(set(c.o, nullptr), GLD_OK);  // NULL: the default, ""
  EXPECT_EQ(c.o->options.*member, "");
  c.o->options.*member = "from C++";
  ASSERT_EQ(get(c.o, &back), GLD_OK);
  EXPECT_STREQ(back, "from C++");
  EXPECT_EQ(get(nullptr, nullptr), GLD_INVALID_ARGUMENT);
}

void RoundTripList(const char* field, std::vector<std::string> Options::*member,
                   GldStatus (*add)(GldOptions*, const char*), GldStatus (*count)(const GldOptions*, int32_t*),
                   GldStatus (*get)(const GldOptions*, int32_t, const char**)) {
  SCOPED_TRACE(field);
  COptions c;
  const std::vector<std::string> values = {"ADD", "MUL"};
  for (const std::string& v : values) ASSERT_EQ(add(c.o, v.c_str()), GLD_OK) << GldLastErrorMessage();
  EXPECT_EQ(c.o->options.*member, values);
  int32_t n = 0;
  ASSERT_EQ(count(c.o, &n), GLD_OK);
  ASSERT_EQ(n, 2);
  for (int32_t i = 0; i < n; ++i) {
    const char* back = nullptr;
    ASSERT_EQ(get(c.o, i, &back), GLD_OK);
    EXPECT_EQ(back, values[static_cast<size_t>(i)]);
  }
  const char* back = nullptr;
  EXPECT_EQ(get(c.o, 2, &back), GLD_OUT_OF_RANGE);
  EXPECT_EQ(add(c.o, nullptr), GLD_INVALID_ARGUMENT);
  c.o->options.*member = {"CONV_2D"};
  ASSERT_EQ(count(c.o, &n), GLD_OK);
  EXPECT_EQ(n, 1);
  ASSERT_EQ(get(c.o, 0, &back), GLD_OK);
  EXPECT_STREQ(back, "CONV_2D");
}

// The two pointers go together (GldOptionsSetShareContext).
void RoundTripPointer(const char* field, void* Options::*member) {
  SCOPED_TRACE(field);
  COptions c;
  int display = 0, context = 0;
  ASSERT_EQ(GldOptionsSetShareContext(c.o, &display, &context), GLD_OK) << GldLastErrorMessage();
  void* back_display = nullptr;
  void* back_context = nullptr;
  ASSERT_EQ(GldOptionsGetShareContext(c.o, &back_display, &back_context), GLD_OK);
  EXPECT_EQ(back_display, &display);
  EXPECT_EQ(back_context, &context);
  EXPECT_TRUE(c.o->options.*member == &display || c.o->options.*member == &context);
  EXPECT_EQ(c.o->options.share_egl_display, &display);
  EXPECT_EQ(c.o->options.share_egl_context, &context);
  EXPECT_EQ(GldOptionsSetShareContext(c.o, nullptr, &context), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(c.o->options.share_egl_display, &display);  // unchanged
  Options half;
  half.*member = &display;
  EXPECT_EQ(CheckOption(half, field).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GldOptionsGetShareContext(c.o, nullptr, &back_context), GLD_INVALID_ARGUMENT);
}

#define GLD_TEST_OPTION_ENUM(field, c_name, min, special) \
  RoundTripEnum(#field, &Options::field, GldOptionsSet##c_name, GldOptionsGet##c_name);
#define GLD_TEST_OPTION_INT(field, c_name, min, special) \
  RoundTripInt(#field, &Options::field, min, special, GldOptionsSet##c_name, GldOptionsGet##c_name);
#define GLD_TEST_OPTION_BOOL(field, c_name, min, special) \
  RoundTripBool(#field, &Options::field, GldOptionsSet##c_name, GldOptionsGet##c_name);
#define GLD_TEST_OPTION_STRING(field, c_name, min, special) \
  RoundTripString(#field, &Options::field, GldOptionsSet##c_name, GldOptionsGet##c_name);
#define GLD_TEST_OPTION_LIST(field, c_name, min, special) \
  RoundTripList(#field, &Options::field, GldOptionsAdd##c_name, GldOptionsGet##c_name##Count, GldOptionsGet##c_name);
#define GLD_TEST_OPTION_POINTER(field, c_name, min, special) RoundTripPointer(#field, &Options::field);

TEST(OptionsTable, EveryOptionComesBackThroughCAndCpp) {
  int rows = 0;
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, ...) \
  GLD_TEST_OPTION_##kind(field, c_name, min, special) ++rows;
#include "gldelegate/options.inc"
#undef GLD_OPTION
  EXPECT_EQ(rows, 20);
  EXPECT_EQ(CheckOption(Options{}, "no_such_option").code(), StatusCode::kNotFound);
}

// ---- One check at every entry ----

// A value the C API's setter refuses, and the same value in a gld::Options.
struct Refused {
  std::string field;
  std::string setter;     // GldOptionsSet<c_name>
  std::string c_message;  // GldLastErrorMessage(): "INVALID_ARGUMENT: <setter>: <CheckOption's message>"
  Options options;        // the defaults but for `field`
};

template <typename Enum, typename CEnum>
void RefuseEnum(const char* field, const char* setter, Enum Options::*member, GldStatus (*set)(GldOptions*, CEnum),
                std::vector<Refused>* out) {
  COptions c;
  ASSERT_EQ(set(c.o, static_cast<CEnum>(99)), GLD_INVALID_ARGUMENT) << field;
  Options o;
  o.*member = static_cast<Enum>(99);
  out->push_back({field, setter, GldLastErrorMessage(), o});
}

void RefuseInt(const char* field, const char* setter, int Options::*member, int min, int special,
               GldStatus (*set)(GldOptions*, int32_t), std::vector<Refused>* out) {
  const int bad = min - 1 == special ? min - 2 : min - 1;
  COptions c;
  ASSERT_EQ(set(c.o, bad), GLD_INVALID_ARGUMENT) << field;
  Options o;
  o.*member = bad;
  out->push_back({field, setter, GldLastErrorMessage(), o});
}

// One pointer of the pair without the other.
void RefusePointer(const char* field, void* Options::*member, std::vector<Refused>* out) {
  static int object = 0;
  const bool display = member == &Options::share_egl_display;
  COptions c;
  ASSERT_EQ(GldOptionsSetShareContext(c.o, display ? &object : nullptr, display ? nullptr : &object),
            GLD_INVALID_ARGUMENT)
      << field;
  Options o;
  o.*member = &object;
  out->push_back({field, "GldOptionsSetShareContext", GldLastErrorMessage(), o});
}

#define GLD_REFUSE_OPTION_ENUM(field, c_name, min, special) \
  RefuseEnum(#field, "GldOptionsSet" #c_name, &Options::field, GldOptionsSet##c_name, &refused);
#define GLD_REFUSE_OPTION_INT(field, c_name, min, special) \
  RefuseInt(#field, "GldOptionsSet" #c_name, &Options::field, min, special, GldOptionsSet##c_name, &refused);
#define GLD_REFUSE_OPTION_BOOL(field, c_name, min, special)
#define GLD_REFUSE_OPTION_STRING(field, c_name, min, special)
#define GLD_REFUSE_OPTION_LIST(field, c_name, min, special)
#define GLD_REFUSE_OPTION_POINTER(field, c_name, min, special) RefusePointer(#field, &Options::field, &refused);

// Every value the C setters refuse (each ENUM, INT and POINTER row of the
// table), gld::Interpreter::Create and gld::PlanModel refuse too, before any
// work, with the message the C API gives after its setter's name: one check
// (gld::CheckOptions) behind every entry.
TEST(OptionsTable, CppCreateRefusesWhatTheCApiRefusesWithTheSameMessage) {
  std::vector<Refused> refused;
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, ...) \
  GLD_REFUSE_OPTION_##kind(field, c_name, min, special)
#include "gldelegate/options.inc"
#undef GLD_OPTION
  // backend, precision, num_threads, egl_device, max_delegated_partitions,
  // min_nodes_per_partition, context, share_egl_display, share_egl_context,
  // trace_max_invokes, gl_limits, max_loop_iterations.
  EXPECT_EQ(refused.size(), 12u);
  const std::vector<uint8_t> bytes = testing::AddReluModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (const Refused& r : refused) {
    SCOPED_TRACE(r.field);
    // GldLastErrorMessage: "INVALID_ARGUMENT: <setter>: <message>".
    const std::string prefix = std::string(StatusCodeName(StatusCode::kInvalidArgument)) + ": " + r.setter + ": ";
    ASSERT_EQ(r.c_message.rfind(prefix, 0), 0u) << r.c_message;
    const std::string message = r.c_message.substr(prefix.size());
    EXPECT_NE(message.find(r.field), std::string::npos) << message;
    EXPECT_EQ(CheckOptions(r.options).message(), message);
    auto interp = Interpreter::Create(**model, r.options);
    ASSERT_FALSE(interp.ok());
    EXPECT_EQ(interp.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(interp.status().message(), message);
    auto plan = PlanModel(**model, r.options);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(plan.status().message(), message);
  }
}

// ---- The report ----

template <typename C, typename Cpp>
void ExpectSame(const char* field, const C& c, const Cpp& cpp) {
  if constexpr (std::is_enum_v<C>) {
    EXPECT_EQ(static_cast<int>(c), static_cast<int>(cpp)) << field;
  } else if constexpr (std::is_same_v<C, const char*>) {
    ASSERT_NE(c, nullptr) << field;
    EXPECT_EQ(std::string(c), cpp) << field;
  } else {
    EXPECT_EQ(c, static_cast<C>(cpp)) << field;
  }
}

// Creates the same interpreter through C and through C++ and compares their
// reports field by field. False when `backend` cannot be had here.
bool CompareReports(GldBackend backend, GldPrecision precision, const std::string& cache_dir) {
  const std::vector<uint8_t> bytes = testing::AddReluModel();
  COptions c;
  EXPECT_EQ(GldOptionsSetBackend(c.o, backend), GLD_OK);
  EXPECT_EQ(GldOptionsSetPrecision(c.o, precision), GLD_OK);
  EXPECT_EQ(GldOptionsSetCacheDir(c.o, cache_dir.c_str()), GLD_OK);
  GldModel* c_model = nullptr;
  EXPECT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &c_model), GLD_OK);
  GldInterpreter* c_interp = nullptr;
  if (GldInterpreterCreate(c_model, c.o, &c_interp) != GLD_OK) {
    GldModelDelete(c_model);
    return false;
  }
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok());
  auto interp = Interpreter::Create(**model, c.o->options);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (interp.ok()) {
    const InterpreterReport& cpp = (*interp)->report();
    GldReport r;
    EXPECT_EQ(GldInterpreterGetReport(c_interp, &r), GLD_OK);
#define GLD_REPORT_FIELD(field, python_key) ExpectSame(#field, r.field, cpp.field);
#include "gldelegate/report.inc"
#undef GLD_REPORT_FIELD
    EXPECT_EQ(r.precision, precision);  // the precision asked for
    EXPECT_EQ(static_cast<int>(cpp.precision), static_cast<int>(precision));
  }
  GldInterpreterDelete(c_interp);
  GldModelDelete(c_model);
  return true;
}

TEST(ReportTable, CReportIsTheCppReportForEveryPrecision) {
  for (GldPrecision p : {GLD_PRECISION_FP32, GLD_PRECISION_FP16, GLD_PRECISION_FP16_MEDIUMP}) {
    SCOPED_TRACE(static_cast<int>(p));
    EXPECT_TRUE(CompareReports(GLD_BACKEND_CPU, p, ""));
  }
}

// (No program cache: the second interpreter would find what the first wrote.)
TEST(ReportTable, CReportIsTheCppReportOnTheGpu) {
  for (GldPrecision p : {GLD_PRECISION_FP32, GLD_PRECISION_FP16, GLD_PRECISION_FP16_MEDIUMP}) {
    SCOPED_TRACE(static_cast<int>(p));
    if (!CompareReports(GLD_BACKEND_GL, p, "")) GTEST_SKIP() << "no GL here: " << GldLastErrorMessage();
  }
}

}  // namespace
}  // namespace gld
