// Partitioning: which nodes run on the GPU and which on the CPU (and why), and
// the GPU segments: maximal runs of consecutive GPU nodes in run order. A CPU
// node that depends on no GPU node (only on graph inputs, constants and other
// such nodes) and lies between GPU nodes runs at the input edge, before the
// first segment, so that it does not split the GPU part.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

// Asked about every node: can the GPU run it? Declared here so that
// partitioning needs nothing above it; the runtime's GPU backend implements it.
class NodeSupportQuery {
 public:
  virtual ~NodeSupportQuery() = default;
  // Empty when the GPU can run graph.nodes[node_index] (with the shapes and
  // constants the graph has now); otherwise why not, e.g. "GATHER is not
  // supported on GL" or "CONV_2D: dilation 2 not supported".
  virtual std::string WhyNotSupported(const Graph& graph, size_t node_index) const = 0;
};

// A query's answers, except for nodes that make a dynamic tensor (flags per
// tensor, InferShapes' `dynamic`): those run on the CPU, where their size is
// known when they have run.
class DynamicNodesOnCpu : public NodeSupportQuery {
 public:
  DynamicNodesOnCpu(const NodeSupportQuery* gpu, const std::vector<uint8_t>& dynamic) : gpu_(gpu), dynamic_(dynamic) {}
  std::string WhyNotSupported(const Graph& graph, size_t node_index) const override;

 private:
  const NodeSupportQuery* gpu_;
  const std::vector<uint8_t>& dynamic_;
};

struct NodePlacement {
  bool on_gpu = false;
  int segment = -1;    // index into Partition::segments; -1 on the CPU
  std::string reason;  // why the node runs on the CPU; empty on the GPU
};

struct Segment {
  std::vector<int> nodes;    // node indices, in graph order, consecutive in Partition::order
  // non-constant tensors read in the segment but written outside it (not a
  // variable tensor that only the segment touches: the segment keeps that one)
  std::vector<int> inputs;
  std::vector<int> outputs;  // tensors written in the segment and read after it, or graph outputs
};

struct Partition {
  std::vector<NodePlacement> nodes;  // one per graph node
  std::vector<Segment> segments;
  // Every node index once, in the order the nodes run: a topological order,
  // graph order but for the CPU nodes moved to the input edge.
  std::vector<int> order;
  int gpu_nodes = 0;
  // "placement: G/N nodes on GPU in K segments"
  std::string PlacementLine() const;
};

struct PartitionOptions {
  // nullptr: every node runs on the CPU with `cpu_reason`.
  const NodeSupportQuery* gpu = nullptr;
  std::string cpu_reason = "backend is cpu";
  std::set<OpType> gpu_deny_ops;
  // At most this many segments (0: no limit): the largest by node count stay,
  // earlier first among equals; the nodes of the others run on the CPU with
  // reason "max_delegated_partitions=N".
  int max_segments = 0;
  // Segments of fewer nodes run on the CPU with reason
  // "min_nodes_per_partition=N" (0 or 1: every segment stays); applied
  // before max_segments, as TFLite does.
  int min_segment_nodes = 0;
};

// Op names -> OpTypes; InvalidArgument naming an unknown op.
StatusOr<std::set<OpType>> ParseOpNames(const std::vector<std::string>& names);

// The segment of `nodes` (consecutive, in graph order) with its inputs and
// outputs; indices out of range are left for the caller to refuse.
Segment SegmentOf(const Graph& graph, std::vector<int> nodes);

// Places every node of `graph` and logs the placement line (info) followed by
// each CPU node and its reason.
Partition PartitionGraph(const Graph& graph, const PartitionOptions& options);

}  // namespace gld
