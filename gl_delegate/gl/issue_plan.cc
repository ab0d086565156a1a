#include "gl/issue_plan.h"

#include <cctype>
#include <map>
#include <vector>

namespace gld::gl {

namespace {

// The buffer a binding names: kind and index, with every arena range in the
// one arena buffer.
std::pair<int, int> BufferOf(const PlannedBinding& b) {
  return {static_cast<int>(b.kind), b.kind == PlannedBinding::kArena ? 0 : b.index};
}

// A range one dispatch touches, and whether it may write it.
struct Access {
  PlannedBinding range;
  bool written = false;
};

std::vector<Access> AccessesOf(const PlannedDispatch& d) {
  const std::set<uint32_t> written = WrittenBindingPoints(d.source);
  std::vector<Access> out;
  for (const PlannedBinding& b : d.bindings) {
    // Constant buffers are written once, at creation, by the host; the
    // index-fault record only by the one invocation that wins its atomic
    // swap (glsl/index_fault.comp), read by the host after the run.
    const bool constant = b.kind == PlannedBinding::kConstantTensor || b.kind == PlannedBinding::kOpConstant;
    if (constant || b.kind == PlannedBinding::kIndexFault) continue;
    out.push_back({b, written.count(b.point) > 0});
  }
  return out;
}

// True when `a` and `b` conflict: they overlap and one of them writes.
bool Conflict(const Access& a, const Access& b) {
  return (a.written || b.written) && Overlaps(a.range, b.range);
}

}  // namespace

std::set<uint32_t> WrittenBindingPoints(const std::string& source) {
  std::set<uint32_t> written;
  const std::string key = "binding = ";
  for (size_t pos = source.find(key); pos != std::string::npos; pos = source.find(key, pos + 1)) {
    size_t p = pos + key.size();
    const size_t line_end = source.find('\n', p);
    const std::string rest = source.substr(p, line_end == std::string::npos ? std::string::npos : line_end - p);
    if (rest.find("buffer") == std::string::npos) continue;  // not a storage block (a layout of another kind)
    const size_t modifiers = rest.find(')');
    if (rest.find("readonly", modifiers) != std::string::npos) continue;
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) {
      // A writable block whose point a macro names: every point counts.
      for (uint32_t k = 0; k < 32; ++k) written.insert(k);
      continue;
    }
    written.insert(static_cast<uint32_t>(std::stoul(rest)));
  }
  return written;
}

bool SameBufferRange(const PlannedBinding& a, const PlannedBinding& b) {
  return BufferOf(a) == BufferOf(b) && a.offset == b.offset && a.size == b.size;
}

bool Overlaps(const PlannedBinding& a, const PlannedBinding& b) {
  if (BufferOf(a) != BufferOf(b)) return false;
  if (a.kind != PlannedBinding::kArena) return true;  // whole buffers
  return a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

void PlanIssue(SegmentPlan* plan) {
  std::map<uint32_t, PlannedBinding> bound;  // what each point holds after the previous dispatch
  std::vector<Access> since_barrier;         // accesses of the dispatches since the last barrier
  const std::string* previous_source = nullptr;
  const Workgroup* previous_workgroup = nullptr;
  for (size_t i = 0; i < plan->dispatches.size(); ++i) {
    PlannedDispatch& d = plan->dispatches[i];
    const bool first = i == 0;
    d.use_program = first || d.source != *previous_source || d.workgroup != *previous_workgroup;
    previous_source = &d.source;
    previous_workgroup = &d.workgroup;
    d.rebind.clear();
    for (size_t k = 0; k < d.bindings.size(); ++k) {
      auto it = bound.find(d.bindings[k].point);
      if (first || it == bound.end() || !SameBufferRange(it->second, d.bindings[k])) {
        d.rebind.push_back(static_cast<uint32_t>(k));
      }
      bound[d.bindings[k].point] = d.bindings[k];
    }
    const std::vector<Access> accesses = AccessesOf(d);
    bool hazard = first;
    for (const Access& a : accesses) {
      for (const Access& earlier : since_barrier) hazard = hazard || Conflict(a, earlier);
    }
    d.barrier_before = hazard;
    if (hazard) since_barrier.clear();
    since_barrier.insert(since_barrier.end(), accesses.begin(), accesses.end());
  }
}

}  // namespace gld::gl
