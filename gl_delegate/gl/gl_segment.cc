#include "gl/gl_segment.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "gl/codegen/fusion.h"
#include "util/memory_planner.h"
#include "gl/codegen/phwc4.h"
#include "gl/cache/program_cache.h"
#include "gl/codegen/shader_generator.h"
#include "util/half.h"
#include "util/logging.h"

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

void SetUniform(GLint loc, const Uniform& u) {
  switch (u.type) {
    case Uniform::kInt: glUniform1i(loc, u.i[0]); break;
    case Uniform::kIVec2: glUniform2i(loc, u.i[0], u.i[1]); break;
    case Uniform::kIVec3: glUniform3i(loc, u.i[0], u.i[1], u.i[2]); break;
    case Uniform::kIVec4: glUniform4i(loc, u.i[0], u.i[1], u.i[2], u.i[3]); break;
    case Uniform::kFloat: glUniform1f(loc, u.f[0]); break;
    case Uniform::kVec2: glUniform2f(loc, u.f[0], u.f[1]); break;
    case Uniform::kVec4: glUniform4f(loc, u.f[0], u.f[1], u.f[2], u.f[3]); break;
  }
}

}  // namespace

StatusOr<std::unique_ptr<GlSegment>> GlSegment::Create(GlEnvironment& env, const Graph& graph,
                                                       std::vector<size_t> nodes, Precision precision,
                                                       const GlSegmentOptions& options) {
  if (nodes.empty()) return InvalidArgumentError("GL segment without nodes");
  for (size_t n : nodes) {
    if (n >= graph.nodes.size()) {
      return InvalidArgumentError("GL segment: node index " + std::to_string(n) + " out of range (" +
                                  std::to_string(graph.nodes.size()) + " nodes)");
    }
  }
  std::unique_ptr<GlSegment> seg(new GlSegment(env, precision));
  seg->nodes_ = nodes;
  seg->label_ = SegmentLabel(options.name, nodes);
  seg->measure_gpu_time_ = options.measure_gpu_time;
  const std::string& label = seg->label_;
  const GlInfo& info = env.info();

  // 1. Which tensors must exist on the host side: graph outputs, tensors
  // read outside the segment, and those asked for.
  std::set<int> produced;
  for (size_t n : nodes) {
    for (int t : graph.nodes[n].outputs) {
      if (t >= 0) produced.insert(t);
    }
  }
  const std::set<size_t> inside(nodes.begin(), nodes.end());
  std::vector<int> wanted;
  for (size_t n : nodes) {
    for (int t : graph.nodes[n].outputs) {
      if (t < 0) continue;
      bool read_outside = graph.IsGraphOutput(t);
      for (size_t c : graph.Consumers(t)) read_outside = read_outside || !inside.count(c);
      if (read_outside) wanted.push_back(t);
    }
  }
  for (int t : options.extra_outputs) {
    if (!produced.count(t)) {
      return InvalidArgumentError(label + ": requested output tensor " + std::to_string(t) +
                                  " is not produced by the segment");
    }
    wanted.push_back(t);
  }

  // 2. Every node's dispatches and constants, then elementwise fusion.
  std::vector<Dispatch> dispatches;
  std::vector<std::string> labels;
  std::vector<int> label_nodes;  // node of each dispatch; -1 for edge conversions
  std::vector<std::vector<size_t>> label_fused;
  std::vector<ConstantBuffer> constants;
  std::vector<NodeDispatches> per_node;
  for (size_t n : nodes) {
    OpBuildContext ctx(graph, n, precision, /*dry_run=*/false);
    NodeDispatches nd;
    nd.node = n;
    Status s = BuildNode(ctx, &nd.dispatches);
    if (!s.ok()) return Status(s.code(), label + ": " + graph.NodeLabel(n) + ": " + s.message());
    const int base = static_cast<int>(constants.size());
    for (ConstantBuffer& c : ctx.constants()) constants.push_back(std::move(c));
    for (Dispatch& d : nd.dispatches) {
      for (auto& b : d.bindings) {
        if (b.second.kind == BufferRef::kConstant) b.second.index += base;
      }
    }
    per_node.push_back(std::move(nd));
  }
  if (options.fuse_elementwise) {
    const std::set<int> keep(wanted.begin(), wanted.end());
    const int max_bindings = info.max_compute_ssbo_blocks > 0 ? info.max_compute_ssbo_blocks : 4;
    std::vector<std::string> fusion_log;
    FuseElementwiseEpilogues(graph, per_node, keep, precision, max_bindings, &fusion_log);
    for (const std::string& line : fusion_log) Log().debug("GL: {}: {}", label, line);
  } else {
    MarkUnfused(graph, per_node, "elementwise fusion is off");
  }
  for (const NodeDispatches& nd : per_node) {
    if (!nd.unfused_reason.empty()) {
      seg->unfused_elementwise_.push_back(graph.NodeLabel(nd.node) + ": " + nd.unfused_reason);
    }
  }
  std::vector<Dispatch> body;
  std::vector<std::string> body_labels;
  std::vector<int> body_nodes;
  std::vector<std::vector<size_t>> body_fused;
  for (NodeDispatches& nd : per_node) {
    for (Dispatch& d : nd.dispatches) {
      std::string l = d.shader.template_name + " for " + graph.NodeLabel(nd.node);
      for (size_t f : nd.fused_nodes) l += " + " + graph.NodeLabel(f);
      body_labels.push_back(std::move(l));
      body_nodes.push_back(static_cast<int>(nd.node));
      body_fused.push_back(nd.fused_nodes);
      body.push_back(std::move(d));
    }
  }

  // 3. Which tensors live on the GPU, and which cross the edges.
  std::vector<int> referenced;
  for (const Dispatch& d : body) {
    for (const auto& b : d.bindings) {
      if (b.second.kind == BufferRef::kTensor &&
          std::find(referenced.begin(), referenced.end(), b.second.index) == referenced.end()) {
        referenced.push_back(b.second.index);
      }
    }
  }
  for (int t : referenced) {
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    if (!produced.count(t) && !tensor.is_constant) seg->inputs_.push_back(t);
  }
  for (int t : wanted) {
    if (std::find(seg->outputs_.begin(), seg->outputs_.end(), t) != seg->outputs_.end()) continue;
    if (std::find(referenced.begin(), referenced.end(), t) == referenced.end()) {
      return InternalError(label + ": output tensor '" + graph.tensors[static_cast<size_t>(t)].name +
                           "' is not written by any dispatch");
    }
    seg->outputs_.push_back(t);
  }

  GlEnvironment::ScopedCurrent current(env);
  GLD_RETURN_IF_ERROR(current.status());

  // 4. Buffers: a PHWC4 object per referenced constant tensor, the
  // constants of the ops, staging; the other tensors get arena ranges once
  // every dispatch (edges included) is known.
  struct Location {
    GLuint buffer = 0;
    GLintptr offset = 0;
    GLsizeiptr size = 0;  // 0: whole buffer
  };
  std::map<int, Location> location_of;
  std::vector<int> activations;  // non-constant referenced tensors
  auto check_size = [&](size_t bytes, const std::string& what) -> Status {
    if (info.max_ssbo_size > 0 && bytes > static_cast<uint64_t>(info.max_ssbo_size)) {
      return UnimplementedError(label + ": " + what + " needs " + std::to_string(bytes) +
                                " bytes, more than the driver's storage block limit of " +
                                std::to_string(info.max_ssbo_size));
    }
    return OkStatus();
  };
  for (int t : referenced) {
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(tensor.shape));
    const size_t bytes = Phwc4Bytes(shape, precision);
    GLD_RETURN_IF_ERROR(check_size(bytes, "tensor '" + tensor.name + "'"));
    if (!tensor.is_constant) {
      activations.push_back(t);
      continue;
    }
    auto values = ConstantValues(tensor);
    if (!values.ok()) return Status(values.status().code(), label + ": " + values.status().message());
    std::vector<float> phwc4(static_cast<size_t>(shape.vec4s()) * 4);
    BhwcToPhwc4(values->data(), shape, phwc4.data());
    std::vector<uint8_t> packed = PackVec4s(phwc4, precision);
    GLD_ASSIGN_OR_RETURN(GlBuffer buffer, GlBuffer::Create(packed.size(), packed.data()));
    seg->gpu_bytes_ += buffer.bytes();
    location_of[t] = Location{buffer.id(), 0, 0};
    seg->tensor_buffers_.push_back(std::move(buffer));
  }
  for (const ConstantBuffer& c : constants) {
    std::vector<uint8_t> packed = PackVec4s(c.vec4_floats, precision);
    GLD_RETURN_IF_ERROR(check_size(packed.size(), c.name));
    GLD_ASSIGN_OR_RETURN(GlBuffer buffer, GlBuffer::Create(packed.size(), packed.data()));
    seg->gpu_bytes_ += buffer.bytes();
    seg->constant_buffers_.push_back(std::move(buffer));
  }
  constants.clear();

  // 5. Edge conversions around the body.
  auto make_edge = [&](int t, bool to_gpu, size_t staging_index, Dispatch* d) -> StatusOr<Edge> {
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(tensor.shape));
    GLD_ASSIGN_OR_RETURN(std::string type, EdgeType(tensor, to_gpu));
    Edge e;
    e.tensor = t;
    e.bytes = static_cast<size_t>(shape.elements()) * DataTypeSize(tensor.type);
    const size_t words = (e.bytes + 3) / 4;
    GLD_RETURN_IF_ERROR(check_size(words * 4, "staging for tensor '" + tensor.name + "'"));
    GLD_ASSIGN_OR_RETURN(e.staging, GlBuffer::Create(words * 4));
    const BufferRef phwc4{BufferRef::kTensor, t};
    const BufferRef staging{BufferRef::kStaging, static_cast<int>(staging_index)};
    if (to_gpu) {
      d->shader.template_name = "convert_to_phwc4.comp";
      d->shader.Define("SOURCE", type);
      d->Bind(0, phwc4).Bind(1, staging);
      d->IVec4("u_shape", shape);
      d->GridOver(shape);
    } else {
      d->shader.template_name = "convert_from_phwc4.comp";
      d->shader.Define("DEST", type);
      d->Bind(0, staging).Bind(1, phwc4);
      const uint32_t row = static_cast<uint32_t>(std::min<size_t>(std::max<size_t>(words, 1), 4096));
      d->IVec4("u_shape", shape);
      d->Int("u_words", static_cast<int32_t>(words));
      d->Int("u_row", static_cast<int32_t>(row));
      d->grid = {row, static_cast<uint32_t>((words + row - 1) / row), 1};
    }
    return e;
  };
  for (int t : seg->inputs_) {
    Dispatch d;
    GLD_ASSIGN_OR_RETURN(Edge e, make_edge(t, true, seg->input_edges_.size(), &d));
    seg->gpu_bytes_ += e.staging.bytes();
    seg->input_edges_.push_back(std::move(e));
    labels.push_back("convert_to_phwc4.comp for tensor '" + graph.tensors[static_cast<size_t>(t)].name + "'");
    label_nodes.push_back(-1);
    label_fused.emplace_back();
    dispatches.push_back(std::move(d));
  }
  for (size_t i = 0; i < body.size(); ++i) {
    dispatches.push_back(std::move(body[i]));
    labels.push_back(std::move(body_labels[i]));
    label_nodes.push_back(body_nodes[i]);
    label_fused.push_back(body_fused[i]);
  }
  for (int t : seg->outputs_) {
    Dispatch d;
    GLD_ASSIGN_OR_RETURN(Edge e, make_edge(t, false, seg->inputs_.size() + seg->output_edges_.size(), &d));
    seg->gpu_bytes_ += e.staging.bytes();
    seg->output_edges_.push_back(std::move(e));
    labels.push_back("convert_from_phwc4.comp for tensor '" + graph.tensors[static_cast<size_t>(t)].name + "'");
    label_nodes.push_back(-1);
    label_fused.emplace_back();
    dispatches.push_back(std::move(d));
  }

  // Arena: lifetimes in dispatch order, then a greedy plan.
  {
    std::vector<BufferUsage> usages;
    for (int t : activations) {
      BufferUsage u;
      GLD_ASSIGN_OR_RETURN(Bhwc shape, ToBhwc(graph.tensors[static_cast<size_t>(t)].shape));
      u.bytes = Phwc4Bytes(shape, precision);
      u.first_step = -1;
      for (size_t i = 0; i < dispatches.size(); ++i) {
        for (const auto& b : dispatches[i].bindings) {
          if (b.second.kind != BufferRef::kTensor || b.second.index != t) continue;
          if (u.first_step < 0) u.first_step = static_cast<int>(i);
          u.last_step = static_cast<int>(i);
        }
      }
      usages.push_back(u);
    }
    const uint64_t alignment = std::max<uint64_t>(
        16, static_cast<uint64_t>(std::max(info.ssbo_offset_alignment, 1)));
    ArenaPlan plan;
    if (options.share_memory) {
      plan = PlanArena(usages, alignment);
    } else {
      for (const BufferUsage& u : usages) {
        plan.offsets.push_back(plan.arena_bytes);
        plan.arena_bytes += (u.bytes + alignment - 1) / alignment * alignment;
      }
    }
    uint64_t naive = 0;
    for (const BufferUsage& u : usages) naive += u.bytes;
    for (size_t i = 0; i < dispatches.size(); ++i) {
      uint64_t live = 0;
      for (const BufferUsage& u : usages) {
        if (u.first_step <= static_cast<int>(i) && static_cast<int>(i) <= u.last_step) live += u.bytes;
      }
      seg->tensor_bytes_lower_bound_ = std::max(seg->tensor_bytes_lower_bound_, live);
    }
    seg->tensor_bytes_planned_ = plan.arena_bytes;
    seg->tensor_bytes_naive_ = naive;
    GLD_ASSIGN_OR_RETURN(seg->arena_, GlBuffer::Create(static_cast<size_t>(plan.arena_bytes)));
    seg->gpu_bytes_ += seg->arena_.bytes();
    for (size_t k = 0; k < activations.size(); ++k) {
      location_of[activations[k]] = Location{seg->arena_.id(), static_cast<GLintptr>(plan.offsets[k]),
                                             static_cast<GLsizeiptr>(std::max<uint64_t>(usages[k].bytes, 16))};
    }
  }

  // 6. Programs: sources first, then one batch compile.
  std::vector<ProgramSource> sources;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    Dispatch& d = dispatches[i];
    if (d.workgroup[0] == 0) d.workgroup = ChooseWorkgroup(d.grid);
    uint32_t max_binding = 0;
    for (const auto& b : d.bindings) max_binding = std::max(max_binding, b.first);
    if (info.max_compute_ssbo_blocks > 0 && max_binding >= static_cast<uint32_t>(info.max_compute_ssbo_blocks)) {
      return UnimplementedError(labels[i] + " binds " + std::to_string(max_binding + 1) +
                                " storage buffers; the driver allows " +
                                std::to_string(info.max_compute_ssbo_blocks));
    }
    GLD_ASSIGN_OR_RETURN(std::string code, GenerateShader(d.shader, precision, d.workgroup));
    sources.push_back({labels[i], std::move(code), d.workgroup});
  }
  GLD_ASSIGN_OR_RETURN(std::vector<const GlProgram*> programs, env.programs().GetOrCompile(sources));

  // 7. Steps: programs with resolved buffers and uniform locations.
  for (size_t i = 0; i < dispatches.size(); ++i) {
    const Dispatch& d = dispatches[i];
    Step step;
    step.program = programs[i];
    for (int k = 0; k < 3; ++k) {
      const uint32_t wg = d.workgroup[static_cast<size_t>(k)];
      const uint32_t groups = (d.grid[static_cast<size_t>(k)] + wg - 1) / wg;
      const int limit = info.max_workgroup_count[k] > 0 ? info.max_workgroup_count[k] : 65535;
      if (groups > static_cast<uint32_t>(limit)) {
        return UnimplementedError(labels[i] + ": " + std::to_string(groups) + " workgroups along axis " +
                                  std::to_string(k) + " exceed the driver's limit of " + std::to_string(limit));
      }
      step.groups[static_cast<size_t>(k)] = std::max<uint32_t>(groups, 1);
    }
    for (const auto& [binding, ref] : d.bindings) {
      Step::Binding b;
      b.point = binding;
      switch (ref.kind) {
        case BufferRef::kTensor: {
          const Location& l = location_of.at(ref.index);
          b.buffer = l.buffer;
          b.offset = l.offset;
          b.size = l.size;
          break;
        }
        case BufferRef::kConstant: b.buffer = seg->constant_buffers_[static_cast<size_t>(ref.index)].id(); break;
        case BufferRef::kStaging: {
          const size_t k = static_cast<size_t>(ref.index);
          b.buffer = k < seg->input_edges_.size() ? seg->input_edges_[k].staging.id()
                                                  : seg->output_edges_[k - seg->input_edges_.size()].staging.id();
          break;
        }
      }
      step.bindings.push_back(b);
    }
    Uniform grid;
    grid.name = "u_grid";
    grid.type = Uniform::kIVec3;
    grid.i = {static_cast<int32_t>(d.grid[0]), static_cast<int32_t>(d.grid[1]),
              static_cast<int32_t>(d.grid[2]), 0};
    std::vector<Uniform> uniforms = d.uniforms;
    uniforms.push_back(grid);
    for (const Uniform& u : uniforms) {
      GLint loc = step.program->UniformLocation(u.name);
      if (loc >= 0) step.uniforms.push_back({loc, u});  // -1: optimised away in this variant
    }
    seg->steps_.push_back(std::move(step));
    seg->info_.push_back({labels[i], d.shader.template_name, d.grid, d.workgroup, label_nodes[i], label_fused[i]});
  }
  if (options.profile_dispatches) {
    seg->profiling_ = true;
    seg->profile_.dispatch_ns.assign(seg->steps_.size(), 0);
    if (info.timer_query) {
      for (size_t i = 0; i < seg->steps_.size(); ++i) {
        GLD_ASSIGN_OR_RETURN(GlTimerQuery q, GlTimerQuery::Create());
        seg->dispatch_timers_.push_back(std::move(q));
      }
      seg->profile_.gpu_timer = true;
    }
  } else if (seg->measure_gpu_time_ && info.timer_query) {
    GLD_ASSIGN_OR_RETURN(seg->timer_, GlTimerQuery::Create());
  }
  GLD_RETURN_IF_ERROR(CheckGlError(("creating " + label).c_str()));
  Log().debug("GL: {}: {} dispatches, {} bytes, {} inputs, {} outputs", label, seg->steps_.size(),
              seg->gpu_bytes_, seg->inputs_.size(), seg->outputs_.size());
  return seg;
}

Status GlSegment::Run(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) {
  if (inputs.size() != input_edges_.size() || outputs.size() != output_edges_.size()) {
    return InvalidArgumentError(label_ + ": Run got " + std::to_string(inputs.size()) + " inputs and " +
                                std::to_string(outputs.size()) + " outputs, expects " +
                                std::to_string(input_edges_.size()) + " and " +
                                std::to_string(output_edges_.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].bytes != input_edges_[i].bytes || (inputs[i].data == nullptr && inputs[i].bytes > 0)) {
      return InvalidArgumentError(label_ + ": input " + std::to_string(i) + " (tensor " +
                                  std::to_string(input_edges_[i].tensor) + ") has " +
                                  std::to_string(inputs[i].bytes) + " bytes, expects " +
                                  std::to_string(input_edges_[i].bytes));
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].bytes != output_edges_[i].bytes || (outputs[i].data == nullptr && outputs[i].bytes > 0)) {
      return InvalidArgumentError(label_ + ": output " + std::to_string(i) + " (tensor " +
                                  std::to_string(output_edges_[i].tensor) + ") has " +
                                  std::to_string(outputs[i].bytes) + " bytes, expects " +
                                  std::to_string(output_edges_[i].bytes));
    }
  }
  GlEnvironment::ScopedCurrent current(env_);
  GLD_RETURN_IF_ERROR(current.status());
  using Clock = std::chrono::steady_clock;
  auto elapsed_ns = [](Clock::time_point since) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
  };
  Clock::time_point upload_start;
  if (profiling_) {
    glFinish();
    upload_start = Clock::now();
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    GLD_RETURN_IF_ERROR(input_edges_[i].staging.Write(0, inputs[i].data, inputs[i].bytes));
  }
  uint64_t upload_ns = 0;
  Clock::time_point dispatches_start;
  if (profiling_) {
    glFinish();
    upload_ns = elapsed_ns(upload_start);
    dispatches_start = Clock::now();
  }
  std::vector<uint64_t> run_ns(profiling_ ? steps_.size() : 0, 0);
  const bool use_timer = measure_gpu_time_ && timer_.valid();
  std::chrono::steady_clock::time_point start;
  if (measure_gpu_time_ && !profiling_) {
    if (use_timer) {
      timer_.Begin();
    } else {
      glFinish();
      start = std::chrono::steady_clock::now();
    }
  }
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    glUseProgram(s.program->id());
    for (const BoundUniform& u : s.uniforms) SetUniform(u.location, u.value);
    for (const Step::Binding& b : s.bindings) {
      if (b.size > 0) {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, b.point, b.buffer, b.offset, b.size);
      } else {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b.point, b.buffer);
      }
    }
    Clock::time_point dispatch_start;
    if (profiling_) {
      if (profile_.gpu_timer) {
        dispatch_timers_[i].Begin();
      } else {
        glFinish();
        dispatch_start = Clock::now();
      }
    }
    glDispatchCompute(s.groups[0], s.groups[1], s.groups[2]);
    if (profiling_) {
      if (profile_.gpu_timer) {
        dispatch_timers_[i].End();
      } else {
        glFinish();
        run_ns[i] = elapsed_ns(dispatch_start);
      }
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }
  if (measure_gpu_time_ && !profiling_) {
    if (use_timer) {
      timer_.End();
    } else {
      glFinish();
      last_gpu_ns_ = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - start)
                                               .count());
    }
  }
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glUseProgram(0);
  GLD_RETURN_IF_ERROR(CheckGlError(("running " + label_).c_str()));
  Clock::time_point download_start;
  uint64_t dispatches_wall_ns = 0;
  if (profiling_) {
    glFinish();  // the download alone, not the wait for the dispatches
    download_start = Clock::now();
    dispatches_wall_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(download_start - dispatches_start).count());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    GLD_RETURN_IF_ERROR(output_edges_[i].staging.Read(0, outputs[i].data, outputs[i].bytes));
  }
  if (use_timer && !profiling_) {
    auto ns = timer_.ElapsedNs();
    last_gpu_ns_ = ns.ok() ? *ns : 0;
  }
  if (profiling_) {
    const uint64_t download_ns = elapsed_ns(download_start);
    bool valid = true;
    if (profile_.gpu_timer) {
      for (size_t i = 0; i < steps_.size() && valid; ++i) {
        auto ns = dispatch_timers_[i].ElapsedNs();
        if (ns.ok()) {
          run_ns[i] = *ns;
        } else {
          Log().debug("GL: {}: profile of this run dropped: {}", label_, ns.status().message());
          valid = false;
        }
      }
      // Some drivers (llvmpipe) expose the timer but do not time compute
      // work with it; then the dispatches' wall time between glFinish calls
      // is the better measure.
      uint64_t timed = 0;
      for (uint64_t ns : run_ns) timed += ns;
      if (valid && timed * 1000 < dispatches_wall_ns) {
        Log().info("GL: {}: timer queries report {} ns for {} ns of dispatches; timing each dispatch between "
                   "glFinish calls instead",
                   label_, timed, dispatches_wall_ns);
        profile_.gpu_timer = false;
        valid = false;
      }
    }
    if (valid) {
      uint64_t total = 0;
      for (size_t i = 0; i < steps_.size(); ++i) {
        profile_.dispatch_ns[i] += run_ns[i];
        total += run_ns[i];
      }
      profile_.upload_ns += upload_ns;
      profile_.download_ns += download_ns;
      ++profile_.runs;
      if (measure_gpu_time_) last_gpu_ns_ = total;
    }
  }
  return OkStatus();
}

void GlSegment::ResetProfile() {
  std::fill(profile_.dispatch_ns.begin(), profile_.dispatch_ns.end(), 0);
  profile_.upload_ns = profile_.download_ns = 0;
  profile_.runs = 0;
}

void GlSegment::ReleaseGl() {
  input_edges_.clear();
  output_edges_.clear();
  tensor_buffers_.clear();
  constant_buffers_.clear();
  arena_.Reset();
  timer_.Reset();
  dispatch_timers_.clear();
}

GlSegment::~GlSegment() {
  GlEnvironment::ScopedCurrent current(env_);
  if (!current.status().ok()) {
    Log().warn("GL: {}: cannot free GPU buffers: {}", label_, current.status().message());
    // Drop the names without GL calls: they belong to a context we cannot
    // reach, and calling glDelete* on another context would free its objects.
    for (auto* v : {&tensor_buffers_, &constant_buffers_}) {
      for (GlBuffer& b : *v) b.Abandon();
    }
    arena_.Abandon();
    for (Edge& e : input_edges_) e.staging.Abandon();
    for (Edge& e : output_edges_) e.staging.Abandon();
    timer_.Abandon();
    for (GlTimerQuery& q : dispatch_timers_) q.Abandon();
    return;
  }
  ReleaseGl();
}

}  // namespace gld::gl
