#include "runtime/plan.h"

#include <algorithm>
#include <limits>

#include "cpu_kernels/ops/integer_kernels.h"
#include "runtime/gpu_backend.h"

namespace gld {

std::vector<size_t> CpuEpilogueChain::Members() const {
  std::vector<size_t> members = nodes;
  members.push_back(producer);
  for (const cpu::EpilogueStepSpec& spec : specs) {
    if (spec.pad_node >= 0) members.push_back(static_cast<size_t>(spec.pad_node));
  }
  return members;
}

std::vector<CpuEpilogueChain> PlanCpuEpilogues(const Graph& graph, const Partition& partition) {
  std::vector<CpuEpilogueChain> chains;
  std::vector<bool> taken(graph.nodes.size(), false);
  // Each tensor's readers (a node once per input naming it, as
  // Graph::Consumers lists it) and producer, found once: a walk per node
  // would make the plan quadratic in the nodes.
  std::vector<std::vector<size_t>> readers_of(graph.tensors.size());
  std::vector<int> producer_of(graph.tensors.size(), -1);
  auto known = [&](int t) { return t >= 0 && static_cast<size_t>(t) < graph.tensors.size(); };
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (int t : graph.nodes[n].inputs) {
      if (!known(t)) continue;
      std::vector<size_t>& r = readers_of[static_cast<size_t>(t)];
      if (r.empty() || r.back() != n) r.push_back(n);
    }
    for (int t : graph.nodes[n].outputs) {
      if (known(t) && producer_of[static_cast<size_t>(t)] < 0) producer_of[static_cast<size_t>(t)] = static_cast<int>(n);
    }
  }
  auto on_cpu = [&](size_t n) { return !partition.nodes[n].on_gpu; };
  for (size_t p = 0; p < graph.nodes.size(); ++p) {
    const Node& producer = graph.nodes[p];
    if (taken[p] || !on_cpu(p) || producer.outputs.size() != 1) continue;
    CpuEpilogueChain chain;
    chain.producer = p;
    int x = producer.outputs[0];
    while (chain.nodes.size() < kMaxEpilogueNodes) {
      const Tensor& value = graph.tensors[static_cast<size_t>(x)];
      if (value.is_variable || value.is_constant || graph.IsGraphOutput(x)) break;
      const std::vector<size_t>& readers = readers_of[static_cast<size_t>(x)];
      if (readers.size() != 1 || taken[readers[0]] || !on_cpu(readers[0])) break;
      cpu::EpilogueStepSpec spec;
      if (!cpu::EpilogueStepFor(graph, readers[0], x, &spec)) break;
      // An operand that a channel PAD makes for this node alone is read
      // through the padding, and the PAD joins the chain.
      const int pad = known(spec.operand) ? producer_of[static_cast<size_t>(spec.operand)] : -1;
      if (pad >= 0 && !taken[static_cast<size_t>(pad)] && on_cpu(static_cast<size_t>(pad)) &&
          !graph.IsGraphOutput(spec.operand) && readers_of[static_cast<size_t>(spec.operand)].size() == 1) {
        cpu::AbsorbChannelPad(graph, static_cast<size_t>(pad), &spec);
      }
      chain.nodes.push_back(readers[0]);
      chain.specs.push_back(spec);
      x = graph.nodes[readers[0]].outputs[0];
    }
    if (chain.nodes.empty()) continue;
    for (size_t n : chain.Members()) taken[n] = true;
    chains.push_back(std::move(chain));
  }
  return chains;
}

namespace {

// The element count of node `n`'s one output when it may join a CPU group
// (PlanCpuGroups); -1 when it may not.
int64_t GroupableElements(const Graph& graph, size_t n) {
  const Node& node = graph.nodes[n];
  switch (node.op) {
    case OpType::kLess: case OpType::kLessEqual: case OpType::kGreater: case OpType::kGreaterEqual:
    case OpType::kEqual: case OpType::kNotEqual: case OpType::kLogicalAnd: case OpType::kLogicalOr:
    case OpType::kLogicalNot: case OpType::kSelect: case OpType::kSelectV2: case OpType::kCast:
      break;
    default:
      if (ElementwiseArity(node.op) == 0) return -1;
  }
  const cpu::CpuKernel* kernel = cpu::FindNodeKernel(graph, node);
  if (kernel == nullptr || kernel->prepare != nullptr || node.outputs.size() != 1) return -1;
  auto plain = [&](int t) {
    const Tensor& x = graph.tensors[static_cast<size_t>(t)];
    const bool type_ok = x.type == DataType::kFloat32 || x.type == DataType::kInt32 ||
                         x.type == DataType::kInt64 || x.type == DataType::kBool;
    return type_ok && x.quant.scale.empty() && !x.is_variable && ShapeIsValid(x.shape, int64_t{1} << 40);
  };
  const int out = node.outputs[0];
  if (out < 0 || !plain(out)) return -1;
  const Shape& shape = graph.tensors[static_cast<size_t>(out)].shape;
  for (int t : node.inputs) {
    if (t < 0 || !plain(t)) return -1;
    const Shape& in = graph.tensors[static_cast<size_t>(t)].shape;
    const bool one = NumElements(in) == 1 && node.op != OpType::kSelect;
    if (in != shape && !one) return -1;
  }
  const int64_t elements = NumElements(shape);
  return elements > 0 ? elements : -1;
}

}  // namespace

std::vector<std::vector<size_t>> PlanCpuGroups(const Graph& graph, const Partition& partition,
                                               const std::vector<CpuEpilogueChain>& chains) {
  std::vector<bool> chained(graph.nodes.size(), false);
  for (const CpuEpilogueChain& c : chains) {
    for (size_t n : c.Members()) chained[n] = true;
  }
  std::vector<std::vector<size_t>> groups;
  if (partition.gpu_nodes == 0) return groups;
  std::vector<size_t> group;
  int64_t group_elements = 0, work = 0;
  auto flush = [&] {
    if (group.size() >= 2) groups.push_back(group);
    group.clear();
    work = 0;
  };
  for (const int index : partition.order) {
    const size_t n = static_cast<size_t>(index);
    if (partition.nodes[n].on_gpu) break;  // the input edge ends at the first GPU node
    const int64_t elements = chained[n] ? -1 : GroupableElements(graph, n);
    const int64_t node_work = elements < 0 ? 0 : cpu::EstimateNodeWork(graph, n);
    if (elements < 0 || elements != group_elements || work + node_work >= cpu::kParallelMinWork) flush();
    if (elements < 0) continue;
    group.push_back(n);
    group_elements = elements;
    work += node_work;
  }
  flush();
  return groups;
}

namespace {

bool MakesDynamic(const Graph& graph, size_t node, const std::vector<uint8_t>* dynamic) {
  if (dynamic == nullptr) return false;
  for (int t : graph.nodes[node].outputs) {
    if (t >= 0 && static_cast<size_t>(t) < dynamic->size() && (*dynamic)[static_cast<size_t>(t)]) return true;
  }
  return false;
}

}  // namespace

StatusOr<Plan> BuildPlan(const Graph& graph, const Partition& partition, GpuBackend* gpu,
                         const std::vector<uint8_t>* dynamic) {
  Plan plan;
  // Per node: the chain it ends (its producer's step goes there), or that it
  // is inside one and has no step of its own.
  constexpr int kNoChain = -1, kInChain = -2;
  std::vector<int> chain_at(graph.nodes.size(), kNoChain);
  std::vector<CpuEpilogueChain> chains = PlanCpuEpilogues(graph, partition);
  for (size_t c = 0; c < chains.size(); ++c) {
    bool fixed = true;
    for (size_t n : chains[c].Members()) fixed = fixed && !MakesDynamic(graph, n, dynamic);
    if (!fixed) continue;
    for (size_t n : chains[c].Members()) chain_at[n] = kInChain;
    chain_at[chains[c].nodes.back()] = static_cast<int>(c);
  }
  // Per node: the group whose step stands at its first node, or that it is
  // a later member of one.
  constexpr int kNoGroup = -1, kInGroup = -2;
  std::vector<int> group_at(graph.nodes.size(), kNoGroup);
  std::vector<std::vector<size_t>> groups = PlanCpuGroups(graph, partition, chains);
  for (size_t g = 0; g < groups.size(); ++g) {
    bool fixed = true;
    for (size_t n : groups[g]) fixed = fixed && !MakesDynamic(graph, n, dynamic) && chain_at[n] == kNoChain;
    if (!fixed) continue;
    for (size_t n : groups[g]) group_at[n] = kInGroup;
    group_at[groups[g].front()] = static_cast<int>(g);
  }
  if (partition.order.size() != graph.nodes.size()) {
    return InternalError("partition orders " + std::to_string(partition.order.size()) + " of " +
                         std::to_string(graph.nodes.size()) + " nodes");
  }
  for (const int node_index : partition.order) {
    const size_t i = static_cast<size_t>(node_index);
    const NodePlacement& place = partition.nodes[i];
    if (place.on_gpu) {
      const Segment& segment = partition.segments[place.segment];
      if (segment.nodes.front() != static_cast<int>(i)) continue;  // the segment's step is already in
      if (gpu == nullptr) return InternalError("GPU segment " + std::to_string(place.segment) + " without a GPU backend");
      auto step = gpu->CreateSegmentStep(graph, segment, place.segment);
      if (!step.ok()) return step.status().WithContext("GPU segment " + std::to_string(place.segment));
      plan.steps.push_back(std::move(step).value());
      continue;
    }
    if (chain_at[i] == kInChain) continue;
    if (group_at[i] >= 0) {
      std::vector<const cpu::CpuKernel*> kernels;
      for (size_t n : groups[static_cast<size_t>(group_at[i])]) {
        kernels.push_back(cpu::FindNodeKernel(graph, graph.nodes[n]));
      }
      plan.steps.push_back(
          std::make_unique<CpuGroupStep>(graph, std::move(groups[static_cast<size_t>(group_at[i])]), std::move(kernels)));
      continue;
    }
    if (group_at[i] == kInGroup) continue;
    if (MakesDynamic(graph, i, dynamic)) {
      if (cpu::FindCpuKernel(graph.nodes[i].op) == nullptr) {
        return UnimplementedError(graph.NodeLabel(i) + ": no CPU kernel");
      }
      plan.steps.push_back(std::make_unique<DynamicNodeStep>(graph, i));
      continue;
    }
    CpuEpilogueChain chain;
    if (chain_at[i] >= 0) chain = std::move(chains[static_cast<size_t>(chain_at[i])]);
    const size_t node = chain.nodes.empty() ? i : chain.producer;
    const cpu::CpuKernel* kernel = cpu::FindNodeKernel(graph, graph.nodes[node]);
    if (kernel == nullptr) return UnimplementedError(graph.NodeLabel(node) + ": no CPU kernel");
    plan.steps.push_back(std::make_unique<CpuNodeStep>(graph, node, kernel, std::move(chain.nodes),
                                                       std::move(chain.specs)));
  }
  return plan;
}

namespace {

// For each tensor, the arena tensor whose bytes it uses: itself, or, for
// the output of a CPU step that only relabels the shape (RESHAPE, SQUEEZE,
// EXPAND_DIMS with no epilogue) where input and output are both arena
// tensors of one size, its input's (followed through chains of them). The
// kernel then finds its output at its input's address and moves nothing
// (cpu_kernels/ops/reshape_like.cc); nothing writes either tensor afterwards
// (each tensor has one producer). first / last of each root grow to cover
// its aliases' steps.
std::vector<int> RelabelAliases(const Graph& graph, const std::vector<std::unique_ptr<Step>>& steps,
                                const HostMemoryPlan& plan, std::vector<int>& first, std::vector<int>& last) {
  std::vector<int> alias(graph.tensors.size());
  for (size_t t = 0; t < alias.size(); ++t) alias[t] = static_cast<int>(t);
  for (const std::unique_ptr<Step>& step : steps) {
    const auto* cpu = dynamic_cast<const CpuNodeStep*>(step.get());
    if (cpu == nullptr || cpu->host_outputs().size() != 1) continue;  // two: an epilogue's output
    const Node& node = graph.nodes[cpu->node_index()];
    if ((node.op != OpType::kReshape && node.op != OpType::kSqueeze && node.op != OpType::kExpandDims) ||
        node.inputs.empty() || node.outputs.size() != 1) {
      continue;
    }
    const int in = node.inputs[0], out = node.outputs[0];
    const int count = static_cast<int>(graph.tensors.size());
    if (in < 0 || out < 0 || in >= count || out >= count || in == out) continue;
    const auto i = static_cast<size_t>(in), o = static_cast<size_t>(out);
    if (plan.storage[i] != TensorStorage::kArena || plan.storage[o] != TensorStorage::kArena ||
        plan.bytes[i] != plan.bytes[o] || alias[o] != out) {
      continue;
    }
    const int root = alias[i];
    const auto r = static_cast<size_t>(root);
    alias[o] = root;
    first[r] = std::min(first[r], first[o]);
    last[r] = std::max(last[r], last[o]);
  }
  return alias;
}

}  // namespace

StatusOr<HostMemoryPlan> PlanHostMemory(const Graph& graph, const std::vector<std::unique_ptr<Step>>& steps,
                                        uint64_t max_host_bytes, const std::vector<uint8_t>* dynamic) {
  const size_t num_tensors = graph.tensors.size();
  HostMemoryPlan plan;
  plan.storage.assign(num_tensors, TensorStorage::kNone);
  plan.bytes.assign(num_tensors, 0);
  plan.arena_offset.assign(num_tensors, 0);

  constexpr int kUnused = -1;
  std::vector<int> first(num_tensors, kUnused), last(num_tensors, kUnused);
  auto touch = [&](int t, int step) {
    if (first[t] == kUnused) first[t] = step;
    last[t] = std::max(last[t], step);
  };
  for (size_t s = 0; s < steps.size(); ++s) {
    for (int t : steps[s]->host_inputs()) touch(t, static_cast<int>(s));
    for (int t : steps[s]->host_outputs()) touch(t, static_cast<int>(s));
  }
  for (int t : graph.inputs) plan.storage[t] = TensorStorage::kDedicated;
  for (int t : graph.outputs) plan.storage[t] = TensorStorage::kDedicated;
  for (size_t t = 0; t < num_tensors; ++t) {
    const Tensor& tensor = graph.tensors[t];
    if (tensor.is_variable) {
      plan.storage[t] = TensorStorage::kDedicated;
    } else if (tensor.is_constant) {
      // A constant that is also a graph output is served from its data.
      if (first[t] != kUnused || graph.IsGraphOutput(static_cast<int>(t))) plan.storage[t] = TensorStorage::kConstant;
    } else if (plan.storage[t] == TensorStorage::kNone && first[t] != kUnused) {
      plan.storage[t] = TensorStorage::kArena;
    }
    if (dynamic != nullptr && t < dynamic->size() && (*dynamic)[t]) plan.storage[t] = TensorStorage::kDynamic;
  }

  std::vector<BufferUsage> usages;
  std::vector<int> usage_tensor;
  uint64_t total = 0;
  for (size_t t = 0; t < num_tensors; ++t) {
    if (plan.storage[t] == TensorStorage::kNone || plan.storage[t] == TensorStorage::kDynamic) continue;
    const Tensor& tensor = graph.tensors[t];
    if (tensor.type == DataType::kUnknown) {
      return InvalidArgumentError("tensor " + std::to_string(t) + " '" + tensor.name + "' has an unknown type");
    }
    if (!ShapeIsValid(tensor.shape, std::numeric_limits<int64_t>::max() / 8)) {
      return InvalidArgumentError("tensor " + std::to_string(t) + " '" + tensor.name + "' has invalid shape " +
                                  ShapeToString(tensor.shape));
    }
    const uint64_t bytes = static_cast<uint64_t>(tensor.num_elements()) * DataTypeSize(tensor.type);
    if (bytes > max_host_bytes) {
      return InvalidArgumentError("tensor " + std::to_string(t) + " '" + tensor.name + "' " +
                                  ShapeToString(tensor.shape) + " " + DataTypeName(tensor.type) + " needs " +
                                  std::to_string(bytes) + " bytes, more than the limit of " +
                                  std::to_string(max_host_bytes));
    }
    plan.bytes[t] = bytes;
    if (plan.storage[t] == TensorStorage::kConstant) {
      if (tensor.data.size() != bytes) {
        return InvalidArgumentError("constant tensor " + std::to_string(t) + " '" + tensor.name + "' " +
                                    ShapeToString(tensor.shape) + " " + DataTypeName(tensor.type) + " has " +
                                    std::to_string(tensor.data.size()) + " bytes, expected " + std::to_string(bytes));
      }
    } else if (plan.storage[t] == TensorStorage::kDedicated) {
      plan.dedicated_bytes += bytes;
      total += bytes;
    }
    if (total > max_host_bytes) break;
  }
  // Relabelling steps' outputs share their input's bytes: one usage over
  // both lifetimes.
  const std::vector<int> alias = RelabelAliases(graph, steps, plan, first, last);
  for (size_t t = 0; t < num_tensors; ++t) {
    if (plan.storage[t] != TensorStorage::kArena || alias[t] != static_cast<int>(t)) continue;
    usages.push_back({plan.bytes[t], first[t], last[t]});
    usage_tensor.push_back(static_cast<int>(t));
  }
  ArenaPlan arena = PlanArena(usages);
  for (size_t u = 0; u < usages.size(); ++u) plan.arena_offset[usage_tensor[u]] = arena.offsets[u];
  for (size_t t = 0; t < num_tensors; ++t) {
    if (plan.storage[t] == TensorStorage::kArena) plan.arena_offset[t] = plan.arena_offset[alias[t]];
  }
  plan.arena_bytes = arena.arena_bytes;
  plan.arena_naive_bytes = arena.naive_bytes;
  plan.arena_tensors = static_cast<int>(usages.size());
  total += plan.arena_bytes;
  if (total > max_host_bytes) {
    return InvalidArgumentError("the model needs " + std::to_string(total) + " bytes of host memory for its tensors, " +
                                "more than the limit of " + std::to_string(max_host_bytes));
  }
  return plan;
}

}  // namespace gld
