// The reader and models of several subgraphs: every subgraph read into
// Graph::subgraphs, and the calls between them checked (indices, recursion,
// what a WHILE / IF / CALL_ONCE passes and takes), each bad case an error
// naming the subgraph and the node. The models are the control-flow op
// cases (tests/data/ops, made with LiteRT by make_op_cases.py), edited here
// through flatbuffers' generic table access.
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "models/reference_data.h"
#include "test_util.h"

namespace gld {
namespace {

using testing::ReadBytes;

std::vector<uint8_t> CaseModel(const std::string& name) {
  std::ifstream in(testing::OpCasesDir() + "/" + name + "/model.tflite", std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

constexpr flatbuffers::voffset_t Field(int id) { return static_cast<flatbuffers::voffset_t>(4 + 2 * id); }

// Sets field `field` (WhileOptions: 0 cond, 1 body; IfOptions: 0 then, 1
// else; CallOnceOptions: 0 init) of the options of operator `op` of
// subgraph `subgraph` to `value`; false when the file does not store it.
bool SetCallIndex(std::vector<uint8_t>& bytes, int subgraph, int op, int field, int32_t value) {
  using flatbuffers::Offset;
  using flatbuffers::Table;
  using TableVector = flatbuffers::Vector<Offset<Table>>;
  auto* model = flatbuffers::GetMutableRoot<Table>(bytes.data());
  auto* subgraphs = model->GetPointer<TableVector*>(Field(2));
  auto* ops = subgraphs->GetMutableObject(static_cast<flatbuffers::uoffset_t>(subgraph))->GetPointer<TableVector*>(Field(3));
  auto* options = ops->GetMutableObject(static_cast<flatbuffers::uoffset_t>(op))->GetPointer<Table*>(Field(4));
  return options != nullptr && options->SetField<int32_t>(Field(field), value, 0);
}

#define GLD_SKIP_WITHOUT(bytes) \
  if ((bytes).empty()) GTEST_SKIP() << "no op cases in " << testing::OpCasesDir()

TEST(SubgraphReader, ReadsEverySubgraphIntoTheGraph) {
  const std::vector<uint8_t> bytes = CaseModel("while__counter_tanh");
  GLD_SKIP_WITHOUT(bytes);
  auto g = ReadBytes(bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_FALSE(g->is_callee);
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, OpType::kWhile);
  EXPECT_EQ(g->nodes[0].attrs<WhileAttributes>().cond_subgraph, 1);
  EXPECT_EQ(g->nodes[0].attrs<WhileAttributes>().body_subgraph, 2);
  EXPECT_EQ(g->other_subgraphs, (std::vector<std::string>{"cond", "body"}));
  ASSERT_NE(g->subgraphs, nullptr);
  ASSERT_EQ(g->subgraphs->size(), 3u);
  EXPECT_TRUE((*g->subgraphs)[0].nodes.empty()) << "the entry's slot is a placeholder";
  const Graph& cond = (*g->subgraphs)[1];
  const Graph& body = (*g->subgraphs)[2];
  EXPECT_TRUE(cond.is_callee);
  EXPECT_EQ(cond.subgraph_index, 1);
  EXPECT_EQ(cond.subgraph_name, "cond");
  ASSERT_EQ(cond.nodes.size(), 1u);
  EXPECT_EQ(cond.nodes[0].op, OpType::kLess);
  EXPECT_EQ(cond.tensors[static_cast<size_t>(cond.outputs[0])].type, DataType::kBool);
  EXPECT_EQ(body.inputs.size(), 2u);
  EXPECT_EQ(body.outputs.size(), 2u);
  EXPECT_EQ(body.NodeLabel(2), "subgraph 2 ('body') node 2 (TANH)");
  EXPECT_EQ(g->NodeLabel(0), "node 0 (WHILE)");
  // A constant of a callee is decoded like the entry's.
  bool has_constant = false;
  for (const Tensor& t : body.tensors) has_constant = has_constant || (t.is_constant && t.name == "w");
  EXPECT_TRUE(has_constant);
}

TEST(SubgraphReader, ResourceHandlesAreInt32Ids) {
  const std::vector<uint8_t> bytes = CaseModel("call_once__init_accumulator");
  GLD_SKIP_WITHOUT(bytes);
  auto g = ReadBytes(bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_GE(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].op, OpType::kCallOnce);
  EXPECT_EQ(g->nodes[0].attrs<CallOnceAttributes>().init_subgraph, 1);
  EXPECT_EQ(g->nodes[1].op, OpType::kVarHandle);
  EXPECT_EQ(g->nodes[1].attrs<VarHandleAttributes>().shared_name, "acc");
  EXPECT_EQ(g->tensors[static_cast<size_t>(g->nodes[1].outputs[0])].type, DataType::kInt32);
}

TEST(SubgraphReader, SubgraphIndexOutOfRange) {
  std::vector<uint8_t> bytes = CaseModel("while__counter_tanh");
  GLD_SKIP_WITHOUT(bytes);
  ASSERT_TRUE(SetCallIndex(bytes, 0, 0, 1, 7));
  GLD_EXPECT_ERROR(ReadBytes(bytes), "subgraph 0 ('main') node 0 (WHILE)", "body subgraph index 7 is out of range",
                   "3 subgraphs");
  bytes = CaseModel("while__counter_tanh");
  ASSERT_TRUE(SetCallIndex(bytes, 0, 0, 0, -1));
  GLD_EXPECT_ERROR(ReadBytes(bytes), "node 0 (WHILE)", "cond subgraph index -1 is out of range");
}

// A subgraph that calls itself, directly (the entry's CALL_ONCE calls the
// entry) or through others (the body's IF calls the entry, which runs the
// body).
TEST(SubgraphReader, Recursion) {
  const struct {
    const char* model;
    int subgraph, op;
    const char* call;
    const char* cycle;
  } cases[] = {
      {"call_once__init_accumulator", 0, 0, "subgraph 0 ('main') node 0 (CALL_ONCE) calls subgraph 0 ('main')",
       "recursion (subgraphs 0 -> 0)"},
      {"while__if_in_body", 2, 3, "subgraph 2 ('body') node 3 (IF) calls subgraph 0 ('main')",
       "recursion (subgraphs 0 -> 2 -> 0)"},
  };
  for (const auto& c : cases) {
    std::vector<uint8_t> bytes = CaseModel(c.model);
    GLD_SKIP_WITHOUT(bytes);
    ASSERT_TRUE(SetCallIndex(bytes, c.subgraph, c.op, 0, 0)) << c.model;
    GLD_EXPECT_ERROR(ReadBytes(bytes), c.call, c.cycle);
  }
}

TEST(SubgraphReader, WhileBodyWhoseArityDoesNotMatch) {
  std::vector<uint8_t> bytes = CaseModel("while__counter_tanh");
  GLD_SKIP_WITHOUT(bytes);
  ASSERT_TRUE(SetCallIndex(bytes, 0, 0, 1, 1));  // the cond as the body
  GLD_EXPECT_ERROR(ReadBytes(bytes), "subgraph 0 ('main') node 0 (WHILE): body subgraph 1 ('cond') has 1 outputs",
                   "the node's input has 2");
  bytes = CaseModel("while__counter_tanh");
  ASSERT_TRUE(SetCallIndex(bytes, 0, 0, 0, 2));  // the body as the cond
  GLD_EXPECT_ERROR(ReadBytes(bytes), "node 0 (WHILE): cond subgraph 2 ('body') has 2 outputs",
                   "a condition's output has 1");
}

TEST(SubgraphReader, WhileWhoseTypesDoNotMatch) {
  std::vector<uint8_t> bytes = CaseModel("while__fc_input_count");
  GLD_SKIP_WITHOUT(bytes);
  auto g = ReadBytes(bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  // Swap two loop variables of the body: int32 where float32 is passed.
  Graph body = (*g->subgraphs)[2];
  std::swap(body.inputs[1], body.inputs[2]);
  std::vector<Graph> all = *g->subgraphs;
  all[0] = *g;
  all[0].subgraphs = nullptr;
  all[2] = body;
  GLD_EXPECT_ERROR(CheckSubgraphCalls(all), "node 0 (WHILE): body subgraph 2 ('body') inputs 1 is float32",
                   "the node's input 1 is int32");
}

TEST(SubgraphReader, IfBranchWhoseArityDoesNotMatch) {
  std::vector<uint8_t> bytes = CaseModel("while__if_in_body");
  GLD_SKIP_WITHOUT(bytes);
  ASSERT_TRUE(SetCallIndex(bytes, 2, 3, 0, 1));  // then: the loop's cond
  GLD_EXPECT_ERROR(ReadBytes(bytes), "subgraph 2 ('body') node 3 (IF): then subgraph 1 ('cond') has 2 inputs",
                   "has 1");
}

}  // namespace
}  // namespace gld
