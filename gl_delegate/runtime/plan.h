// Plan: the ordered steps that run a partitioned graph, and the host memory
// plan that gives every tensor a step reads or writes its storage.
#pragma once

#include <memory>
#include <vector>

#include "cpu_kernels/ops/epilogue.h"
#include "partition/partition.h"
#include "util/memory_planner.h"
#include "runtime/step.h"

namespace gld {

class GpuBackend;

struct Plan {
  std::vector<std::unique_ptr<Step>> steps;
};

// A CPU node and the elementwise CPU nodes after it that run in its epilogue
// (cpu_kernels/ops/epilogue.h): each reads the one before (its only reader, not a
// graph output), so their intermediate tensors need no storage; a channel
// PAD that makes an operand for one of them alone joins too (its spec's
// pad_node). The chain runs where its last node stood, when every operand
// has been made.
struct CpuEpilogueChain {
  size_t producer = 0;
  std::vector<size_t> nodes;                   // in order
  std::vector<cpu::EpilogueStepSpec> specs;    // one per node

  // Every node the chain's step runs: the producer, the nodes and the
  // absorbed PADs.
  std::vector<size_t> Members() const;
};
// At most this many nodes in one chain.
constexpr size_t kMaxEpilogueNodes = 4;

// The chains of the CPU nodes, in producer order; a node is in one chain at
// most. Pure: reads the graph and the placement.
std::vector<CpuEpilogueChain> PlanCpuEpilogues(const Graph& graph, const Partition& partition);

// CPU elementwise nodes at the input edge (before the first GPU node in
// Partition::order: BERT's int32 id wrap, ids < 0 ? ids + vocab : ids, where
// the vocabulary is beyond fp16's exact integers) that
// run as one step, block by block (CpuGroupStep), instead of one step and
// one pass over memory per node. A group is a run of at least two nodes,
// consecutive in the run order, each an elementwise op (the elementwise
// table's rows, comparisons, logical ops, SELECT / SELECT_V2, CAST) whose
// kernel has no prepare stage, with one output of the group's element count
// and every input of the output's shape or one value (SELECT: the output's
// shape), on unquantized float32 / int32 / int64 / bool tensors, not in an
// epilogue chain, altogether less work than cpu::kParallelMinWork (the group
// runs on the calling thread). Empty when the partition has no GPU node.
// Pure: reads the graph and the placement.
std::vector<std::vector<size_t>> PlanCpuGroups(const Graph& graph, const Partition& partition,
                                               const std::vector<CpuEpilogueChain>& chains);

// One step per CPU node (Unimplemented "node 7 (FOO): no CPU kernel" when the
// CPU cannot run it), with the chain of PlanCpuEpilogues it produces, and
// one step per group of PlanCpuGroups (where its first node stood), and
// one per GPU segment (made by `gpu`). A node that makes a tensor `dynamic`
// flags (InferShapes) gets a DynamicNodeStep and joins no chain.
StatusOr<Plan> BuildPlan(const Graph& graph, const Partition& partition, GpuBackend* gpu,
                         const std::vector<uint8_t>* dynamic = nullptr);

// Where each tensor's host storage comes from.
enum class TensorStorage : uint8_t {
  kNone,       // no step touches it on the host
  kConstant,   // points into Graph::tensors[t].data
  kDedicated,  // its own buffer: graph inputs and outputs, variables
  kArena,      // shares the arena with tensors of disjoint lifetime
  kDynamic,    // sized when its producer runs (DynamicNodeStep's own buffer)
};

struct HostMemoryPlan {
  std::vector<TensorStorage> storage;  // per tensor
  std::vector<uint64_t> bytes;         // per tensor: elements x element size
  std::vector<uint64_t> arena_offset;  // per tensor; valid for kArena
  uint64_t arena_bytes = 0;
  uint64_t arena_naive_bytes = 0;  // the arena tensors' sizes added up (64-byte aligned)
  uint64_t dedicated_bytes = 0;
  int arena_tensors = 0;
};

// Plans host storage for the tensors the steps touch (kDynamic for those
// `dynamic` flags). InvalidArgument when a tensor's shape or type cannot be
// stored or the total is beyond `max_host_bytes`.
StatusOr<HostMemoryPlan> PlanHostMemory(const Graph& graph, const std::vector<std::unique_ptr<Step>>& steps,
                                        uint64_t max_host_bytes, const std::vector<uint8_t>* dynamic = nullptr);

}  // namespace gld
