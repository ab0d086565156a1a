#include "runtime/plan.h"

#include <algorithm>
#include <limits>

#include "runtime/gpu_backend.h"

namespace gld {

StatusOr<Plan> BuildPlan(const Graph& graph, const Partition& partition, GpuBackend* gpu) {
  Plan plan;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
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
    const cpu::CpuKernel* kernel = cpu::FindCpuKernel(graph.nodes[i].op);
    if (kernel == nullptr) return UnimplementedError(graph.NodeLabel(i) + ": no CPU kernel");
    plan.steps.push_back(std::make_unique<CpuNodeStep>(graph, i, kernel));
  }
  return plan;
}

StatusOr<HostMemoryPlan> PlanHostMemory(const Graph& graph, const std::vector<std::unique_ptr<Step>>& steps,
                                        uint64_t max_host_bytes) {
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
  }

  std::vector<BufferUsage> usages;
  std::vector<int> usage_tensor;
  uint64_t total = 0;
  for (size_t t = 0; t < num_tensors; ++t) {
    if (plan.storage[t] == TensorStorage::kNone) continue;
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
    } else {
      usages.push_back({bytes, first[t], last[t]});
      usage_tensor.push_back(static_cast<int>(t));
    }
    if (total > max_host_bytes) break;
  }
  ArenaPlan arena = PlanArena(usages);
  for (size_t u = 0; u < usages.size(); ++u) plan.arena_offset[usage_tensor[u]] = arena.offsets[u];
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
