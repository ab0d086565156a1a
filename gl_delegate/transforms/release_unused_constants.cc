// Frees the bytes of constants no node reads any more (e.g. the float16
// weights behind a folded DEQUANTIZE). The tensors themselves stay, so tensor
// indices do not change.
#include "transforms/pass.h"

namespace gld {

Status ReleaseUnusedConstants(Graph& graph, PassLog& log) {
  std::vector<bool> used(graph.tensors.size(), false);
  auto mark = [&](int t) {
    if (t >= 0 && static_cast<size_t>(t) < used.size()) used[t] = true;
  };
  for (const Node& node : graph.nodes) {
    for (int t : node.inputs) mark(t);
  }
  for (int t : graph.outputs) mark(t);
  for (int t : graph.inputs) mark(t);
  size_t count = 0, bytes = 0;
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    Tensor& tensor = graph.tensors[t];
    if (used[t] || !tensor.is_constant || tensor.is_variable || tensor.data.empty()) continue;
    ++count;
    bytes += tensor.data.size();
    tensor.data.clear();
    tensor.sparsity.reset();
  }
  if (count > 0) {
    log.Add("release_unused_constants",
            "freed " + std::to_string(bytes) + " bytes of " + std::to_string(count) + " unused constant tensor" +
                (count == 1 ? "" : "s"));
  }
  return OkStatus();
}

}  // namespace gld
