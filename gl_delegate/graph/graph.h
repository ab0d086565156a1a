// The IR: tensors, nodes and the graph's inputs/outputs. Passes and backends
// operate on this value; it has no pointers into the model file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/attributes.h"
#include "graph/constant_data.h"
#include "graph/types.h"

namespace gld {

enum class OpType : uint16_t {
#define GLD_OP(e, ...) e,
#include "graph/op_list.inc"
#undef GLD_OP
};

// What a custom op the library runs itself becomes (CustomAttributes::library):
// an op of the table with its typed attributes, parsed from the custom
// options when the model is read.
struct LibraryCustomOp {
  OpType op;
  Attributes attributes;
};

// The inputs of an op that may be absent (kNoTensor): a set of input
// indices below 64. An op table row writes one index (or -1: none); the
// recurrent ops, whose optional weights sit among required ones, name a
// constant below.
struct OptionalInputs {
  uint64_t mask = 0;
  constexpr OptionalInputs(int index) : mask(index < 0 ? 0 : uint64_t{1} << index) {}  // NOLINT: the table's column
  static constexpr OptionalInputs Bits(uint64_t bits) {
    OptionalInputs o(-1);
    o.mask = bits;
    return o;
  }
  constexpr bool Has(size_t index) const { return index < 64 && ((mask >> index) & 1) != 0; }
};

// TFLite's LSTM inputs (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM): the input gate's
// weights and bias (1, 5, 12: absent with a coupled input and forget gate),
// the peepholes (9, 10, 11), the projection (16, 17) and the layer
// normalisation coefficients (20..23).
inline constexpr uint64_t kLstmOptionalBits = (uint64_t{1} << 1) | (uint64_t{1} << 5) | (uint64_t{7} << 9) |
                                              (uint64_t{1} << 12) | (uint64_t{3} << 16) | (uint64_t{15} << 20);
inline constexpr OptionalInputs kLstmOptional = OptionalInputs::Bits(kLstmOptionalBits);
// BIDIRECTIONAL_SEQUENCE_LSTM: the forward cell's weights are inputs 1..17,
// the backward cell's 18..34 (each as LSTM's 1..17), then the auxiliary input
// and its weights (39..47).
inline constexpr OptionalInputs kBidiLstmOptional =
    OptionalInputs::Bits((kLstmOptionalBits & 0x3FFFE) | ((kLstmOptionalBits & 0x3FFFE) << 17) |
                         (uint64_t{0x1FF} << 39));
// BIDIRECTIONAL_SEQUENCE_RNN: the auxiliary input and its two weights (9..11).
inline constexpr OptionalInputs kBidiRnnOptional = OptionalInputs::Bits(uint64_t{7} << 9);

// One row of the op table (op_list.inc): what the IR knows about an op
// without looking at a model file or a backend.
struct OpInfo {
  OpType op;
  const char* name;  // TFLite's: "CONV_2D", "Convolution2DTransposeBias"
  int min_inputs, max_inputs;  // max -1: unbounded
  int min_outputs, max_outputs;
  OptionalInputs optional_inputs;  // the inputs that may be absent (kNoTensor)
  // Shape inference may compute its small integer outputs (ValueOracle).
  bool known_values;

  bool InputMayBeAbsent(size_t index) const { return optional_inputs.Has(index); }
};

// The row of `op`, which must be one of the enumerators.
const OpInfo& GetOpInfo(OpType op);

// TFLite-style op name: "CONV_2D", "Convolution2DTransposeBias".
const char* OpTypeName(OpType op);
// Inverse of OpTypeName; false when unknown.
bool OpTypeFromName(const std::string& name, OpType* op);
// Every OpType, in list order.
const std::vector<OpType>& AllOpTypes();
// One of the library's own ops that passes make (named GLD_*), never a
// file's op.
bool IsPassOp(OpType op);
// 1 or 2 for an op of the elementwise table's unary or binary rows
// (elementwise_ops.inc), else 0.
int ElementwiseArity(OpType op);

struct Tensor {
  std::string name;
  DataType type = DataType::kFloat32;
  Shape shape;
  // The file's shape_signature: the shape with -1 where the model takes any
  // size (a free batch dimension). Empty when the file gives none: the shape
  // is then fixed (SignatureOf).
  Shape signature;
  QuantizationParams quant;
  // Constant contents (host byte order), shared with the other copies of the
  // graph; empty for activations. Use is_constant, not data.empty(): a
  // constant may have zero elements.
  ConstantData data;
  bool is_constant = false;
  // The type came from a model file, so shape inference must agree with it
  // rather than overwrite it (graphs built in memory leave types to it).
  bool type_declared = false;
  bool is_variable = false;
  std::optional<SparsityParams> sparsity;  // set on sparse constants only

  template <typename T>
  const T* DataAs() const { return reinterpret_cast<const T*>(data.data()); }
  int64_t num_elements() const { return NumElements(shape); }
};

inline constexpr int kNoTensor = -1;  // an absent optional input

// The tensor's shape signature as LiteRT reports it: the file's, or the
// shape when the file gives none.
inline const Shape& SignatureOf(const Tensor& t) { return t.signature.empty() ? t.shape : t.signature; }

struct Node {
  OpType op = OpType::kAdd;
  std::vector<int> inputs;   // tensor indices; kNoTensor for absent optionals
  std::vector<int> outputs;  // tensor indices
  Attributes attributes;
  // Position of the op in the model file's operator list, for messages; -1
  // for nodes a pass created.
  int source_index = -1;
  // Names of the file's ops that this node now stands for (after fusion).
  std::vector<std::string> fused_names;

  template <typename A>
  const A& attrs() const { return std::get<A>(attributes); }
  template <typename A>
  A& attrs() { return std::get<A>(attributes); }
};

// The op's name as the file writes it: OpTypeName, or a custom op's
// custom_code (OpType::kCustom).
const char* NodeOpName(const Node& node);

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;  // topologically ordered
  std::vector<int> inputs;
  std::vector<int> outputs;
  // Names of subgraphs other than the one we run, for reports.
  std::vector<std::string> other_subgraphs;
  // Every subgraph of the model file, by its index there, for control-flow
  // nodes (WHILE, IF, CALL_ONCE) to call. Shared by the copies of a graph
  // and read-only: the reader fills it, PrepareGraph replaces it with the
  // prepared callees. The slot of the graph the model runs is an empty
  // placeholder (nothing reachable calls it: the reader refuses recursion).
  // Null for a model of one subgraph and for graphs built in memory.
  std::shared_ptr<const std::vector<Graph>> subgraphs;
  // This graph's index among the file's subgraphs and its name; a callee
  // (a subgraph a control-flow node runs) names them in its node labels.
  int subgraph_index = 0;
  std::string subgraph_name;
  bool is_callee = false;

  // "node 12 (CONV_2D)", using source_index when known; a callee's:
  // "subgraph 2 ('while_body') node 3 (ADD)".
  std::string NodeLabel(size_t node_index) const;
  // "subgraph 2 ('while_body')".
  std::string SubgraphLabel() const;

  // Indices of nodes reading tensor t.
  std::vector<size_t> Consumers(int tensor) const;
  // Index of the node writing tensor t, or -1 for graph inputs and constants.
  int Producer(int tensor) const;
  bool IsGraphOutput(int tensor) const;
  bool IsGraphInput(int tensor) const;
};

// A subgraph a control-flow node calls, and what for ("cond", "body",
// "then", "else", "init").
struct SubgraphCall {
  const char* role;
  int subgraph;
};
// The subgraphs node calls (WHILE: cond, body; IF: then, else; CALL_ONCE:
// init); empty for other nodes.
std::vector<SubgraphCall> CalledSubgraphs(const Node& node);
// A node whose effect reaches beyond its outputs: it assigns a resource
// variable or calls subgraphs (which may). Passes keep such nodes and their
// order.
bool NodeHasSideEffects(const Node& node);

}  // namespace gld
