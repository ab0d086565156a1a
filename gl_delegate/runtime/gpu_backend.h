// The seam between the runtime and a GPU backend (the GL backend,
// runtime/gl_backend.h over gl/).
//
// The runtime asks CreateGpuBackend for a backend, which PartitionGraph asks
// about every node (it is the partition's NodeSupportQuery), and then asks it for one Step per GPU segment. A segment
// step reads its input tensors from host buffers and writes its output
// tensors to host buffers (runtime/step.h), so GPU segments and CPU nodes mix
// freely in a plan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "partition/partition.h"
#include "runtime/step.h"

namespace gld {

class TraceRecorder;

class GpuBackend : public NodeSupportQuery {
 public:

  // "gl"
  virtual std::string name() const = 0;
  // Renderer / version line for reports; may be empty.
  virtual std::string renderer() const { return {}; }
  // True when the backend renders in software on the CPU (Mesa's llvmpipe or
  // softpipe, SwiftShader): `auto` then runs the CPU backend instead.
  virtual bool IsSoftwareRasterizer() const { return false; }
  // The driver's own name for the device (GL_RENDERER); may be empty.
  virtual std::string device_name() const { return {}; }

  // Ops this backend may run (a node can still be refused). Nodes whose op
  // has no CPU kernel must be in this list or creation fails.
  virtual std::vector<OpType> SupportedOps() const;

  // The step that runs `segment`. `graph` outlives the step and does not
  // change any more, so the step may keep pointers into it.
  virtual StatusOr<std::unique_ptr<Step>> CreateSegmentStep(const Graph& graph, const Segment& segment,
                                                            int segment_index) = 0;

  // A new plan begins (Runtime creation, or a Runtime::Reshaped sharing this
  // backend): what the backend kept of the last plan's nodes (generated code,
  // the report's segment totals) is for other shapes and is dropped.
  virtual void BeginPlan() {}

  // Options::enable_trace: the recorder the segment steps made from now on
  // record into (it outlives the backend's steps); null: none.
  virtual void SetTrace(TraceRecorder* trace) {}

  // Adds backend facts (renderer, dispatches, GPU bytes) to the report.
  virtual void FillReport(InterpreterReport& report) const { report.gl_renderer = renderer(); }

  // Zero-copy I/O with an app's GL objects. A backend without it (the
  // default) refuses with Unimplemented.
  // OK when `buffer` names a buffer object of at least `bytes` bytes that the
  // backend's context can use (its own, or sharing objects with the app's);
  // `what` names the tensor in errors.
  virtual Status CheckBuffer(uint32_t buffer, uint64_t bytes, const std::string& what);
  // OK when `texture` names a 2D texture of `width` x `height` in a format
  // the texture input reads (RGBA8, RGBA16F, RGBA32F).
  virtual Status CheckTexture(uint32_t texture, int width, int height, const std::string& what);
  // Host copies for tensors a CPU node reads or writes while bound;
  // WriteBuffer returns once the data is in the buffer (glFinish).
  virtual Status ReadBuffer(uint32_t buffer, void* data, size_t bytes);
  virtual Status WriteBuffer(uint32_t buffer, const void* data, size_t bytes);
  // A fence after the GPU work issued so far (a GLsync, flushed), shared
  // with the app's context; the app deletes it.
  virtual StatusOr<void*> InsertFence();
  // OK when the backend's context is the app's or shares objects with it
  // (what a bound object or a fence needs); `what` starts the error.
  virtual Status CheckSharesAppObjects(const std::string& what) const;
};

// The GPU backend for `options`, or the reason there is none (Unavailable
// when this build or this machine has no usable GPU backend).
StatusOr<std::unique_ptr<GpuBackend>> CreateGpuBackend(const Options& options);

// True when a GL_RENDERER string names a software rasterizer (llvmpipe,
// softpipe, SwiftShader), case-insensitively.
bool IsSoftwareRendererName(const std::string& gl_renderer);

// Ops the GPU backend of this build can run in at least some configuration,
// for listings (gld_inspect --list_ops). Empty without a GPU backend.
std::vector<OpType> GpuBackendOps();

}  // namespace gld
