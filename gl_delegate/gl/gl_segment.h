// A GL segment: a list of graph nodes run on the GPU as one unit, made from
// its SegmentPlan (gl/segment_plan.h). It owns the arena holding the PHWC4
// tensors it touches, a buffer per constant tensor and per op constant
// (uploaded once, at Create), and the staging buffers of the conversions at
// its edges: host BHWC -> PHWC4 for each input tensor, PHWC4 -> host BHWC
// for each exported tensor. Nothing crosses between CPU and GPU inside a
// segment.
//
// The device must outlive the segment (programs live in its cache).
// Like the environment, a segment may be used from any thread, one thread at
// a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/egl/egl_environment.h"
#include "gl/egl/gl_objects.h"
#include "gl/gl_device.h"
#include "gl/segment_plan.h"
#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {
class TraceRecorder;
}  // namespace gld

namespace gld::gl {

// How a segment runs (its plan fixes everything else).
struct GlSegmentRunOptions {
  // Measure GPU time of each Run (GL_EXT_disjoint_timer_query when present,
  // otherwise glFinish around the dispatches).
  bool measure_gpu_time = false;
  // Time each dispatch of every Run (GL_EXT_disjoint_timer_query when
  // present, otherwise wall time between glFinish calls) and the host
  // transfers; see profile(). Takes the place of measure_gpu_time's timer.
  bool profile_dispatches = false;
  // Options::enable_trace: the program builds of Create and, with
  // profile_dispatches, each Run's dispatches and transfers go here as
  // timed events (util/trace_recorder.h). Must outlive the segment.
  TraceRecorder* trace = nullptr;
};

// Both, for segments planned and made in one go.
struct GlSegmentOptions : SegmentPlanOptions, GlSegmentRunOptions {};

// One dispatch of a segment, for reports and tests.
struct DispatchInfo {
  std::string label;         // "conv2d.comp for node 3 (CONV_2D)"
  std::string template_name;
  std::array<uint32_t, 3> grid = {0, 0, 0};
  Workgroup workgroup = {0, 0, 0};
  int node = -1;             // graph node index; -1 for edge conversions
  std::vector<size_t> fused_nodes;  // elementwise nodes run in its epilogue
};

// Times of a profiled segment (GlSegmentOptions::profile_dispatches),
// summed over `runs` Runs.
struct SegmentProfile {
  std::vector<uint64_t> dispatch_ns;  // per dispatch, indexed like dispatch_info()
  uint64_t upload_ns = 0;    // host -> staging buffers (wall time)
  uint64_t download_ns = 0;  // staging buffers -> host, after the GPU finished (wall time)
  int64_t runs = 0;
  bool gpu_timer = false;    // dispatch times from timer queries; else glFinish wall time
};

// Host cost of issuing a segment's dispatches (Runs without profiling),
// summed since Create or ResetProfile: the calling thread's CPU time and the
// wall time of the loop that issues them, before the wait for the GPU.
struct IssueCost {
  uint64_t cpu_ns = 0, wall_ns = 0;
  // Thread CPU time inside glMemoryBarrier and glDispatchCompute: a
  // software driver (llvmpipe) runs or waits for the work there;
  // cpu_ns - dispatch_call_cpu_ns is the issuing alone.
  uint64_t dispatch_call_cpu_ns = 0;
  int64_t dispatches = 0, runs = 0;
};

class GlSegment {
 public:
  // Buffers and programs of `plan`; GL work only.
  static StatusOr<std::unique_ptr<GlSegment>> Create(GlDevice& device, const SegmentPlan& plan,
                                                     const GlSegmentRunOptions& options = {});
  // Plans `nodes` of `graph` as one segment (edges as partition finds them,
  // the device's limits), then creates it.
  static StatusOr<std::unique_ptr<GlSegment>> Create(GlDevice& device, const Graph& graph,
                                                     std::vector<size_t> nodes, Precision precision,
                                                     const GlSegmentOptions& options = {});
  ~GlSegment();
  GlSegment(const GlSegment&) = delete;
  GlSegment& operator=(const GlSegment&) = delete;

  // An app's 2D texture as a float32 input: texel * scale + offset per
  // channel (glsl/texture_to_bhwc.comp fills the input's staging buffer).
  struct TextureSource {
    GLuint texture = 0;
    float scale[4] = {1, 1, 1, 1};
    float offset[4] = {0, 0, 0, 0};
  };
  struct HostInput {
    const void* data = nullptr;
    size_t bytes = 0;
    // Zero-copy: an app's buffer object holding the input in the host
    // layout (float32 BHWC), bound in place of the staging buffer; or an
    // app's texture. `data` is then unused.
    GLuint buffer = 0;
    const TextureSource* texture = nullptr;
    // `buffer` holds the PHWC4 tensor (fp32): copied into the arena, the
    // input's conversion dispatch skipped.
    bool phwc4 = false;
  };
  struct HostOutput {
    void* data = nullptr;
    size_t bytes = 0;
    // Zero-copy: an app's buffer object the output conversion writes (host
    // layout) in place of the staging buffer; `data`, when not null, gets
    // a copy as well (a CPU node reads the tensor too).
    GLuint buffer = 0;
    // Left in its staging buffer (output_staging()) without a download;
    // `data` is then unused.
    bool keep_on_gpu = false;
    // `buffer` gets the PHWC4 tensor (fp32) copied from the arena, the
    // output's conversion dispatch skipped.
    bool phwc4 = false;
  };

  // Host data of input_tensors() in, host data of output_tensors() out, in
  // those orders; each buffer holds the tensor's elements in row-major order
  // and its exact size in bytes (element count x element size). With an
  // output bound to an app's buffer, Run ends with a full memory barrier and
  // waits for the GPU (glFinish), unless `async` (the caller then fences).
  // A node that met an index out of range on the GPU (glsl/index_fault.comp)
  // fails the run with the CPU kernel's message, "node 3 (GATHER): index 9
  // out of range [0, 4)"; after an async run the record is read when the
  // next Run starts, which fails with it instead of running.
  Status Run(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs, bool async = false);

  // The variables the segment keeps (SegmentPlan::variables: a recurrent
  // op's state) get their initial contents again, as when it was made.
  Status ResetVariables();
  // Their graph tensors.
  std::vector<int> variable_tensors() const;

  // Non-constant tensors the segment reads and does not produce.
  const std::vector<int>& input_tensors() const { return inputs_; }
  // Tensors it produces that are graph outputs, read outside it, or asked for.
  const std::vector<int>& output_tensors() const { return outputs_; }
  const std::vector<size_t>& nodes() const { return nodes_; }
  // The staging buffer of output k (host layout), for outputs kept on the GPU.
  GLuint output_staging(size_t k) const { return k < output_edges_.size() ? output_edges_[k].staging.id() : 0; }
  // Dispatches per Run, edge conversions included.
  int dispatches() const { return static_cast<int>(dispatches_.size()); }
  const std::vector<DispatchInfo>& dispatch_info() const { return info_; }
  // GPU memory held: tensors, constants and staging buffers.
  size_t gpu_bytes() const { return gpu_bytes_; }
  // The non-constant PHWC4 tensors: the arena as planned, the sum of their
  // sizes (one object each), and the most bytes live at any one dispatch (no
  // plan can do better).
  uint64_t tensor_bytes_planned() const { return tensor_bytes_planned_; }
  uint64_t tensor_bytes_naive() const { return tensor_bytes_naive_; }
  uint64_t tensor_bytes_lower_bound() const { return tensor_bytes_lower_bound_; }
  // Elementwise nodes that kept a dispatch of their own instead of running in
  // their producer's epilogue: "node 12 (ADD): <why>" (gl/codegen/fusion.h).
  const std::vector<std::string>& unfused_elementwise() const { return unfused_elementwise_; }
  Precision precision() const { return precision_; }
  // GPU time of the last Run in ns, when options.measure_gpu_time; 0 otherwise.
  uint64_t last_gpu_time_ns() const { return last_gpu_ns_; }
  // "GL segment (nodes 0-11)"
  const std::string& label() const { return label_; }
  bool profiling() const { return profiling_; }
  const SegmentProfile& profile() const { return profile_; }
  const IssueCost& issue_cost() const { return issue_cost_; }
  // Clears the profile and the issue cost.
  void ResetProfile();

  // Times CandidateWorkgroups for every tunable dispatch of `plan` (the plan
  // this segment was made from) on this driver, each candidate compiled as
  // a program of its own and run `repeats` times between glFinish calls,
  // and puts the fastest into `tuning`. Leaves the tensors' contents
  // undefined (run it before real inputs). Returns the timed runs.
  StatusOr<int> TimeWorkgroups(const SegmentPlan& plan, const GlInfo& limits, WorkgroupTuning* tuning,
                               int repeats = 3);

  // Tests: while set, each Run appends what it issues (barriers with their
  // bits, dispatches, uploads, copies, readbacks) to `log`, in the words of
  // DescribeCommands (gl/issued_commands.h); nullptr stops it.
  void set_command_log(std::vector<std::string>* log) { command_log_ = log; }

 private:
  struct BoundUniform {
    GLint location;
    Uniform value;
  };
  // A planned dispatch with its program, buffer names and uniform locations.
  struct BoundDispatch {
    const GlProgram* program = nullptr;
    struct Binding {
      GLuint point = 0, buffer = 0;
      GLintptr offset = 0;
      GLsizeiptr size = 0;  // 0: the whole buffer
    };
    std::vector<Binding> bindings;  // only those the plan says change (PlannedDispatch::rebind)
    std::vector<BoundUniform> uniforms;
    uint64_t uniform_token = 0;     // unique; see GlProgram::uniform_owner()
    bool use_program = true;
    GLbitfield barrier_bits = 0;    // glMemoryBarrier before it (0: none), from gl/issued_commands.h
    std::array<uint32_t, 3> groups = {1, 1, 1};
    std::array<uint32_t, 3> planned_groups = {1, 1, 1};  // groups is {0, 0, 0} while skipped
  };
  struct Edge {
    int tensor = -1;
    std::string name;   // the tensor's name
    size_t bytes = 0;   // host bytes
    GlBuffer staging;   // host bytes rounded up to 4
  };

  GlSegment(GlEnvironment& env, const SegmentPlan& plan);
  Status CreateBuffers(const SegmentPlan& plan);
  // The kept variables' initial contents into their arena ranges.
  Status WriteVariables();
  Status BindDispatches(const SegmentPlan& plan, const std::vector<const GlProgram*>& programs,
                        const std::vector<uint32_t>& barrier_bits);
  // The buffer (range) a planned binding names in this segment.
  void ResolveBinding(const PlannedBinding& p, GLuint* buffer, GLintptr* offset, GLsizeiptr* size) const;
  // The fastest of `candidates` for plan dispatch i, with its time.
  StatusOr<Workgroup> FastestWorkgroup(const PlannedDispatch& d, const std::vector<Workgroup>& candidates,
                                       int repeats, int* timed);
  Status StartTimers(const GlInfo& info, const GlSegmentRunOptions& options);
  Status CheckHostBuffers(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) const;
  // Program, uniforms and bindings of dispatch i, as far as they change.
  void SetDispatchState(size_t i) const;
  // Its barrier (when planned), state and glDispatchCompute.
  void IssueDispatch(size_t i) const;
  // Issues every dispatch as planned; returns the thread CPU time spent
  // inside glMemoryBarrier and glDispatchCompute (where a software driver
  // runs the work).
  uint64_t IssueAll() const;
  // Zero-copy: points the bindings of each edge's staging buffer at the
  // app's buffer where one is given, else back at the staging buffer.
  void PointEdgeBindings(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs);
  // InvalidArgument naming the tensor when an app's bound buffer is gone.
  Status CheckBoundBuffers(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs) const;
  // Host inputs to their staging buffers; texture inputs through the
  // texture program.
  Status UploadInputs(const std::vector<HostInput>& inputs);
  Status RunTextureInput(size_t edge, const TextureSource& texture);
  Status DownloadOutputs(const std::vector<HostOutput>& outputs) const;
  // The index-fault record after a run: the failing node's error, the
  // record cleared for the next run; OK when nothing was reported or the
  // segment has no node that reports.
  Status CheckIndexFault(const std::string& when);
  Status RunTimed(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs);
  Status RunProfiled(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs);
  bool CollectDispatchTimes(uint64_t dispatches_wall_ns, std::vector<uint64_t>* run_ns);
  // When of a profiled Run (steady clock, ns from its start points): the
  // trace's events for it (GlSegmentRunOptions::trace).
  struct RunTimes {
    std::chrono::steady_clock::time_point upload_start, dispatches_start, download_start;
    uint64_t upload_ns = 0, download_ns = 0;
    std::vector<std::chrono::steady_clock::time_point> dispatch_start;  // timed by glFinish only
  };
  void TraceRun(const RunTimes& times, const std::vector<uint64_t>& run_ns, const std::vector<HostInput>& inputs,
                const std::vector<HostOutput>& outputs) const;
  void ReleaseGl();

  GlEnvironment& env_;
  Precision precision_;
  std::string label_;
  std::vector<size_t> nodes_;
  std::vector<int> inputs_, outputs_;
  std::vector<Edge> input_edges_, output_edges_;
  std::vector<GlBuffer> tensor_buffers_;    // per referenced constant tensor
  GlBuffer arena_;                          // every other referenced tensor
  std::vector<PlannedVariable> variables_;  // kept in the arena across runs
  std::vector<GlBuffer> constant_buffers_;
  // glsl/index_fault.comp's record (4 ints), made when a node reports into
  // it; the nodes' labels for the message; an async run's record not read.
  GlBuffer index_fault_;
  std::vector<std::pair<int, std::string>> index_fault_nodes_;
  bool index_fault_unread_ = false;
  std::vector<BoundDispatch> dispatches_;
  std::vector<DispatchInfo> info_;
  size_t gpu_bytes_ = 0;
  uint64_t tensor_bytes_planned_ = 0, tensor_bytes_naive_ = 0, tensor_bytes_lower_bound_ = 0;
  std::vector<std::string> unfused_elementwise_;
  bool measure_gpu_time_ = false;
  uint64_t last_gpu_ns_ = 0;
  GlTimerQuery timer_;
  bool profiling_ = false;
  SegmentProfile profile_;
  TraceRecorder* trace_ = nullptr;
  IssueCost issue_cost_;
  std::vector<GlTimerQuery> dispatch_timers_;  // one per dispatch when profile_.gpu_timer
  // Zero-copy I/O: per edge (inputs, then outputs), the (dispatch, binding)
  // pairs that bind its staging buffer; the texture program, made at the
  // first texture input.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> staging_uses_;
  // Per edge: the arena range of its PHWC4 tensor (offset, bytes) and the
  // conversion dispatch, for PHWC4-bound buffers.
  struct EdgeTensor {
    GLintptr offset = 0;
    GLsizeiptr bytes = 0;
    size_t dispatch = 0;
  };
  std::vector<EdgeTensor> edge_tensors_;
  // Copies between an app's buffer and the arena (GL_COPY_*_BUFFER bindings
  // put back as found).
  void CopyArena(GLuint app_buffer, const EdgeTensor& range, bool to_arena) const;
  GlProgram texture_program_;
  std::vector<std::string>* command_log_ = nullptr;
  // "<what>[ <index>]<after>" to the command log, when one is set (no
  // string work otherwise).
  void LogCommand(const char* what, long index = -1, const char* after = "") const {
    if (command_log_ == nullptr) return;
    command_log_->push_back(what + (index < 0 ? std::string() : " " + std::to_string(index)) + after);
  }
  void Barrier(GLbitfield bits) const;
};

}  // namespace gld::gl
