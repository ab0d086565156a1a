// The view of a custom node (OpType::kCustom) that an app's custom op
// callbacks get (gldelegate/custom_op.hpp): shape inference, the CPU kernel
// and the GL generator all make it here.
#pragma once

#include <cstddef>
#include <exception>
#include <string>

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

// Calls an app's callback, turning an exception it throws into an Internal
// status ("threw: <what()>"; callers prefix the callback's name), so that
// none crosses the library.
template <typename Fn>
Status CallCustomOp(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return InternalError(std::string("threw: ") + e.what());
  } catch (...) {
    return InternalError("threw an exception");
  }
}

}  // namespace gld
