// The public GPU plan (gld_inspect --plan): the steps of Interpreter
// creation up to the segment plans, with the GL support query at the
// GLES 3.1 minimum limits in place of a driver's.
#include "api/model_impl.h"
#include "gl/codegen/support.h"
#include "gl/segment_plan.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"
#include "partition/partition.h"
#include "runtime/custom_ops.h"
#include "runtime/runtime.h"
#include "transforms/pass.h"
#include "util/logging.h"

namespace gld {

namespace {

std::string TensorName(const Graph& graph, int t) { return graph.tensors[static_cast<size_t>(t)].name; }

std::string BufferName(const Graph& graph, const gl::SegmentPlan& plan, const gl::PlannedBinding& b) {
  const size_t i = static_cast<size_t>(b.index);
  switch (b.kind) {
    case gl::PlannedBinding::kArena: return "arena '" + TensorName(graph, b.index) + "'";
    case gl::PlannedBinding::kConstantTensor: return "tensor '" + plan.constant_tensors[i].name + "'";
    case gl::PlannedBinding::kOpConstant: return "constant '" + plan.op_constants[i].name + "'";
    case gl::PlannedBinding::kStaging: return "staging '" + TensorName(graph, plan.edges[i].tensor) + "'";
    case gl::PlannedBinding::kIndexFault: return "index-fault record";
  }
  return {};
}

PlanDispatch DescribeDispatch(const Graph& graph, const gl::SegmentPlan& plan, const gl::PlannedDispatch& d) {
  PlanDispatch out;
  out.label = d.label;
  out.template_name = d.template_name;
  out.source = d.source;
  out.node = d.node;
  for (size_t f : d.fused_nodes) out.fused_nodes.push_back(static_cast<int>(f));
  for (size_t k = 0; k < 3; ++k) {
    out.grid[k] = d.grid[k];
    out.workgroup[k] = d.workgroup[k];
    out.groups[k] = d.groups[k];
  }
  for (const gl::PlannedBinding& b : d.bindings) {
    uint64_t bytes = b.size;
    const size_t i = static_cast<size_t>(b.index);
    if (b.kind == gl::PlannedBinding::kConstantTensor) bytes = plan.constant_tensors[i].bytes.size();
    if (b.kind == gl::PlannedBinding::kOpConstant) bytes = plan.op_constants[i].bytes.size();
    if (b.kind == gl::PlannedBinding::kStaging) bytes = plan.edges[i].staging_bytes;
    out.bindings.push_back({static_cast<int>(b.point), BufferName(graph, plan, b), b.offset, bytes});
  }
  return out;
}

SegmentPlanInfo DescribeSegment(const Graph& graph, const gl::SegmentPlan& plan) {
  SegmentPlanInfo info;
  info.label = plan.label;
  for (size_t n : plan.nodes) info.nodes.push_back(static_cast<int>(n));
  for (const gl::EdgeConversion& e : plan.edges) {
    info.conversions.push_back({TensorName(graph, e.tensor), e.to_gpu, e.host_type, e.host_bytes});
  }
  for (const gl::PlannedDispatch& d : plan.dispatches) info.dispatches.push_back(DescribeDispatch(graph, plan, d));
  for (const gl::ArenaSlot& slot : plan.arena) {
    info.arena.push_back({TensorName(graph, slot.tensor), slot.offset, slot.bytes});
  }
  info.arena_bytes = plan.arena_bytes;
  info.tensor_bytes_naive = plan.tensor_bytes_naive;
  info.tensor_bytes_lower_bound = plan.tensor_bytes_lower_bound;
  for (const gl::PlannedConstant& c : plan.constant_tensors) info.constants.push_back({c.name, 0, c.bytes.size()});
  for (const gl::PlannedConstant& c : plan.op_constants) info.constants.push_back({c.name, 0, c.bytes.size()});
  info.unfused_elementwise = plan.unfused_elementwise;
  return info;
}

}  // namespace

StatusOr<PlanReport> PlanModel(const Model& model, const Options& options) {
  GLD_RETURN_IF_ERROR(CheckOptions(options));
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  // The Model's prepared graph (checked and transformed once, shared with
  // its Interpreters); shapes are inferred on this copy.
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedGraph> prepared, model.impl().Prepared());
  Graph graph = prepared->graph;
  GLD_RETURN_IF_ERROR(BindCustomOps(graph, options.custom_ops));
  // As the Runtime plans: dynamic tensors' nodes on the CPU, the values the
  // shapes decide folded into constants.
  std::vector<uint8_t> dynamic;
  PassLog folded;
  GLD_RETURN_IF_ERROR(InferShapesAndFold(graph, &dynamic, folded));

  const gl::GlInfo limits = gl::MinimumGlLimits();
  gl::GlSupportQuery support(options.precision, limits);
  PartitionOptions popts;
  DynamicNodesOnCpu support_or_dynamic(&support, dynamic);
  popts.gpu = &support_or_dynamic;
  popts.max_segments = options.max_delegated_partitions;
  popts.min_segment_nodes = options.min_nodes_per_partition;
  GLD_ASSIGN_OR_RETURN(popts.gpu_deny_ops, ParseOpNames(options.gpu_deny_ops));
  const Partition partition = PartitionGraph(graph, popts);

  PlanReport report;
  report.precision = options.precision;
  report.limits = "GLES 3.1 minimums (" + std::to_string(limits.max_compute_ssbo_blocks) + " storage blocks of " +
                  std::to_string(limits.max_ssbo_size) + " bytes, offset alignment " +
                  std::to_string(limits.ssbo_offset_alignment) + ", " +
                  std::to_string(limits.max_workgroup_count[0]) + " workgroups per axis)";
  report.placement_line = partition.PlacementLine();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!partition.nodes[i].on_gpu) report.cpu_nodes.push_back(graph.NodeLabel(i) + ": " + partition.nodes[i].reason);
  }
  for (size_t k = 0; k < partition.segments.size(); ++k) {
    gl::SegmentPlanOptions plan_options;
    plan_options.name = "GL segment " + std::to_string(k);
    plan_options.node_code = support.code();
    GLD_ASSIGN_OR_RETURN(gl::SegmentPlan plan,
                         gl::PlanSegment(graph, partition.segments[k], options.precision, limits, plan_options));
    report.segments.push_back(DescribeSegment(graph, plan));
  }
  return report;
}

}  // namespace gld
