// The view of a custom node (OpType::kCustom) that an app's custom op
// callbacks get (gldelegate/custom_op.hpp): shape inference, the CPU kernel
// and the GL generator all make it here.
#pragma once

#include <cstddef>

#include "gldelegate/custom_op.hpp"
#include "graph/graph.h"

namespace gld {

// The node's CustomAttributes; nullptr for other nodes.
const CustomAttributes* GetCustomAttributes(const Node& node);

// The node's name, version, label, options bytes and its tensors' types and
// shapes as the graph holds them now.
CustomOpNode MakeCustomOpNode(const Graph& graph, size_t node_index);

// "custom op 'MyOp' (version 2) is not registered: ..." with how to register
// one; for a node without a registration.
std::string UnregisteredCustomOpMessage(const CustomAttributes& attrs);

}  // namespace gld
