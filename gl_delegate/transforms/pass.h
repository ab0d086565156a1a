// The transform-pass framework: each pass is a named function that rewrites a
// Graph in place and appends one human-readable line per change to a PassLog.
// Passes keep tensor indices stable: a tensor that is no longer used stays in
// Graph::tensors (its constant bytes may be released), so indices held by
// other stages and by the model's input/output lists stay valid.
#pragma once

#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

struct PassLog {
  std::vector<std::string> lines;
  void Add(const std::string& pass, const std::string& what) { lines.push_back(pass + ": " + what); }
};

using PassFn = Status (*)(Graph& graph, PassLog& log);

struct Pass {
  const char* name;
  PassFn run;
};

// "'w' [32, 3, 3, 3] float32": a tensor as pass-log lines show it.
std::string DescribeTensor(const Graph& graph, int tensor);

// Removes the nodes whose `remove` flag is set, keeping the others' order.
void EraseNodes(Graph& graph, const std::vector<bool>& remove);

// The passes (one file each).
Status FoldConstantDequantize(Graph& graph, PassLog& log);
Status FoldConstantDensify(Graph& graph, PassLog& log);
Status RemoveDeadNodes(Graph& graph, PassLog& log);
Status ReleaseUnusedConstants(Graph& graph, PassLog& log);
Status QuantizedFloatView(Graph& graph, PassLog& log);

}  // namespace gld
