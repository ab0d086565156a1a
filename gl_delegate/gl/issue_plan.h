// How a segment's dispatches are issued, decided on the plan without a GL
// context: which dispatches need glUseProgram (the program changes), which
// bindings must be set (they differ from what the previous dispatch left
// bound), and where a memory barrier is needed (a dispatch touches memory
// that an earlier one, since the last barrier, wrote; or writes memory one
// read). GlSegment only follows these decisions.
#pragma once

#include <set>
#include <string>

#include "gl/segment_plan.h"

namespace gld::gl {

// Binding points that the shader source declares as storage buffers without
// `readonly` (it may write them). A point declared through a macro (not a
// number) counts as written.
std::set<uint32_t> WrittenBindingPoints(const std::string& source);

// Two bindings bind the same buffer range.
bool SameBufferRange(const PlannedBinding& a, const PlannedBinding& b);

// Two bindings may touch common bytes.
bool Overlaps(const PlannedBinding& a, const PlannedBinding& b);

// Fills use_program, rebind and barrier_before of every dispatch in `plan`.
// The first dispatch of a run always sets its program, every binding and a
// barrier (other segments and the previous run may have left other state).
void PlanIssue(SegmentPlan* plan);

}  // namespace gld::gl
