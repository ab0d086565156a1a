// Can the GL backend run a node? Answered by running the node's code
// generator without a GL context ("dry run", no weights repacked), so the
// answer and the segment that later runs the node cannot disagree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gl/egl/egl_environment.h"
#include "gldelegate/types.hpp"
#include "graph/graph.h"

namespace gld::gl {

// True when graph.nodes[node] runs on the GL backend. Otherwise `reason`
// (when not null) says why, e.g. "op TOPK has no GL kernel" or
// "RESIZE_BILINEAR: input 'x' is 5-D [1, 2, 3, 4, 5] (expects 4-D)".
// `limits` (optional) adds the driver's limits (storage block size,
// workgroup counts); without it the GLES 3.1 minimums apply.
bool IsNodeSupported(const Graph& graph, size_t node, std::string* reason,
                     Precision precision = Precision::kFp32, const GlInfo* limits = nullptr);

// Ops with a GL kernel (for listings; a listed op may still be refused for a
// particular node, with a reason).
const std::vector<OpType>& GlSupportedOps();

}  // namespace gld::gl
