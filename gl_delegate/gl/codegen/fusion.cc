#include "gl/codegen/fusion.h"

#include "gl/codegen/elementwise_table.h"

#include <algorithm>
#include <map>

namespace gld::gl {

namespace {

// Templates whose main() stores one output (binding 0) through
// finish_output(), and so applies gld_epilogue().
bool TakesEpilogue(const Dispatch& d) {
  static const std::set<std::string> kTemplates = {
      "attention.comp", "batch_matmul.comp", "concat_axis.comp", "conv2d.comp", "grouped_conv.comp", "depthwise_conv.comp", "transpose_conv.comp", "fully_connected.comp",
      "elementwise.comp", "gather.comp", "gather_nd.comp", "layer_norm.comp", "pooling.comp", "reduce.comp", "softmax.comp", "pad.comp", "reshape.comp",
      "resize.comp", "rotary_embedding.comp", "select.comp", "slice.comp", "depth_space.comp", "tile.comp", "transpose.comp",
      "transform_tensor_bilinear.comp", "transform_landmarks.comp"};
  if (!kTemplates.count(d.shader.template_name)) return false;
  for (const auto& [name, value] : d.shader.defines) {
    if (name == "WITH_INDICES" && value != "0") return false;
  }
  return true;
}

int OutputTensor(const Dispatch& d) {
  for (const auto& [binding, ref] : d.bindings) {
    if (binding == 0 && ref.kind == DispatchBufferRef::kTensor) return ref.index;
  }
  return kNoTensor;
}

uint32_t NextBinding(const Dispatch& d) {
  uint32_t next = 0;
  for (const auto& b : d.bindings) next = std::max(next, b.first + 1);
  return next;
}

// The input of a PAD that adds zero channels after the last channel and
// nothing else; kNoTensor for any other node. Reading that input with zeros
// beyond its channels gives the PAD's output.
int ChannelPadSource(const Graph& graph, const Node& pad) {
  if (pad.op != OpType::kPad || pad.inputs.size() != 2 || pad.outputs.size() != 1) return kNoTensor;
  const int in = pad.inputs[0], pads = pad.inputs[1];
  if (in < 0 || pads < 0 || static_cast<size_t>(in) >= graph.tensors.size() ||
      static_cast<size_t>(pads) >= graph.tensors.size()) {
    return kNoTensor;
  }
  const Tensor& x = graph.tensors[static_cast<size_t>(in)];
  const Tensor& p = graph.tensors[static_cast<size_t>(pads)];
  const size_t rank = x.shape.size();
  if (!p.is_constant || p.type != DataType::kInt32 || rank == 0 || p.data.size() != rank * 2 * sizeof(int32_t) ||
      x.shape.back() < 2) {  // one channel would read as a broadcast (broadcast_value)
    return kNoTensor;
  }
  for (size_t k = 0; k + 1 < rank * 2; ++k) {
    if (p.DataAs<int32_t>()[k] != 0) return kNoTensor;
  }
  return in;
}

std::string TensorName(const Graph& graph, int t) {
  return "'" + graph.tensors[static_cast<size_t>(t)].name + "'";
}

// One epilogue step: the elementwise op, and the position of a channel PAD
// whose input replaces the op's operand (-1: none).
struct EpilogueStep {
  EpilogueOp op;
  long merged_pad = -1;
};

class Fuser {
 public:
  Fuser(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::set<int>& keep, Precision precision,
        int max_bindings)
      : graph_(graph), nodes_(nodes), keep_(keep), precision_(precision), max_bindings_(max_bindings) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      position_[nodes[i].node] = i;
      nodes[i].run_after = i;
    }
  }

  // Segment position of the node writing `tensor`; -1 for graph inputs,
  // constants and tensors made outside the segment.
  long ProducerPosition(int tensor) const {
    const int p = graph_.Producer(tensor);
    if (p < 0) return -1;
    auto it = position_.find(static_cast<size_t>(p));
    return it == position_.end() ? -1 : static_cast<long>(it->second);
  }

  // Why the node at `consumer` cannot join the epilogue of the dispatch of
  // the node at `producer`, which writes `t`; "" when it can (then `e`
  // describes the step).
  std::string Refusal(size_t producer, int t, size_t consumer, EpilogueStep* e) const {
    const NodeDispatches& p = nodes_[producer];
    const std::string who = graph_.NodeLabel(p.node);
    if (p.dispatches.size() != 1) {
      return who + " runs " + std::to_string(p.dispatches.size()) + " dispatches";
    }
    if (graph_.nodes[p.node].outputs.size() != 1) return who + " has several outputs";
    const Dispatch& d = p.dispatches[0];
    if (!TakesEpilogue(d)) return who + "'s template " + d.shader.template_name + " takes no epilogue";
    if (keep_.count(t)) return TensorName(graph_, t) + " must exist (a segment output)";
    const size_t readers = graph_.Consumers(t).size();
    if (readers != 1) return TensorName(graph_, t) + " has " + std::to_string(readers) + " readers";
    if (consumer <= producer) return "its producer comes later in the segment";
    if (p.epilogue_steps >= kMaxEpilogueOps) {
      return who + "'s epilogue is full (" + std::to_string(kMaxEpilogueOps) + " ops)";
    }
    // What the op itself rules out (a broadcast output, an op with no
    // epilogue form) is said before what the fusion order left behind.
    auto described = DescribeEpilogueOp(graph_, nodes_[consumer].node, t, precision_);
    if (!described.ok()) return described.status().message();
    if (!nodes_[consumer].fused_nodes.empty()) return graph_.NodeLabel(nodes_[consumer].node) + " has an epilogue";
    e->op = *described;
    e->merged_pad = -1;
    if (e->op.operand != kNoTensor) MergeChannelPad(t, consumer, e);
    if (e->op.operand != kNoTensor) {
      if (ProducerPosition(e->op.operand) >= static_cast<long>(consumer)) {
        return "its other operand " + TensorName(graph_, e->op.operand) + " is computed after it";
      }
      if (first_round_ && ProducerPosition(e->op.operand) > static_cast<long>(producer)) {
        return "first round: its other operand is made after " + who;
      }
      if (first_round_ && ChannelPadSource(graph_, graph_.nodes[p.node]) != kNoTensor) {
        return "first round: left to the producer of its other operand";
      }
      if (static_cast<int>(NextBinding(d)) + 1 > max_bindings_) {
        return who + "'s dispatch has no storage block left for operand " + TensorName(graph_, e->op.operand);
      }
    }
    return "";
  }

  // When the step's operand is the output of a channel PAD of this segment
  // that only `consumer` reads and that runs as one plain dispatch, reads the
  // PAD's input instead (epilogue.comp gives zeros beyond its channels).
  void MergeChannelPad(int fused, size_t consumer, EpilogueStep* e) const {
    const int operand = e->op.operand;
    const long pad = ProducerPosition(operand);
    if (pad < 0 || keep_.count(operand) || operand == fused) return;
    const NodeDispatches& nd = nodes_[static_cast<size_t>(pad)];
    if (nd.absorbed || nd.dispatches.size() != 1 || !nd.fused_nodes.empty()) return;
    const int source = ChannelPadSource(graph_, graph_.nodes[nd.node]);
    const std::vector<size_t> readers = graph_.Consumers(operand);
    if (source == kNoTensor || readers.size() != 1 || readers[0] != nodes_[consumer].node) return;
    auto shape = ToBhwc(graph_.tensors[static_cast<size_t>(source)].shape);
    if (!shape.ok() || shape->b != e->op.operand_shape.b || shape->h != e->op.operand_shape.h ||
        shape->w != e->op.operand_shape.w) {
      return;
    }
    e->op.operand = source;
    e->op.operand_shape = *shape;
    e->merged_pad = pad;
  }

  // Runs the node at `consumer` in the epilogue of the node at `producer`.
  void Absorb(size_t producer, size_t consumer, const EpilogueStep& step, std::vector<std::string>* log) {
    NodeDispatches& p = nodes_[producer];
    NodeDispatches& c = nodes_[consumer];
    const EpilogueOp& e = step.op;
    Dispatch& d = p.dispatches[0];
    const uint32_t binding = NextBinding(d);
    const std::string k = std::to_string(p.epilogue_steps + 1);
    if (p.epilogue_steps == 0) {
      d.shader.Define("GLD_EPILOGUE", 1);
      d.shader.Library("elementwise_ops.comp").Library(std::string(kElementwiseTableLibrary)).Library("epilogue.comp");
    }
    d.shader.Define("EPI_OP_" + k, e.op).Define("EPI_ACT_" + k, e.act);
    d.shader.Define("EPI_OPERAND_" + k, e.operand == kNoTensor ? 0 : e.operand_first ? 2 : 1);
    if (e.operand != kNoTensor) {
      d.shader.Define("EPI_BINDING_" + k, binding);
      d.Bind(binding, DispatchBufferRef{DispatchBufferRef::kTensor, e.operand});
      d.IVec4("u_epi_shape_" + k, e.operand_shape);
      d.IVec4("u_epi_map_" + k, e.map[0], e.map[1], e.map[2], 0);
    }
    d.Vec4("u_epi_params_" + k, e.params[0], e.params[1], e.params[2], e.params[3]);
    // The producer now writes the consumer's output.
    const int out = graph_.nodes[c.node].outputs[0];
    for (auto& b : d.bindings) {
      if (b.first == 0) b.second.index = out;
    }
    c.absorbed = true;
    c.dispatches.clear();
    p.fused_nodes.push_back(c.node);
    ++p.epilogue_steps;
    if (e.operand != kNoTensor && ProducerPosition(e.operand) > static_cast<long>(producer)) {
      p.run_after = std::max(p.run_after, consumer);
    }
    if (log != nullptr) {
      log->push_back(graph_.NodeLabel(c.node) + " fused into " + graph_.NodeLabel(p.node) + " (" +
                     d.shader.template_name + ")");
    }
    if (step.merged_pad >= 0) {
      NodeDispatches& pad = nodes_[static_cast<size_t>(step.merged_pad)];
      pad.absorbed = true;
      pad.dispatches.clear();
      p.fused_nodes.push_back(pad.node);
      if (log != nullptr) {
        log->push_back(graph_.NodeLabel(pad.node) + " merged into the operand of " + graph_.NodeLabel(c.node) +
                       " in " + graph_.NodeLabel(p.node) + "'s epilogue");
      }
    }
  }

  // Two rounds: the first, for non-elementwise producers, takes only steps
  // that keep every dispatch in its place and leaves binary ops to the
  // producer of their other operand when that may read a channel PAD's
  // input; the second takes the rest.
  int FuseAll(std::vector<std::string>* log) {
    int absorbed = 0;
    for (first_round_ = true;; first_round_ = false) {
      absorbed += FuseRound(log);
      if (!first_round_) break;
    }
    for (NodeDispatches& nd : nodes_) {
      if (nd.epilogue_steps > 0) nd.dispatches[0].shader.Define("EPI_COUNT", nd.epilogue_steps);
    }
    return absorbed;
  }

  int FuseRound(std::vector<std::string>* log) {
    int absorbed = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].absorbed || nodes_[i].dispatches.size() != 1) continue;
      // Elementwise producers wait for the second round, which goes in
      // segment order: whatever could take them has tried first.
      if (first_round_ && IsEpilogueOp(graph_.nodes[nodes_[i].node])) continue;
      while (true) {
        const int t = OutputTensor(nodes_[i].dispatches[0]);
        if (t < 0) break;
        const std::vector<size_t> readers = graph_.Consumers(t);
        if (readers.size() != 1) break;
        auto it = position_.find(readers[0]);
        if (it == position_.end() || nodes_[it->second].absorbed) break;
        EpilogueStep e;
        if (!Refusal(i, t, it->second, &e).empty()) break;
        Absorb(i, it->second, e, log);
        ++absorbed;
      }
    }
    return absorbed;
  }

  // Says, for each elementwise node that kept its dispatch, why each of its
  // activation inputs could not take it.
  void Explain() {
    std::map<int, size_t> writer;  // tensor -> position of the dispatch writing it
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].absorbed) continue;
      for (const Dispatch& d : nodes_[i].dispatches) {
        const int t = OutputTensor(d);
        if (t >= 0) writer[t] = i;
      }
    }
    for (size_t c = 0; c < nodes_.size(); ++c) {
      NodeDispatches& nd = nodes_[c];
      if (nd.absorbed || nd.dispatches.empty() || !IsEpilogueOp(graph_.nodes[nd.node])) continue;
      std::vector<std::string> reasons;
      std::set<int> seen;
      for (int t : graph_.nodes[nd.node].inputs) {
        if (t < 0 || static_cast<size_t>(t) >= graph_.tensors.size() || graph_.tensors[t].is_constant ||
            !seen.insert(t).second) {
          continue;
        }
        if (ProducerPosition(t) < 0) {
          reasons.push_back(TensorName(graph_, t) + " comes from outside this GPU segment");
          continue;
        }
        auto it = writer.find(t);
        EpilogueStep e;
        std::string why = it == writer.end() ? "no single dispatch writes it" : Refusal(it->second, t, c, &e);
        if (why.empty()) why = "not fused (fusion order)";
        reasons.push_back("via " + TensorName(graph_, t) + ": " + why);
      }
      if (reasons.empty()) reasons.push_back("all its inputs are constants");
      nd.unfused_reason.clear();
      for (const std::string& r : reasons) nd.unfused_reason += (nd.unfused_reason.empty() ? "" : "; ") + r;
    }
  }

 private:
  const Graph& graph_;
  std::vector<NodeDispatches>& nodes_;
  const std::set<int>& keep_;
  const Precision precision_;
  const int max_bindings_;
  std::map<size_t, size_t> position_;
  bool first_round_ = false;  // Explain() runs after both rounds
};

}  // namespace

int FuseElementwiseEpilogues(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::set<int>& keep,
                             Precision precision, int max_bindings, std::vector<std::string>* log) {
  Fuser fuser(graph, nodes, keep, precision, max_bindings);
  const int absorbed = fuser.FuseAll(log);
  fuser.Explain();
  // Run order: a moved dispatch takes the (now empty) place of the node it
  // moved to; ties keep segment order.
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const NodeDispatches& a, const NodeDispatches& b) { return a.run_after < b.run_after; });
  return absorbed;
}

void MarkUnfused(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::string& reason) {
  for (NodeDispatches& nd : nodes) {
    if (!nd.dispatches.empty() && IsEpilogueOp(graph.nodes[nd.node])) nd.unfused_reason = reason;
  }
}

}  // namespace gld::gl
