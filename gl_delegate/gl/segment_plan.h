// The plan of a GL segment: everything GlSegment::Create needs to make GL
// objects, worked out without a GL context. Each node's code generator runs
// once here; fusion works on those dispatches; the plan then fixes the edge
// conversions, the constant buffers (their packed contents), the arena
// (offsets of every non-constant tensor), and each dispatch's complete shader
// source, workgroup, workgroup count and resolved bindings. Driver limits
// come in as a GlInfo, so the same plan is made for a live driver or for the
// GLES 3.1 minimums (gld_inspect --plan).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/support.h"
#include "gl/egl/egl_environment.h"
#include "gl/workgroup_tuning.h"
#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"
#include "graph/graph.h"
#include "partition/partition.h"

namespace gld::gl {

struct SegmentPlanOptions {
  // Tensors to export besides the segment's outputs.
  std::vector<int> extra_outputs;
  // Let tensors whose lifetimes (first to last dispatch touching them) do
  // not overlap share memory (util/memory_planner.h). false: every tensor
  // its own range.
  bool share_memory = true;
  // Fold elementwise nodes into the epilogue of the dispatch before them
  // (gl/codegen/fusion.h).
  bool fuse_elementwise = true;
  // Name used in labels and messages: "<name> (nodes 3-9)".
  std::string name = "GL segment";
  // Code the support query already generated for some of the segment's
  // nodes (weights packed); the plan takes it out of the cache instead of
  // running those generators again. nullptr: generate every node here.
  NodeCodeCache* node_code = nullptr;
  // Workgroups measured earlier (gl/workgroup_tuning.h): a dispatch whose
  // op leaves the workgroup to the plan takes the tuned one when the tuning
  // has its key. nullptr: the default choice (ChooseWorkgroup).
  const WorkgroupTuning* tuning = nullptr;
};

// Where a binding of a planned dispatch points.
struct PlannedBinding {
  enum Kind : uint8_t {
    kArena,           // a range of the segment's arena: a non-constant tensor
    kConstantTensor,  // SegmentPlan::constant_tensors[index], whole buffer
    kOpConstant,      // SegmentPlan::op_constants[index], whole buffer
    kStaging,         // SegmentPlan::edges[index]'s staging buffer, whole buffer
    kIndexFault,      // the segment's index-fault record (glsl/index_fault.comp)
  };
  uint32_t point = 0;
  Kind kind = kArena;
  int index = 0;        // graph tensor (kArena) or the list index named above
  uint64_t offset = 0;  // kArena: byte range in the arena
  uint64_t size = 0;
};

struct PlannedDispatch {
  std::string label;  // "conv2d.comp for node 3 (CONV_2D) + node 4 (RELU)"
  std::string template_name;
  std::string source;  // complete GLSL: the program cache keys on it
  Workgroup workgroup = {0, 0, 0};
  std::array<uint32_t, 3> grid = {1, 1, 1};    // invocations that do work (u_grid)
  std::array<uint32_t, 3> groups = {1, 1, 1};  // glDispatchCompute arguments
  std::vector<PlannedBinding> bindings;
  std::vector<Uniform> uniforms;  // u_grid included
  int node = -1;                  // graph node; -1 for edge conversions
  std::vector<size_t> fused_nodes;
  // How it is issued (gl/issue_plan.h): glUseProgram only when the program
  // differs from the previous dispatch's; only the bindings (indices into
  // `bindings`) that differ from what the previous dispatch left bound; a
  // memory barrier before it only when it touches memory an earlier dispatch
  // (since the last barrier) wrote, or writes memory one read.
  bool use_program = true;
  std::vector<uint32_t> rebind;
  bool barrier_before = true;
  // The op left the workgroup to the plan: it may be tuned (tuning_key,
  // gl/workgroup_tuning.h); tuned: it took a tuned workgroup.
  bool tunable = false;
  bool tuned = false;
  uint64_t tuning_key = 0;
};

// A conversion at the segment's edge: host BHWC bytes in a staging buffer
// to the tensor's PHWC4 object (an input), or back (an output).
struct EdgeConversion {
  int tensor = -1;
  std::string name;  // the tensor's, for messages
  bool to_gpu = true;
  std::string host_type;     // SRC_* / DST_* of the conversion shader
  size_t host_bytes = 0;     // elements x element size
  size_t staging_bytes = 0;  // host bytes rounded up to 4
};

// A GPU buffer whose contents the plan fixes: a constant graph tensor in
// PHWC4, or an op's repacked constant (weights laid out for its shader),
// in the storage precision.
struct PlannedConstant {
  std::string name;  // tensor name, or "node 3 (CONV_2D) weights"
  int tensor = -1;   // graph tensor, for constant tensors; -1 for op constants
  std::vector<uint8_t> bytes;
};

// A non-constant tensor's range in the arena.
struct ArenaSlot {
  int tensor = -1;
  uint64_t offset = 0;
  uint64_t bytes = 0;  // PHWC4 bytes
  int first_dispatch = 0, last_dispatch = 0;
};

// A variable tensor the segment keeps (partition's SegmentOwnsVariable: a
// recurrent op's state, updated in place): its arena range lives through
// the whole run and shares memory with nothing, so its contents carry over
// from one run to the next. GlSegment writes `bytes` (the tensor's initial
// contents, or zeros, in PHWC4 and the storage precision) there when it is
// made and when the variables are reset.
struct PlannedVariable {
  int tensor = -1;
  std::string name;
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
};

struct SegmentPlan {
  std::string label;  // "GL segment 0 (nodes 0-11)"
  std::vector<size_t> nodes;
  Precision precision = Precision::kFp32;
  // non-constant tensors the segment reads and does not produce (its own
  // variables apart)
  std::vector<int> inputs;
  std::vector<int> outputs;  // tensors it exports to the host
  // Input conversions (in `inputs` order), then output conversions.
  std::vector<EdgeConversion> edges;
  // Input conversions, the nodes' dispatches in run order, output conversions.
  std::vector<PlannedDispatch> dispatches;
  std::vector<PlannedConstant> constant_tensors;
  std::vector<PlannedConstant> op_constants;
  std::vector<ArenaSlot> arena;
  std::vector<PlannedVariable> variables;
  uint64_t arena_bytes = 0;              // as planned
  uint64_t tensor_bytes_naive = 0;       // one object per tensor
  uint64_t tensor_bytes_lower_bound = 0; // most bytes live at one dispatch
  // "node 12 (ADD): <why>" for elementwise nodes that kept a dispatch.
  std::vector<std::string> unfused_elementwise;
  // The nodes whose dispatches report an index out of range
  // (PlannedBinding::kIndexFault), with their labels ("node 3 (GATHER)"):
  // GlSegment then keeps the record and checks it after each run.
  std::vector<std::pair<int, std::string>> index_fault_nodes;
  int tuned_dispatches = 0;  // dispatches that took a tuned workgroup
};

// The GLES 3.1 minimum limits, for plans made without a context.
GlInfo MinimumGlLimits();

// Plans `segment` of `graph` (its nodes in order; its inputs and outputs as
// partition found them). Errors name the segment and the node or tensor.
StatusOr<SegmentPlan> PlanSegment(const Graph& graph, const Segment& segment, Precision precision,
                                  const GlInfo& limits, const SegmentPlanOptions& options = {});

}  // namespace gld::gl
