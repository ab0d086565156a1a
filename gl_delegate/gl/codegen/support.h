// Can the GL backend run a node? Answered by running the node's code
// generator without a GL context, so the answer and the segment that later
// runs the node cannot disagree. The GL backend keeps the code the query
// generated and its segment plans reuse it, so each node's generator runs
// once per Interpreter; listings and tests ask in a dry run (no weights
// repacked).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/egl/egl_environment.h"
#include "gldelegate/types.hpp"
#include "graph/graph.h"
#include "partition/partition.h"

namespace gld::gl {

// True when graph.nodes[node] runs on the GL backend. Otherwise `reason`
// (when not null) says why, e.g. "op TOPK has no GL kernel" or
// "RESIZE_BILINEAR: input 'x' is 5-D [1, 2, 3, 4, 5] (expects 4-D)".
// `limits` (optional) adds the driver's limits (storage block size,
// workgroup counts); without it the GLES 3.1 minimums apply.
bool IsNodeSupported(const Graph& graph, size_t node, std::string* reason,
                     Precision precision = Precision::kFp32, const GlInfo* limits = nullptr);

// What a node's generator made: its dispatches and the constant buffers they
// read (indices local to the node).
struct NodeCode {
  std::vector<Dispatch> dispatches;
  std::vector<ConstantBuffer> constants;
};
// Generated code by node index, made by the support query and taken by the
// segment plan (gl/segment_plan.h).
using NodeCodeCache = std::map<size_t, NodeCode>;

// Runs graph.nodes[node]'s generator (weights packed unless `dry_run`) and
// checks its dispatches against `limits` as IsNodeSupported does;
// Unimplemented with the reason when the GL backend cannot run the node.
StatusOr<NodeCode> GenerateNodeCode(const Graph& graph, size_t node, Precision precision, const GlInfo* limits,
                                    bool dry_run);

// Partition's question answered for the GL backend: each node's generator
// runs for real (weights packed) against `limits`, and the code of every
// node it accepts is kept in code() for the segment plans to take.
class GlSupportQuery : public NodeSupportQuery {
 public:
  // `limits` must outlive the query.
  GlSupportQuery(Precision precision, const GlInfo& limits) : precision_(precision), limits_(limits) {}
  std::string WhyNotSupported(const Graph& graph, size_t node_index) const override;
  NodeCodeCache* code() const { return &code_; }

 private:
  Precision precision_;
  const GlInfo& limits_;
  mutable NodeCodeCache code_;
};

// Ops with a GL kernel (for listings; a listed op may still be refused for a
// particular node, with a reason).
const std::vector<OpType>& GlSupportedOps();

}  // namespace gld::gl
