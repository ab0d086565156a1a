#include "gl/codegen/support.h"

#include "gl/codegen/gl_op.h"
#include "gl/codegen/phwc4.h"

namespace gld::gl {

bool IsNodeSupported(const Graph& graph, size_t node, std::string* reason, Precision precision,
                     const GlInfo* limits) {
  auto refuse = [reason](const std::string& why) {
    if (reason != nullptr) *reason = why;
    return false;
  };
  if (node >= graph.nodes.size()) return refuse("node index " + std::to_string(node) + " out of range");
  OpBuildContext ctx(graph, node, precision, /*dry_run=*/true);
  std::vector<Dispatch> dispatches;
  Status s = BuildNode(ctx, &dispatches);
  if (!s.ok()) return refuse(s.message());
  // GLES 3.1 guarantees 2^27-byte storage blocks and 65535 workgroups per
  // axis; a driver may offer more.
  const int64_t max_bytes = limits != nullptr && limits->max_ssbo_size > 0 ? limits->max_ssbo_size
                                                                           : (int64_t{1} << 27);
  for (const Dispatch& d : dispatches) {
    Workgroup wg = d.workgroup[0] != 0 ? d.workgroup : ChooseWorkgroup(d.grid);
    for (int k = 0; k < 3; ++k) {
      const int64_t limit = limits != nullptr && limits->max_workgroup_count[k] > 0
                                ? limits->max_workgroup_count[k] : 65535;
      const int64_t groups = (int64_t{d.grid[static_cast<size_t>(k)]} + wg[static_cast<size_t>(k)] - 1) /
                             wg[static_cast<size_t>(k)];
      if (groups > limit) {
        return refuse(std::string(OpTypeName(graph.nodes[node].op)) + ": needs " + std::to_string(groups) +
                      " workgroups along axis " + std::to_string(k) + ", the limit is " + std::to_string(limit));
      }
    }
    for (const auto& b : d.bindings) {
      if (b.second.kind != DispatchBufferRef::kTensor) continue;
      const Tensor& t = graph.tensors[static_cast<size_t>(b.second.index)];
      auto shape = ToBhwc(t.shape);
      if (!shape.ok()) return refuse(shape.status().message());
      const int64_t bytes = static_cast<int64_t>(Phwc4Bytes(*shape, precision));
      if (bytes > max_bytes) {
        return refuse(std::string(OpTypeName(graph.nodes[node].op)) + ": tensor '" + t.name + "' needs " +
                      std::to_string(bytes) + " bytes of GPU storage, the limit is " + std::to_string(max_bytes));
      }
    }
  }
  return true;
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
