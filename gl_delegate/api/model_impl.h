// gld::Model's insides, shared with the Interpreter and with tests and tools
// that reach below the public API.
//
// Thread safety: a Model is immutable once loaded except for its prepared
// graph, which the first Interpreter created on it builds under a once-flag;
// Interpreters may be created from one Model on several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "graph/graph.h"
#include "runtime/runtime.h"

namespace gld {

struct Model::Impl {
  Graph graph;                      // as read (before transforms)
  std::vector<TensorInfo> inputs, outputs;
  std::vector<SignatureInfo> signatures;
  std::string description;

  // The model's fingerprint (the program cache's default model token), 16
  // lowercase hex digits: XXH3-64, seeded with the XXH3-64 of the file's
  // bytes outside its constant buffers, of the constant blocks the graph
  // keeps (TfliteLoadInfo::constant_blocks). Computed on first use: only a
  // GL backend with a program cache needs it, and the constants are most
  // of the file's bytes.
  const std::string& Fingerprint() const;
  uint64_t outside_constants_hash = 0;
  std::vector<std::pair<std::shared_ptr<const uint8_t[]>, uint64_t>> constant_blocks;
  // A graph's CPU-only preparation, made once (PreparedFor).
  struct PreparedOnce {
    std::once_flag once;
    std::shared_ptr<const PreparedGraph> prepared;
    Status status;
  };
  // What loading took ("load: ..."), handed to the prepared graph's phases.
  PhaseTimes load_phases;

  // `graph` after the checks and passes that do not depend on Options, built
  // on first use; every Interpreter starts from a copy, constants shared.
  StatusOr<std::shared_ptr<const PreparedGraph>> Prepared() const;
  // One NodeInfo per node of `graph`, file order (Model::nodes()); made on
  // first use: an Interpreter's creation needs none.
  const std::vector<NodeInfo>& Nodes() const;
  // What an Interpreter on `backend` starts from: Prepared(), or for the CPU
  // backend of a graph with int8/uint8 activations a graph prepared in its
  // CPU integer form alone (PrepareGraph's cpu_only; built on first use too).
  StatusOr<std::shared_ptr<const PreparedGraph>> PreparedFor(Backend backend) const;

  // A signature that runs another subgraph than `graph` (a decoder's
  // "decode" beside its "prefill"): that subgraph as a graph of its own,
  // its constants shared with the file's other subgraphs, prepared on first
  // use like `graph`.
  struct SignatureGraph {
    Graph graph;
    std::vector<TensorInfo> inputs, outputs;
    StatusOr<std::shared_ptr<const PreparedGraph>> Prepared() const;
    StatusOr<std::shared_ptr<const PreparedGraph>> PreparedFor(Backend backend) const;

   private:
    mutable std::once_flag once_;
    mutable std::shared_ptr<const PreparedGraph> prepared_;
    mutable Status status_;
    mutable PreparedOnce cpu_;
  };
  // Per signature (parallel to `signatures`): the graph it runs, null when
  // it is `graph` itself.
  std::vector<std::unique_ptr<SignatureGraph>> signature_graphs;
  // The index in `signatures` of `key`; NotFound naming the keys.
  StatusOr<size_t> FindSignature(const std::string& key) const;

 private:
  mutable std::once_flag nodes_once_;
  mutable std::vector<NodeInfo> nodes_;
  mutable std::once_flag fingerprint_once_;
  mutable std::string fingerprint_;
  mutable std::once_flag prepare_once_;
  mutable std::shared_ptr<const PreparedGraph> prepared_;
  mutable Status prepare_status_;
  mutable PreparedOnce cpu_;
};


// PrepareGraph(graph) once under `once` (the first caller's result, kept
// in `prepared` or `status`, for every caller).
// `load_phases` (null: none) come first in its phases; `cpu_only` as
// PrepareGraph's.
StatusOr<std::shared_ptr<const PreparedGraph>> PrepareOnce(const Graph& graph, std::once_flag& once,
                                                           std::shared_ptr<const PreparedGraph>& prepared,
                                                           Status& status, const PhaseTimes* load_phases = nullptr,
                                                           bool cpu_only = false);
// PreparedFor's rule: `full` (Prepared()) unless the backend is the CPU and
// the graph has int8/uint8 activations; then `cpu`'s.
StatusOr<std::shared_ptr<const PreparedGraph>> PrepareFor(
    Backend backend, const Graph& graph,
    const std::function<StatusOr<std::shared_ptr<const PreparedGraph>>()>& full, Model::Impl::PreparedOnce& cpu,
    const PhaseTimes* load_phases);

// Public description of an IR tensor (name, type, shape, quantization, bytes)
// whose index in the model file is `index`.
TensorInfo MakeTensorInfo(const Tensor& tensor, int index);

// Parses the model file's bytes into an Impl (graph, infos, fingerprint);
// keeps nothing that points into them.
StatusOr<std::unique_ptr<Model::Impl>> BuildModelImpl(const uint8_t* data, size_t size);

}  // namespace gld
