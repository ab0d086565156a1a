// An independent check of a GL segment's memory ordering. llvmpipe runs
// dispatches one after another, so a missing or wrong glMemoryBarrier never
// shows in a test run; this proves, on the list of commands a segment
// issues (gl/issued_commands.h makes it), that every read-after-write,
// write-after-read and write-after-write between two commands is ordered by
// a glMemoryBarrier between them with the bit the later access needs.
//
// Written apart from the issue planner (gl/issue_plan.h): what a dispatch
// reads and writes comes from its GLSL source (gl/glsl_interface.h: each
// storage block's readonly / writeonly qualifiers, image uniforms, samplers)
// applied to the buffer ranges actually bound at its binding points when it
// runs (the bind commands issued so far in the run), never from the plan's
// binding list or the planner's barrier decisions.
//
// The rules (OpenGL ES 3.1, 7.11.2 and glMemoryBarrier): only shader
// writes (storage blocks, images) are incoherent. After one, a later access
// of the same bytes needs a barrier with the bit of the later access's
// path: GL_SHADER_STORAGE_BARRIER_BIT for storage blocks,
// GL_SHADER_IMAGE_ACCESS_BARRIER_BIT for images, GL_TEXTURE_FETCH_BARRIER_BIT
// for texture fetches, GL_BUFFER_UPDATE_BARRIER_BIT for glBufferSubData,
// glCopyBufferSubData and glMapBufferRange (GLES has no glGetBufferSubData;
// mapping reads need that bit), and every bit (GL_ALL_BARRIER_BITS) before
// the app takes a buffer back, since it may touch it any way. A shader write
// after a shader read of the same bytes (write-after-read) needs the storage
// (or image) bit too: assignments after such a barrier wait for the accesses
// before it. Writes by GL commands (uploads, copies) and reads by them
// (mapped readbacks, which the host waits for) are ordered with later
// commands by GL itself. glFinish is no barrier here.
//
// Besides hazards between commands it reports a dispatch whose shader
// declares a binding point the run has not bound (it would touch whatever
// the app or another segment left there), ranges bound twice in one
// dispatch where one is written (the blocks are `restrict`), and
// declarations whose point it cannot read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gl/glsl_interface.h"
#include "gldelegate/status.hpp"

namespace gld::gl {

// A buffer or texture object, as the checker tells them apart.
struct GlResource {
  enum Kind : uint8_t {
    kArena,           // the segment's tensor arena
    kConstantTensor,  // SegmentPlan::constant_tensors[index]
    kOpConstant,      // SegmentPlan::op_constants[index]
    kStaging,         // the staging buffer of edge `index`
    kAppBuffer,       // the app's buffer bound to edge `index`
    kAppTexture,      // the app's texture bound to input edge `index`
    kTexture,         // another texture (`index`), for lists made by hand
    kIndexFault,      // the segment's index-fault record: written only by the
                      // invocation that wins its atomic swap, read by the host
                      // after the readback barrier (glsl/index_fault.comp), so
                      // no access of it is a hazard
  };
  Kind kind = kArena;
  int index = 0;
  std::string name;  // for messages: "staging buffer of input 'x'"
  bool operator==(const GlResource& o) const { return kind == o.kind && index == o.index; }
};

// Bytes [offset, offset + size) of a resource; size 0: to its end.
struct ResourceRange {
  GlResource resource;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string what;  // "tensor 12", for messages
};

// One command of a segment's run, in issue order.
struct GlCommand {
  enum Kind : uint8_t {
    kRunStart,    // Run begins: the bindings are the app's (unknown)
    kBindStorage, // glBindBufferRange / Base(GL_SHADER_STORAGE_BUFFER, point, range)
    kBindTexture, // glBindTexture on texture unit `point` (range.resource; unbind: 0)
    kBindImage,   // glBindImageTexture(point, range.resource); unbind: 0
    kBarrier,     // glMemoryBarrier(barrier_bits)
    kDispatch,    // glDispatchCompute of `source` (no access when !runs_workgroups)
    kHostWrite,   // glBufferSubData / a mapped write of `range`
    kHostRead,    // glMapBufferRange(GL_MAP_READ_BIT) of `range`
    kCopy,        // glCopyBufferSubData: `copy_source` to `range`
    kAppAccess,   // the app takes `range` back (after the run or its fence): any access
  };
  Kind kind = kDispatch;
  std::string label;  // dispatches: the plan's label; others: what it is
  uint32_t point = 0;
  bool unbind = false;
  ResourceRange range;
  ResourceRange copy_source;
  uint32_t barrier_bits = 0;
  const std::string* source = nullptr;  // kDispatch: complete GLSL (outlives the check)
  bool runs_workgroups = true;
  int plan_dispatch = -1;  // kDispatch: index in SegmentPlan::dispatches; -1 for others
};

struct Hazard {
  enum Kind : uint8_t {
    kReadAfterWrite,
    kWriteAfterRead,
    kWriteAfterWrite,
    kUnboundPoint,     // `second` declares a point nothing in this run bound
    kAliasedBindings,  // `second` binds overlapping ranges, one written
    kUnreadableShader, // `second`'s declarations cannot be read (detail says why)
  };
  Kind kind = kReadAfterWrite;
  size_t first = 0, second = 0;  // command indices (first == second for one-command kinds)
  std::string first_label, second_label;
  std::string buffer;            // resource name
  uint64_t offset = 0, size = 0; // the bytes both touch (size 0: to the end)
  uint32_t missing_bits = 0;     // what a barrier between them needs
  std::string detail;
  std::string ToString() const;
};

const char* HazardKindName(Hazard::Kind kind);
// "GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT"
std::string BarrierBitNames(uint32_t bits);

// Shader interfaces read so far, keyed by the source text (which must
// outlive the cache): lists of one plan checked in several I/O shapes read
// each source once.
using ShaderInterfaceCache = std::unordered_map<std::string_view, ShaderInterface>;

// Every hazard of `commands` (at most `max_hazards`), in the order found.
std::vector<Hazard> FindHazards(const std::vector<GlCommand>& commands, size_t max_hazards = 16,
                                ShaderInterfaceCache* cache = nullptr);

// Internal("<what>: unordered memory access: <hazard>; ...") when there is
// any; OK otherwise.
Status CheckHazards(const std::vector<GlCommand>& commands, const std::string& what,
                    ShaderInterfaceCache* cache = nullptr);

}  // namespace gld::gl
