// The public API's vocabulary: options, enums, tensor and node descriptions,
// the interpreter's report and profile rows. Plain declarations with no
// behaviour of their own, so every layer of the library may use them
// (scripts/check_architecture.py); the classes (Model, Interpreter) are in
// gldelegate.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"

namespace gld {

GLD_EXPORT const char* VersionString();  // "0.1.0"

enum class Backend { kAuto, kGl, kCpu };
// kFp16: tensors stored as fp16, arithmetic in 32-bit floats. kFp16Mediump:
// stored as fp16 and computed in mediump (fp16 ALUs on GPUs that have them;
// drivers may compute mediump in fp32, llvmpipe does).
enum class Precision { kFp32, kFp16, kFp16Mediump };
enum class ElementType { kUnknown, kFloat32, kFloat16, kFloat64, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool };

GLD_EXPORT const char* BackendName(Backend b);          // "auto", "gl", "cpu"
GLD_EXPORT const char* PrecisionName(Precision p);      // "fp32", "fp16", "fp16_mediump"
GLD_EXPORT const char* ElementTypeName(ElementType t);  // "float32", ...
GLD_EXPORT size_t ElementTypeSize(ElementType t);
// IEEE 754 binary16 <-> float32, for float16 tensors: round to nearest even;
// overflow gives infinity, NaN stays NaN.
GLD_EXPORT float HalfToFloat(uint16_t h);
GLD_EXPORT uint16_t FloatToHalf(float f);
// Parse "auto|gl|cpu" / "fp32|fp16|fp16_mediump"; InvalidArgument naming the value otherwise.
GLD_EXPORT StatusOr<Backend> ParseBackend(const std::string& s);
GLD_EXPORT StatusOr<Precision> ParsePrecision(const std::string& s);

// Which EGL context the GL backend runs in (Options::context). In every
// mode, Create, Invoke and the Interpreter's destruction leave the calling
// thread's current context, bound client API, current program and shader
// storage buffer and texture bindings as the app had them.
enum class ContextMode {
  // A context of the library's own (the default), current only inside the
  // library's calls. It shares objects (buffers, textures) with
  // Options::share_egl_context when that is set.
  kPrivate,
  // The calling thread's current context when it is OpenGL ES 3.1 or later
  // (TFLite's behaviour), else a private context: none is current, or a
  // desktop OpenGL or older ES context is. A reused context belongs to the
  // app: the Interpreter is then used from that context's thread only.
  kCurrentIfAny,
  // The current OpenGL ES 3.1+ context; Create fails (FailedPrecondition,
  // saying what is current instead) when there is none.
  kCurrent,
};
GLD_EXPORT const char* ContextModeName(ContextMode m);  // "private", "current_if_any", "current"
GLD_EXPORT StatusOr<ContextMode> ParseContextMode(const std::string& s);

// The limits the GL backend plans against (Options::gl_limits): the
// driver's, or the GLES 3.1 minimums (4 storage blocks per compute shader,
// 2^27-byte storage blocks, 128 invocations per workgroup, offset alignment
// 256), so that any driver runs what the smallest conforming device would.
// The environment variable GLD_GL_LIMITS=minimum asks for kMinimum too.
enum class GlLimits { kDriver, kMinimum };
GLD_EXPORT const char* GlLimitsName(GlLimits l);  // "driver", "minimum"
GLD_EXPORT StatusOr<GlLimits> ParseGlLimits(const std::string& s);

struct CustomOp;  // gldelegate/custom_op.hpp

struct Options {
  Backend backend = Backend::kAuto;
  Precision precision = Precision::kFp32;
  int num_threads = 1;  // CPU kernels and XNNPACK; -1: every core (as TFLite)
  // spdlog level name ("trace", "debug", "info", "warn", "error", "off");
  // empty: GLD_LOG_LEVEL from the environment, else "warn".
  std::string log_level;
  std::vector<std::string> gpu_deny_ops;  // op names forced to the CPU
  int egl_device = -1;       // EGL device index; -1: GLD_EGL_DEVICE or the first
  std::string cache_dir;     // program cache; empty: off
  std::string model_token;   // cache key part; empty: fingerprint of the model bytes
  // Off (the default): the program cache is used only in a folder, and from
  // entries, that this user (or root) owns and nobody else may write; what
  // it creates is private (0700 / 0600). On: a folder shared on purpose,
  // whoever owns or may write it (anyone who can write it can then plant
  // programs this process runs).
  bool cache_allow_shared = false;
  // At most this many GPU segments: the largest (by node count) stay on the
  // GPU, the nodes of the others run on the CPU. 0: no limit.
  int max_delegated_partitions = 0;
  // GPU segments of fewer nodes run on the CPU (TFLite's
  // min_nodes_per_partition); 0 or 1: every segment stays. Applied first.
  int min_nodes_per_partition = 0;
  // Time every CPU node and every GPU dispatch (Interpreter::profile()).
  bool enable_profiling = false;
  // Record a timeline (Interpreter::trace()): each Invoke, CPU node, GPU
  // dispatch, segment upload and download, bytes moved per run, and each
  // program compiled or restored at Create. Times GPU segments the way
  // enable_profiling does (a glFinish or timer query around each dispatch).
  bool enable_trace = false;
  // The trace keeps creation's events and those of the last this many
  // invokes (a trace_dropped event counts the invokes and events dropped).
  int trace_max_invokes = 256;
  // GL: time a few workgroup shapes for each dispatch at Create and keep the
  // fastest in cache_dir (workgroups.gldt, keyed by renderer and driver);
  // later runs with that cache_dir use them without timing. Needs cache_dir.
  // Off: the stored tuning is used where present, else the default choice.
  bool tune_workgroups = false;
  ContextMode context = ContextMode::kPrivate;
  // kPrivate: an app's context (EGLContext) to share objects with, and the
  // EGLDisplay it was made on; both null (the default): no sharing. The
  // private context is then made on that display.
  void* share_egl_display = nullptr;
  void* share_egl_context = nullptr;
  // GL: plan against the driver's limits or the GLES 3.1 minimums
  // (GlLimits; GLD_GL_LIMITS=minimum also selects the minimums).
  GlLimits gl_limits = GlLimits::kDriver;
  // A WHILE loop whose body has run this many times with its condition
  // still true fails (naming the loop node, its subgraphs and the count).
  int max_loop_iterations = 10000000;

  // ---- Custom ops (gldelegate/custom_op.hpp) ----
  // The app's kernels for custom ops, added by RegisterCustomOp or
  // LoadCustomOpLibrary (copies of Options share them).
  std::vector<std::shared_ptr<const CustomOp>> custom_ops;
};

struct QuantizationInfo {
  std::vector<float> scale;  // empty when not quantized
  std::vector<int64_t> zero_point;
  int quantized_dimension = 0;
};

struct TensorInfo {
  std::string name;
  ElementType type = ElementType::kUnknown;
  std::vector<int> shape;
  // LiteRT's shape_signature: the shape with -1 where the model takes any
  // size (Interpreter::ResizeInput may change those); the shape when the
  // file gives none.
  std::vector<int> shape_signature;
  QuantizationInfo quantization;
  size_t bytes = 0;  // element count x element size
  int index = -1;    // the tensor's index in the model file's subgraph (LiteRT's tensor index)
};

// A signature of the model (a TFLite SignatureDef) over the subgraph that was
// loaded: its key and, for each of its inputs and outputs, the signature's
// name for it and the tensor's index in the file (TensorInfo::index).
struct SignatureTensor {
  std::string name;
  int tensor_index = -1;
};
struct SignatureInfo {
  std::string key;
  std::vector<SignatureTensor> inputs, outputs;
};

// One node as the model file states it (before transforms).
struct NodeInfo {
  int index = 0;
  std::string op;  // "CONV_2D", "Convolution2DTransposeBias"
  std::vector<std::string> input_names, output_names;
  std::vector<std::vector<int>> input_shapes, output_shapes;
};

// Where one node (after transforms) runs, and why.
struct PlacementInfo {
  int index = 0;        // node index after transforms
  std::string op;
  std::string label;    // "node 12 (CONV_2D)" in the file's numbering
  std::vector<std::string> fused;  // file ops folded into this node
  std::vector<std::vector<int>> input_shapes, output_shapes;
  // The tensors it reads and writes in the graph after the passes (index,
  // -1 for an absent optional input; and name): a producer's output that a
  // node reads is an edge of the graph (gld_inspect --html draws them).
  std::vector<int> input_tensors, output_tensors;
  std::vector<std::string> input_names, output_names;
  bool on_gpu = false;
  int segment = -1;     // GPU segment index, -1 on the CPU
  std::string reason;   // why it runs on the CPU; empty on the GPU
};

struct InterpreterReport {
  Backend backend = Backend::kCpu;  // the backend actually in use
  Precision precision = Precision::kFp32;
  std::string placement_line;       // "placement: G/N nodes on GPU in K segments"
  std::vector<std::string> pass_log;  // one line per change a transform pass made
  std::vector<PlacementInfo> nodes;
  int original_nodes = 0;
  int gpu_nodes = 0, total_nodes = 0, segments = 0;
  int dispatches = 0;  // GL dispatches per Invoke, edge conversions included
  // The steps an Invoke runs, in order, each "CPU: <label>" or "GPU: <label>":
  // a CPU step is one node, a node with its elementwise epilogue chain
  // ("node 10 (CONV_2D) + node 11 (ADD)") or a group of elementwise nodes run
  // block by block in one pass ("node 4 (LESS) + node 5 (ADD) + node 6
  // (SELECT)"); a GPU step is one segment. cpu_steps counts the CPU ones.
  std::vector<std::string> steps;
  int cpu_steps = 0;
  // Elementwise nodes on the GPU that kept a dispatch of their own instead
  // of running in the epilogue of the dispatch producing their input, each
  // as "node 12 (ADD): <why>".
  std::vector<std::string> unfused_elementwise;
  uint64_t gpu_bytes_planned = 0, gpu_bytes_naive = 0, gpu_bytes_lower_bound = 0;
  uint64_t cpu_bytes_planned = 0;  // host tensor storage: arena + inputs/outputs/variables
  uint64_t cpu_bytes_naive = 0;    // the same without sharing (every tensor its own buffer)
  std::string gl_renderer;  // empty without GL
  // The limits the GL plans were made for: "driver" or "GLES 3.1 minimums";
  // empty without GL.
  std::string gl_limits;
  // Where the GL backend runs: "private", "private (shared with the app's
  // context)" or "the app's current context"; empty without GL.
  std::string gl_context;
  // Program cache (Options::cache_dir) during Create: programs loaded from
  // it / compiled because it had none. 0 when the cache is off.
  int cache_hits = 0, cache_misses = 0;
  std::string cache_file;         // the model's entry file; empty when the cache is off
  // Workgroup tuning (Options::tune_workgroups): dispatches that took a
  // stored tuned workgroup, and candidate runs timed during Create.
  int tuned_dispatches = 0, workgroup_timing_runs = 0;
  uint64_t cache_file_bytes = 0;  // its size as read or written
};

// One profiled unit (Options::enable_profiling): a CPU node, a GPU dispatch,
// or a GPU segment's host transfers.
struct ProfileRow {
  std::string name;     // "node 3 (ADD)", "conv2d.comp for node 12 (CONV_2D)"
  std::string op;       // "CONV_2D"; "CONVERT" / "UPLOAD" / "DOWNLOAD" at GPU segment edges
  std::string backend;  // "cpu", "gl"
  std::vector<std::string> fused;  // file ops folded into the node
  double time_us = 0;   // average per run
  int64_t count = 0;    // runs measured
  // How time_us was taken: "gpu_timer" (GL_EXT_disjoint_timer_query),
  // "gl_finish" (wall time between glFinish calls), "wall" (steady clock).
  std::string timing;
};

// One event of an Interpreter's trace (Options::enable_trace), shaped like
// the Trace Event Format's (Chrome's about:tracing, Perfetto): the tools
// and the Python package write them as {"traceEvents": [...]} JSON.
struct TraceArg {
  std::string name;
  std::string text;   // when !is_number
  double number = 0;  // when is_number
  bool is_number = false;
};
struct TraceEvent {
  // 'X': a complete event (ts_us, dur_us); 'C': a counter (its numeric args
  // are the series); 'M': metadata ("process_name" / "thread_name", args
  // "name").
  char phase = 'X';
  std::string name;      // "conv2d.comp for node 3 (CONV_2D)", "node 7 (ADD)"
  std::string category;  // "invoke", "cpu", "gl_segment", "gl_dispatch", "transfer", "startup", ...
  double ts_us = 0;      // microseconds since the Interpreter's creation began
  double dur_us = 0;     // 'X' only
  int pid = 0;           // the process
  int tid = 0;           // a thread, or the GPU's track (its "thread_name" says which)
  std::vector<TraceArg> args;
};

// Host cost of issuing GPU dispatches (every GL segment, every Invoke since
// Create or the last ResetProfile): the calling thread's CPU time and the
// wall time spent in the loop that issues a segment's dispatches, before any
// wait for the GPU. Always measured (two clock reads per segment run).
struct DispatchIssueStats {
  int64_t segment_runs = 0;
  int64_t dispatches = 0;      // dispatches issued, summed over the runs
  double issue_cpu_us = 0;     // thread CPU time issuing them, in total
  double issue_wall_us = 0;    // wall time of the same loops, in total
  // Of issue_cpu_us, the thread CPU time inside glMemoryBarrier and
  // glDispatchCompute. A GPU driver returns from them at once; a software
  // one (llvmpipe) runs or waits for the shaders there. issue_cpu_us -
  // dispatch_call_cpu_us is the host cost of issuing alone (program,
  // uniforms, bindings, bookkeeping).
  double dispatch_call_cpu_us = 0;
};
// One entry file of a program cache folder (Options::cache_dir), as
// VerifyProgramCache found it.
struct CacheFileCheck {
  std::string file;         // its path
  std::string model_token;
  int programs = 0;         // programs it holds
  int loaded = 0;           // restored and linked by this driver
  uint64_t bytes = 0;
  // Empty when good; otherwise "bad: <why>" (corrupt, refused binaries) or
  // "stale: <why>" (made by another library version or driver).
  std::string problem;
};

// The GPU plan of a model (PlanModel): what each GPU segment would run and
// which buffers it would hold, worked out without a GL context at the
// GLES 3.1 minimum limits.
struct PlanBinding {
  int point = 0;
  // "arena 'x'" (a non-constant tensor's range), "tensor 'w'" (a constant
  // tensor's buffer), "constant 'node 3 (CONV_2D) weights'", "staging 'x'"
  std::string buffer;
  uint64_t offset = 0;  // in the arena; 0 otherwise
  uint64_t bytes = 0;   // the range bound
};

struct PlanDispatch {
  std::string label;          // "conv2d.comp for node 3 (CONV_2D) + node 4 (RELU)"
  std::string template_name;  // "conv2d.comp"
  int node = -1;              // graph node (after passes); -1 for edge conversions
  std::vector<int> fused_nodes;
  uint32_t grid[3] = {0, 0, 0};       // invocations that do work
  uint32_t workgroup[3] = {0, 0, 0};  // local size
  uint32_t groups[3] = {0, 0, 0};     // workgroups dispatched
  std::vector<PlanBinding> bindings;
  // The complete GLSL source of its program, as given to the driver
  // (gld_inspect --dump_shaders writes these).
  std::string source;
};

// A tensor crossing a segment edge: host bytes to PHWC4 (to_gpu) or back.
struct PlanConversion {
  std::string tensor;
  bool to_gpu = true;
  std::string host_type;  // "SRC_FLOAT32", "DST_UINT8", ...
  uint64_t host_bytes = 0;
};

// A buffer of the plan: an arena range, or a constant buffer.
struct PlanBuffer {
  std::string name;
  uint64_t offset = 0;  // arena ranges only
  uint64_t bytes = 0;
};

struct SegmentPlanInfo {
  std::string label;  // "GL segment 0 (nodes 0-11)"
  std::vector<int> nodes;
  std::vector<PlanConversion> conversions;  // inputs, then outputs
  std::vector<PlanDispatch> dispatches;     // run order, conversions included
  std::vector<PlanBuffer> arena;            // non-constant tensors
  uint64_t arena_bytes = 0, tensor_bytes_naive = 0, tensor_bytes_lower_bound = 0;
  std::vector<PlanBuffer> constants;        // constant tensors and op constants
  std::vector<std::string> unfused_elementwise;
};

struct PlanReport {
  Precision precision = Precision::kFp32;
  std::string limits;          // the limits planned for: "GLES 3.1 minimums (...)"
  std::string placement_line;  // "placement: G/N nodes on GPU in K segments"
  std::vector<std::string> cpu_nodes;  // "node 7 (TOPK_V2): <why>"
  std::vector<SegmentPlanInfo> segments;
};

// ---- Zero-copy GL I/O (Interpreter::BindInputBuffer, BindInputTexture,
// BindOutputBuffer, InvokeAsync) ----

// How a bound buffer holds a float32 tensor: row-major BHWC (the host
// layout, the app's natural one), or the library's own GPU layout PHWC4
// (gl/codegen/phwc4.h: channels in slices of four, vec4 ((b * S + c / 4) *
// H + h) * W + w, lanes past C zero; a tensor of rank < 4 viewed as BHWC by
// TFLite's rule), which skips the conversion shader. PHWC4 needs
// Precision::kFp32 and B * H * W * ceil(C / 4) * 16 bytes (at least 16).
enum class GlLayout { kBhwc, kPhwc4 };

// An app's 2D texture (GL_RGBA8, GL_RGBA16F or GL_RGBA32F, level 0) as a
// float32 input of shape [1, H, W, C], C <= 4, the texture H rows of W
// texels: element (0, y, x, c) = texel(x, y)[c] * scale[c] + offset[c],
// texel row 0 being the texture's first row in memory. A normalised format
// reads as texel / 255 (RGBA8 byte 255 is 1.0).
struct TextureInput {
  uint32_t texture = 0;  // a GLuint
  float scale[4] = {1, 1, 1, 1};
  float offset[4] = {0, 0, 0, 0};
};

// Host <-> GPU copies of the last Invoke, in bytes: SetInput data uploaded
// to the GPU, GPU results downloaded for GetOutput, and the copies at the
// edges between GPU segments and CPU nodes. A tensor bound to an app's GL
// object adds nothing unless a CPU node reads or writes it.
struct TransferStats {
  uint64_t uploaded_bytes = 0, downloaded_bytes = 0;  // all tensors
  std::vector<uint64_t> input_uploaded_bytes;     // per graph input
  std::vector<uint64_t> output_downloaded_bytes;  // per graph output
};

}  // namespace gld
