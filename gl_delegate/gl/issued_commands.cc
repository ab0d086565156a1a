#include "gl/issued_commands.h"

#include <utility>

#include "gl/codegen/shader_generator.h"

namespace gld::gl {

namespace {

// Writes the commands of one Run (GlSegment::Run with RunTimed's steps).
class RunWriter {
 public:
  RunWriter(const SegmentPlan& plan, const RunIo& io, const std::string* texture_source, std::string prefix,
            std::vector<GlCommand>* out)
      : plan_(plan), io_(io), texture_(texture_source), prefix_(std::move(prefix)), out_(out) {
    FindEdgeTensors();
  }

  void Write() {
    GlCommand start;
    start.kind = GlCommand::kRunStart;
    Emit(start, "run starts");
    Uploads();
    Dispatches();
    Emit(Barrier(kReadbackBarrierBits), "barrier before the readbacks");
    Downloads();
  }

 private:
  size_t inputs() const { return io_.inputs.size(); }
  EdgeIo ModeOf(size_t edge) const {
    return edge < inputs() ? io_.inputs[edge] : io_.outputs[edge - inputs()];
  }
  std::string EdgeName(size_t edge) const {
    const std::string name = edge < plan_.edges.size() ? plan_.edges[edge].name : std::to_string(edge);
    return (edge < inputs() ? "input '" : "output '") + name + "'";
  }
  GlResource Staging(size_t edge) const {
    return {GlResource::kStaging, static_cast<int>(edge), "staging buffer of " + EdgeName(edge)};
  }
  // An output sharing an input's buffer names the input edge's resource.
  GlResource App(size_t edge) const {
    const size_t o = edge - inputs();
    if (edge >= inputs() && o < io_.output_shares_input.size() && io_.output_shares_input[o] >= 0) {
      const auto in = static_cast<size_t>(io_.output_shares_input[o]);
      return {GlResource::kAppBuffer, static_cast<int>(in),
              "app buffer bound to " + EdgeName(in) + " and " + EdgeName(edge)};
    }
    return {GlResource::kAppBuffer, static_cast<int>(edge), "app buffer bound to " + EdgeName(edge)};
  }
  static GlResource Arena() { return {GlResource::kArena, 0, "tensor arena"}; }
  static ResourceRange Whole(GlResource r) { return {std::move(r), 0, 0, ""}; }

  // Per edge, the arena range of its tensor and its conversion dispatch
  // (as GlSegment::BindDispatches finds them).
  void FindEdgeTensors() {
    edge_range_.assign(plan_.edges.size(), ResourceRange{Arena(), 0, 0, ""});
    edge_dispatch_.assign(plan_.edges.size(), -1);
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
      for (const PlannedBinding& p : plan_.dispatches[i].bindings) {
        if (p.kind != PlannedBinding::kStaging || static_cast<size_t>(p.index) >= plan_.edges.size()) continue;
        const size_t k = static_cast<size_t>(p.index);
        edge_dispatch_[k] = static_cast<int>(i);
        for (const PlannedBinding& a : plan_.dispatches[i].bindings) {
          if (a.kind == PlannedBinding::kArena) {
            edge_range_[k] = {Arena(), a.offset, a.size, "tensor " + std::to_string(a.index)};
          }
        }
      }
    }
  }

  void Emit(GlCommand c, const std::string& label) {
    c.label = prefix_ + label;
    out_->push_back(std::move(c));
  }
  static GlCommand Barrier(uint32_t bits) {
    GlCommand c;
    c.kind = GlCommand::kBarrier;
    c.barrier_bits = bits;
    return c;
  }
  static GlCommand Access(GlCommand::Kind kind, ResourceRange range) {
    GlCommand c;
    c.kind = kind;
    c.range = std::move(range);
    return c;
  }

  void Uploads() {
    for (size_t k = 0; k < inputs(); ++k) {
      switch (io_.inputs[k]) {
        case EdgeIo::kAppTexture: TextureInput(k); break;
        case EdgeIo::kAppPhwc4: {
          GlCommand c = Access(GlCommand::kCopy, edge_range_[k]);
          c.copy_source = {App(k), 0, edge_range_[k].size, ""};
          Emit(c, "copy of " + EdgeName(k) + " from the app's PHWC4 buffer into the arena");
          break;
        }
        case EdgeIo::kHost: Emit(Access(GlCommand::kHostWrite, Whole(Staging(k))), "upload of " + EdgeName(k)); break;
        default: break;  // the app's buffer is bound in place of the staging buffer
      }
    }
  }

  // GlSegment::RunTextureInput: the texture on the active unit, the staging
  // buffer at point 0, one dispatch, the texture unbound.
  void TextureInput(size_t k) {
    GlCommand tex = Access(GlCommand::kBindTexture,
                           Whole({GlResource::kAppTexture, static_cast<int>(k), "app texture bound to " + EdgeName(k)}));
    Emit(tex, "bind the texture of " + EdgeName(k));
    GlCommand bind = Access(GlCommand::kBindStorage, Whole(Staging(k)));
    Emit(bind, "bind the staging buffer of " + EdgeName(k));
    GlCommand d;
    d.kind = GlCommand::kDispatch;
    d.source = texture_;
    Emit(d, "texture_to_bhwc.comp for " + EdgeName(k));
    GlCommand unbind;
    unbind.kind = GlCommand::kBindTexture;
    unbind.unbind = true;
    Emit(unbind, "unbind the texture of " + EdgeName(k));
  }

  ResourceRange Resolve(const PlannedBinding& b) const {
    const size_t k = static_cast<size_t>(b.index);
    switch (b.kind) {
      case PlannedBinding::kArena: return {Arena(), b.offset, b.size, "tensor " + std::to_string(b.index)};
      case PlannedBinding::kConstantTensor:
        return Whole({GlResource::kConstantTensor, b.index, "constant tensor '" + plan_.constant_tensors[k].name + "'"});
      case PlannedBinding::kOpConstant: return Whole({GlResource::kOpConstant, b.index, plan_.op_constants[k].name});
      case PlannedBinding::kStaging: return Whole(ModeOf(k) == EdgeIo::kAppBuffer ? App(k) : Staging(k));
      case PlannedBinding::kIndexFault: return Whole({GlResource::kIndexFault, 0, "index-fault record"});
    }
    return Whole(Arena());
  }

  void Dispatches() {
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
      const PlannedDispatch& d = plan_.dispatches[i];
      for (uint32_t r : d.rebind) {
        GlCommand bind = Access(GlCommand::kBindStorage, Resolve(d.bindings[r]));
        bind.point = d.bindings[r].point;
        Emit(bind, "bind point " + std::to_string(bind.point) + " for '" + d.label + "'");
      }
      if (d.barrier_before) Emit(Barrier(kDispatchBarrierBits), "barrier before '" + d.label + "'");
      GlCommand c;
      c.kind = GlCommand::kDispatch;
      c.source = &d.source;
      c.plan_dispatch = static_cast<int>(i);
      c.runs_workgroups = d.groups[0] > 0 && d.groups[1] > 0 && d.groups[2] > 0;
      for (size_t k = 0; k < edge_dispatch_.size(); ++k) {
        if (edge_dispatch_[k] == static_cast<int>(i) && ModeOf(k) == EdgeIo::kAppPhwc4) c.runs_workgroups = false;
      }
      Emit(c, d.label);
    }
  }

  void Downloads() {
    std::vector<ResourceRange> handed;
    for (size_t o = 0; o < io_.outputs.size(); ++o) {
      const size_t k = inputs() + o;
      switch (io_.outputs[o]) {
        case EdgeIo::kAppPhwc4: {
          GlCommand c = Access(GlCommand::kCopy, {App(k), 0, edge_range_[k].size, ""});
          c.copy_source = edge_range_[k];
          Emit(c, "copy of " + EdgeName(k) + " from the arena into the app's PHWC4 buffer");
          handed.push_back(Whole(App(k)));
          break;
        }
        case EdgeIo::kAppBuffer:
          Emit(Access(GlCommand::kHostRead, Whole(App(k))), "readback of " + EdgeName(k) + " from the app's buffer");
          handed.push_back(Whole(App(k)));
          break;
        case EdgeIo::kKeepOnGpu:
          Emit(Access(GlCommand::kHostRead, Whole(Staging(k))), "readback of " + EdgeName(k));
          handed.push_back(Whole(Staging(k)));
          break;
        default: Emit(Access(GlCommand::kHostRead, Whole(Staging(k))), "readback of " + EdgeName(k)); break;
      }
    }
    if (handed.empty()) return;
    Emit(Barrier(kHandOffBarrierBits), "barrier before handing the outputs to the app");
    for (ResourceRange& r : handed) {
      const std::string name = r.resource.name;
      Emit(Access(GlCommand::kAppAccess, std::move(r)), "the app uses " + name);
    }
  }

  const SegmentPlan& plan_;
  const RunIo& io_;
  const std::string* texture_;
  const std::string prefix_;
  std::vector<GlCommand>* out_;
  std::vector<ResourceRange> edge_range_;
  std::vector<int> edge_dispatch_;
};

size_t InputEdges(const SegmentPlan& plan) {
  size_t n = 0;
  for (const EdgeConversion& e : plan.edges) n += e.to_gpu ? 1 : 0;
  return n;
}

std::string ResourceWord(const GlResource& r) {
  switch (r.kind) {
    case GlResource::kStaging: return "staging " + std::to_string(r.index);
    case GlResource::kAppBuffer: return "app " + std::to_string(r.index);
    case GlResource::kArena: return "arena";
    default: return r.name;
  }
}

}  // namespace

StatusOr<std::string> TextureInputSource() {
  static const StatusOr<std::string> source = [] {
    ShaderSpec spec;
    spec.template_name = "texture_to_bhwc.comp";
    return GenerateShader(spec, Precision::kFp32, Workgroup{8, 8, 1});
  }();
  return source;
}

std::vector<GlCommand> IssuedCommands(const SegmentPlan& plan, const RunIo& io, const std::string* texture_source,
                                      int runs) {
  std::vector<GlCommand> out;
  for (int r = 0; r < runs; ++r) {
    RunWriter(plan, io, texture_source, r == 0 ? "" : "run " + std::to_string(r + 1) + ": ", &out).Write();
  }
  return out;
}

std::vector<RunIo> CheckedRunIos(const SegmentPlan& plan) {
  const size_t ins = InputEdges(plan), outs = plan.edges.size() - ins;
  auto shape = [&](EdgeIo in, EdgeIo out, const char* name) {
    return RunIo{std::vector<EdgeIo>(ins, in), std::vector<EdgeIo>(outs, out), name};
  };
  return {shape(EdgeIo::kHost, EdgeIo::kHost, "host I/O"),
          shape(EdgeIo::kAppBuffer, EdgeIo::kAppBuffer, "app buffers bound"),
          shape(EdgeIo::kAppPhwc4, EdgeIo::kAppPhwc4, "PHWC4 app buffers bound"),
          shape(EdgeIo::kAppTexture, EdgeIo::kKeepOnGpu, "texture inputs, outputs kept on the GPU")};
}

StatusOr<std::vector<uint32_t>> CheckedDispatchBarriers(const SegmentPlan& plan) {
  GLD_ASSIGN_OR_RETURN(std::string texture, TextureInputSource());
  ShaderInterfaceCache interfaces;
  for (const RunIo& io : CheckedRunIos(plan)) {
    GLD_RETURN_IF_ERROR(
        CheckHazards(IssuedCommands(plan, io, &texture, 2), plan.label + " (" + io.name + ")", &interfaces));
  }
  std::vector<uint32_t> bits(plan.dispatches.size(), 0);
  uint32_t pending = 0;
  for (const GlCommand& c : IssuedCommands(plan, CheckedRunIos(plan).front(), &texture, 1)) {
    if (c.kind == GlCommand::kBarrier) pending |= c.barrier_bits;
    if (c.kind == GlCommand::kDispatch && c.plan_dispatch >= 0) {
      bits[static_cast<size_t>(c.plan_dispatch)] = pending;
      pending = 0;
    }
  }
  return bits;
}

Status CheckRunIo(const SegmentPlan& plan, const RunIo& io) {
  GLD_ASSIGN_OR_RETURN(std::string texture, TextureInputSource());
  return CheckHazards(IssuedCommands(plan, io, &texture, 2), plan.label + " (" + io.name + ")");
}

std::vector<std::string> DescribeCommands(const std::vector<GlCommand>& commands) {
  std::vector<std::string> lines;
  for (const GlCommand& c : commands) {
    switch (c.kind) {
      case GlCommand::kBarrier: lines.push_back("barrier " + BarrierBitNames(c.barrier_bits)); break;
      case GlCommand::kDispatch:
        lines.push_back(c.plan_dispatch < 0 ? std::string("texture dispatch")
                                            : "dispatch " + std::to_string(c.plan_dispatch) +
                                                  (c.runs_workgroups ? "" : " (no workgroups)"));
        break;
      case GlCommand::kHostWrite: lines.push_back("upload " + ResourceWord(c.range.resource)); break;
      case GlCommand::kHostRead: lines.push_back("readback " + ResourceWord(c.range.resource)); break;
      case GlCommand::kCopy:
        lines.push_back("copy " + ResourceWord(c.copy_source.resource) + " -> " + ResourceWord(c.range.resource));
        break;
      default: break;  // binds, run starts and the app's own accesses are not logged
    }
  }
  return lines;
}

}  // namespace gld::gl
