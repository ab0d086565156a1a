#include "runtime/subgraph_runner.h"

#include <string>
#include <utility>

#include "runtime/runtime.h"

namespace gld {

namespace {

// A callee as a Runtime of its own: its graph inputs and outputs are host
// buffers (dedicated, so they keep their values between runs).
class CalleeRuntime : public cpu::PreparedSubgraph {
 public:
  CalleeRuntime(std::unique_ptr<Runtime> runtime, std::string label)
      : runtime_(std::move(runtime)), label_(std::move(label)) {}
  const std::string& label() const override { return label_; }
  size_t num_inputs() const override { return runtime_->graph().inputs.size(); }
  size_t num_outputs() const override { return runtime_->graph().outputs.size(); }
  cpu::TensorData& input(size_t i) override { return runtime_->io_storage(true, i); }
  const cpu::TensorData& output(size_t i) const override { return runtime_->io_storage(false, i); }
  Status Invoke() override { return runtime_->Invoke(); }

 private:
  std::unique_ptr<Runtime> runtime_;
  std::string label_;
};

}  // namespace

SubgraphRunner::SubgraphRunner(std::shared_ptr<const std::vector<Graph>> subgraphs, const Options& options,
                               ThreadPool* pool)
    : subgraphs_(std::move(subgraphs)), options_(options), pool_(pool) {}

SubgraphRunner::~SubgraphRunner() = default;

StatusOr<std::unique_ptr<cpu::PreparedSubgraph>> SubgraphRunner::PrepareSubgraph(
    int index, const std::vector<const cpu::TensorData*>& inputs) {
  const size_t count = subgraphs_ == nullptr ? 0 : subgraphs_->size();
  if (index < 0 || static_cast<size_t>(index) >= count) {
    return InvalidArgumentError("subgraph index " + std::to_string(index) + " is out of range, the model has " +
                                std::to_string(count == 0 ? 1 : count) + " subgraph(s)");
  }
  Graph callee = (*subgraphs_)[static_cast<size_t>(index)];
  if (!callee.is_callee) {
    return InvalidArgumentError(callee.SubgraphLabel() + " is the subgraph the model runs; it cannot be called");
  }
  if (callee.inputs.size() != inputs.size()) {
    return InvalidArgumentError(callee.SubgraphLabel() + " has " + std::to_string(callee.inputs.size()) +
                                " inputs, the node passes " + std::to_string(inputs.size()));
  }
  // The callee is planned for the caller's values.
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor& t = callee.tensors[static_cast<size_t>(callee.inputs[i])];
    if (t.type != inputs[i]->type) {
      return InvalidArgumentError(callee.SubgraphLabel() + " input " + std::to_string(i) + " is " +
                                  DataTypeName(t.type) + ", the node passes " + DataTypeName(inputs[i]->type));
    }
    t.shape = inputs[i]->shape;
  }
  callee.subgraphs = subgraphs_;
  const std::string label = callee.SubgraphLabel();
  auto runtime = Runtime::CreateCallee(std::move(callee), options_, this, pool_);
  if (!runtime.ok()) return runtime.status();
  return std::unique_ptr<cpu::PreparedSubgraph>(new CalleeRuntime(std::move(runtime).value(), label));
}

}  // namespace gld
