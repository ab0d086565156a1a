// index_fault.comp: the segment's index-fault record, for templates that
// index a tensor by data (gather.comp, gather_nd.comp). An invocation that
// meets an index outside [0, bound) calls report_index_fault; the first
// report of a run wins (atomicCompSwap on `reported`), so the record names
// one node, value and bound. The host reads it after the run's readback
// barrier and fails the run with the CPU kernel's message, then clears it
// (gl/gl_segment.h, GlSegment::CheckIndexFault). Writes happen only after
// winning the swap, once per run: no barrier orders them between
// dispatches (gl/hazard_check.h leaves this buffer out).
//
// Binding 3 (templates that take this library bind only points 0-2).
// Uniform: u_fault_node, the graph node of the dispatch.

layout(std430, binding = 3) restrict buffer IndexFault {
  int reported;
  int node;
  int value;
  int bound;
} index_fault_t;

uniform int u_fault_node;

// An index read as a float (int32 tensors are floats on the GPU): in
// [0, bound) exactly when it names a row; NaN and infinities do not.
bool index_in_range(float k, int bound) { return k >= 0.0 && k < float(bound); }

void report_index_fault(float k, int bound) {
  if (atomicCompSwap(index_fault_t.reported, 0, 1) == 0) {
    index_fault_t.node = u_fault_node;
    index_fault_t.value = int(clamp(k, -2147483520.0, 2147483520.0));
    index_fault_t.bound = bound;
  }
}
