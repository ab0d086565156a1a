// Binds an Interpreter's graph to the app's custom ops (Options::custom_ops,
// gldelegate/custom_op.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gldelegate/custom_op.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

// The registration in `ops` of custom op `name` at `version`: the one of
// that exact version, else the one of version 0; nullptr when none.
std::shared_ptr<const CustomOp> FindCustomOp(const std::vector<std::shared_ptr<const CustomOp>>& ops,
                                             const std::string& name, int version);

// Sets CustomAttributes::op of every custom node (OpType::kCustom) to its
// registration in `ops`: the one of the node's name and exact version, else
// the one of its name and version 0. A node the library runs itself
// (CustomAttributes::library) that no registration takes becomes its op of
// the table. Unimplemented naming the first node left without either, and
// saying how to register one.
Status BindCustomOps(Graph& graph, const std::vector<std::shared_ptr<const CustomOp>>& ops);

}  // namespace gld
