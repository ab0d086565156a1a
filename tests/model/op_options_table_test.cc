// Every op of model/option_table.h's GLD_OPTION_OPS, each field at a value
// other than its default: written by ModelBuilder's encoder, then parsed
// from the file's options table and, for the delegate's tables, from
// TFLite's C struct filled from that table; both give the attributes the
// table's rows say. A refused field (R rows) is refused by both routes.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gldelegate/model_builder.hpp"
#include "model/option_table.h"
#include "model/tflite_abi.h"
#include "model/tflite_ops.h"

namespace gld {
namespace {

namespace of = option_fields;

template <typename Kind>
typename Kind::T NonDefault(typename Kind::T d) {
  using T = typename Kind::T;
  if constexpr (std::is_same_v<Kind, of::IndexType>) {
    return d == T::INT64 ? T::INT32 : T::INT64;
  } else if constexpr (Kind::kCategory == of::Category::kInt) {
    return d + 2;
  } else if constexpr (Kind::kCategory == of::Category::kBool) {
    return !d;
  } else if constexpr (Kind::kCategory == of::Category::kFloat) {
    return d + 0.5f;
  } else {
    return static_cast<T>((static_cast<int>(d) + 1) % Kind::kCount);
  }
}

template <typename Kind>
OptionValue ToOptionValue(typename Kind::T v) {
  if constexpr (Kind::kCategory == of::Category::kEnum) {
    return OptionValue(std::string(Kind::Names()[static_cast<int>(v)]));
  } else if constexpr (Kind::kCategory == of::Category::kInt) {
    return OptionValue(static_cast<int>(v));
  } else {
    return OptionValue(v);
  }
}

// A table value into TFLite's C member (the inverse of the delegate's view).
void ToC(tflite::Padding v, TfLitePadding* c) { *c = static_cast<TfLitePadding>(static_cast<int>(v) + 1); }
void ToC(tflite::MirrorPadMode v, TfLiteMirrorPaddingMode* c) {
  *c = static_cast<TfLiteMirrorPaddingMode>(static_cast<int>(v) + 1);
}
template <typename V, typename C>
void ToC(V v, C* c) {
  *c = static_cast<C>(v);
}

// The model the cases write: one op, one input, one output.
of::OptionDefaults TestDefaults() {
  of::OptionDefaults d;
  d.num_inputs = 1;
  d.num_outputs = 1;
  return d;
}

#define GLD_NON_DEFAULT(kind, def) NonDefault<of::kind>(of::DefaultOf<of::kind::T>(def))
#define GLD_FILL_OPTION(field, member, kind, def, chk, c_member)                        \
  {                                                                                     \
    const of::kind::T v = GLD_NON_DEFAULT(kind, def);                                   \
    options->values.emplace_back(#field, ToOptionValue<of::kind>(v));                   \
    EXPECT_TRUE(of::kind::Read(kTable, #field, v, &expected->member).ok()) << #field;   \
  }
#define GLD_REFUSED_OPTION(field, kind, def, c_member) \
  refused.emplace_back(#field, ToOptionValue<of::kind>(GLD_NON_DEFAULT(kind, def)));
#define GLD_COMPARE(field, member, kind, def, chk, c_member) \
  EXPECT_EQ(got.member, want.member) << route << " " << kTable << "." << #field;
#define GLD_FILL_C(field, member, kind, def, chk, c_member) ToC(t->field(), &c.c_member);
#define GLD_FILL_C_REFUSED(field, kind, def, c_member) ToC(t->field(), &c.c_member);
#define GLD_SKIP_FIELD(field, member, kind, def, chk, c_member)
#define GLD_SKIP_REFUSED(field, kind, def, c_member)

#define GLD_CASE_COMMON(Table, Attr, FIELDS)                                                    \
  using Options = tflite::Table;                                                                \
  using Attrs = Attr;                                                                           \
  static constexpr const char* kTable = #Table;                                                 \
  static void Fill(OpOptions* options, Attr* expected) {                                        \
    [[maybe_unused]] const of::OptionDefaults ctx = TestDefaults();                             \
    FIELDS(GLD_FILL_OPTION, GLD_SKIP_REFUSED)                                                   \
  }                                                                                             \
  static std::vector<std::pair<std::string, OptionValue>> Refused() {                           \
    [[maybe_unused]] const of::OptionDefaults ctx = TestDefaults();                             \
    std::vector<std::pair<std::string, OptionValue>> refused;                                   \
    FIELDS(GLD_SKIP_FIELD, GLD_REFUSED_OPTION)                                                  \
    return refused;                                                                             \
  }                                                                                             \
  static void Compare(const Attr& got, const Attr& want, const char* route) {                   \
    FIELDS(GLD_COMPARE, GLD_SKIP_REFUSED)                                                       \
  }

#define GLD_DELEGATE_CASE(Table, Attr, CStruct, missing, FIELDS)             \
  struct Table##Case {                                                       \
    GLD_CASE_COMMON(Table, Attr, FIELDS)                                     \
    static constexpr bool kDelegate = true;                                  \
    static Status ViaC(OpType op, const Options* t, Attributes* out) {       \
      CStruct c{};                                                           \
      FIELDS(GLD_FILL_C, GLD_FILL_C_REFUSED)                                 \
      return tflite_ops::ParseBuiltinData(op, &c, out);                      \
    }                                                                        \
  };
#define GLD_FILE_CASE(Table, Attr, missing, FIELDS)                          \
  struct Table##Case {                                                       \
    GLD_CASE_COMMON(Table, Attr, FIELDS)                                     \
    static constexpr bool kDelegate = false;                                 \
    static Status ViaC(OpType op, const Options*, Attributes* out) {         \
      const int64_t no_struct[8] = {};                                       \
      return tflite_ops::ParseBuiltinData(op, no_struct, out);               \
    }                                                                        \
  };
GLD_OPTION_TABLES(GLD_DELEGATE_CASE, GLD_FILE_CASE)

// The op with `options`, written and its operator found again.
struct Written {
  std::vector<uint8_t> bytes;
  const tflite::Operator* op = nullptr;
};
Written Write(OpType op, const OpOptions& options) {
  Written w;
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 4});
  const int y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 4, 4});
  b.SetOutputs({y});
  Status s = b.AddOp(OpTypeName(op), {x}, {y}, options);
  EXPECT_TRUE(s.ok()) << s.message();
  auto bytes = b.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!s.ok() || !bytes.ok()) return w;
  w.bytes = std::move(*bytes);
  w.op = tflite::GetModel(w.bytes.data())->subgraphs()->Get(0)->operators()->Get(0);
  return w;
}

template <typename Case>
void CheckAccepted(OpType op) {
  OpOptions options;
  typename Case::Attrs expected;
  Case::Fill(&options, &expected);
  const Written w = Write(op, options);
  ASSERT_NE(w.op, nullptr);
  Attributes from_file, from_struct;
  Status s = tflite_ops::ParseBuiltinOptions(op, *w.op, &from_file);
  ASSERT_TRUE(s.ok()) << Case::kTable << ": " << s.message();
  ASSERT_TRUE(std::holds_alternative<typename Case::Attrs>(from_file)) << Case::kTable;
  Case::Compare(std::get<typename Case::Attrs>(from_file), expected, "file");
  const auto* table = static_cast<const typename Case::Options*>(w.op->builtin_options());
  ASSERT_NE(table, nullptr) << Case::kTable;
  s = Case::ViaC(op, table, &from_struct);
  if (!Case::kDelegate) {
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << Case::kTable << ": " << s.message();
    return;
  }
  ASSERT_TRUE(s.ok()) << Case::kTable << ": " << s.message();
  ASSERT_TRUE(std::holds_alternative<typename Case::Attrs>(from_struct)) << Case::kTable;
  Case::Compare(std::get<typename Case::Attrs>(from_struct), expected, "C struct");
}

template <typename Case>
void CheckRefused(OpType op) {
  for (const auto& field : Case::Refused()) {
    OpOptions options;
    options.values.push_back(field);
    const Written w = Write(op, options);
    ASSERT_NE(w.op, nullptr);
    Attributes a;
    Status s = tflite_ops::ParseBuiltinOptions(op, *w.op, &a);
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << Case::kTable << "." << field.first << ": " << s.message();
    if (Case::kDelegate) {
      s = Case::ViaC(op, static_cast<const typename Case::Options*>(w.op->builtin_options()), &a);
      EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << Case::kTable << "." << field.first << " (C struct)";
    }
  }
}

#define GLD_OP_TEST(op, Table)              \
  TEST(OpOptionsTable, op##_##Table) {      \
    CheckAccepted<Table##Case>(OpType::op); \
    CheckRefused<Table##Case>(OpType::op);  \
  }
GLD_OPTION_OPS(GLD_OP_TEST)

TEST(OpOptionsTable, RefusedFieldsSayWhat) {
  const Written w = Write(OpType::kFullyConnected, {{"weights_format", "SHUFFLED4x16INT8"}});
  ASSERT_NE(w.op, nullptr);
  Attributes a;
  EXPECT_EQ(tflite_ops::ParseBuiltinOptions(OpType::kFullyConnected, *w.op, &a).message(),
            "weights_format SHUFFLED4x16INT8 is not supported");
}

}  // namespace
}  // namespace gld
