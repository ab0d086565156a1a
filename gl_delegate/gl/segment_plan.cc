#include "gl/segment_plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "gl/codegen/fusion.h"
#include "gl/codegen/phwc4.h"
#include "gl/codegen/shader_generator.h"
#include "gl/issue_plan.h"
#include "util/half.h"
#include "util/logging.h"
#include "util/memory_planner.h"

namespace gld::gl {

namespace {

// Element values of a constant tensor used as a GPU tensor (weights of
// elementwise ops, PRELU alphas, ...). Quantized integer constants become
// their integer values, as on the GPU.
StatusOr<std::vector<float>> ConstantValues(const Tensor& t) {
  if (!ShapeIsValid(t.shape, int64_t{1} << 31)) {
    return InvalidArgumentError("constant '" + t.name + "' has a bad shape " + ShapeToString(t.shape));
  }
  const size_t n = static_cast<size_t>(t.num_elements());
  if (t.data.size() < n * DataTypeSize(t.type)) {
    return InvalidArgumentError("constant '" + t.name + "' holds " + std::to_string(t.data.size()) +
                                " bytes, its shape needs " + std::to_string(n * DataTypeSize(t.type)));
  }
  std::vector<float> v(n);
  const uint8_t* p = t.data.data();
  for (size_t i = 0; i < n; ++i) {
    switch (t.type) {
      case DataType::kFloat32: std::memcpy(&v[i], p + 4 * i, 4); break;
      case DataType::kFloat16: {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        v[i] = HalfToFloat(h);
        break;
      }
      case DataType::kInt8: v[i] = static_cast<float>(static_cast<int8_t>(p[i])); break;
      case DataType::kUInt8: v[i] = static_cast<float>(p[i]); break;
      case DataType::kInt16: {
        int16_t x;
        std::memcpy(&x, p + 2 * i, 2);
        v[i] = static_cast<float>(x);
        break;
      }
      case DataType::kInt32: {  // index tensors; their readers bound the values
        int32_t x;
        std::memcpy(&x, p + 4 * i, 4);
        v[i] = static_cast<float>(x);
        break;
      }
      case DataType::kInt64: {
        int64_t x;
        std::memcpy(&x, p + 8 * i, 8);
        v[i] = static_cast<float>(x);
        break;
      }
      case DataType::kBool: v[i] = p[i] != 0 ? 1.0f : 0.0f; break;
      default:
        return UnimplementedError(std::string(DataTypeName(t.type)) + " constant '" + t.name +
                                  "' cannot be a GPU tensor");
    }
  }
  return v;
}

// SRC_* / DST_* of the edge conversion shaders.
StatusOr<std::string> EdgeType(const Tensor& t, bool to_gpu) {
  const char* prefix = to_gpu ? "SRC_" : "DST_";
  switch (t.type) {
    case DataType::kFloat32: return std::string(prefix) + "FLOAT32";
    case DataType::kInt8: return std::string(prefix) + "INT8";
    case DataType::kUInt8: return std::string(prefix) + "UINT8";
    case DataType::kInt16: return std::string(prefix) + "INT16";
    case DataType::kInt32: return std::string(prefix) + "INT32";
    case DataType::kBool: return std::string(prefix) + "UINT8";  // one byte, 0 or 1
    default:
      return UnimplementedError(std::string(DataTypeName(t.type)) + " tensor '" + t.name +
                                "' cannot cross a GPU segment edge");
  }
}

std::string SegmentLabel(const std::string& name, const std::vector<size_t>& nodes) {
  size_t lo = *std::min_element(nodes.begin(), nodes.end());
  size_t hi = *std::max_element(nodes.begin(), nodes.end());
  std::string s = name + " (node";
  if (lo == hi) return s + " " + std::to_string(lo) + ")";
  return s + "s " + std::to_string(lo) + "-" + std::to_string(hi) + ")";
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// A dispatch on its way into the plan: what a generator (or an edge
// conversion) made, with its label and nodes.
struct DraftDispatch {
  Dispatch dispatch;
  std::string label;
  int node = -1;
  std::vector<size_t> fused_nodes;
};

// The planning pass over one segment; each method is one phase, in the
// order Plan() runs them.
class SegmentPlanner {
 public:
  SegmentPlanner(const Graph& graph, const Segment& segment, Precision precision, const GlInfo& limits,
                 const SegmentPlanOptions& options)
      : graph_(graph), segment_(segment), limits_(limits), options_(options) {
    plan_.precision = precision;
  }

  StatusOr<SegmentPlan> Plan() {
    GLD_RETURN_IF_ERROR(CheckNodes());
    GLD_RETURN_IF_ERROR(BuildNodes());
    Fuse();
    GLD_RETURN_IF_ERROR(ChooseEdges());
    GLD_RETURN_IF_ERROR(PlanConstants());
    GLD_RETURN_IF_ERROR(AddEdgeConversions());
    GLD_RETURN_IF_ERROR(PlanTensorArena());
    GLD_RETURN_IF_ERROR(FinishDispatches());
    return std::move(plan_);
  }

 private:
  Status CheckNodes() {
    if (segment_.nodes.empty()) return InvalidArgumentError("GL segment without nodes");
    for (int n : segment_.nodes) {
      if (n < 0 || static_cast<size_t>(n) >= graph_.nodes.size()) {
        return InvalidArgumentError("GL segment: node index " + std::to_string(n) + " out of range (" +
                                    std::to_string(graph_.nodes.size()) + " nodes)");
      }
      plan_.nodes.push_back(static_cast<size_t>(n));
    }
    plan_.label = SegmentLabel(options_.name, plan_.nodes);
    return OkStatus();
  }

  Status Fail(const Status& s) const { return Status(s.code(), plan_.label + ": " + s.message()); }

  Status CheckSize(size_t bytes, const std::string& what) const {
    if (limits_.max_ssbo_size > 0 && bytes > static_cast<uint64_t>(limits_.max_ssbo_size)) {
      return UnimplementedError(plan_.label + ": " + what + " needs " + std::to_string(bytes) +
                                " bytes, more than the driver's storage block limit of " +
                                std::to_string(limits_.max_ssbo_size));
    }
    return OkStatus();
  }

  // Each node's code, with its constants made: taken from the support
  // query's cache when it is there, generated here otherwise. Constant
  // indices become segment-wide.
  Status BuildNodes() {
    for (size_t n : plan_.nodes) {
      NodeCode code;
      NodeCodeCache* cache = options_.node_code;
      auto cached = cache != nullptr ? cache->find(n) : NodeCodeCache::iterator();
      if (cache != nullptr && cached != cache->end()) {
        code = std::move(cached->second);
        cache->erase(cached);
      } else {
        OpBuildContext ctx(graph_, n, plan_.precision, /*dry_run=*/false);
        Status s = BuildNode(ctx, &code.dispatches);
        if (!s.ok()) return Status(s.code(), plan_.label + ": " + graph_.NodeLabel(n) + ": " + s.message());
        code.constants = std::move(ctx.constants());
      }
      NodeDispatches nd;
      nd.node = n;
      nd.dispatches = std::move(code.dispatches);
      const int base = static_cast<int>(op_constants_.size());
      for (ConstantBuffer& c : code.constants) op_constants_.push_back(std::move(c));
      for (Dispatch& d : nd.dispatches) {
        for (auto& b : d.bindings) {
          if (b.second.kind == DispatchBufferRef::kConstant) b.second.index += base;
        }
      }
      per_node_.push_back(std::move(nd));
    }
    return OkStatus();
  }

  // Exported tensors: the segment's outputs, then those asked for.
  std::vector<int> Exported() const {
    std::vector<int> wanted = segment_.outputs;
    for (int t : options_.extra_outputs) {
      if (!Contains(wanted, t)) wanted.push_back(t);
    }
    return wanted;
  }

  void Fuse() {
    if (options_.fuse_elementwise) {
      const std::vector<int> wanted = Exported();
      const std::set<int> keep(wanted.begin(), wanted.end());
      const int max_bindings = limits_.max_compute_ssbo_blocks > 0 ? limits_.max_compute_ssbo_blocks : 4;
      std::vector<std::string> fusion_log;
      FuseElementwiseEpilogues(graph_, per_node_, keep, plan_.precision, max_bindings, &fusion_log);
      for (const std::string& line : fusion_log) Log().debug("GL: {}: {}", plan_.label, line);
    } else {
      MarkUnfused(graph_, per_node_, "elementwise fusion is off");
    }
    for (NodeDispatches& nd : per_node_) {
      if (!nd.unfused_reason.empty()) {
        plan_.unfused_elementwise.push_back(graph_.NodeLabel(nd.node) + ": " + nd.unfused_reason);
      }
      for (Dispatch& d : nd.dispatches) {
        DraftDispatch draft;
        draft.label = d.shader.template_name + " for " + graph_.NodeLabel(nd.node);
        for (size_t f : nd.fused_nodes) draft.label += " + " + graph_.NodeLabel(f);
        draft.node = static_cast<int>(nd.node);
        draft.fused_nodes = nd.fused_nodes;
        draft.dispatch = std::move(d);
        body_.push_back(std::move(draft));
      }
    }
    per_node_.clear();
  }

  // The edges partition found, checked against what the dispatches bind: an
  // input no dispatch reads (a shape operand, read when planning) needs no
  // conversion.
  Status ChooseEdges() {
    std::set<int> produced;
    for (size_t n : plan_.nodes) {
      for (int t : graph_.nodes[n].outputs) {
        if (t >= 0) produced.insert(t);
      }
    }
    for (const DraftDispatch& d : body_) {
      for (const auto& b : d.dispatch.bindings) {
        if (b.second.kind == DispatchBufferRef::kTensor && !Contains(referenced_, b.second.index)) {
          referenced_.push_back(b.second.index);
        }
      }
    }
    for (int t : referenced_) {
      const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
      if (!produced.count(t) && !tensor.is_constant && !Contains(segment_.inputs, t)) {
        if (tensor.is_variable) {
          variables_.push_back(t);
          continue;
        }
        return InternalError(plan_.label + ": tensor '" + tensor.name +
                             "' is read but neither made in the segment nor one of its inputs");
      }
    }
    for (int t : segment_.inputs) {
      if (Contains(referenced_, t)) plan_.inputs.push_back(t);
    }
    for (int t : options_.extra_outputs) {
      if (!produced.count(t)) {
        return InvalidArgumentError(plan_.label + ": requested output tensor " + std::to_string(t) +
                                    " is not produced by the segment");
      }
    }
    for (int t : Exported()) {
      if (!Contains(referenced_, t)) {
        return InternalError(plan_.label + ": output tensor '" + graph_.tensors[static_cast<size_t>(t)].name +
                             "' is not written by any dispatch");
      }
      plan_.outputs.push_back(t);
    }
    return OkStatus();
  }

  // Constant tensors in PHWC4 and the ops' constants, packed in the storage
  // precision; the other tensors go to the arena.
  Status PlanConstants() {
    for (int t : referenced_) {
      const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
      GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(tensor.shape));
      GLD_RETURN_IF_ERROR(CheckSize(Phwc4Bytes(shape, plan_.precision), "tensor '" + tensor.name + "'"));
      if (!tensor.is_constant) {
        activations_.push_back(t);
        continue;
      }
      auto values = ConstantValues(tensor);
      if (!values.ok()) return Fail(values.status());
      std::vector<float> phwc4(static_cast<size_t>(shape.vec4s()) * 4);
      BhwcToPhwc4(values->data(), shape, phwc4.data());
      constant_tensor_index_[t] = static_cast<int>(plan_.constant_tensors.size());
      plan_.constant_tensors.push_back({tensor.name, t, PackVec4s(phwc4, plan_.precision)});
    }
    for (const ConstantBuffer& c : op_constants_) {
      PlannedConstant planned{c.name, -1, PackVec4s(c.vec4_floats, plan_.precision)};
      GLD_RETURN_IF_ERROR(CheckSize(planned.bytes.size(), c.name));
      plan_.op_constants.push_back(std::move(planned));
    }
    op_constants_.clear();
    return OkStatus();
  }

  StatusOr<DraftDispatch> MakeEdgeConversion(int t, bool to_gpu) {
    const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
    GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(tensor.shape));
    gl::EdgeConversion e;
    e.tensor = t;
    e.name = tensor.name;
    e.to_gpu = to_gpu;
    GLD_ASSIGN_OR_RETURN(e.host_type, EdgeType(tensor, to_gpu));
    e.host_bytes = static_cast<size_t>(shape.elements()) * DataTypeSize(tensor.type);
    const size_t words = (e.host_bytes + 3) / 4;
    e.staging_bytes = words * 4;
    GLD_RETURN_IF_ERROR(CheckSize(e.staging_bytes, "staging for tensor '" + tensor.name + "'"));
    const DispatchBufferRef phwc4{DispatchBufferRef::kTensor, t};
    const DispatchBufferRef staging{DispatchBufferRef::kStaging, static_cast<int>(plan_.edges.size())};
    DraftDispatch draft;
    Dispatch& d = draft.dispatch;
    if (to_gpu) {
      d.shader.template_name = "convert_to_phwc4.comp";
      d.shader.Define("SOURCE", e.host_type);
      d.Bind(0, phwc4).Bind(1, staging);
      d.IVec4("u_shape", shape);
      d.GridOver(shape);
    } else {
      d.shader.template_name = "convert_from_phwc4.comp";
      d.shader.Define("DEST", e.host_type);
      d.Bind(0, staging).Bind(1, phwc4);
      const uint32_t row = static_cast<uint32_t>(std::min<size_t>(std::max<size_t>(words, 1), 4096));
      d.IVec4("u_shape", shape);
      d.Int("u_words", static_cast<int32_t>(words));
      d.Int("u_row", static_cast<int32_t>(row));
      d.grid = {row, static_cast<uint32_t>((words + row - 1) / row), 1};
    }
    draft.label = d.shader.template_name + " for tensor '" + tensor.name + "'";
    plan_.edges.push_back(std::move(e));
    return draft;
  }

  // Input conversions, the body, output conversions: the run order.
  Status AddEdgeConversions() {
    std::vector<DraftDispatch> all;
    for (int t : plan_.inputs) {
      GLD_ASSIGN_OR_RETURN(DraftDispatch d, MakeEdgeConversion(t, true));
      all.push_back(std::move(d));
    }
    for (DraftDispatch& d : body_) all.push_back(std::move(d));
    for (int t : plan_.outputs) {
      GLD_ASSIGN_OR_RETURN(DraftDispatch d, MakeEdgeConversion(t, false));
      all.push_back(std::move(d));
    }
    body_ = std::move(all);
    return OkStatus();
  }

  // Lifetimes in dispatch order, then a greedy plan.
  Status PlanTensorArena() {
    std::vector<BufferUsage> usages;
    for (int t : activations_) {
      BufferUsage u;
      GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(graph_.tensors[static_cast<size_t>(t)].shape));
      u.bytes = Phwc4Bytes(shape, plan_.precision);
      u.first_step = -1;
      for (size_t i = 0; i < body_.size(); ++i) {
        for (const auto& b : body_[i].dispatch.bindings) {
          if (b.second.kind != DispatchBufferRef::kTensor || b.second.index != t) continue;
          if (u.first_step < 0) u.first_step = static_cast<int>(i);
          u.last_step = static_cast<int>(i);
        }
      }
      if (Contains(variables_, t)) {  // kept across runs: live from the first dispatch to the last
        u.first_step = 0;
        u.last_step = static_cast<int>(body_.size()) - 1;
      }
      usages.push_back(u);
    }
    const uint64_t alignment =
        std::max<uint64_t>(16, static_cast<uint64_t>(std::max(limits_.ssbo_offset_alignment, 1)));
    ArenaPlan arena;
    if (options_.share_memory) {
      arena = PlanArena(usages, alignment);
    } else {
      for (const BufferUsage& u : usages) {
        arena.offsets.push_back(arena.arena_bytes);
        arena.arena_bytes += (u.bytes + alignment - 1) / alignment * alignment;
      }
    }
    for (const BufferUsage& u : usages) plan_.tensor_bytes_naive += u.bytes;
    for (size_t i = 0; i < body_.size(); ++i) {
      uint64_t live = 0;
      for (const BufferUsage& u : usages) {
        if (u.first_step <= static_cast<int>(i) && static_cast<int>(i) <= u.last_step) live += u.bytes;
      }
      plan_.tensor_bytes_lower_bound = std::max(plan_.tensor_bytes_lower_bound, live);
    }
    plan_.arena_bytes = arena.arena_bytes;
    for (size_t k = 0; k < activations_.size(); ++k) {
      arena_index_[activations_[k]] = static_cast<int>(plan_.arena.size());
      plan_.arena.push_back({activations_[k], arena.offsets[k], std::max<uint64_t>(usages[k].bytes, 16),
                             usages[k].first_step, usages[k].last_step});
    }
    return PlanVariables();
  }

  // The kept variables' initial contents (the file's, else zeros), in PHWC4.
  Status PlanVariables() {
    for (int t : variables_) {
      const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
      GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(tensor.shape));
      std::vector<float> values(static_cast<size_t>(shape.elements()), 0.0f);
      if (!tensor.data.empty()) {
        auto initial = ConstantValues(tensor);
        if (!initial.ok()) return Fail(initial.status());
        values = std::move(initial).value();
      }
      std::vector<float> phwc4(static_cast<size_t>(shape.vec4s()) * 4);
      BhwcToPhwc4(values.data(), shape, phwc4.data());
      const ArenaSlot& slot = plan_.arena[static_cast<size_t>(arena_index_.at(t))];
      plan_.variables.push_back({t, tensor.name, slot.offset, PackVec4s(phwc4, plan_.precision)});
    }
    return OkStatus();
  }

  PlannedBinding Resolve(uint32_t point, const DispatchBufferRef& ref) const {
    PlannedBinding b;
    b.point = point;
    switch (ref.kind) {
      case DispatchBufferRef::kTensor: {
        auto constant = constant_tensor_index_.find(ref.index);
        if (constant != constant_tensor_index_.end()) {
          b.kind = PlannedBinding::kConstantTensor;
          b.index = constant->second;
        } else {
          const ArenaSlot& slot = plan_.arena[static_cast<size_t>(arena_index_.at(ref.index))];
          b.kind = PlannedBinding::kArena;
          b.index = ref.index;
          b.offset = slot.offset;
          b.size = slot.bytes;
        }
        break;
      }
      case DispatchBufferRef::kConstant:
        b.kind = PlannedBinding::kOpConstant;
        b.index = ref.index;
        break;
      case DispatchBufferRef::kStaging:
        b.kind = PlannedBinding::kStaging;
        b.index = ref.index;
        break;
      case DispatchBufferRef::kIndexFault:
        b.kind = PlannedBinding::kIndexFault;
        break;
    }
    return b;
  }

  // The op's workgroup, else the tuned one for this dispatch, else the
  // default; the source generated for it.
  Status ChooseWorkgroupAndSource(const Dispatch& d, PlannedDispatch* p) {
    p->tunable = d.workgroup[0] == 0;
    p->workgroup = p->tunable ? ChooseWorkgroup(d.grid) : d.workgroup;
    GLD_ASSIGN_OR_RETURN(p->source, GenerateShader(d.shader, plan_.precision, p->workgroup));
    if (!p->tunable) return OkStatus();
    p->tuning_key = TuningKey(p->source, d.grid);
    if (options_.tuning == nullptr) return OkStatus();
    auto it = options_.tuning->best.find(p->tuning_key);
    if (it == options_.tuning->best.end() || !WorkgroupFits(it->second, limits_)) return OkStatus();
    p->tuned = true;
    ++plan_.tuned_dispatches;
    if (it->second == p->workgroup) return OkStatus();
    p->workgroup = it->second;
    p->source = WithWorkgroup(p->source, p->workgroup);
    return OkStatus();
  }

  // Workgroups, driver limits, shader sources and resolved bindings.
  Status FinishDispatches() {
    for (DraftDispatch& draft : body_) {
      Dispatch& d = draft.dispatch;
      PlannedDispatch p;
      p.label = std::move(draft.label);
      p.template_name = d.shader.template_name;
      p.grid = d.grid;
      p.node = draft.node;
      p.fused_nodes = std::move(draft.fused_nodes);
      uint32_t max_binding = 0;
      for (const auto& b : d.bindings) max_binding = std::max(max_binding, b.first);
      if (limits_.max_compute_ssbo_blocks > 0 &&
          max_binding >= static_cast<uint32_t>(limits_.max_compute_ssbo_blocks)) {
        return UnimplementedError(p.label + " binds " + std::to_string(max_binding + 1) +
                                  " storage buffers; the driver allows " +
                                  std::to_string(limits_.max_compute_ssbo_blocks));
      }
      GLD_RETURN_IF_ERROR(ChooseWorkgroupAndSource(d, &p));
      for (size_t k = 0; k < 3; ++k) {
        const uint32_t groups = (d.grid[k] + p.workgroup[k] - 1) / p.workgroup[k];
        const int limit = limits_.max_workgroup_count[k] > 0 ? limits_.max_workgroup_count[k] : 65535;
        if (groups > static_cast<uint32_t>(limit)) {
          return UnimplementedError(p.label + ": " + std::to_string(groups) + " workgroups along axis " +
                                    std::to_string(k) + " exceed the driver's limit of " + std::to_string(limit));
        }
        p.groups[k] = std::max<uint32_t>(groups, 1);
      }
      for (const auto& [point, ref] : d.bindings) {
        p.bindings.push_back(Resolve(point, ref));
        if (ref.kind == DispatchBufferRef::kIndexFault && draft.node >= 0) {
          plan_.index_fault_nodes.emplace_back(draft.node, graph_.NodeLabel(static_cast<size_t>(draft.node)));
        }
      }
      p.uniforms = std::move(d.uniforms);
      Uniform grid;
      grid.name = "u_grid";
      grid.type = Uniform::kIVec3;
      grid.i = {static_cast<int32_t>(d.grid[0]), static_cast<int32_t>(d.grid[1]),
                static_cast<int32_t>(d.grid[2]), 0};
      p.uniforms.push_back(grid);
      plan_.dispatches.push_back(std::move(p));
    }
    body_.clear();
    PlanIssue(&plan_);
    return OkStatus();
  }

  const Graph& graph_;
  const Segment& segment_;
  const GlInfo& limits_;
  const SegmentPlanOptions& options_;
  SegmentPlan plan_;
  std::vector<NodeDispatches> per_node_;
  std::vector<ConstantBuffer> op_constants_;
  std::vector<DraftDispatch> body_;
  std::vector<int> referenced_;   // tensors bound by the body, in first-use order
  std::vector<int> activations_;  // the non-constant ones among them
  std::vector<int> variables_;    // the variables among those, kept by the segment
  std::map<int, int> constant_tensor_index_;  // tensor -> plan_.constant_tensors index
  std::map<int, int> arena_index_;            // tensor -> plan_.arena index
};

}  // namespace

GlInfo MinimumGlLimits() {
  GlInfo info;
  info.platform = "none (GLES 3.1 minimum limits)";
  info.major = 3;
  info.minor = 1;
  info.max_compute_ssbo_blocks = 4;
  info.max_ssbo_size = int64_t{1} << 27;
  info.ssbo_offset_alignment = 256;
  info.max_workgroup_invocations = 128;
  for (int k = 0; k < 3; ++k) info.max_workgroup_count[k] = 65535;
  info.max_workgroup_size[0] = info.max_workgroup_size[1] = 128;
  info.max_workgroup_size[2] = 64;
  return info;
}

StatusOr<SegmentPlan> PlanSegment(const Graph& graph, const Segment& segment, Precision precision,
                                  const GlInfo& limits, const SegmentPlanOptions& options) {
  return SegmentPlanner(graph, segment, precision, limits, options).Plan();
}

}  // namespace gld::gl
