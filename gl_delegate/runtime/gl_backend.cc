#include "runtime/gl_backend.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "gl/cache/binary_cache.h"
#include "gl/cache/program_cache.h"
#include "gl/codegen/support.h"
#include "gl/egl/driver_cache.h"
#include "gl/gl_device.h"
#include "gl/gl_segment.h"
#include "gl/issued_commands.h"
#include "gl/segment_plan.h"
#include "partition/partition.h"
#include "runtime/step.h"

namespace gld::gl {

namespace {

// A limit of the driver's, or the minimum's where it is stricter (0: the
// driver did not say).
int64_t Least(int64_t driver, int64_t minimum) { return driver <= 0 ? minimum : std::min(driver, minimum); }

// The limits the plans are made for (Options::gl_limits): the driver's, or
// with every limit no larger than the GLES 3.1 minimum (an alignment no
// smaller), as the smallest conforming device has them.
GlInfo PlanningLimits(const GlInfo& driver, GlLimits which) {
  if (which == GlLimits::kDriver) return driver;
  const GlInfo m = MinimumGlLimits();
  GlInfo l = driver;
  l.max_compute_ssbo_blocks = static_cast<int>(Least(driver.max_compute_ssbo_blocks, m.max_compute_ssbo_blocks));
  l.max_ssbo_size = Least(driver.max_ssbo_size, m.max_ssbo_size);
  l.ssbo_offset_alignment = std::max(driver.ssbo_offset_alignment, m.ssbo_offset_alignment);
  l.max_workgroup_invocations =
      static_cast<int>(Least(driver.max_workgroup_invocations, m.max_workgroup_invocations));
  for (int k = 0; k < 3; ++k) {
    l.max_workgroup_size[k] = static_cast<int>(Least(driver.max_workgroup_size[k], m.max_workgroup_size[k]));
    l.max_workgroup_count[k] = static_cast<int>(Least(driver.max_workgroup_count[k], m.max_workgroup_count[k]));
  }
  return l;
}

// Totals over the segments a backend made, for the report.
struct SegmentStats {
  std::mutex mutex;
  int dispatches = 0;
  uint64_t gpu_bytes = 0;         // held: arena + constants + staging
  uint64_t gpu_bytes_naive = 0;   // the same with one object per tensor
  uint64_t gpu_bytes_lower_bound = 0;  // the same with the tensors' lower bound
  std::vector<std::string> unfused_elementwise;  // per segment, in order
  int tuned_dispatches = 0, workgroup_timing_runs = 0;
};

class GlSegmentStep : public Step {
 public:
  // `plan`: the segment's, without its constants' bytes (what the hazard
  // check of an app's bindings reads).
  GlSegmentStep(std::shared_ptr<GlDevice> device, const Graph& graph, std::unique_ptr<GlSegment> segment,
                std::string label, std::shared_ptr<const SegmentPlan> plan)
      : device_(std::move(device)),
        graph_(&graph),
        segment_(std::move(segment)),
        label_(std::move(label)),
        plan_(std::move(plan)) {}
  ~GlSegmentStep() override { segment_.reset(); }  // before the device

  std::string label() const override { return label_; }
  bool RunsOnGpu() const override { return true; }
  std::vector<int> host_inputs() const override { return segment_->input_tensors(); }
  std::vector<int> host_outputs() const override { return segment_->output_tensors(); }

  Status Run(StepContext& ctx) override {
    std::vector<GlSegment::HostInput>& ins = ins_;  // kept between runs: no allocation per Invoke
    std::vector<GlSegment::HostOutput>& outs = outs_;
    ins.clear();
    outs.clear();
    textures_.resize(segment_->input_tensors().size());
    for (int t : segment_->input_tensors()) {
      const cpu::TensorData* d = Storage(ctx, t);
      if (d == nullptr) return InternalError(label_ + ": no host storage for input tensor " + std::to_string(t));
      GlSegment::HostInput in{d->data, d->bytes};
      const TensorGlIo* io = Bound(ctx, t);
      if (io != nullptr && (io->buffer != 0 || io->texture != 0)) {
        in.buffer = io->buffer;
        in.phwc4 = io->phwc4;
        if (io->texture != 0) {
          GlSegment::TextureSource& tex = textures_[ins.size()];
          tex.texture = io->texture;
          std::copy(io->scale, io->scale + 4, tex.scale);
          std::copy(io->offset, io->offset + 4, tex.offset);
          in.texture = &tex;
        }
      } else {
        Count(ctx.uploaded_bytes, t, d->bytes);
      }
      ins.push_back(in);
    }
    for (int t : segment_->output_tensors()) {
      cpu::TensorData* d = Storage(ctx, t);
      if (d == nullptr) return InternalError(label_ + ": no host storage for output tensor " + std::to_string(t));
      GlSegment::HostOutput out{d->data, d->bytes};
      const TensorGlIo* io = Bound(ctx, t);
      if (io != nullptr && io->buffer != 0) {
        out.buffer = io->buffer;
        out.phwc4 = io->phwc4;
        if (!io->host_too) out.data = nullptr;
      } else if (io != nullptr && io->keep_on_gpu) {
        out.keep_on_gpu = true;
        if (!io->host_too) out.data = nullptr;
      }
      if (out.data != nullptr) Count(ctx.downloaded_bytes, t, d->bytes);
      outs.push_back(out);
    }
    Status s = segment_->Run(ins, outs, ctx.async);
    return s.ok() ? s : s.WithContext(label_);
  }

  // An output bound to the app buffer an input of this segment reads (a
  // cache updated in place): the commands of two runs with that buffer as
  // one resource, proved as Create proved the planned I/O shapes.
  Status CheckBoundIo(const std::vector<TensorGlIo>& gl_io) const override {
    const std::vector<int>& ins = segment_->input_tensors();
    const std::vector<int>& outs = segment_->output_tensors();
    auto bound = [&](int t) { return static_cast<size_t>(t) < gl_io.size() ? gl_io[static_cast<size_t>(t)] : TensorGlIo(); };
    RunIo io;
    io.name = "the app's bindings, an output sharing an input's buffer";
    bool shared = false;
    for (int t : ins) {
      const TensorGlIo b = bound(t);
      io.inputs.push_back(b.texture != 0  ? EdgeIo::kAppTexture
                          : b.buffer == 0 ? EdgeIo::kHost
                          : b.phwc4       ? EdgeIo::kAppPhwc4
                                          : EdgeIo::kAppBuffer);
    }
    for (int t : outs) {
      const TensorGlIo b = bound(t);
      io.outputs.push_back(b.keep_on_gpu   ? EdgeIo::kKeepOnGpu
                           : b.buffer == 0 ? EdgeIo::kHost
                           : b.phwc4       ? EdgeIo::kAppPhwc4
                                           : EdgeIo::kAppBuffer);
      int share = -1;
      for (size_t k = 0; k < ins.size() && b.buffer != 0; ++k) {
        if (bound(ins[k]).buffer == b.buffer) share = static_cast<int>(k);
      }
      shared = shared || share >= 0;
      io.output_shares_input.push_back(share);
    }
    if (!shared) return OkStatus();
    if (plan_ == nullptr || io.inputs.size() + io.outputs.size() != plan_->edges.size()) {
      return InternalError(label_ + ": its plan's edges do not match its inputs and outputs");
    }
    return CheckRunIo(*plan_, io);
  }

  uint32_t OutputGlBuffer(int tensor) const override {
    const std::vector<int>& outs = segment_->output_tensors();
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k] == tensor) return segment_->output_staging(k);
    }
    return 0;
  }

  bool ProfilesItself() const override { return segment_->profiling(); }
  void ResetProfile() override { segment_->ResetProfile(); }
  Status ResetVariables() override { return segment_->ResetVariables(); }
  void AddIssueStats(DispatchIssueStats* stats) const override {
    const IssueCost& c = segment_->issue_cost();
    stats->segment_runs += c.runs;
    stats->dispatches += c.dispatches;
    stats->issue_cpu_us += static_cast<double>(c.cpu_ns) / 1000.0;
    stats->issue_wall_us += static_cast<double>(c.wall_ns) / 1000.0;
    stats->dispatch_call_cpu_us += static_cast<double>(c.dispatch_call_cpu_ns) / 1000.0;
  }

  // One row per dispatch (op and fused names of its node; edge conversions
  // are "CONVERT"), then the segment's host transfers.
  void AppendProfile(std::vector<ProfileRow>* rows) const override {
    const SegmentProfile& p = segment_->profile();
    const auto& info = segment_->dispatch_info();
    const char* timing = p.gpu_timer ? "gpu_timer" : "gl_finish";
    for (size_t i = 0; i < info.size() && i < p.dispatch_ns.size(); ++i) {
      ProfileRow row;
      row.name = info[i].label;
      row.backend = "gl";
      if (info[i].node >= 0) {
        const Node& node = graph_->nodes[static_cast<size_t>(info[i].node)];
        row.op = NodeOpName(node);
        row.fused = node.fused_names;
      } else {
        row.op = "CONVERT";
      }
      row.time_us = static_cast<double>(p.dispatch_ns[i]) / 1000.0;
      row.count = p.runs;
      row.timing = timing;
      rows->push_back(std::move(row));
    }
    auto add_transfer = [&](const char* op, const char* what, uint64_t ns) {
      ProfileRow row;
      row.name = label_ + ": " + what;
      row.op = op;
      row.backend = "gl";
      row.time_us = static_cast<double>(ns) / 1000.0;
      row.count = p.runs;
      row.timing = "wall";
      rows->push_back(std::move(row));
    };
    add_transfer("UPLOAD", "host to GPU copies", p.upload_ns);
    add_transfer("DOWNLOAD", "GPU to host copies", p.download_ns);
  }

 private:
  static const TensorGlIo* Bound(const StepContext& ctx, int t) {
    if (ctx.gl_io == nullptr || static_cast<size_t>(t) >= ctx.gl_io->size()) return nullptr;
    const TensorGlIo& io = (*ctx.gl_io)[static_cast<size_t>(t)];
    return io.buffer != 0 || io.texture != 0 || io.keep_on_gpu ? &io : nullptr;
  }
  static void Count(std::vector<uint64_t>* counter, int t, uint64_t bytes) {
    if (counter != nullptr && static_cast<size_t>(t) < counter->size()) (*counter)[static_cast<size_t>(t)] += bytes;
  }
  static cpu::TensorData* Storage(StepContext& ctx, int t) {
    if (ctx.tensors == nullptr || t < 0 || static_cast<size_t>(t) >= ctx.tensors->size()) return nullptr;
    cpu::TensorData* d = &(*ctx.tensors)[static_cast<size_t>(t)];
    return d->data == nullptr && d->bytes > 0 ? nullptr : d;
  }

  std::shared_ptr<GlDevice> device_;
  const Graph* graph_;
  std::unique_ptr<GlSegment> segment_;
  std::string label_;
  std::vector<GlSegment::HostInput> ins_;
  std::vector<GlSegment::HostOutput> outs_;
  std::vector<GlSegment::TextureSource> textures_;  // per input, for texture inputs
  std::shared_ptr<const SegmentPlan> plan_;
};

class GlBackend : public GpuBackend {
 public:
  GlBackend(std::shared_ptr<GlDevice> device, const Options& options)
      : device_(std::move(device)),
        limits_(PlanningLimits(device_->info(), options.gl_limits)),
        limits_name_(options.gl_limits == GlLimits::kMinimum ? "GLES 3.1 minimums" : "driver"),
        precision_(options.precision),
        profiling_(options.enable_profiling),
        stats_(std::make_shared<SegmentStats>()),
        support_(options.precision, limits_),
        cache_dir_(options.cache_dir),
        cache_trust_(CacheTrust(options)),
        tune_(options.tune_workgroups) {
    if (!cache_dir_.empty()) {
      tuning_ = LoadTuning(cache_dir_, cache_trust_, CacheKeyDriverPart(device_->info()), limits_);
    }
  }

  std::string name() const override { return "gl"; }
  std::string renderer() const override {
    const GlInfo& i = device_->info();
    return i.renderer + " (" + i.version + ", EGL " + i.platform + ")";
  }
  bool IsSoftwareRasterizer() const override {
    return device_->info().software_device || IsSoftwareRendererName(device_->info().renderer);
  }
  std::string device_name() const override { return device_->info().renderer; }
  std::vector<OpType> SupportedOps() const override { return GlSupportedOps(); }

  // The query keeps the code it generates for the segment plans, so each
  // node's generator runs once.
  std::string WhyNotSupported(const Graph& graph, size_t node_index) const override {
    return support_.WhyNotSupported(graph, node_index);
  }

  StatusOr<std::unique_ptr<Step>> CreateSegmentStep(const Graph& graph, const Segment& segment,
                                                    int segment_index) override {
    SegmentPlanOptions plan_options;
    plan_options.name = "GL segment " + std::to_string(segment_index);
    NodeCodeCache& node_code = *support_.code();
    plan_options.node_code = &node_code;
    plan_options.tuning = &tuning_;
    auto plan = PlanSegment(graph, segment, precision_, limits_, plan_options);
    // Segments are made in graph order: code of earlier nodes that did not
    // join a segment (max_delegated_partitions) is no longer wanted.
    if (!segment.nodes.empty()) {
      node_code.erase(node_code.begin(), node_code.upper_bound(static_cast<size_t>(segment.nodes.back())));
    }
    if (!plan.ok()) return plan.status();
    GlSegmentRunOptions run_options;
    // A trace times each dispatch as the profile does.
    run_options.profile_dispatches = profiling_ || trace_ != nullptr;
    run_options.trace = trace_;
    GLD_ASSIGN_OR_RETURN(std::unique_ptr<GlSegment> s, GlSegment::Create(*device_, *plan, run_options));
    if (tune_) GLD_RETURN_IF_ERROR(Tune(graph, segment, plan_options, run_options, &*plan, &s));
    {
      std::lock_guard<std::mutex> lock(stats_->mutex);
      stats_->dispatches += s->dispatches();
      stats_->tuned_dispatches += plan->tuned_dispatches;
      stats_->gpu_bytes += s->gpu_bytes();
      const uint64_t fixed = s->gpu_bytes() - s->tensor_bytes_planned();
      stats_->gpu_bytes_naive += fixed + s->tensor_bytes_naive();
      stats_->gpu_bytes_lower_bound += fixed + s->tensor_bytes_lower_bound();
      stats_->unfused_elementwise.insert(stats_->unfused_elementwise.end(), s->unfused_elementwise().begin(),
                                         s->unfused_elementwise().end());
    }
    // Store what this segment compiled now: a later failure (or a crash)
    // must not lose it.
    if (BinaryCacheFile* file = device_->programs().file()) file->WriteIfDirty();
    std::string label = s->label();
    for (PlannedConstant& c : plan->constant_tensors) std::vector<uint8_t>().swap(c.bytes);
    for (PlannedConstant& c : plan->op_constants) std::vector<uint8_t>().swap(c.bytes);
    for (PlannedVariable& v : plan->variables) std::vector<uint8_t>().swap(v.bytes);
    auto kept = std::make_shared<const SegmentPlan>(std::move(*plan));
    return std::unique_ptr<Step>(new GlSegmentStep(device_, graph, std::move(s), std::move(label), std::move(kept)));
  }

  void BeginPlan() override {
    support_.code()->clear();
    // The last plan's report holds its totals already; this plan counts afresh.
    stats_ = std::make_shared<SegmentStats>();
  }

  void SetTrace(TraceRecorder* trace) override { trace_ = trace; }

  // Zero-copy I/O: the app's objects are named in the library's context,
  // which must be the app's or share objects with it.
  Status CheckBuffer(uint32_t buffer, uint64_t bytes, const std::string& what) override {
    GlEnvironment::ScopedCurrent current(device_->env());
    GLD_RETURN_IF_ERROR(current.status());
    GLD_RETURN_IF_ERROR(CheckSharesAppObjects(what));
    auto size = BufferObjectBytes(buffer);
    if (!size.ok()) return InvalidArgumentError(what + ": " + size.status().message());
    if (static_cast<uint64_t>(*size) < bytes) {
      return InvalidArgumentError(what + ": GL buffer " + std::to_string(buffer) + " holds " +
                                  std::to_string(*size) + " bytes, the tensor needs " + std::to_string(bytes));
    }
    return OkStatus();
  }

  Status CheckTexture(uint32_t texture, int width, int height, const std::string& what) override {
    GlEnvironment::ScopedCurrent current(device_->env());
    GLD_RETURN_IF_ERROR(current.status());
    GLD_RETURN_IF_ERROR(CheckSharesAppObjects(what));
    auto facts = Texture2DObjectFacts(texture);
    if (!facts.ok()) return InvalidArgumentError(what + ": " + facts.status().message());
    const GLenum f = facts->internal_format;
    if (f != GL_RGBA8 && f != GL_RGBA16F && f != GL_RGBA32F) {
      return InvalidArgumentError(what + ": GL texture " + std::to_string(texture) + " has internal format " +
                                  TextureFormatName(f) + "; a texture input reads GL_RGBA8, GL_RGBA16F or GL_RGBA32F");
    }
    if (facts->width != width || facts->height != height) {
      return InvalidArgumentError(what + ": GL texture " + std::to_string(texture) + " is " +
                                  std::to_string(facts->width) + "x" + std::to_string(facts->height) +
                                  ", the tensor needs " + std::to_string(width) + "x" + std::to_string(height));
    }
    return OkStatus();
  }

  Status ReadBuffer(uint32_t buffer, void* data, size_t bytes) override {
    GlEnvironment::ScopedCurrent current(device_->env());
    GLD_RETURN_IF_ERROR(current.status());
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    return ReadBufferObject(buffer, 0, data, bytes);
  }

  Status WriteBuffer(uint32_t buffer, const void* data, size_t bytes) override {
    GlEnvironment::ScopedCurrent current(device_->env());
    GLD_RETURN_IF_ERROR(current.status());
    GLD_RETURN_IF_ERROR(WriteBufferObject(buffer, 0, data, bytes));
    // Complete before the app's context reads it (this path is the CPU
    // fallback; the GPU path waits the same way, or fences).
    glFinish();
    return OkStatus();
  }

  StatusOr<void*> InsertFence() override {
    GlEnvironment::ScopedCurrent current(device_->env());
    GLD_RETURN_IF_ERROR(current.status());
    GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (sync == nullptr) return InternalError("glFenceSync failed: " + CheckGlError("making a fence").message());
    glFlush();  // another context waiting on it must see it submitted
    return static_cast<void*>(sync);
  }

  void FillReport(InterpreterReport& report) const override {
    report.gl_renderer = renderer();
    report.gl_context = device_->info().context;
    report.gl_limits = limits_name_;
    if (const BinaryCacheFile* file = device_->programs().file()) {
      report.cache_hits = device_->programs().file_hits();
      report.cache_misses = device_->programs().file_misses();
      report.cache_file = file->path();
      report.cache_file_bytes = file->file_bytes();
    }
    std::lock_guard<std::mutex> lock(stats_->mutex);
    report.dispatches = stats_->dispatches;
    report.tuned_dispatches = stats_->tuned_dispatches;
    report.workgroup_timing_runs = stats_->workgroup_timing_runs;
    report.unfused_elementwise = stats_->unfused_elementwise;
    // Constants and staging count in all three; tensors as planned, one
    // object each, and at the lower bound (most bytes live at one dispatch).
    report.gpu_bytes_planned = stats_->gpu_bytes;
    report.gpu_bytes_naive = stats_->gpu_bytes_naive;
    report.gpu_bytes_lower_bound = stats_->gpu_bytes_lower_bound;
  }

 private:
  // Times the workgroups of `*segment`, stores the winners in the cache
  // folder, then plans and makes the segment again with them.
  Status Tune(const Graph& graph, const Segment& segment, SegmentPlanOptions plan_options,
              const GlSegmentRunOptions& run_options, SegmentPlan* plan, std::unique_ptr<GlSegment>* made) {
    if (cache_dir_.empty()) return InvalidArgumentError("workgroup tuning needs a cache folder (Options::cache_dir)");
    GLD_ASSIGN_OR_RETURN(int timed, (*made)->TimeWorkgroups(*plan, limits_, &tuning_));
    {
      std::lock_guard<std::mutex> lock(stats_->mutex);
      stats_->workgroup_timing_runs += timed;
    }
    GLD_RETURN_IF_ERROR(SaveTuning(cache_dir_, cache_trust_, CacheKeyDriverPart(device_->info()), tuning_));
    plan_options.node_code = nullptr;
    GLD_ASSIGN_OR_RETURN(*plan, PlanSegment(graph, segment, precision_, limits_, plan_options));
    made->reset();
    GLD_ASSIGN_OR_RETURN(*made, GlSegment::Create(*device_, *plan, run_options));
    return OkStatus();
  }

  Status CheckSharesAppObjects(const std::string& what) const override {
    if (device_->env().reused_context() || device_->info().platform == "shared") return OkStatus();
    return FailedPreconditionError(what + ": the library runs in a private context that shares no objects with "
                                   "the app's; set Options::share_egl_context (and share_egl_display) or use "
                                   "ContextMode::kCurrent to bind the app's GL objects");
  }

  std::shared_ptr<GlDevice> device_;
  const GlInfo limits_;  // what plans are made for (before support_, which keeps a reference)
  const std::string limits_name_;
  Precision precision_;
  bool profiling_;
  std::shared_ptr<SegmentStats> stats_;
  GlSupportQuery support_;
  std::string cache_dir_;
  FileTrust cache_trust_;
  bool tune_;
  TraceRecorder* trace_ = nullptr;
  WorkgroupTuning tuning_;  // loaded from cache_dir_; filled further when tuning
};

}  // namespace

// Options::gl_limits, or the minimums where GLD_GL_LIMITS=minimum asks for
// them; InvalidArgument naming the variable for any other value.
StatusOr<Options> WithEnvironmentLimits(const Options& options) {
  const char* env = std::getenv("GLD_GL_LIMITS");
  Options o = options;
  if (env == nullptr || env[0] == '\0') return o;
  StatusOr<GlLimits> limits = ParseGlLimits(env);
  if (!limits.ok()) return InvalidArgumentError("GLD_GL_LIMITS: " + limits.status().message());
  if (*limits == GlLimits::kMinimum) o.gl_limits = GlLimits::kMinimum;
  return o;
}

StatusOr<std::unique_ptr<GpuBackend>> CreateGlBackend(const Options& given) {
  GLD_ASSIGN_OR_RETURN(Options options, WithEnvironmentLimits(given));
  // A folder someone else could write is not used at all (one warning).
  options.cache_dir = TrustedCacheDir(options.cache_dir, CacheTrust(options));
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<GlDevice> device, GlDevice::Create(EglOptionsFrom(options)));
  if (!options.cache_dir.empty()) {
    if (!device->info().program_binary) {
      // Mesa offers no binary format when its shader cache is disabled
      // (MESA_SHADER_CACHE_DISABLE).
      WarnOnce("nobinary", "program cache: the driver offers no program binary format "
                           "(GL_NUM_PROGRAM_BINARY_FORMATS is 0); running without the program cache");
    } else {
      device->programs().AttachFile(BinaryCacheFile::Open(options.cache_dir,
                                                       CacheFileName(options.model_token, options),
                                                       CacheKey(device->info(), options), options.model_token,
                                                       CacheTrust(options)));
    }
  }
  return std::unique_ptr<GpuBackend>(new GlBackend(std::shared_ptr<GlDevice>(std::move(device)), options));
}

}  // namespace gld::gl
