#include "gl/codegen/support.h"

#include <algorithm>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/phwc4.h"

namespace gld::gl {

namespace {

// Empty when every dispatch fits the limits (storage block size, workgroup
// counts, storage buffers bound: GLES 3.1 guarantees 4 to a compute
// shader); otherwise why not, so that the node runs on the CPU instead of
// failing the segment's plan (segment_plan.cc checks the same).
std::string CheckLimits(const Graph& graph, size_t node, const std::vector<Dispatch>& dispatches,
                        Precision precision, const GlInfo* limits) {
  // GLES 3.1 guarantees 2^27-byte storage blocks and 65535 workgroups per
  // axis; a driver may offer more.
  const int64_t max_bytes = limits != nullptr && limits->max_ssbo_size > 0 ? limits->max_ssbo_size
                                                                           : (int64_t{1} << 27);
  for (const Dispatch& d : dispatches) {
    uint32_t max_binding = 0;
    for (const auto& b : d.bindings) max_binding = std::max(max_binding, b.first);
    if (limits != nullptr && limits->max_compute_ssbo_blocks > 0 &&
        max_binding >= static_cast<uint32_t>(limits->max_compute_ssbo_blocks)) {
      return std::string(OpTypeName(graph.nodes[node].op)) + ": binds " + std::to_string(max_binding + 1) +
             " storage buffers, the limit is " + std::to_string(limits->max_compute_ssbo_blocks);
    }
    Workgroup wg = d.workgroup[0] != 0 ? d.workgroup : ChooseWorkgroup(d.grid);
    for (int k = 0; k < 3; ++k) {
      const int64_t limit = limits != nullptr && limits->max_workgroup_count[k] > 0
                                ? limits->max_workgroup_count[k] : 65535;
      const int64_t groups = (int64_t{d.grid[static_cast<size_t>(k)]} + wg[static_cast<size_t>(k)] - 1) /
                             wg[static_cast<size_t>(k)];
      if (groups > limit) {
        return std::string(OpTypeName(graph.nodes[node].op)) + ": needs " + std::to_string(groups) +
               " workgroups along axis " + std::to_string(k) + ", the limit is " + std::to_string(limit);
      }
    }
    for (const auto& b : d.bindings) {
      if (b.second.kind != DispatchBufferRef::kTensor) continue;
      const Tensor& t = graph.tensors[static_cast<size_t>(b.second.index)];
      auto shape = ToBhwc(t.shape);
      if (!shape.ok()) return shape.status().message();
      const int64_t bytes = static_cast<int64_t>(Phwc4Bytes(*shape, precision));
      if (bytes > max_bytes) {
        return std::string(OpTypeName(graph.nodes[node].op)) + ": tensor '" + t.name + "' needs " +
               std::to_string(bytes) + " bytes of GPU storage, the limit is " + std::to_string(max_bytes);
      }
    }
  }
  return {};
}

}  // namespace

StatusOr<NodeCode> GenerateNodeCode(const Graph& graph, size_t node, Precision precision, const GlInfo* limits,
                                    bool dry_run) {
  if (node >= graph.nodes.size()) {
    return UnimplementedError("node index " + std::to_string(node) + " out of range");
  }
  OpBuildContext ctx(graph, node, precision, dry_run);
  NodeCode code;
  GLD_RETURN_IF_ERROR(BuildNode(ctx, &code.dispatches));
  const std::string why = CheckLimits(graph, node, code.dispatches, precision, limits);
  if (!why.empty()) return UnimplementedError(why);
  code.constants = std::move(ctx.constants());
  return code;
}

bool IsNodeSupported(const Graph& graph, size_t node, std::string* reason, Precision precision,
                     const GlInfo* limits) {
  auto code = GenerateNodeCode(graph, node, precision, limits, /*dry_run=*/true);
  if (code.ok()) return true;
  if (reason != nullptr) *reason = code.status().message();
  return false;
}

std::string GlSupportQuery::WhyNotSupported(const Graph& graph, size_t node_index) const {
  auto code = GenerateNodeCode(graph, node_index, precision_, &limits_, /*dry_run=*/false);
  if (!code.ok()) return code.status().message();
  code_[node_index] = std::move(code).value();
  return {};
}

const std::vector<OpType>& GlSupportedOps() {
  static const std::vector<OpType> ops = [] {
    std::vector<OpType> v;
    for (const GlBuilder& row : GlBuilders()) v.push_back(row.op);
    return v;
  }();
  return ops;
}

}  // namespace gld::gl
