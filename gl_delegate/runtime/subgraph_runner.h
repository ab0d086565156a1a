// The runtime's side of cpu::ModelServices (cpu_kernels/model_services.h):
// the model's subgraphs prepared for control-flow nodes, each as a Runtime
// of its own on the CPU that shares the caller's thread pool and these
// services, and the interpreter's resource variables. One SubgraphRunner
// belongs to an Interpreter's Runtime; the Runtimes of its callees borrow it.
#pragma once

#include <memory>
#include <vector>

#include "cpu_kernels/model_services.h"
#include "gldelegate/types.hpp"
#include "graph/graph.h"

namespace gld {

class ThreadPool;

class SubgraphRunner : public cpu::ModelServices {
 public:
  // `subgraphs`: Graph::subgraphs of the prepared graph (may be null);
  // `pool`: the interpreter's (null when single-threaded).
  SubgraphRunner(std::shared_ptr<const std::vector<Graph>> subgraphs, const Options& options, ThreadPool* pool);
  ~SubgraphRunner() override;

  StatusOr<std::unique_ptr<cpu::PreparedSubgraph>> PrepareSubgraph(
      int index, const std::vector<const cpu::TensorData*>& inputs) override;
  cpu::ResourceVariables& variables() override { return variables_; }
  int64_t max_loop_iterations() const override { return options_.max_loop_iterations; }
  void set_pool(ThreadPool* pool) { pool_ = pool; }

 private:
  std::shared_ptr<const std::vector<Graph>> subgraphs_;
  Options options_;
  ThreadPool* pool_;
  cpu::ResourceVariables variables_;
};

}  // namespace gld
