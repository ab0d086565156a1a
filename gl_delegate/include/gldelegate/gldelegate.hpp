// gldelegate C++ API: load a .tflite model, create an interpreter that runs it
// on the GPU through OpenGL ES 3.1 compute shaders (falling back to CPU
// kernels node by node), set inputs, invoke, read outputs.
//
//   auto model = gld::Model::FromFile("m.tflite");
//   gld::Options options;                       // backend auto, fp32
//   auto interp = gld::Interpreter::Create(*model, options);
//   (*interp)->SetInput(0, data, bytes);
//   (*interp)->Invoke();
//   (*interp)->GetOutput(0, out, bytes);
//
// Errors are gld::Status values; no exception crosses this API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
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
std::vector<OpSupport> SupportedOps();

// A loaded model. Immutable: one Model may be shared by Interpreters created
// and run on different threads. Its graph is checked and transformed once,
// by the first Interpreter created on it; later ones start from that graph
// and share its constant tensors (weights) instead of copying them.
class Model {
 public:
  static StatusOr<std::shared_ptr<const Model>> FromFile(const std::string& path);
  // Decodes what it needs from the bytes; they need not outlive the call.
  static StatusOr<std::shared_ptr<const Model>> FromBuffer(const void* data, size_t size);
  ~Model();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  const std::vector<NodeInfo>& nodes() const;
  // Ops and their counts, in order of first appearance.
  std::vector<std::pair<std::string, int>> OpHistogram() const;
  std::vector<std::string> OtherSubgraphs() const;
  const std::string& description() const;

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
StatusOr<std::vector<CacheFileCheck>> VerifyProgramCache(const std::string& cache_dir, const Options& options);

// The GPU plan of `model` under `options` (precision, gpu_deny_ops,
// max_delegated_partitions): the passes, partitioning with the GL support
// query and each GPU segment's plan, at the GLES 3.1 minimum limits. Makes
// no GL context and needs no GPU, whatever options.backend says.
StatusOr<PlanReport> PlanModel(const Model& model, const Options& options);

class Interpreter {
 public:
  static StatusOr<std::unique_ptr<Interpreter>> Create(const Model& model, const Options& options);
  ~Interpreter();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  // `bytes` must equal the tensor's size.
  Status SetInput(int index, const void* data, size_t bytes);
  Status Invoke();
  Status GetOutput(int index, void* data, size_t bytes) const;
  // Valid until the next Invoke.
  const void* OutputData(int index) const;

  const InterpreterReport& report() const;

  // With Options::enable_profiling: one row per CPU node and per GPU
  // dispatch, in plan order, averaged over the Invoke calls since Create or
  // the last ResetProfile. Empty without profiling.
  std::vector<ProfileRow> profile() const;
  // Host cost of issuing the GL dispatches since Create or the last
  // ResetProfile (with or without profiling); zeros without GL segments.
  DispatchIssueStats dispatch_issue_stats() const;
  void ResetProfile();

  class Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Interpreter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gld
