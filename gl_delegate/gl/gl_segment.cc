#include "gl/gl_segment.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <ctime>
#include <utility>

#include "gl/cache/program_cache.h"
#include "gl/codegen/shader_generator.h"
#include "gl/issued_commands.h"
#include "util/logging.h"
#include "util/trace_recorder.h"

namespace gld::gl {

namespace {

// Sets a uniform of `program` (current or not: GLES 3.1 glProgramUniform*).
void SetUniform(GLuint program, GLint loc, const Uniform& u) {
  switch (u.type) {
    case Uniform::kInt: glProgramUniform1i(program, loc, u.i[0]); break;
    case Uniform::kIVec2: glProgramUniform2i(program, loc, u.i[0], u.i[1]); break;
    case Uniform::kIVec3: glProgramUniform3i(program, loc, u.i[0], u.i[1], u.i[2]); break;
    case Uniform::kIVec4: glProgramUniform4i(program, loc, u.i[0], u.i[1], u.i[2], u.i[3]); break;
    case Uniform::kFloat: glProgramUniform1f(program, loc, u.f[0]); break;
    case Uniform::kVec2: glProgramUniform2f(program, loc, u.f[0], u.f[1]); break;
    case Uniform::kVec4: glProgramUniform4f(program, loc, u.f[0], u.f[1], u.f[2], u.f[3]); break;
  }
}

// Tokens naming the dispatch that set a program's uniforms; never reused.
uint64_t NextUniformToken() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

using Clock = std::chrono::steady_clock;

// glsl/index_fault.comp's record with nothing reported: reported, node,
// value, bound.
constexpr std::array<int32_t, 4> kNoIndexFault = {0, 0, 0, 0};

uint64_t ElapsedNs(Clock::time_point since) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - since).count());
}

// CPU time of the calling thread.
uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

GlSegment::GlSegment(GlEnvironment& env, const SegmentPlan& plan)
    : env_(env),
      precision_(plan.precision),
      label_(plan.label),
      nodes_(plan.nodes),
      inputs_(plan.inputs),
      outputs_(plan.outputs),
      tensor_bytes_planned_(plan.arena_bytes),
      tensor_bytes_naive_(plan.tensor_bytes_naive),
      tensor_bytes_lower_bound_(plan.tensor_bytes_lower_bound),
      unfused_elementwise_(plan.unfused_elementwise) {}

StatusOr<std::unique_ptr<GlSegment>> GlSegment::Create(GlDevice& device, const Graph& graph,
                                                       std::vector<size_t> nodes, Precision precision,
                                                       const GlSegmentOptions& options) {
  Segment segment = SegmentOf(graph, std::vector<int>(nodes.begin(), nodes.end()));
  GLD_ASSIGN_OR_RETURN(SegmentPlan plan, PlanSegment(graph, segment, precision, device.info(), options));
  return Create(device, plan, options);
}

StatusOr<std::unique_ptr<GlSegment>> GlSegment::Create(GlDevice& device, const SegmentPlan& plan,
                                                       const GlSegmentRunOptions& options) {
  // What the segment will issue, proved free of unordered memory accesses
  // (gl/hazard_check.h) before any GL object is made: a hazard is a bug of
  // the plan that would race on a real GPU, so Create fails on it.
  GLD_ASSIGN_OR_RETURN(std::vector<uint32_t> barrier_bits, CheckedDispatchBarriers(plan));
  std::unique_ptr<GlSegment> seg(new GlSegment(device.env(), plan));
  GlEnvironment::ScopedCurrent current(device.env());
  GLD_RETURN_IF_ERROR(current.status());
  GLD_RETURN_IF_ERROR(seg->CreateBuffers(plan));
  std::vector<ProgramSource> sources;
  for (const PlannedDispatch& d : plan.dispatches) sources.push_back({d.label, d.source, d.workgroup});
  GLD_ASSIGN_OR_RETURN(std::vector<const GlProgram*> programs, device.programs().GetOrCompile(sources, options.trace));
  GLD_RETURN_IF_ERROR(seg->BindDispatches(plan, programs, barrier_bits));
  GLD_RETURN_IF_ERROR(seg->StartTimers(device.info(), options));
  GLD_RETURN_IF_ERROR(CheckGlError(("creating " + seg->label_).c_str()));
  Log().debug("GL: {}: {} dispatches, {} bytes, {} inputs, {} outputs", seg->label_, seg->dispatches_.size(),
              seg->gpu_bytes_, seg->inputs_.size(), seg->outputs_.size());
  return seg;
}

Status GlSegment::CreateBuffers(const SegmentPlan& plan) {
  // Errors (GL_OUT_OF_MEMORY above all) say whose buffer it was.
  auto make = [&](size_t bytes, const void* data, const std::string& whose) -> StatusOr<GlBuffer> {
    StatusOr<GlBuffer> buffer = GlBuffer::Create(bytes, data);
    if (!buffer.ok()) return buffer.status().WithContext(label_ + ": " + whose);
    gpu_bytes_ += buffer->bytes();
    return buffer;
  };
  for (const PlannedConstant& c : plan.constant_tensors) {
    GLD_ASSIGN_OR_RETURN(GlBuffer buffer, make(c.bytes.size(), c.bytes.data(), "constant tensor '" + c.name + "'"));
    tensor_buffers_.push_back(std::move(buffer));
  }
  for (const PlannedConstant& c : plan.op_constants) {
    GLD_ASSIGN_OR_RETURN(GlBuffer buffer, make(c.bytes.size(), c.bytes.data(), c.name));
    constant_buffers_.push_back(std::move(buffer));
  }
  for (const EdgeConversion& e : plan.edges) {
    Edge edge;
    edge.tensor = e.tensor;
    edge.name = e.name;
    edge.bytes = e.host_bytes;
    GLD_ASSIGN_OR_RETURN(edge.staging, make(e.staging_bytes, nullptr, "staging for tensor '" + e.name + "'"));
    (e.to_gpu ? input_edges_ : output_edges_).push_back(std::move(edge));
  }
  GLD_ASSIGN_OR_RETURN(arena_, make(static_cast<size_t>(plan.arena_bytes), nullptr, "tensor arena"));
  index_fault_nodes_ = plan.index_fault_nodes;
  if (!index_fault_nodes_.empty()) {
    GLD_ASSIGN_OR_RETURN(index_fault_, make(sizeof(kNoIndexFault), kNoIndexFault.data(), "index-fault record"));
  }
  variables_ = plan.variables;
  return WriteVariables();
}

Status GlSegment::WriteVariables() {
  for (const PlannedVariable& v : variables_) {
    Status s = arena_.Write(static_cast<size_t>(v.offset), v.bytes.data(), v.bytes.size());
    if (!s.ok()) return s.WithContext(label_ + ": variable '" + v.name + "'");
  }
  return OkStatus();
}

Status GlSegment::ResetVariables() {
  if (variables_.empty()) return OkStatus();
  GlEnvironment::ScopedCurrent current(env_);
  GLD_RETURN_IF_ERROR(current.status());
  // The last run's shader writes finish before the update replaces them.
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  GLD_RETURN_IF_ERROR(WriteVariables());
  return CheckGlError("resetting the variables of", label_);
}

std::vector<int> GlSegment::variable_tensors() const {
  std::vector<int> v;
  for (const PlannedVariable& p : variables_) v.push_back(p.tensor);
  return v;
}

Status GlSegment::BindDispatches(const SegmentPlan& plan, const std::vector<const GlProgram*>& programs,
                                 const std::vector<uint32_t>& barrier_bits) {
  staging_uses_.assign(input_edges_.size() + output_edges_.size(), {});
  edge_tensors_.assign(staging_uses_.size(), EdgeTensor());
  for (size_t i = 0; i < plan.dispatches.size(); ++i) {
    const PlannedDispatch& d = plan.dispatches[i];
    BoundDispatch bound;
    bound.program = programs[i];
    bound.groups = bound.planned_groups = d.groups;
    for (const PlannedBinding& p : d.bindings) {
      if (p.kind != PlannedBinding::kStaging) continue;
      EdgeTensor& e = edge_tensors_[static_cast<size_t>(p.index)];
      e.dispatch = i;
      for (const PlannedBinding& a : d.bindings) {
        if (a.kind == PlannedBinding::kArena) {
          e.offset = static_cast<GLintptr>(a.offset);
          e.bytes = static_cast<GLsizeiptr>(a.size);
        }
      }
    }
    bound.use_program = d.use_program;
    bound.barrier_bits = barrier_bits[i];
    bound.uniform_token = NextUniformToken();
    for (uint32_t k : d.rebind) {
      const PlannedBinding& p = d.bindings[k];
      BoundDispatch::Binding b;
      b.point = p.point;
      ResolveBinding(p, &b.buffer, &b.offset, &b.size);
      if (p.kind == PlannedBinding::kStaging) {
        staging_uses_[static_cast<size_t>(p.index)].emplace_back(static_cast<uint32_t>(i),
                                                                 static_cast<uint32_t>(bound.bindings.size()));
      }
      bound.bindings.push_back(b);
    }
    for (const Uniform& u : d.uniforms) {
      GLint loc = bound.program->UniformLocation(u.name);
      if (loc >= 0) bound.uniforms.push_back({loc, u});  // -1: optimised away in this variant
    }
    // Set once here; again at a run only if another dispatch sharing the
    // program set its own since.
    for (const BoundUniform& u : bound.uniforms) SetUniform(bound.program->id(), u.location, u.value);
    bound.program->set_uniform_owner(bound.uniform_token);
    dispatches_.push_back(std::move(bound));
    info_.push_back({d.label, d.template_name, d.grid, d.workgroup, d.node, d.fused_nodes});
  }
  return OkStatus();
}

void GlSegment::ResolveBinding(const PlannedBinding& p, GLuint* buffer, GLintptr* offset, GLsizeiptr* size) const {
  *offset = 0;
  *size = 0;
  switch (p.kind) {
    case PlannedBinding::kArena:
      *buffer = arena_.id();
      *offset = static_cast<GLintptr>(p.offset);
      *size = static_cast<GLsizeiptr>(p.size);
      break;
    case PlannedBinding::kConstantTensor: *buffer = tensor_buffers_[static_cast<size_t>(p.index)].id(); break;
    case PlannedBinding::kOpConstant: *buffer = constant_buffers_[static_cast<size_t>(p.index)].id(); break;
    case PlannedBinding::kIndexFault: *buffer = index_fault_.id(); break;
    case PlannedBinding::kStaging: {
      const size_t k = static_cast<size_t>(p.index);
      *buffer = k < input_edges_.size() ? input_edges_[k].staging.id()
                                        : output_edges_[k - input_edges_.size()].staging.id();
      break;
    }
  }
}

StatusOr<Workgroup> GlSegment::FastestWorkgroup(const PlannedDispatch& d, const std::vector<Workgroup>& candidates,
                                                int repeats, int* timed) {
  for (const PlannedBinding& p : d.bindings) {
    GLuint buffer = 0;
    GLintptr offset = 0;
    GLsizeiptr size = 0;
    ResolveBinding(p, &buffer, &offset, &size);
    if (size > 0) {
      glBindBufferRange(GL_SHADER_STORAGE_BUFFER, p.point, buffer, offset, size);
    } else {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, p.point, buffer);
    }
  }
  Workgroup best = d.workgroup;
  uint64_t best_ns = UINT64_MAX;
  for (const Workgroup& wg : candidates) {
    GLD_ASSIGN_OR_RETURN(GlProgram program, CompileComputeProgram(d.label + " (tuning)", WithWorkgroup(d.source, wg)));
    for (const Uniform& u : d.uniforms) {
      const GLint loc = program.UniformLocation(u.name);
      if (loc >= 0) SetUniform(program.id(), loc, u);
    }
    glUseProgram(program.id());
    uint64_t fastest = UINT64_MAX;
    for (int r = 0; r < repeats; ++r) {
      glFinish();
      const Clock::time_point start = Clock::now();
      glDispatchCompute((d.grid[0] + wg[0] - 1) / wg[0], (d.grid[1] + wg[1] - 1) / wg[1],
                        (d.grid[2] + wg[2] - 1) / wg[2]);
      glFinish();
      fastest = std::min(fastest, ElapsedNs(start));
      CountWorkgroupTimingRun();
      ++*timed;
    }
    glUseProgram(0);
    if (fastest < best_ns) {
      best_ns = fastest;
      best = wg;
    }
  }
  GLD_RETURN_IF_ERROR(CheckGlError("timing workgroups of", d.label));
  return best;
}

StatusOr<int> GlSegment::TimeWorkgroups(const SegmentPlan& plan, const GlInfo& limits, WorkgroupTuning* tuning,
                                        int repeats) {
  GlEnvironment::ScopedCurrent current(env_);
  GLD_RETURN_IF_ERROR(current.status());
  int timed = 0;
  for (const PlannedDispatch& d : plan.dispatches) {
    if (!d.tunable) continue;
    const std::vector<Workgroup> candidates = CandidateWorkgroups(d.grid, d.workgroup, limits);
    GLD_ASSIGN_OR_RETURN(Workgroup best, FastestWorkgroup(d, candidates, repeats, &timed));
    tuning->best[d.tuning_key] = best;
    Log().debug("GL: {}: workgroup {}x{}x{} of {} candidates", d.label, best[0], best[1], best[2], candidates.size());
  }
  // The timing dispatches are outside the checked command list (glFinish
  // orders no memory): their writes are made visible to whatever comes
  // next, a Run's copies into the arena included.
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  return timed;
}

Status GlSegment::StartTimers(const GlInfo& info, const GlSegmentRunOptions& options) {
  measure_gpu_time_ = options.measure_gpu_time;
  trace_ = options.trace;
  if (options.profile_dispatches) {
    profiling_ = true;
    profile_.dispatch_ns.assign(dispatches_.size(), 0);
    if (info.timer_query) {
      for (size_t i = 0; i < dispatches_.size(); ++i) {
        GLD_ASSIGN_OR_RETURN(GlTimerQuery q, GlTimerQuery::Create());
        dispatch_timers_.push_back(std::move(q));
      }
      profile_.gpu_timer = true;
    }
  } else if (measure_gpu_time_ && info.timer_query) {
    GLD_ASSIGN_OR_RETURN(timer_, GlTimerQuery::Create());
  }
  return OkStatus();
}

Status GlSegment::CheckHostBuffers(const std::vector<HostInput>& inputs,
                                   const std::vector<HostOutput>& outputs) const {
  if (inputs.size() != input_edges_.size() || outputs.size() != output_edges_.size()) {
    return InvalidArgumentError(label_ + ": Run got " + std::to_string(inputs.size()) + " inputs and " +
                                std::to_string(outputs.size()) + " outputs, expects " +
                                std::to_string(input_edges_.size()) + " and " +
                                std::to_string(output_edges_.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool on_gpu = inputs[i].buffer != 0 || inputs[i].texture != nullptr;
    if (inputs[i].bytes != input_edges_[i].bytes || (inputs[i].data == nullptr && inputs[i].bytes > 0 && !on_gpu)) {
      return InvalidArgumentError(label_ + ": input " + std::to_string(i) + " (tensor " +
                                  std::to_string(input_edges_[i].tensor) + ") has " +
                                  std::to_string(inputs[i].bytes) + " bytes, expects " +
                                  std::to_string(input_edges_[i].bytes));
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const bool on_gpu = outputs[i].buffer != 0 || outputs[i].keep_on_gpu;
    if (outputs[i].bytes != output_edges_[i].bytes || (outputs[i].data == nullptr && outputs[i].bytes > 0 && !on_gpu)) {
      return InvalidArgumentError(label_ + ": output " + std::to_string(i) + " (tensor " +
                                  std::to_string(output_edges_[i].tensor) + ") has " +
                                  std::to_string(outputs[i].bytes) + " bytes, expects " +
                                  std::to_string(output_edges_[i].bytes));
    }
  }
  return OkStatus();
}

void GlSegment::SetDispatchState(size_t i) const {
  const BoundDispatch& s = dispatches_[i];
  if (s.use_program) glUseProgram(s.program->id());
  if (s.program->uniform_owner() != s.uniform_token) {
    for (const BoundUniform& u : s.uniforms) SetUniform(s.program->id(), u.location, u.value);
    s.program->set_uniform_owner(s.uniform_token);
  }
  for (const BoundDispatch::Binding& b : s.bindings) {
    if (b.size > 0) {
      glBindBufferRange(GL_SHADER_STORAGE_BUFFER, b.point, b.buffer, b.offset, b.size);
    } else {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b.point, b.buffer);
    }
  }
}

void GlSegment::Barrier(GLbitfield bits) const {
  glMemoryBarrier(bits);
  if (command_log_ != nullptr) LogCommand(("barrier " + BarrierBitNames(bits)).c_str());
}

void GlSegment::IssueDispatch(size_t i) const {
  const BoundDispatch& s = dispatches_[i];
  if (s.barrier_bits != 0) Barrier(s.barrier_bits);
  SetDispatchState(i);
  glDispatchCompute(s.groups[0], s.groups[1], s.groups[2]);
  const bool empty = s.groups[0] == 0 || s.groups[1] == 0 || s.groups[2] == 0;
  LogCommand("dispatch", static_cast<long>(i), empty ? " (no workgroups)" : "");
}

uint64_t GlSegment::IssueAll() const {
  uint64_t in_calls_ns = 0;
  for (size_t i = 0; i < dispatches_.size(); ++i) {
    const BoundDispatch& s = dispatches_[i];
    SetDispatchState(i);
    const uint64_t call = ThreadCpuNs();
    if (s.barrier_bits != 0) glMemoryBarrier(s.barrier_bits);
    glDispatchCompute(s.groups[0], s.groups[1], s.groups[2]);
    in_calls_ns += ThreadCpuNs() - call;
    if (command_log_ != nullptr) {
      if (s.barrier_bits != 0) LogCommand(("barrier " + BarrierBitNames(s.barrier_bits)).c_str());
      const bool empty = s.groups[0] == 0 || s.groups[1] == 0 || s.groups[2] == 0;
      LogCommand("dispatch", static_cast<long>(i), empty ? " (no workgroups)" : "");
    }
  }
  return in_calls_ns;
}

Status GlSegment::Run(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs, bool async) {
  GLD_RETURN_IF_ERROR(CheckHostBuffers(inputs, outputs));
  GlEnvironment::ScopedCurrent current(env_);
  GLD_RETURN_IF_ERROR(current.status());
  GLD_RETURN_IF_ERROR(CheckBoundBuffers(inputs, outputs));
  PointEdgeBindings(inputs, outputs);
  if (index_fault_unread_) {
    index_fault_unread_ = false;
    GLD_RETURN_IF_ERROR(CheckIndexFault("in the previous (async) run: "));
  }
  GLD_RETURN_IF_ERROR(profiling_ ? RunProfiled(inputs, outputs) : RunTimed(inputs, outputs));
  if (async) {
    index_fault_unread_ = !index_fault_nodes_.empty();
  } else {
    GLD_RETURN_IF_ERROR(CheckIndexFault(""));
  }
  bool bound_output = false;
  for (const HostOutput& o : outputs) bound_output = bound_output || o.buffer != 0 || o.keep_on_gpu;
  if (bound_output) {
    // The app reads its buffer in its own way (a shader, a vertex fetch, a
    // map): every kind of access sees the writes.
    Barrier(kHandOffBarrierBits);
    if (!async) glFinish();
    return CheckGlError("finishing", label_);
  }
  return OkStatus();
}

Status GlSegment::CheckBoundBuffers(const std::vector<HostInput>& inputs,
                                     const std::vector<HostOutput>& outputs) const {
  auto check = [&](GLuint buffer, const Edge& edge) {
    if (buffer == 0 || glIsBuffer(buffer) == GL_TRUE) return OkStatus();
    return InvalidArgumentError(label_ + ": GL buffer " + std::to_string(buffer) + " bound to tensor '" + edge.name +
                                "' is not a buffer object any more (deleted by the app?)");
  };
  for (size_t i = 0; i < inputs.size(); ++i) GLD_RETURN_IF_ERROR(check(inputs[i].buffer, input_edges_[i]));
  for (size_t i = 0; i < outputs.size(); ++i) GLD_RETURN_IF_ERROR(check(outputs[i].buffer, output_edges_[i]));
  return OkStatus();
}

void GlSegment::PointEdgeBindings(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) {
  for (size_t k = 0; k < staging_uses_.size(); ++k) {
    GLuint buffer = 0;
    bool phwc4 = false;
    if (k < inputs.size()) {
      phwc4 = inputs[k].phwc4 && inputs[k].buffer != 0;
      buffer = inputs[k].buffer != 0 && !phwc4 ? inputs[k].buffer : input_edges_[k].staging.id();
    } else {
      const size_t o = k - inputs.size();
      phwc4 = outputs[o].phwc4 && outputs[o].buffer != 0;
      buffer = outputs[o].buffer != 0 && !phwc4 ? outputs[o].buffer : output_edges_[o].staging.id();
    }
    for (const auto& [d, b] : staging_uses_[k]) dispatches_[d].bindings[b].buffer = buffer;
    // A skipped conversion still sets its program and bindings (dispatches
    // after it rely on them) but runs no workgroup.
    BoundDispatch& conversion = dispatches_[edge_tensors_[k].dispatch];
    conversion.groups = phwc4 ? std::array<uint32_t, 3>{0, 0, 0} : conversion.planned_groups;
  }
}

void GlSegment::CopyArena(GLuint app_buffer, const EdgeTensor& range, bool to_arena) const {
  GLint read = 0, write = 0;
  glGetIntegerv(GL_COPY_READ_BUFFER_BINDING, &read);
  glGetIntegerv(GL_COPY_WRITE_BUFFER_BINDING, &write);
  glBindBuffer(GL_COPY_READ_BUFFER, to_arena ? app_buffer : arena_.id());
  glBindBuffer(GL_COPY_WRITE_BUFFER, to_arena ? arena_.id() : app_buffer);
  glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, to_arena ? 0 : range.offset,
                      to_arena ? range.offset : 0, range.bytes);
  glBindBuffer(GL_COPY_READ_BUFFER, static_cast<GLuint>(read));
  glBindBuffer(GL_COPY_WRITE_BUFFER, static_cast<GLuint>(write));
}

Status GlSegment::UploadInputs(const std::vector<HostInput>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].texture != nullptr) {
      GLD_RETURN_IF_ERROR(RunTextureInput(i, *inputs[i].texture));
      LogCommand("texture dispatch");
    } else if (inputs[i].phwc4 && inputs[i].buffer != 0) {
      CopyArena(inputs[i].buffer, edge_tensors_[i], true);
      LogCommand("copy app", static_cast<long>(i), " -> arena");
    } else if (inputs[i].buffer == 0) {
      GLD_RETURN_IF_ERROR(input_edges_[i].staging.Write(0, inputs[i].data, inputs[i].bytes));
      LogCommand("upload staging", static_cast<long>(i));
    }
  }
  return OkStatus();
}

// One dispatch of glsl/texture_to_bhwc.comp into the input's staging buffer,
// the texture on the active texture unit (the state the app's context gets
// back). The first dispatch of the segment's run puts a barrier after it.
Status GlSegment::RunTextureInput(size_t edge, const TextureSource& texture) {
  const Workgroup wg = {8, 8, 1};
  if (texture_program_.id() == 0) {
    // The source the hazard check read (gl/issued_commands.h).
    GLD_ASSIGN_OR_RETURN(std::string source, TextureInputSource());
    GLD_ASSIGN_OR_RETURN(texture_program_, CompileComputeProgram(label_ + ": texture input", source));
  }
  GLD_ASSIGN_OR_RETURN(Texture2DFacts facts, Texture2DObjectFacts(texture.texture));
  const size_t pixels = static_cast<size_t>(facts.width) * static_cast<size_t>(facts.height);
  const size_t channels = pixels == 0 ? 0 : input_edges_[edge].bytes / sizeof(float) / pixels;
  if (pixels == 0 || channels == 0 || channels > 4 || channels * pixels * sizeof(float) != input_edges_[edge].bytes) {
    return InvalidArgumentError(label_ + ": texture " + std::to_string(texture.texture) + " (" +
                                std::to_string(facts.width) + "x" + std::to_string(facts.height) +
                                ") does not fit input tensor " + std::to_string(input_edges_[edge].tensor));
  }
  GLint unit = GL_TEXTURE0;
  glGetIntegerv(GL_ACTIVE_TEXTURE, &unit);
  const GLuint p = texture_program_.id();
  glUseProgram(p);
  glBindTexture(GL_TEXTURE_2D, texture.texture);
  glProgramUniform1i(p, texture_program_.UniformLocation("u_texture"), unit - GL_TEXTURE0);
  glProgramUniform3i(p, texture_program_.UniformLocation("u_grid"), facts.width, facts.height, 1);
  glProgramUniform1i(p, texture_program_.UniformLocation("u_channels"), static_cast<GLint>(channels));
  glProgramUniform4fv(p, texture_program_.UniformLocation("u_scale"), 1, texture.scale);
  glProgramUniform4fv(p, texture_program_.UniformLocation("u_offset"), 1, texture.offset);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, input_edges_[edge].staging.id());
  glDispatchCompute((static_cast<GLuint>(facts.width) + wg[0] - 1) / wg[0],
                    (static_cast<GLuint>(facts.height) + wg[1] - 1) / wg[1], 1);
  glBindTexture(GL_TEXTURE_2D, 0);
  return CheckGlError("converting texture input of", label_);
}

Status GlSegment::DownloadOutputs(const std::vector<HostOutput>& outputs) const {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].keep_on_gpu && outputs[i].data == nullptr) continue;
    const long edge = static_cast<long>(input_edges_.size() + i);
    if (outputs[i].phwc4 && outputs[i].buffer != 0) {
      CopyArena(outputs[i].buffer, edge_tensors_[input_edges_.size() + i], false);
      LogCommand("copy arena -> app", edge);
      continue;
    }
    if (outputs[i].buffer == 0) {  // kept on the GPU too when a later step reads it
      GLD_RETURN_IF_ERROR(output_edges_[i].staging.Read(0, outputs[i].data, outputs[i].bytes));
      LogCommand("readback staging", edge);
    } else if (outputs[i].data != nullptr) {
      GLD_RETURN_IF_ERROR(ReadBufferObject(outputs[i].buffer, 0, outputs[i].data, outputs[i].bytes));
      LogCommand("readback app", edge);
    }
  }
  return OkStatus();
}

Status GlSegment::CheckIndexFault(const std::string& when) {
  if (index_fault_.id() == 0) return OkStatus();
  // After the run's readback barrier (GL_BUFFER_UPDATE_BARRIER_BIT): the
  // mapped read sees the shaders' writes.
  std::array<int32_t, 4> record = kNoIndexFault;  // reported, node, value, bound
  GLD_RETURN_IF_ERROR(index_fault_.Read(0, record.data(), sizeof(record)));
  if (record[0] == 0) return OkStatus();
  GLD_RETURN_IF_ERROR(index_fault_.Write(0, kNoIndexFault.data(), sizeof(kNoIndexFault)));
  auto named = std::find_if(index_fault_nodes_.begin(), index_fault_nodes_.end(),
                            [&](const std::pair<int, std::string>& n) { return n.first == record[1]; });
  const std::string node = named != index_fault_nodes_.end() ? named->second : "node " + std::to_string(record[1]);
  return InvalidArgumentError(when + node + ": index " + std::to_string(record[2]) + " out of range [0, " +
                              std::to_string(record[3]) + ")");
}

Status GlSegment::RunTimed(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) {
  GLD_RETURN_IF_ERROR(UploadInputs(inputs));
  const bool use_timer = measure_gpu_time_ && timer_.valid();
  Clock::time_point start;
  if (measure_gpu_time_) {
    if (use_timer) {
      timer_.Begin();
    } else {
      glFinish();
      start = Clock::now();
    }
  }
  const uint64_t issue_cpu_start = ThreadCpuNs();
  const Clock::time_point issue_start = Clock::now();
  issue_cost_.dispatch_call_cpu_ns += IssueAll();
  issue_cost_.wall_ns += ElapsedNs(issue_start);
  issue_cost_.cpu_ns += ThreadCpuNs() - issue_cpu_start;
  issue_cost_.dispatches += static_cast<int64_t>(dispatches_.size());
  ++issue_cost_.runs;
  if (measure_gpu_time_) {
    if (use_timer) {
      timer_.End();
    } else {
      glFinish();
      last_gpu_ns_ = ElapsedNs(start);
    }
  }
  Barrier(kReadbackBarrierBits);
  glUseProgram(0);
  GLD_RETURN_IF_ERROR(CheckGlError("running", label_));
  GLD_RETURN_IF_ERROR(DownloadOutputs(outputs));
  if (use_timer) {
    auto ns = timer_.ElapsedNs();
    last_gpu_ns_ = ns.ok() ? *ns : 0;
  }
  return OkStatus();
}

Status GlSegment::RunProfiled(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) {
  RunTimes t;
  glFinish();
  t.upload_start = Clock::now();
  GLD_RETURN_IF_ERROR(UploadInputs(inputs));
  glFinish();
  t.upload_ns = ElapsedNs(t.upload_start);
  t.dispatches_start = Clock::now();
  std::vector<uint64_t> run_ns(dispatches_.size(), 0);
  if (trace_ != nullptr && !profile_.gpu_timer) t.dispatch_start.resize(dispatches_.size());
  for (size_t i = 0; i < dispatches_.size(); ++i) {
    if (profile_.gpu_timer) {
      dispatch_timers_[i].Begin();
      IssueDispatch(i);
      dispatch_timers_[i].End();
    } else {
      glFinish();
      const Clock::time_point dispatch_start = Clock::now();
      IssueDispatch(i);
      glFinish();
      run_ns[i] = ElapsedNs(dispatch_start);
      if (!t.dispatch_start.empty()) t.dispatch_start[i] = dispatch_start;
    }
  }
  Barrier(kReadbackBarrierBits);
  glUseProgram(0);
  GLD_RETURN_IF_ERROR(CheckGlError("running", label_));
  glFinish();  // the download alone, not the wait for the dispatches
  t.download_start = Clock::now();
  const uint64_t dispatches_wall_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.download_start - t.dispatches_start).count());
  GLD_RETURN_IF_ERROR(DownloadOutputs(outputs));
  t.download_ns = ElapsedNs(t.download_start);
  const bool timer = profile_.gpu_timer;
  if (!CollectDispatchTimes(dispatches_wall_ns, &run_ns)) return OkStatus();
  if (trace_ != nullptr && timer == profile_.gpu_timer) TraceRun(t, run_ns, inputs, outputs);
  uint64_t total = 0;
  for (size_t i = 0; i < dispatches_.size(); ++i) {
    profile_.dispatch_ns[i] += run_ns[i];
    total += run_ns[i];
  }
  profile_.upload_ns += t.upload_ns;
  profile_.download_ns += t.download_ns;
  ++profile_.runs;
  if (measure_gpu_time_) last_gpu_ns_ = total;
  return OkStatus();
}

void GlSegment::TraceRun(const RunTimes& times, const std::vector<uint64_t>& run_ns,
                         const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) const {
  TraceRecorder& trace = *trace_;
  const int host = trace.ThreadTrack();
  const int gpu = trace.NamedTrack("GPU (GL dispatches)");
  uint64_t up = 0, down = 0;
  for (const HostInput& in : inputs) {
    if (in.buffer == 0 && in.texture == nullptr) up += in.bytes;
  }
  for (const HostOutput& out : outputs) {
    if (out.data != nullptr && !(out.phwc4 && out.buffer != 0)) down += out.bytes;
  }
  using TR = TraceRecorder;
  trace.Complete(label_ + ": upload", "transfer", trace.Micros(times.upload_start),
                 static_cast<double>(times.upload_ns) / 1000.0, host,
                 {TR::Number("bytes", static_cast<double>(up)), TR::Text("segment", label_),
                  TR::Text("timing", "wall time of the staging writes, between glFinish calls")});
  const bool timer = times.dispatch_start.empty();
  const char* timing = timer ? "gpu_timer: GPU time from GL_EXT_disjoint_timer_query; placed after the previous dispatch"
                             : "gl_finish: wall time between glFinish calls (no usable GPU timer)";
  double next_us = trace.Micros(times.dispatches_start);
  for (size_t i = 0; i < info_.size() && i < run_ns.size(); ++i) {
    const DispatchInfo& d = info_[i];
    const double ts = timer ? next_us : trace.Micros(times.dispatch_start[i]);
    const double dur = static_cast<double>(run_ns[i]) / 1000.0;
    next_us = ts + dur;
    const std::array<uint32_t, 3>& g = dispatches_[i].groups;
    trace.Complete(d.label, d.node >= 0 ? "gl_dispatch" : "gl_conversion", ts, dur, gpu,
                   {TR::Text("timing", timing), TR::Text("segment", label_), TR::Number("dispatch", static_cast<double>(i)),
                    TR::Number("node", d.node), TR::Text("template", d.template_name),
                    TR::Text("workgroups", std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2])),
                    TR::Text("local_size", std::to_string(d.workgroup[0]) + "x" + std::to_string(d.workgroup[1]) + "x" +
                                               std::to_string(d.workgroup[2]))});
  }
  trace.Complete(label_ + ": download", "transfer", trace.Micros(times.download_start),
                 static_cast<double>(times.download_ns) / 1000.0, host,
                 {TR::Number("bytes", static_cast<double>(down)), TR::Text("segment", label_),
                  TR::Text("timing", "wall time of the staging reads, after the GPU finished")});
}

// Reads the timer queries into `run_ns` (when timed by them); false when
// this run's times are to be dropped.
bool GlSegment::CollectDispatchTimes(uint64_t dispatches_wall_ns, std::vector<uint64_t>* run_ns) {
  if (!profile_.gpu_timer) return true;
  for (size_t i = 0; i < dispatches_.size(); ++i) {
    auto ns = dispatch_timers_[i].ElapsedNs();
    if (!ns.ok()) {
      Log().debug("GL: {}: profile of this run dropped: {}", label_, ns.status().message());
      return false;
    }
    (*run_ns)[i] = *ns;
  }
  // Some drivers (llvmpipe) expose the timer but do not time compute
  // work with it; then the dispatches' wall time between glFinish calls
  // is the better measure.
  uint64_t timed = 0;
  for (uint64_t ns : *run_ns) timed += ns;
  if (timed * 1000 < dispatches_wall_ns) {
    Log().info("GL: {}: timer queries report {} ns for {} ns of dispatches; timing each dispatch between "
               "glFinish calls instead",
               label_, timed, dispatches_wall_ns);
    profile_.gpu_timer = false;
    return false;
  }
  return true;
}

void GlSegment::ResetProfile() {
  std::fill(profile_.dispatch_ns.begin(), profile_.dispatch_ns.end(), 0);
  profile_.upload_ns = profile_.download_ns = 0;
  profile_.runs = 0;
  issue_cost_ = IssueCost{};
}

void GlSegment::ReleaseGl() {
  texture_program_.Reset();
  input_edges_.clear();
  output_edges_.clear();
  tensor_buffers_.clear();
  constant_buffers_.clear();
  arena_.Reset();
  index_fault_.Reset();
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
    index_fault_.Abandon();
    for (Edge& e : input_edges_) e.staging.Abandon();
    for (Edge& e : output_edges_) e.staging.Abandon();
    timer_.Abandon();
    texture_program_.Abandon();
    for (GlTimerQuery& q : dispatch_timers_) q.Abandon();
    return;
  }
  ReleaseGl();
}

}  // namespace gld::gl
