// gldelegate C++ API: load a .tflite model, create an interpreter that runs it
// on the GPU through OpenGL ES 3.1 compute shaders (falling back to CPU
// kernels node by node), set inputs, invoke, read outputs.
//
// Example (tests/install builds these lines):
//   auto model = gld::Model::FromFile("m.tflite");
//   if (!model.ok()) return model.status();
//   gld::Options options;  // backend auto, fp32
//   auto interp = gld::Interpreter::Create(**model, options);
//   if (!interp.ok()) return interp.status();
//   std::vector<float> in((*interp)->inputs()[0].bytes / sizeof(float), 0.5f);
//   GLD_RETURN_IF_ERROR((*interp)->SetInput(0, in.data(), in.size() * sizeof(float)));
//   GLD_RETURN_IF_ERROR((*interp)->Invoke());
//   std::vector<float> out((*interp)->outputs()[0].bytes / sizeof(float));
//   GLD_RETURN_IF_ERROR((*interp)->GetOutput(0, out.data(), out.size() * sizeof(float)));
//
// Errors are gld::Status values; no exception crosses this API.
//
// Threading and lifetime: a Model is immutable and may be shared, through
// its shared_ptr, by any number of Interpreters on any threads. An
// Interpreter is used from one thread at a time (calls on it need no lock
// of their own, but two threads must not call it at once); different
// Interpreters may run on different threads concurrently. An Interpreter
// may outlive the Model it was created from. Pointers and references it
// returns (inputs(), report(), OutputData) stay valid while it lives, and
// OutputData's bytes until the next Invoke.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "gldelegate/custom_op.hpp"
#include "gldelegate/types.hpp"

namespace gld {

// An op this build knows, and which backends can run it (the GPU backend may
// still refuse a particular node, e.g. for an unsupported attribute).
struct OpSupport {
  std::string op;  // "CONV_2D"
  bool cpu = false;
  bool gl = false;
};
// Every op the IR knows, in op-list order.
GLD_EXPORT std::vector<OpSupport> SupportedOps();

// A loaded model. Immutable: one Model may be shared by Interpreters created
// and run on different threads. Its graph is checked and transformed once,
// by the first Interpreter created on it; later ones start from that graph
// and share its constant tensors (weights) instead of copying them.
class Model {
 public:
  GLD_EXPORT static StatusOr<std::shared_ptr<const Model>> FromFile(const std::string& path);
  // Decodes what it needs from the bytes; they need not outlive the call.
  GLD_EXPORT static StatusOr<std::shared_ptr<const Model>> FromBuffer(const void* data, size_t size);
  GLD_EXPORT ~Model();

  GLD_EXPORT const std::vector<TensorInfo>& inputs() const;
  GLD_EXPORT const std::vector<TensorInfo>& outputs() const;
  GLD_EXPORT const std::vector<NodeInfo>& nodes() const;
  // Ops and their counts, in order of first appearance.
  GLD_EXPORT std::vector<std::pair<std::string, int>> OpHistogram() const;
  // The names of the file's subgraphs other than the one the model runs
  // (the subgraphs its control-flow nodes call among them).
  GLD_EXPORT std::vector<std::string> OtherSubgraphs() const;
  GLD_EXPORT const std::string& description() const;
  // Every signature of the model file (its first names the subgraph
  // inputs() and outputs() describe and Interpreter::Create runs); empty
  // when the file has none. Interpreter::Create with a key runs any of them.
  GLD_EXPORT const std::vector<SignatureInfo>& signatures() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads every entry in `cache_dir` and restores and links each program with
// the GL driver `options` selects (egl_device, log_level). An error only
// when the folder cannot be listed or no GL context can be made; each
// file's problems are in its CacheFileCheck.
GLD_EXPORT StatusOr<std::vector<CacheFileCheck>> VerifyProgramCache(const std::string& cache_dir, const Options& options);

// The GPU plan of `model` under `options` (precision, gpu_deny_ops,
// max_delegated_partitions): the passes, partitioning with the GL support
// query and each GPU segment's plan, at the GLES 3.1 minimum limits. Makes
// no GL context and needs no GPU, whatever options.backend says.
GLD_EXPORT StatusOr<PlanReport> PlanModel(const Model& model, const Options& options);

// ---- Custom ops (gldelegate/custom_op.hpp) ----
// The custom ops `model` uses (by name and version, in order of first use)
// and whether `options` registers each for the CPU and the GPU.
GLD_EXPORT std::vector<CustomOpUse> CustomOpsOf(const Model& model, const Options& options);

class Interpreter {
 public:
  // InvalidArgument for options gld::CheckOptions refuses (gldelegate/options.hpp),
  // with its message: the C API's setters and the other entries say the same.
  GLD_EXPORT static StatusOr<std::unique_ptr<Interpreter>> Create(const Model& model, const Options& options);
  // An Interpreter of one signature of the model (LiteRT's signature
  // runner): the subgraph `signature_key` names, its inputs and outputs
  // those of the signature (in the subgraph's order). Interpreters of
  // different signatures of one Model share its weights. NotFound for a key
  // the model does not have.
  GLD_EXPORT static StatusOr<std::unique_ptr<Interpreter>> Create(const Model& model, const Options& options,
                                                                  const std::string& signature_key);
  GLD_EXPORT ~Interpreter();

  GLD_EXPORT const std::vector<TensorInfo>& inputs() const;
  GLD_EXPORT const std::vector<TensorInfo>& outputs() const;

  // `bytes` must equal the tensor's size.
  GLD_EXPORT Status SetInput(int index, const void* data, size_t bytes);
  GLD_EXPORT Status Invoke();
  GLD_EXPORT Status GetOutput(int index, void* data, size_t bytes) const;
  // Valid until the next Invoke.
  GLD_EXPORT const void* OutputData(int index) const;
  // The model's state back to a fresh interpreter's (LiteRT's
  // ResetVariableTensors): resource variables lose their values, so a
  // CALL_ONCE runs its init subgraph again on the next Invoke, and variable
  // tensors get their initial contents.
  GLD_EXPORT Status ResetVariables();
  // Ends the Invoke (or InvokeAsync) running on another thread: it returns
  // kCancelled, "invoke cancelled (Interpreter::Cancel) ..." naming where,
  // before its next node, GL segment or loop iteration (a WHILE checks every
  // iteration, its cond and body every node). Safe from any thread and from a signal handler
  // (one atomic store). A Cancel while no Invoke runs does nothing, as
  // TFLite's Interpreter::Cancel; the next Invoke runs normally.
  // Cancellation is always on (TFLite's EnableCancellation has no
  // counterpart): the check is one atomic load per step.
  GLD_EXPORT void Cancel() noexcept;

  GLD_EXPORT const InterpreterReport& report() const;

  // ---- Inputs that change shape (LiteRT's ResizeInputTensor + AllocateTensors) ----
  // Asks for input `index` to take `shape` from the next AllocateTensors on.
  // With `strict`, only the dimensions that are -1 in the input's
  // shape_signature may change (LiteRT's ResizeInputTensorStrict). The index
  // and the dimensions (none negative) are checked here; whether the model
  // takes the shape, at AllocateTensors. Refused while a GL object is bound.
  GLD_EXPORT Status ResizeInput(int index, const std::vector<int>& shape, bool strict = false);
  // Plans for the shapes ResizeInput asked for: shapes inferred again, host
  // memory and GL segments planned again (the program cache keeps that
  // cheap; the last few shapes' plans are kept, so going back to one reuses
  // it). inputs(), outputs() and report() then describe the new shapes;
  // inputs and outputs must be set and read again. A shape the model cannot
  // take fails naming the input and the node that refused it; the
  // interpreter then keeps its previous shapes and drops the request.
  // Nothing asked: OK. SetInput and Invoke refuse while a resize waits.
  GLD_EXPORT Status AllocateTensors();
  // ResizeInput for each input (one shape per input), then AllocateTensors.
  GLD_EXPORT Status ResizeInputs(const std::vector<std::vector<int>>& shapes);

  // With Options::enable_profiling: one row per CPU node and per GPU
  // dispatch, in plan order, averaged over the Invoke calls since Create or
  // the last ResetProfile. Empty without profiling.
  GLD_EXPORT std::vector<ProfileRow> profile() const;
  // Host cost of issuing the GL dispatches since Create or the last
  // ResetProfile (with or without profiling); zeros without GL segments.
  GLD_EXPORT DispatchIssueStats dispatch_issue_stats() const;
  // ResetProfile also drops the trace's run events (not Create's).
  GLD_EXPORT void ResetProfile();
  // With Options::enable_trace: the events since Create (Create's own:
  // program builds and start-up phases) and those of the Invoke calls since
  // Create or the last ResetProfile, metadata first, then by start time.
  // Empty without tracing.
  GLD_EXPORT std::vector<TraceEvent> trace() const;

  // ---- Zero-copy GL I/O (GL backend) ----
  // The app's GL objects are named in the library's context: the app's
  // current one (ContextMode::kCurrent / kCurrentIfAny reusing it) or a
  // private one sharing objects with the app's (Options::share_egl_context);
  // a private context sharing nothing refuses (FailedPrecondition), and so
  // does an Interpreter on the CPU backend. Only float32 tensors bind.
  // A binding lasts until Unbind*; the object must stay alive and at least
  // as large while bound. Bound tensors move no bytes between host and GPU
  // (transfer_stats()), except where a CPU node reads or writes them: then
  // the library copies through the host (counted there).
  //
  // Input `index` is read from `buffer` (a GLuint buffer object of at least
  // the tensor's bytes, float32 in the tensor's row-major BHWC order, or
  // PHWC4 with GlLayout::kPhwc4);
  // SetInput then refuses it. The app makes its own writes to the buffer
  // visible first (glMemoryBarrier in its current context; glFinish or a
  // fence the library's context waits on when it is another context).
  GLD_EXPORT Status BindInputBuffer(int index, uint32_t buffer, GlLayout layout = GlLayout::kBhwc);
  // Input `index` is converted from an app's 2D texture on the GPU
  // (TextureInput); its readers must all run on the GPU.
  GLD_EXPORT Status BindInputTexture(int index, const TextureInput& texture);
  // Output `index` is written into `buffer` (float32, `layout`); GetOutput then
  // refuses it and OutputData returns null. Invoke returns when the values
  // are in the buffer (glFinish in the library's context).
  GLD_EXPORT Status BindOutputBuffer(int index, uint32_t buffer, GlLayout layout = GlLayout::kBhwc);
  // Output `index` stays in the library's own GPU buffer, not downloaded:
  // OutputGlBuffer names that buffer (a GLuint; float32 BHWC), which the app
  // reads in its context after Invoke (or after InvokeAsync's fence) until
  // the next invoke; GetOutput refuses it. Only for outputs a GPU segment
  // makes (FailedPrecondition otherwise). UnbindOutput ends it.
  GLD_EXPORT Status KeepOutputOnGpu(int index);
  GLD_EXPORT StatusOr<uint32_t> OutputGlBuffer(int index) const;
  GLD_EXPORT Status UnbindInput(int index);
  GLD_EXPORT Status UnbindOutput(int index);
  // Invoke that returns once the GPU work is submitted: `*fence` gets a
  // GLsync (cast to void*) signalled when every bound output is written,
  // shared with the app's context (glWaitSync / glClientWaitSync there; the
  // app glDeleteSync's it). Unbound outputs are downloaded as in Invoke,
  // which waits for them. FailedPrecondition on the CPU backend and in a
  // private context sharing nothing with the app's (the fence would be of no
  // use to it).
  GLD_EXPORT Status InvokeAsync(void** fence);
  // Bytes moved between host and GPU by the last Invoke.
  GLD_EXPORT TransferStats transfer_stats() const;

  // ---- State kept across invokes (a decoder's KV cache) ----
  // An input and an output bound to ONE app buffer are a state the model
  // updates in place: each Invoke reads the input from it and writes the
  // output back into it, so the next Invoke (of this Interpreter or of
  // another signature's bound to the same buffer, e.g. prefill then decode)
  // continues from it with no copy. With the GL buffer calls above
  // (BindInputBuffer(i, buf) + BindOutputBuffer(o, buf), one layout) the
  // state never leaves GL memory; the host calls below do the same with the
  // app's host memory on any backend. Allowed when both tensors have one
  // shape and the output's producer is the last step reading the input (a
  // GPU segment, proved race-free with that buffer shared, or on the CPU a
  // DYNAMIC_UPDATE_SLICE / STABLEHLO_SCATTER whose operand is the input);
  // otherwise refused (FailedPrecondition naming the steps: bind another
  // buffer and alternate, ping-pong). Two outputs never share a buffer.
  //
  // Input `index` (output `index`) lives in the app's host memory `data`
  // (exactly the tensor's bytes, aligned to its element size) instead of
  // the interpreter's own: SetInput / GetOutput / OutputData use it; the
  // memory must outlive the binding. Refused for a tensor bound to a GL
  // object. UnbindInput / UnbindOutput give the tensor its own storage back
  // (its contents are not copied); ResizeInput refuses while bound.
  GLD_EXPORT Status BindInputHostBuffer(int index, void* data, size_t bytes);
  GLD_EXPORT Status BindOutputHostBuffer(int index, void* data, size_t bytes);

  class Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Interpreter(std::unique_ptr<Impl> impl);
  // `signature_graph`: a Model::Impl::SignatureGraph, or null for the
  // model's first subgraph.
  static StatusOr<std::unique_ptr<Interpreter>> CreateFor(const Model& model, const Options& options,
                                                          const void* signature_graph);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gld
