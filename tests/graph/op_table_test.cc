// The op table's rows: names, arity and optional inputs hang together.
#include <gtest/gtest.h>

#include <string>

#include "graph/graph.h"

namespace gld {
namespace {

TEST(OpTable, EveryRowDescribesItsOwnOp) {
  for (OpType op : AllOpTypes()) {
    const OpInfo& info = GetOpInfo(op);
    SCOPED_TRACE(info.name);
    EXPECT_EQ(info.op, op);
    EXPECT_EQ(std::string(OpTypeName(op)), info.name);
    OpType back;
    ASSERT_TRUE(OpTypeFromName(info.name, &back));
    EXPECT_EQ(back, op);
    EXPECT_GE(info.min_inputs, 1);
    EXPECT_GE(info.min_outputs, 1);
    EXPECT_TRUE(info.max_inputs < 0 || info.min_inputs <= info.max_inputs);
    EXPECT_TRUE(info.max_outputs < 0 || info.min_outputs <= info.max_outputs);
    // An input that may be absent is one past the required ones.
    if (info.optional_input >= 0) {
      EXPECT_GE(info.optional_input, info.min_inputs);
      EXPECT_TRUE(info.max_inputs < 0 || info.optional_input < info.max_inputs);
      EXPECT_TRUE(info.InputMayBeAbsent(static_cast<size_t>(info.optional_input)));
    }
    for (size_t i = 0; i < static_cast<size_t>(info.min_inputs); ++i) EXPECT_FALSE(info.InputMayBeAbsent(i));
  }
}

TEST(OpTable, OptionalInputsAreTheBiasesShapeAndPadValue) {
  EXPECT_TRUE(GetOpInfo(OpType::kConv2d).InputMayBeAbsent(2));
  EXPECT_TRUE(GetOpInfo(OpType::kTransposeConv).InputMayBeAbsent(3));
  EXPECT_TRUE(GetOpInfo(OpType::kReshape).InputMayBeAbsent(1));
  EXPECT_TRUE(GetOpInfo(OpType::kPadV2).InputMayBeAbsent(2));
  EXPECT_FALSE(GetOpInfo(OpType::kAdd).InputMayBeAbsent(1));
}

}  // namespace
}  // namespace gld
