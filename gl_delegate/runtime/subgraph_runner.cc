#include "runtime/subgraph_runner.h"

#include <cstring>
#include <string>
#include <utility>

#include "graph/shape_inference.h"
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

// Whether `graph`'s shapes depend on values that change from run to run:
// shape inference with the shapes the file stores for node outputs cleared
// (IF and READ_VARIABLE keep theirs: they are declared, not placeholders)
// meets a shape it cannot compute from its inputs' shapes and constants.
bool ShapesDependOnValues(const Graph& graph) {
  Graph trial = graph;
  for (const Node& node : trial.nodes) {
    if (node.op == OpType::kIf || node.op == OpType::kReadVariable) continue;
    for (int t : node.outputs) trial.tensors[static_cast<size_t>(t)].shape = {-1};
  }
  const Status s = InferShapes(trial, cpu::KnownValueOracle());
  return s.code() == StatusCode::kUnimplemented && s.message().find("depends on the values") != std::string::npos;
}

// A callee whose shapes depend on its inputs' values (ShapesDependOnValues)
// runs node by node: before each node, its shape rule runs with the values
// its small integer inputs hold now (skipped where neither these nor its
// input shapes can have changed: InferNode), and its outputs' buffers grow when they
// must (a run after the largest allocates nothing). Kernels run on the
// calling thread; a node whose input shapes changed since its prepare is
// prepared again.
class StepwiseCallee : public cpu::PreparedSubgraph {
 public:
  // Small integer inputs, whose values shape rules may read.
  static constexpr int64_t kMaxValueElements = 64;

  StepwiseCallee(Graph graph, cpu::ModelServices* model) : graph_(std::move(graph)), model_(model) {
    label_ = graph_.SubgraphLabel();
    const size_t n = graph_.tensors.size();
    tensors_.resize(n);
    storage_.resize(n);
    states_.resize(graph_.nodes.size());
    prepared_shapes_.resize(graph_.nodes.size());
    inferred_shapes_.resize(graph_.nodes.size());
    for (const Node& node : graph_.nodes) kernels_.push_back(cpu::FindCpuKernel(node.op));
    for (size_t t = 0; t < n; ++t) {
      const Tensor& tensor = graph_.tensors[t];
      cpu::TensorData& td = tensors_[t];
      td.type = tensor.type;
      td.shape = tensor.shape;
      if (tensor.is_constant) {
        td.data = const_cast<uint8_t*>(tensor.data.data());
        td.bytes = tensor.data.size();
      } else if (ShapeIsValid(tensor.shape)) {
        Fit(t);
      }
    }
  }

  const std::string& label() const override { return label_; }
  size_t num_inputs() const override { return graph_.inputs.size(); }
  size_t num_outputs() const override { return graph_.outputs.size(); }
  cpu::TensorData& input(size_t i) override { return tensors_[static_cast<size_t>(graph_.inputs[i])]; }
  const cpu::TensorData& output(size_t i) const override { return tensors_[static_cast<size_t>(graph_.outputs[i])]; }

  Status Invoke() override {
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (model_ != nullptr && model_->cancel_requested()) {
        return cpu::InvokeCancelled("before " + graph_.NodeLabel(i));
      }
      Status s = RunNode(i);
      if (!s.ok()) return s.message().rfind(graph_.NodeLabel(i), 0) == 0 ? s : s.WithContext(graph_.NodeLabel(i));
    }
    return OkStatus();
  }

 private:
  // Sizes tensor t's buffer for its shape (64 bytes of slack: XNNPACK reads
  // past a tensor's end).
  void Fit(size_t t) {
    cpu::TensorData& td = tensors_[t];
    td.bytes = static_cast<size_t>(NumElements(td.shape)) * DataTypeSize(td.type);
    if (storage_[t].size() < td.bytes + 64) storage_[t].resize(td.bytes + 64);
    td.data = storage_[t].data();
  }

  // Runs node i's shape rule unless its last run's still holds: the rule
  // reads its inputs' shapes, constants and the values of small integer
  // inputs, so a node none of whose inputs carries such values, run before
  // with the same input shapes, keeps its outputs' shapes and buffers (in a
  // loop body: every node but those fed by the loop counter).
  Status InferNode(size_t i) {
    const Node& node = graph_.nodes[i];
    values_.assign(node.inputs.size(), ValueBytes{});  // reused: no allocation once it is large enough
    bool reads_values = false;
    bool same_shapes = inferred_shapes_[i].size() == node.inputs.size();
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const int t = node.inputs[j];
      if (t == kNoTensor) continue;
      const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
      const cpu::TensorData& td = tensors_[static_cast<size_t>(t)];
      same_shapes = same_shapes && inferred_shapes_[i][j] == td.shape;
      if (tensor.is_constant || !IsShapeValue(node.op, td.type, td.num_elements(), kMaxValueElements)) continue;
      values_[j] = {static_cast<const uint8_t*>(td.data), td.bytes};
      graph_.tensors[static_cast<size_t>(t)].shape = td.shape;
      reads_values = true;
    }
    if (same_shapes && !reads_values) return OkStatus();
    GLD_RETURN_IF_ERROR(InferNodeShapes(graph_, i, values_));
    for (int t : node.outputs) {
      cpu::TensorData& td = tensors_[static_cast<size_t>(t)];
      td.type = graph_.tensors[static_cast<size_t>(t)].type;
      if (td.shape != graph_.tensors[static_cast<size_t>(t)].shape) td.shape = graph_.tensors[static_cast<size_t>(t)].shape;
      // A shape with -1 is the kernel's to size (KernelContext::size_output).
      if (ShapeIsValid(td.shape)) Fit(static_cast<size_t>(t));
    }
    inferred_shapes_[i].resize(node.inputs.size());
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      if (node.inputs[j] != kNoTensor) inferred_shapes_[i][j] = tensors_[static_cast<size_t>(node.inputs[j])].shape;
    }
    return OkStatus();
  }

  Status RunNode(size_t i) {
    const Node& node = graph_.nodes[i];
    GLD_RETURN_IF_ERROR(InferNode(i));
    const cpu::CpuKernel* kernel = kernels_[i];
    if (kernel == nullptr) return UnimplementedError("no CPU kernel");
    cpu::KernelContext& k = ctx_;  // reused: its vectors keep their room
    k.graph = &graph_;
    k.node = &node;
    k.model = model_;
    k.epilogue = nullptr;
    k.inputs.clear();
    k.outputs.clear();
    for (int t : node.inputs) k.inputs.push_back(t == kNoTensor ? nullptr : &tensors_[static_cast<size_t>(t)]);
    for (int t : node.outputs) k.outputs.push_back(&tensors_[static_cast<size_t>(t)]);
    k.state = &states_[i];
    k.size_output = [this, &node](size_t out, const Shape& shape) {
      const auto t = static_cast<size_t>(node.outputs[out]);
      tensors_[t].shape = shape;
      Fit(t);
      return OkStatus();
    };
    bool same_shapes = prepared_shapes_[i].size() == node.inputs.size();
    for (size_t j = 0; same_shapes && j < node.inputs.size(); ++j) {
      same_shapes = k.inputs[j] == nullptr || prepared_shapes_[i][j] == k.inputs[j]->shape;
    }
    if (kernel->prepare != nullptr && (!same_shapes || states_[i] == nullptr)) {
      states_[i].reset();
      GLD_RETURN_IF_ERROR(kernel->prepare(k));
      prepared_shapes_[i].clear();
      for (const cpu::TensorData* in : k.inputs) prepared_shapes_[i].push_back(in == nullptr ? Shape{} : in->shape);
    }
    return kernel->run(k);
  }

  Graph graph_;
  cpu::ModelServices* model_;
  std::string label_;
  std::vector<cpu::TensorData> tensors_;
  std::vector<std::vector<uint8_t>> storage_;
  std::vector<std::unique_ptr<cpu::KernelState>> states_;
  std::vector<std::vector<Shape>> prepared_shapes_;
  std::vector<std::vector<Shape>> inferred_shapes_;  // input shapes at each node's last shape rule run
  std::vector<const cpu::CpuKernel*> kernels_;       // per node (nullptr: none)
  std::vector<ValueBytes> values_;  // InferNode's node's small integer inputs, by input
  cpu::KernelContext ctx_;
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
  if (ShapesDependOnValues(callee)) {
    return std::unique_ptr<cpu::PreparedSubgraph>(new StepwiseCallee(std::move(callee), this));
  }
  const std::string label = callee.SubgraphLabel();
  auto runtime = Runtime::CreateCallee(std::move(callee), options_, this, pool_);
  if (!runtime.ok()) return runtime.status();
  return std::unique_ptr<cpu::PreparedSubgraph>(new CalleeRuntime(std::move(runtime).value(), label));
}

}  // namespace gld
