// The commands a GlSegment issues in its Runs, as data (GlCommand of
// gl/hazard_check.h), made from the plan without a GL context: the uploads,
// the texture-input dispatch, every dispatch with the bindings the issue
// plan says change and the glMemoryBarrier bits before it, the barrier
// before the readbacks, the readbacks and copies out, and the hand-off of
// bound outputs to the app. It is the source of truth for those bits:
// GlSegment::Create takes each dispatch's barrier bits from this list (after
// the hazard checker passed it), and its run steps issue the run-level
// constants below; GlSegment's command log (set_command_log) records what a
// Run really issued in the same words as DescribeCommands, and the tests
// compare the two.
#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gl/hazard_check.h"
#include "gl/segment_plan.h"
#include "gldelegate/status.hpp"

namespace gld::gl {

// glMemoryBarrier bits at the fixed steps of a Run.
// Before a dispatch the issue plan marks (PlannedDispatch::barrier_before).
inline constexpr uint32_t kDispatchBarrierBits = GL_SHADER_STORAGE_BARRIER_BIT;
// After the dispatches, before mapped readbacks and copies out of the arena.
inline constexpr uint32_t kReadbackBarrierBits = GL_BUFFER_UPDATE_BARRIER_BIT;
// Before the app gets bound or kept outputs back: it may read them any way.
inline constexpr uint32_t kHandOffBarrierBits = GL_ALL_BARRIER_BITS;

// How one Run treats an edge (GlSegment::HostInput / HostOutput).
enum class EdgeIo : uint8_t {
  kHost,        // staging buffer: host upload / mapped readback
  kAppBuffer,   // the app's buffer (host layout) in place of the staging buffer;
                // an output is also read back (a CPU node reads it)
  kAppPhwc4,    // the app's PHWC4 buffer copied into / out of the arena; the
                // conversion dispatch runs no workgroups
  kAppTexture,  // inputs: the app's texture through texture_to_bhwc.comp into staging
  kKeepOnGpu,   // outputs: left in the staging buffer for the app (and read back)
};
struct RunIo {
  std::vector<EdgeIo> inputs, outputs;
  std::string name;  // "host I/O", for messages
  // Per output edge: the input edge whose app buffer it writes too (the
  // app bound one buffer to both, e.g. a KV cache updated in place), or -1;
  // empty: none. Both edges are kAppBuffer, or both kAppPhwc4.
  std::vector<int> output_shares_input = {};
};

// The texture-input program's source (glsl/texture_to_bhwc.comp, 8x8
// workgroup), made once.
StatusOr<std::string> TextureInputSource();

// The commands of `runs` consecutive Runs of a segment made from `plan`
// with I/O `io`. `texture_source` is needed when an input is kAppTexture.
std::vector<GlCommand> IssuedCommands(const SegmentPlan& plan, const RunIo& io,
                                      const std::string* texture_source, int runs = 1);

// The I/O shapes a segment is checked in: all through the host; all bound
// to app buffers; all PHWC4 app buffers; texture inputs with outputs kept
// on the GPU.
std::vector<RunIo> CheckedRunIos(const SegmentPlan& plan);

// Checks two consecutive Runs of `plan` in every CheckedRunIos shape
// (Internal error naming the commands and buffer of a hazard), then returns
// the glMemoryBarrier bits issued before each plan dispatch (0: none).
StatusOr<std::vector<uint32_t>> CheckedDispatchBarriers(const SegmentPlan& plan);

// Checks two consecutive Runs of `plan` with I/O `io` (an app's own
// binding, e.g. with outputs sharing inputs' buffers): Internal naming the
// commands and buffer of a hazard, as CheckedDispatchBarriers.
Status CheckRunIo(const SegmentPlan& plan, const RunIo& io);

// One line per command but the binds: "barrier GL_SHADER_STORAGE_BARRIER_BIT",
// "dispatch 3", "dispatch 0 (no workgroups)", "upload staging 0", ...; the
// words GlSegment's command log uses.
std::vector<std::string> DescribeCommands(const std::vector<GlCommand>& commands);

}  // namespace gld::gl
