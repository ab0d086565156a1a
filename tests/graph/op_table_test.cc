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
    // variable's handle) or calls a subgraph (a composite's decomposition
    // too); one without outputs has a side effect (it assigns a variable,
    // or its subgraphs may).
    Node node;
    node.op = op;
    if (info.min_inputs < 1) {
      EXPECT_TRUE(op == OpType::kVarHandle || op == OpType::kCallOnce || op == OpType::kWhile ||
                  op == OpType::kStablehloComposite);
    }
    if (info.min_outputs < 1) {
      EXPECT_TRUE(NodeHasSideEffects(node));
    }
    EXPECT_TRUE(info.max_inputs < 0 || info.min_inputs <= info.max_inputs);
    EXPECT_TRUE(info.max_outputs < 0 || info.min_outputs <= info.max_outputs);
    // An input that may be absent is one the op may have; except for the
    // recurrent ops (optional weights among required ones), it is past the
    // required ones.
    const bool recurrent = op == OpType::kLstm || op == OpType::kUnidirectionalSequenceLstm ||
                           op == OpType::kBidirectionalSequenceLstm || op == OpType::kBidirectionalSequenceRnn ||
                           op == OpType::kSvdf;
    for (size_t i = 0; i < 64; ++i) {
      if (!info.InputMayBeAbsent(i)) continue;
      EXPECT_TRUE(info.max_inputs < 0 || i < static_cast<size_t>(info.max_inputs)) << i;
      if (!recurrent) {
        EXPECT_GE(i, static_cast<size_t>(info.min_inputs));
      }
    }
    if (recurrent) continue;
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

TEST(OpTable, LstmOptionalInputsAreTFLites) {
  // LSTM: input gate (1, 5, 12), peepholes (9..11), projection (16, 17),
  // layer norm (20..23); everything else is required.
  const OpInfo& lstm = GetOpInfo(OpType::kUnidirectionalSequenceLstm);
  std::string absent;
  for (size_t i = 0; i < 24; ++i) {
    if (lstm.InputMayBeAbsent(i)) absent += std::to_string(i) + " ";
  }
  EXPECT_EQ(absent, "1 5 9 10 11 12 16 17 20 21 22 23 ");
  // The bidirectional LSTM: the same for each direction (backward from 18),
  // the states 35..38 required, the auxiliary input 39..47 optional.
  const OpInfo& bidi = GetOpInfo(OpType::kBidirectionalSequenceLstm);
  for (size_t i : {1, 5, 9, 10, 11, 12, 16, 17, 18, 22, 26, 27, 28, 29, 33, 34, 39, 47}) {
    EXPECT_TRUE(bidi.InputMayBeAbsent(i)) << i;
  }
  for (size_t i : {0, 2, 8, 13, 19, 25, 30, 35, 36, 37, 38}) EXPECT_FALSE(bidi.InputMayBeAbsent(i)) << i;
  EXPECT_TRUE(GetOpInfo(OpType::kSvdf).InputMayBeAbsent(3));
  EXPECT_FALSE(GetOpInfo(OpType::kSvdf).InputMayBeAbsent(4));
}

}  // namespace
}  // namespace gld
