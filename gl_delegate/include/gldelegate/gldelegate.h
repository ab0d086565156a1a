/* gldelegate C API: load a .tflite model, create an interpreter that runs it
 * on the GPU through OpenGL ES 3.1 compute shaders (falling back to CPU
 * kernels node by node), set inputs, invoke, read outputs.
 *
 *   GldModel* model;
 *   if (GldModelCreateFromFile("m.tflite", &model) != GLD_OK) puts(GldLastErrorMessage());
 *   GldOptions* options = GldOptionsCreate();
 *   GldInterpreter* interp;
 *   GldInterpreterCreate(model, options, &interp);
 *   GldInterpreterSetInput(interp, 0, data, bytes);
 *   GldInterpreterInvoke(interp);
 *   GldInterpreterGetOutput(interp, 0, out, out_bytes);
 *   GldInterpreterDelete(interp); GldOptionsDelete(options); GldModelDelete(model);
 *
 * Every function that can fail returns a GldStatus; on failure
 * GldLastErrorMessage() (per thread) says what was wrong.
 *
 * Threading and lifetime: a GldModel is immutable and may be used by any
 * number of interpreters on any threads (delete it once no call on it is
 * running). A GldInterpreter is used from one thread at a time: calls on it
 * must not overlap, and with GLD_CONTEXT_CURRENT(_IF_ANY) reusing the app's
 * context they come from that context's thread. Different interpreters may
 * run concurrently. An interpreter may outlive the model it was created
 * from. A GldOptions is read by GldInterpreterCreate only (it may be
 * deleted, changed or reused afterwards); it is not shared between threads
 * while being set. Pointers an interpreter hands out (tensor names and
 * dims, the report's strings, profile rows) stay valid as the functions
 * returning them say. */
#ifndef GLDELEGATE_GLDELEGATE_H_
#define GLDELEGATE_GLDELEGATE_H_

#include <stddef.h>
#include <stdint.h>

#include "gldelegate/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum GldStatus {
  GLD_OK = 0,
  GLD_INVALID_ARGUMENT = 1,
  GLD_NOT_FOUND = 2,
  GLD_UNIMPLEMENTED = 3,
  GLD_FAILED_PRECONDITION = 4,
  GLD_UNAVAILABLE = 5,
  GLD_DATA_LOSS = 6,
  GLD_OUT_OF_RANGE = 7,
  GLD_INTERNAL = 8,
  GLD_CANCELLED = 9 /* an invoke ended by GldInterpreterCancel */
} GldStatus;

typedef enum GldBackend { GLD_BACKEND_AUTO = 0, GLD_BACKEND_GL = 1, GLD_BACKEND_CPU = 2 } GldBackend;
/* FP16: fp16 storage, fp32 arithmetic; FP16_MEDIUMP: fp16 storage, mediump
   arithmetic (fp16 ALUs where the GPU has them). */
typedef enum GldPrecision {
  GLD_PRECISION_FP32 = 0,
  GLD_PRECISION_FP16 = 1,
  GLD_PRECISION_FP16_MEDIUMP = 2
} GldPrecision;

/* Which EGL context the GL backend runs in (gld::ContextMode). In every
 * mode, creating, invoking and deleting an interpreter leave the thread's
 * current context, bound client API, current program and shader storage
 * buffer and texture bindings as the app had them. */
typedef enum GldContextMode {
  /* A context of the library's own (the default), optionally sharing objects
   * with an app's context (GldOptionsSetShareContext). */
  GLD_CONTEXT_PRIVATE = 0,
  /* The current context when it is OpenGL ES 3.1+ (TFLite's behaviour),
   * else a private one (none current, desktop OpenGL, older ES). */
  GLD_CONTEXT_CURRENT_IF_ANY = 1,
  /* The current OpenGL ES 3.1+ context; creation fails without one. */
  GLD_CONTEXT_CURRENT = 2
} GldContextMode;

/* The limits the GL backend plans against (gld::GlLimits): the driver's, or
 * the GLES 3.1 minimums, as the smallest conforming device would have them
 * (GLD_GL_LIMITS=minimum in the environment selects them too). */
typedef enum GldGlLimits { GLD_GL_LIMITS_DRIVER = 0, GLD_GL_LIMITS_MINIMUM = 1 } GldGlLimits;

typedef enum GldElementType {
  GLD_TYPE_UNKNOWN = 0,
  GLD_TYPE_FLOAT32 = 1,
  GLD_TYPE_FLOAT16 = 2,
  GLD_TYPE_FLOAT64 = 3,
  GLD_TYPE_INT8 = 4,
  GLD_TYPE_UINT8 = 5,
  GLD_TYPE_INT16 = 6,
  GLD_TYPE_INT32 = 7,
  GLD_TYPE_INT64 = 8,
  GLD_TYPE_BOOL = 9
} GldElementType;

typedef struct GldModel GldModel;
typedef struct GldOptions GldOptions;
typedef struct GldInterpreter GldInterpreter;

/* What an interpreter runs where (gld::InterpreterReport). The strings stay
 * valid while the interpreter lives. gldelegate/report.inc lists the fields
 * (a new one: a field here and a row there). */
typedef struct GldReport {
  GldBackend backend; /* the backend in use: GLD_BACKEND_GL or GLD_BACKEND_CPU */
  GldPrecision precision;
  const char* placement_line; /* "placement: G/N nodes on GPU in K segments" */
  int32_t original_nodes;     /* nodes in the file */
  int32_t total_nodes;        /* nodes after the graph passes */
  int32_t gpu_nodes;
  int32_t segments;           /* GPU segments */
  int32_t dispatches;         /* GL dispatches per invoke */
  uint64_t gpu_bytes_planned, cpu_bytes_planned;
  const char* gl_renderer;    /* "" without GL */
  const char* gl_context;     /* "private", "the app's current context", ...; "" without GL */
  int32_t cache_hits, cache_misses; /* program cache, 0 when off */
  const char* cache_file;     /* "" when the cache is off */
} GldReport;

/* Where one node (after the graph passes) runs, and why. */
typedef struct GldNodePlacement {
  int32_t index;
  const char* op;     /* "CONV_2D" */
  const char* label;  /* "node 12 (CONV_2D)" in the file's numbering */
  int32_t on_gpu;     /* 1 on the GPU, 0 on the CPU */
  int32_t segment;    /* GPU segment, -1 on the CPU */
  const char* reason; /* why it runs on the CPU; "" on the GPU */
} GldNodePlacement;

/* One profiled unit (GldOptionsSetProfiling): a CPU node, a GPU dispatch or
 * a GPU segment's host transfers, averaged over the invokes since creation
 * or GldInterpreterResetProfile. */
typedef struct GldProfileRow {
  const char* name;    /* "node 3 (ADD)" */
  const char* op;      /* "ADD"; "CONVERT" / "UPLOAD" / "DOWNLOAD" at GPU segment edges */
  const char* backend; /* "cpu", "gl" */
  double time_us;      /* average per run */
  int64_t count;       /* runs measured */
  const char* timing;  /* "gpu_timer", "gl_finish", "wall" */
} GldProfileRow;

/* One event of the trace (GldOptionsSetTracing), as gld::TraceEvent. */
typedef struct GldTraceArg {
  const char* name;
  const char* text; /* NULL when the value is a number */
  double number;
} GldTraceArg;
typedef struct GldTraceEvent {
  char phase;           /* 'X' complete, 'C' counter, 'M' metadata */
  const char* name;
  const char* category;
  double ts_us, dur_us; /* since the interpreter's creation began */
  int32_t pid, tid;
  const GldTraceArg* args;
  int32_t arg_count;
} GldTraceEvent;

/* A tensor's description. The pointers stay valid while the interpreter lives. */
typedef struct GldTensorInfo {
  const char* name;
  GldElementType type;
  int32_t num_dims;
  const int32_t* dims;
  size_t bytes; /* element count x element size */
  /* Quantization (raw int8/uint8 tensors): 0 scales when not quantized. */
  int32_t num_scales;
  const float* scales;
  const int64_t* zero_points;
  int32_t index; /* the tensor's index in the model file's subgraph (LiteRT's tensor index) */
} GldTensorInfo;

GLD_EXPORT const char* GldVersion(void);
/* The message of the last failed call on this thread ("" when none). */
GLD_EXPORT const char* GldLastErrorMessage(void);
/* "OK", "INVALID_ARGUMENT", ... */
GLD_EXPORT const char* GldStatusName(GldStatus status);

GLD_EXPORT GldStatus GldModelCreateFromFile(const char* path, GldModel** out_model);
GLD_EXPORT GldStatus GldModelCreateFromBuffer(const void* data, size_t size, GldModel** out_model);
GLD_EXPORT void GldModelDelete(GldModel* model);

/* Defaults: backend auto, fp32, 1 thread, log level from GLD_LOG_LEVEL. */
GLD_EXPORT GldOptions* GldOptionsCreate(void);
GLD_EXPORT void GldOptionsDelete(GldOptions* options);
GLD_EXPORT GldStatus GldOptionsSetBackend(GldOptions* options, GldBackend backend);
GLD_EXPORT GldStatus GldOptionsSetPrecision(GldOptions* options, GldPrecision precision);
GLD_EXPORT GldStatus GldOptionsSetNumThreads(GldOptions* options, int32_t num_threads);
/* "trace", "debug", "info", "warn", "error", "off"; NULL or "" for the default. */
GLD_EXPORT GldStatus GldOptionsSetLogLevel(GldOptions* options, const char* level);
/* An op name ("CONV_2D") that must run on the CPU; may be called repeatedly. */
GLD_EXPORT GldStatus GldOptionsAddGpuDenyOp(GldOptions* options, const char* op);
GLD_EXPORT GldStatus GldOptionsSetCacheDir(GldOptions* options, const char* dir);
/* Non-zero: use a cache folder (and entries) that other users own or may
 * write, a cache shared on purpose. 0 (the default): only this user's (or
 * root's), writable by nobody else; others are refused with a warning. */
GLD_EXPORT GldStatus GldOptionsSetCacheAllowShared(GldOptions* options, int32_t enable);
/* The program cache's key for this model; NULL or "": a fingerprint of the model's bytes. */
GLD_EXPORT GldStatus GldOptionsSetModelToken(GldOptions* options, const char* token);
/* At most this many GPU segments (the largest stay on the GPU); 0: no limit. */
GLD_EXPORT GldStatus GldOptionsSetMaxDelegatedPartitions(GldOptions* options, int32_t max_partitions);
/* GPU segments of fewer nodes run on the CPU (TFLite's min_nodes_per_partition),
 * applied before the limit above; 0 or 1: every segment stays. */
GLD_EXPORT GldStatus GldOptionsSetMinNodesPerPartition(GldOptions* options, int32_t min_nodes);
/* Non-zero: time a few workgroup shapes per GL dispatch at creation and keep
 * the fastest in the cache folder (needs GldOptionsSetCacheDir); later runs
 * with that folder use them without timing. */
GLD_EXPORT GldStatus GldOptionsSetTuneWorkgroups(GldOptions* options, int32_t enable);
/* EGL device index; -1 (the default): GLD_EGL_DEVICE, else the first that works. */
GLD_EXPORT GldStatus GldOptionsSetEglDevice(GldOptions* options, int32_t device);
/* Non-zero: time every CPU node and GPU dispatch (GldInterpreterGetProfile). */
GLD_EXPORT GldStatus GldOptionsSetProfiling(GldOptions* options, int32_t enable);
/* Non-zero: record a timeline of the runs and of creation (GldInterpreterGetTrace). */
GLD_EXPORT GldStatus GldOptionsSetTracing(GldOptions* options, int32_t enable);
/* With tracing: the trace keeps creation's events and those of the last N
 * invokes (default 256; >= 1); a trace_dropped event counts the rest. */
GLD_EXPORT GldStatus GldOptionsSetTraceMaxInvokes(GldOptions* options, int32_t max_invokes);
GLD_EXPORT GldStatus GldOptionsSetContextMode(GldOptions* options, GldContextMode mode);
/* GLD_CONTEXT_PRIVATE: share objects with `egl_context` (an EGLContext made
 * on `egl_display`, an EGLDisplay), so its buffers are visible to the
 * library's context. Both NULL: no sharing (the default). */
GLD_EXPORT GldStatus GldOptionsSetShareContext(GldOptions* options, void* egl_display, void* egl_context);
GLD_EXPORT GldStatus GldOptionsSetGlLimits(GldOptions* options, GldGlLimits limits);
/* A WHILE loop whose body has run this many times with its condition still
 * true fails the invoke (default 10000000; >= 1). */
GLD_EXPORT GldStatus GldOptionsSetMaxLoopIterations(GldOptions* options, int32_t max_iterations);

/* Each setter above has a getter giving the value back: the strings stay
 * valid until that option is set again or the options are deleted. The
 * options, their ranges and their Python and tool names are listed once in
 * gldelegate/options.inc. */
GLD_EXPORT GldStatus GldOptionsGetBackend(const GldOptions* options, GldBackend* out);
GLD_EXPORT GldStatus GldOptionsGetPrecision(const GldOptions* options, GldPrecision* out);
GLD_EXPORT GldStatus GldOptionsGetNumThreads(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetLogLevel(const GldOptions* options, const char** out);
/* The ops GldOptionsAddGpuDenyOp added, in order: index 0 to count - 1. */
GLD_EXPORT GldStatus GldOptionsGetGpuDenyOpCount(const GldOptions* options, int32_t* out_count);
GLD_EXPORT GldStatus GldOptionsGetGpuDenyOp(const GldOptions* options, int32_t index, const char** out);
GLD_EXPORT GldStatus GldOptionsGetCacheDir(const GldOptions* options, const char** out);
GLD_EXPORT GldStatus GldOptionsGetCacheAllowShared(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetModelToken(const GldOptions* options, const char** out);
GLD_EXPORT GldStatus GldOptionsGetMaxDelegatedPartitions(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetMinNodesPerPartition(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetTuneWorkgroups(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetEglDevice(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetProfiling(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetTracing(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetTraceMaxInvokes(const GldOptions* options, int32_t* out);
GLD_EXPORT GldStatus GldOptionsGetContextMode(const GldOptions* options, GldContextMode* out);
GLD_EXPORT GldStatus GldOptionsGetShareContext(const GldOptions* options, void** out_egl_display, void** out_egl_context);
GLD_EXPORT GldStatus GldOptionsGetGlLimits(const GldOptions* options, GldGlLimits* out);
GLD_EXPORT GldStatus GldOptionsGetMaxLoopIterations(const GldOptions* options, int32_t* out);

/* `options` may be NULL for the defaults. */
GLD_EXPORT GldStatus GldInterpreterCreate(const GldModel* model, const GldOptions* options, GldInterpreter** out_interpreter);
GLD_EXPORT void GldInterpreterDelete(GldInterpreter* interpreter);

/* The model's signatures (TFLite SignatureDefs, in file order): their count,
 * and the key of signature `index` (NULL when out of range; valid while the
 * model lives). GldInterpreterCreateForSignature runs the subgraph signature
 * `signature_key` names (LiteRT's signature runner): its inputs and outputs
 * carry the signature's names (GldTensorInfo.name). Interpreters of one
 * model's signatures share its weights. GLD_NOT_FOUND for an unknown key. */
GLD_EXPORT int32_t GldModelGetSignatureCount(const GldModel* model);
GLD_EXPORT const char* GldModelGetSignatureKey(const GldModel* model, int32_t index);
GLD_EXPORT GldStatus GldInterpreterCreateForSignature(const GldModel* model, const GldOptions* options,
                                                      const char* signature_key, GldInterpreter** out_interpreter);

GLD_EXPORT int32_t GldInterpreterGetInputCount(const GldInterpreter* interpreter);
GLD_EXPORT int32_t GldInterpreterGetOutputCount(const GldInterpreter* interpreter);
GLD_EXPORT GldStatus GldInterpreterGetInputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info);
GLD_EXPORT GldStatus GldInterpreterGetOutputInfo(const GldInterpreter* interpreter, int32_t index, GldTensorInfo* out_info);

/* LiteRT's shape_signature of an input or output: its shape with -1 where the
 * model takes any size; the shape when the file gives none. `*out_dims` stays
 * valid while the interpreter lives. */
GLD_EXPORT GldStatus GldInterpreterGetInputShapeSignature(const GldInterpreter* interpreter, int32_t index,
                                                          int32_t* out_num_dims, const int32_t** out_dims);
GLD_EXPORT GldStatus GldInterpreterGetOutputShapeSignature(const GldInterpreter* interpreter, int32_t index,
                                                           int32_t* out_num_dims, const int32_t** out_dims);
/* As TFLite's TfLiteInterpreterResizeInputTensor: input `index` takes the
 * shape `dims[0..num_dims)` from the next GldInterpreterAllocateTensors on,
 * which plans for it (gld::Interpreter::ResizeInput / AllocateTensors). After
 * GldInterpreterAllocateTensors, what earlier GldInterpreterGet*Info,
 * GldInterpreterGetReport and GldInterpreterGetNodePlacement calls gave
 * (dims, bytes, the report's strings) is stale: ask again. */
GLD_EXPORT GldStatus GldInterpreterResizeInputTensor(GldInterpreter* interpreter, int32_t index,
                                                     const int32_t* dims, int32_t num_dims);
GLD_EXPORT GldStatus GldInterpreterAllocateTensors(GldInterpreter* interpreter);

/* `bytes` must equal the tensor's size. */
GLD_EXPORT GldStatus GldInterpreterSetInput(GldInterpreter* interpreter, int32_t index, const void* data, size_t bytes);
GLD_EXPORT GldStatus GldInterpreterInvoke(GldInterpreter* interpreter);
GLD_EXPORT GldStatus GldInterpreterGetOutput(const GldInterpreter* interpreter, int32_t index, void* data, size_t bytes);
/* The model's state back to a fresh interpreter's, as LiteRT's
 * ResetVariableTensors: resource variables lose their values (CALL_ONCE
 * runs its init subgraph again on the next invoke) and variable tensors
 * get their initial contents. */
GLD_EXPORT GldStatus GldInterpreterResetVariables(GldInterpreter* interpreter);
/* Ends the invoke running on `interpreter` (GldInterpreterInvoke or
   GldInterpreterInvokeAsync, on another thread): it returns GLD_CANCELLED
   with the message "invoke cancelled (Interpreter::Cancel) ..." naming
   where, before its next node, GL segment or loop iteration. Callable from
   any thread and from a signal handler (one atomic store; it sets no error
   text); a call while no invoke runs does nothing, as TFLite's
   Interpreter::Cancel. The interpreter stays usable:
   the next invoke runs normally. GLD_INVALID_ARGUMENT for a null
   interpreter. */
GLD_EXPORT GldStatus GldInterpreterCancel(GldInterpreter* interpreter);

/* The report of what runs where; its strings stay valid while the interpreter lives. */
GLD_EXPORT GldStatus GldInterpreterGetReport(const GldInterpreter* interpreter, GldReport* out_report);
/* Nodes after the graph passes (GldReport.total_nodes) and where each runs. */
GLD_EXPORT int32_t GldInterpreterGetNodeCount(const GldInterpreter* interpreter);
GLD_EXPORT GldStatus GldInterpreterGetNodePlacement(const GldInterpreter* interpreter, int32_t index,
                                                    GldNodePlacement* out_node);
/* The profile rows as of this call (none without GldOptionsSetProfiling):
 * `*out_rows` points to `*out_count` rows, valid until the next
 * GldInterpreterGetProfile or GldInterpreterDelete on this interpreter. */
GLD_EXPORT GldStatus GldInterpreterGetProfile(GldInterpreter* interpreter, const GldProfileRow** out_rows,
                                              int32_t* out_count);
GLD_EXPORT GldStatus GldInterpreterResetProfile(GldInterpreter* interpreter);
/* The trace events as of this call (none without GldOptionsSetTracing), as
 * gld::Interpreter::trace(): valid until the next GldInterpreterGetTrace or
 * GldInterpreterDelete on this interpreter. */
GLD_EXPORT GldStatus GldInterpreterGetTrace(GldInterpreter* interpreter, const GldTraceEvent** out_events,
                                            int32_t* out_count);

/* ---- Zero-copy GL I/O (the GL backend; gld::Interpreter::BindInputBuffer
 * and the rest in gldelegate.hpp say the rules) ----
 * GL names are GLuints of the app's, named in the library's context: the
 * app's current one (GLD_CONTEXT_CURRENT) or a private one sharing objects
 * with it (GldOptionsSetShareContext). Only float32 tensors bind; buffers
 * hold the tensor in row-major BHWC order (GLD_LAYOUT_BHWC) or in the GPU
 * layout (GLD_LAYOUT_PHWC4: fp32 precision, vec4 slices of channels; see
 * gld::GlLayout), which skips a conversion shader. */
typedef enum GldGlLayout { GLD_LAYOUT_BHWC = 0, GLD_LAYOUT_PHWC4 = 1 } GldGlLayout;
GLD_EXPORT GldStatus GldInterpreterBindInputBuffer(GldInterpreter* interpreter, int32_t index, uint32_t buffer,
                                                   GldGlLayout layout);
/* A 2D texture (GL_RGBA8, GL_RGBA16F, GL_RGBA32F) as input `index` of shape
 * [1, H, W, C], C <= 4: texel(x, y)[c] * scale[c] + offset[c]; `scale` and
 * `offset` are 4 floats each, or null for 1 and 0. */
GLD_EXPORT GldStatus GldInterpreterBindInputTexture(GldInterpreter* interpreter, int32_t index, uint32_t texture,
                                                    const float* scale, const float* offset);
GLD_EXPORT GldStatus GldInterpreterBindOutputBuffer(GldInterpreter* interpreter, int32_t index, uint32_t buffer,
                                                    GldGlLayout layout);
/* Output `index` stays in the library's GPU buffer (no download);
 * GldInterpreterGetOutputGlBuffer names it (a GLuint, float32 BHWC), valid
 * until the next invoke. */
GLD_EXPORT GldStatus GldInterpreterKeepOutputOnGpu(GldInterpreter* interpreter, int32_t index);
GLD_EXPORT GldStatus GldInterpreterGetOutputGlBuffer(const GldInterpreter* interpreter, int32_t index,
                                                     uint32_t* out_buffer);
GLD_EXPORT GldStatus GldInterpreterUnbindInput(GldInterpreter* interpreter, int32_t index);
GLD_EXPORT GldStatus GldInterpreterUnbindOutput(GldInterpreter* interpreter, int32_t index);
/* ---- State kept across invokes (a decoder's KV cache;
 * gld::Interpreter::BindInputHostBuffer in gldelegate.hpp says the rules) ----
 * Input (output) `index` lives in the app's host memory `data`: exactly the
 * tensor's bytes, aligned to its element size, alive while bound; any
 * backend. One host buffer bound as an input and an output is a state the
 * model updates in place (GLD_FAILED_PRECONDITION where that is unsafe).
 * GldInterpreterUnbindInput / GldInterpreterUnbindOutput end it. */
GLD_EXPORT GldStatus GldInterpreterBindInputHostBuffer(GldInterpreter* interpreter, int32_t index, void* data,
                                                       size_t bytes);
GLD_EXPORT GldStatus GldInterpreterBindOutputHostBuffer(GldInterpreter* interpreter, int32_t index, void* data,
                                                        size_t bytes);
/* Returns once the GPU work is submitted; `*out_fence` is a GLsync the app
 * waits on (glWaitSync / glClientWaitSync) and deletes (glDeleteSync). */
GLD_EXPORT GldStatus GldInterpreterInvokeAsync(GldInterpreter* interpreter, void** out_fence);
/* Bytes moved between host and GPU by the last invoke, in all. */
GLD_EXPORT GldStatus GldInterpreterGetTransferBytes(const GldInterpreter* interpreter, uint64_t* out_uploaded,
                                                    uint64_t* out_downloaded);
/* The same for one graph input (bytes uploaded) or output (downloaded). */
GLD_EXPORT GldStatus GldInterpreterGetInputUploadedBytes(const GldInterpreter* interpreter, int32_t index,
                                                         uint64_t* out_bytes);
GLD_EXPORT GldStatus GldInterpreterGetOutputDownloadedBytes(const GldInterpreter* interpreter, int32_t index,
                                                            uint64_t* out_bytes);

/* ---- Custom ops (gldelegate/custom_op.hpp has the C++ side and the GLSL
 * conventions of a GL kernel) ------------------------------------------------
 * An app's kernels for the custom ops of its models, registered per
 * GldOptions. A callback returns GLD_OK, or another status after writing a
 * message into node->error (node->error_size bytes, NUL-terminated). */
#define GLD_CUSTOM_MAX_DIMS 8

typedef struct GldCustomTensor {
  GldElementType type;
  int32_t num_dims; /* at most GLD_CUSTOM_MAX_DIMS */
  int32_t dims[GLD_CUSTOM_MAX_DIMS];
} GldCustomTensor;

/* What each callback sees of its node. */
typedef struct GldCustomNode {
  const char* name;  /* the custom_code */
  int32_t version;   /* the operator code's version */
  const char* label; /* "node 3 (MyOp)" */
  const uint8_t* options; /* custom_options bytes (flexbuffers from TFLite's converter) */
  size_t options_size;
  int32_t num_inputs;
  const GldCustomTensor* inputs;
  int32_t num_outputs;
  const GldCustomTensor* outputs; /* final types and shapes (not in shape) */
  char* error;       /* a failing callback's message goes here */
  size_t error_size;
} GldCustomNode;

/* A GL kernel's dispatch for one node: arrives with the default grid (one
 * invocation per vec4 of output 0) and a zero workgroup (the library's
 * choice); params are the shader's u_params[4]. */
typedef struct GldCustomGlDispatch {
  uint32_t grid[3];
  uint32_t workgroup[3];
  float params[16];
} GldCustomGlDispatch;

typedef struct GldCustomOp {
  const char* name;  /* required: the custom_code it runs */
  int32_t version;   /* 0: every version; else only this one */
  void* user_data;   /* passed to every callback; must outlive the interpreters */
  /* Required: sets outputs[i] (node->num_outputs of them; their type arrives
   * as the file declares it, else GLD_TYPE_UNKNOWN). */
  GldStatus (*shape)(void* user_data, const GldCustomNode* node, GldCustomTensor* outputs);
  /* Optional: checks a node placed on the CPU and sets *state. */
  GldStatus (*prepare)(void* user_data, const GldCustomNode* node, void** state);
  /* Optional: frees a state prepare made, when the interpreter is deleted. */
  void (*free_state)(void* user_data, void* state);
  /* Required: computes the outputs (host buffers in the node's order). */
  GldStatus (*run)(void* user_data, const GldCustomNode* node, void* state, const void* const* inputs,
                   void* const* outputs);
  /* Optional GL kernel: the GLSL source (copied), and a configure callback. */
  const char* gl_source;
  GldStatus (*gl_configure)(void* user_data, const GldCustomNode* node, GldCustomGlDispatch* dispatch);
} GldCustomOp;

/* Copies `op` into `options` (strings included). GLD_INVALID_ARGUMENT naming
 * the op: empty name, no shape or run callback, a negative version, or the
 * same name and version registered twice on these options. */
GLD_EXPORT GldStatus GldOptionsAddCustomOp(GldOptions* options, const GldCustomOp* op);
/* Loads the shared library `path` and calls its gld_register_custom_ops. */
GLD_EXPORT GldStatus GldOptionsLoadCustomOps(GldOptions* options, const char* path);
/* Reads number `key` (an int, float or bool) of a flexbuffer map of custom
 * options into *out. GLD_NOT_FOUND when the map has no such key,
 * GLD_INVALID_ARGUMENT when the bytes are not a flexbuffer map or the value is
 * not a number. */
GLD_EXPORT GldStatus GldCustomOptionsGetNumber(const uint8_t* options, size_t options_size, const char* key,
                                               double* out);

/* What a custom-op library (a plugin: --custom_ops=lib.so in the tools)
 * defines:
 *   GldStatus gld_register_custom_ops(GldOptions* options, const GldCustomOpApi* api);
 * (extern "C", default visibility). It registers its ops through
 * api->add_custom_op, so it needs no link to gldelegate, and returns GLD_OK,
 * or another status after api->set_error(message). `api` stays valid for the
 * life of the process; its callbacks may keep it. */
typedef struct GldCustomOpApi {
  int32_t abi_version; /* GLD_CUSTOM_OP_ABI_VERSION */
  GldStatus (*add_custom_op)(GldOptions* options, const GldCustomOp* op);
  void (*set_error)(const char* message);
  GldStatus (*get_option_number)(const uint8_t* options, size_t options_size, const char* key, double* out);
} GldCustomOpApi;
#define GLD_CUSTOM_OP_ABI_VERSION 1
#define GLD_REGISTER_CUSTOM_OPS_SYMBOL "gld_register_custom_ops"
typedef GldStatus (*GldRegisterCustomOpsFn)(GldOptions* options, const GldCustomOpApi* api);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* GLDELEGATE_GLDELEGATE_H_ */
