#include "partition/partition.h"

#include <algorithm>

#include "util/logging.h"

namespace gld {

namespace {

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// A variable tensor that only the segment's nodes touch, and that is no
// graph input or output: the segment keeps it across runs (a recurrent op's
// state; gl/segment_plan.h, SegmentPlan::variables), so it is no edge.
bool SegmentOwnsVariable(const Graph& graph, const std::vector<int>& members, int t) {
  if (!graph.tensors[static_cast<size_t>(t)].is_variable || graph.IsGraphInput(t) || graph.IsGraphOutput(t)) {
    return false;
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    const bool uses = Contains(node.inputs, t) || Contains(node.outputs, t);
    if (uses && !Contains(members, static_cast<int>(n))) return false;
  }
  return true;
}

// Fills segment.inputs / outputs from the graph's data flow.
void ComputeSegmentEdges(const Graph& graph, Segment& segment) {
  const std::vector<int>& members = segment.nodes;
  if (members.empty()) return;
  std::vector<int> written;
  for (int n : members) {
    if (n < 0 || static_cast<size_t>(n) >= graph.nodes.size()) continue;
    const Node& node = graph.nodes[n];
    for (int t : node.inputs) {
      if (t < 0 || static_cast<size_t>(t) >= graph.tensors.size()) continue;
      if (graph.tensors[t].is_constant || Contains(written, t) || Contains(segment.inputs, t)) continue;
      if (SegmentOwnsVariable(graph, members, t)) continue;
      segment.inputs.push_back(t);
    }
    for (int t : node.outputs) written.push_back(t);
  }
  const int last = *std::max_element(members.begin(), members.end());
  for (int t : written) {
    bool needed = graph.IsGraphOutput(t);
    for (size_t n = static_cast<size_t>(last) + 1; !needed && n < graph.nodes.size(); ++n) {
      needed = Contains(graph.nodes[n].inputs, t);
    }
    if (needed && !Contains(segment.outputs, t)) segment.outputs.push_back(t);
  }
}

// Keeps the segments `keep` marks and moves the nodes of the others to the
// CPU with `reason`.
void DropSegments(const std::vector<bool>& keep, const std::string& reason, Partition& p) {
  std::vector<Segment> kept;
  for (size_t i = 0; i < p.segments.size(); ++i) {
    for (int n : p.segments[i].nodes) {
      NodePlacement& place = p.nodes[static_cast<size_t>(n)];
      if (keep[i]) {
        place.segment = static_cast<int>(kept.size());
      } else {
        place.on_gpu = false;
        place.segment = -1;
        place.reason = reason;
        --p.gpu_nodes;
      }
    }
    if (keep[i]) kept.push_back(std::move(p.segments[i]));
  }
  p.segments = std::move(kept);
}

// Segments of fewer than `min_nodes` nodes run on the CPU (TFLite's
// min_nodes_per_partition: a small segment costs more in transfers than it
// saves).
void DropSmallSegments(int min_nodes, Partition& p) {
  std::vector<bool> keep(p.segments.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = p.segments[i].nodes.size() >= static_cast<size_t>(min_nodes);
  DropSegments(keep, "min_nodes_per_partition=" + std::to_string(min_nodes), p);
}

// Keeps the `max_segments` largest segments (earlier first among equals)
// and moves the nodes of the others to the CPU.
void LimitSegments(int max_segments, Partition& p) {
  std::vector<size_t> order(p.segments.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return p.segments[a].nodes.size() > p.segments[b].nodes.size();
  });
  std::vector<bool> keep(p.segments.size(), false);
  for (size_t k = 0; k < static_cast<size_t>(max_segments); ++k) keep[order[k]] = true;
  DropSegments(keep, "max_delegated_partitions=" + std::to_string(max_segments), p);
}

}  // namespace

std::string Partition::PlacementLine() const {
  return "placement: " + std::to_string(gpu_nodes) + "/" + std::to_string(nodes.size()) + " nodes on GPU in " +
         std::to_string(segments.size()) + " segments";
}

StatusOr<std::set<OpType>> ParseOpNames(const std::vector<std::string>& names) {
  std::set<OpType> ops;
  for (const std::string& name : names) {
    OpType op;
    if (!OpTypeFromName(name, &op)) {
      return InvalidArgumentError("gpu_deny_ops: unknown op '" + name + "' (op names as in the model, e.g. CONV_2D)");
    }
    ops.insert(op);
  }
  return ops;
}

Segment SegmentOf(const Graph& graph, std::vector<int> nodes) {
  Segment s;
  s.nodes = std::move(nodes);
  ComputeSegmentEdges(graph, s);
  return s;
}

namespace {

// A control-flow node runs on the CPU as one node, and so do its subgraphs
// for now; "" for other nodes.
std::string ControlFlowReason(const Node& node) {
  const std::vector<SubgraphCall> calls = CalledSubgraphs(node);
  if (calls.empty()) return "";
  std::string callees;
  for (const SubgraphCall& c : calls) {
    callees += (callees.empty() ? "" : ", ") + std::string(c.role) + " " + std::to_string(c.subgraph);
  }
  return std::string("control flow: ") + OpTypeName(node.op) + " runs on the CPU as one node; its subgraphs (" +
         callees + ") run on the CPU too (GPU segments inside subgraphs are not supported yet)";
}

// A node that may run earlier than its place in the graph: no subgraphs, no
// app op, no variable (its order against other nodes matters).
bool MayMove(const Graph& graph, const Node& node) {
  switch (node.op) {
    case OpType::kCustom:
    case OpType::kCallOnce:
    case OpType::kVarHandle:
    case OpType::kReadVariable:
    case OpType::kAssignVariable:
      return false;
    default:
      break;
  }
  if (!CalledSubgraphs(node).empty()) return false;
  for (const std::vector<int>* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t >= 0 && static_cast<size_t>(t) < graph.tensors.size() && graph.tensors[t].is_variable) return false;
    }
  }
  return true;
}

// The GPU holds an int32 tensor as float(x), exact only for the values its
// GPU readers take (gl::CheckInt32OnGpu). A GPU node whose int32 output is
// read on the CPU or is a graph output would hand back rounded values, so it
// runs on the CPU too; repeated until no such node is left (moving one may
// expose the int32 input it read from another GPU node).
void KeepInt32ExactOffGpu(const Graph& graph, std::vector<NodePlacement>& placement) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      if (!placement[i].on_gpu) continue;
      for (int t : graph.nodes[i].outputs) {
        if (t < 0 || static_cast<size_t>(t) >= graph.tensors.size()) continue;
        if (graph.tensors[static_cast<size_t>(t)].type != DataType::kInt32) continue;
        std::string reader = graph.IsGraphOutput(t) ? "the graph (an output)" : "";
        for (size_t c : graph.Consumers(t)) {
          if (reader.empty() && !placement[c].on_gpu) reader = graph.NodeLabel(c) + " on the CPU";
        }
        if (reader.empty()) continue;
        placement[i].on_gpu = false;
        placement[i].reason = "its int32 output '" + graph.tensors[static_cast<size_t>(t)].name + "' is read by " +
                              reader + ", and the GPU holds int32 values as floats (exact only for its GPU readers)";
        changed = true;
        break;
      }
    }
  }
}

// The run order: graph order, but a movable CPU node that depends on no GPU
// node and lies between GPU nodes moves to the input edge (before the first
// GPU node), keeping its order among the moved nodes; its reason says so.
std::vector<int> RunOrder(const Graph& graph, std::vector<NodePlacement>& placement) {
  const size_t n = graph.nodes.size();
  std::vector<bool> from_edge(n, false);  // depends on no GPU node
  std::vector<bool> gpu_made(graph.tensors.size(), false);  // written by a node not from_edge
  for (size_t i = 0; i < n; ++i) {
    bool edge = !placement[i].on_gpu;
    for (int t : graph.nodes[i].inputs) {
      edge = edge && !(t >= 0 && static_cast<size_t>(t) < gpu_made.size() && gpu_made[static_cast<size_t>(t)]);
    }
    from_edge[i] = edge;
    for (int t : graph.nodes[i].outputs) {
      if (t >= 0 && static_cast<size_t>(t) < gpu_made.size()) gpu_made[static_cast<size_t>(t)] = !edge;
    }
  }
  size_t first_gpu = n, last_gpu = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!placement[i].on_gpu) continue;
    first_gpu = std::min(first_gpu, i);
    last_gpu = i;
  }
  std::vector<int> moved, rest;
  for (size_t i = 0; i < n; ++i) {
    const bool move = from_edge[i] && i > first_gpu && i < last_gpu && MayMove(graph, graph.nodes[i]);
    (move ? moved : rest).push_back(static_cast<int>(i));
    if (move) placement[i].reason += " (runs at the input edge, before the GPU nodes: it depends on none)";
  }
  std::vector<int> order;
  for (int i : rest) {
    if (static_cast<size_t>(i) == first_gpu) order.insert(order.end(), moved.begin(), moved.end());
    order.push_back(i);
  }
  return order;
}

}  // namespace

Partition PartitionGraph(const Graph& graph, const PartitionOptions& options) {
  Partition p;
  p.nodes.resize(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    NodePlacement& place = p.nodes[i];
    const Node& node = graph.nodes[i];
    if (options.gpu == nullptr) {
      place.reason = options.cpu_reason;
    } else if (const std::string why = ControlFlowReason(node); !why.empty()) {
      place.reason = why;
    } else if (options.gpu_deny_ops.count(node.op) != 0) {
      place.reason = std::string(OpTypeName(node.op)) + " is in gpu_deny_ops";
    } else {
      place.reason = options.gpu->WhyNotSupported(graph, i);
    }
    place.on_gpu = place.reason.empty();
  }
  KeepInt32ExactOffGpu(graph, p.nodes);
  p.order = RunOrder(graph, p.nodes);
  for (size_t k = 0; k < p.order.size(); ++k) {
    const size_t i = static_cast<size_t>(p.order[k]);
    NodePlacement& place = p.nodes[i];
    if (!place.on_gpu) continue;
    ++p.gpu_nodes;
    if (k == 0 || !p.nodes[static_cast<size_t>(p.order[k - 1])].on_gpu) p.segments.emplace_back();
    place.segment = static_cast<int>(p.segments.size()) - 1;
    p.segments.back().nodes.push_back(static_cast<int>(i));
  }
  if (options.min_segment_nodes > 1) DropSmallSegments(options.min_segment_nodes, p);
  if (options.max_segments > 0 && p.segments.size() > static_cast<size_t>(options.max_segments)) {
    LimitSegments(options.max_segments, p);
  }
  for (Segment& s : p.segments) ComputeSegmentEdges(graph, s);

  Log().info("{}", p.PlacementLine());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!p.nodes[i].on_gpu) Log().info("  {} on CPU: {}", graph.NodeLabel(i), p.nodes[i].reason);
  }
  return p;
}

std::string DynamicNodesOnCpu::WhyNotSupported(const Graph& graph, size_t node_index) const {
  for (int t : graph.nodes[node_index].outputs) {
    if (t >= 0 && static_cast<size_t>(t) < dynamic_.size() && dynamic_[static_cast<size_t>(t)]) {
      return "output '" + graph.tensors[static_cast<size_t>(t)].name +
             "' is a dynamic tensor: its shape depends on values computed at run time";
    }
  }
  return gpu_->WhyNotSupported(graph, node_index);
}

}  // namespace gld
