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
    // A node without inputs makes its value from its attributes (a
    // variable's handle) or calls a subgraph; one without outputs has a
    // side effect (it assigns a variable, or its subgraphs may).
    Node node;
    node.op = op;
    if (info.min_inputs < 1) {
      EXPECT_TRUE(op == OpType::kVarHandle || op == OpType::kCallOnce || op == OpType::kWhile);
    }
    if (info.min_outputs < 1) {
      EXPECT_TRUE(NodeHasSideEffects(node));
    }
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
