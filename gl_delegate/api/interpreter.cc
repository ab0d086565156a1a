// gld::Interpreter on top of the runtime.
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"
#include "api/interpreter_impl.h"
#include "api/model_impl.h"
#include "util/logging.h"

#include <optional>
#include <string>

namespace gld {

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Interpreter::~Interpreter() = default;

StatusOr<std::unique_ptr<Interpreter>> Interpreter::Create(const Model& model, const Options& options) {
  return CreateFor(model, options, nullptr);
}

StatusOr<std::unique_ptr<Interpreter>> Interpreter::Create(const Model& model, const Options& options,
                                                           const std::string& signature_key) {
  GLD_ASSIGN_OR_RETURN(size_t s, model.impl().FindSignature(signature_key));
  return CreateFor(model, options, model.impl().signature_graphs[s].get());
}

StatusOr<std::unique_ptr<Interpreter>> Interpreter::CreateFor(const Model& model, const Options& options,
                                                              const void* signature_graph) {
  const auto* sig = static_cast<const Model::Impl::SignatureGraph*>(signature_graph);
  // The one check of the options, before any work (Runtime::Initialize
  // makes it again for callers below the API).
  GLD_RETURN_IF_ERROR(CheckOptions(options));
  auto impl = std::make_unique<Impl>();
  Options with_token = options;
  // The program cache (a GL backend's, with a cache folder) names a model's
  // entry by its token; by default the model's fingerprint, hashed only then.
  if (with_token.model_token.empty() && options.backend != Backend::kCpu && !options.cache_dir.empty()) {
    with_token.model_token = model.impl().Fingerprint();
  }
  // The passes log at the level these options ask for when this Interpreter
  // is the one that prepares the model's graph.
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedGraph> prepared,
                       sig != nullptr ? sig->PreparedFor(options.backend)
                                      : model.impl().PreparedFor(options.backend));
  GLD_ASSIGN_OR_RETURN(impl->runtime, Runtime::Create(*prepared, with_token));
  impl->cancel = impl->runtime->cancel_flag();
  // Inputs and outputs keep their positions through the passes; their file
  // indices are the Model's.
  for (const TensorInfo& info : sig != nullptr ? sig->inputs : model.inputs()) {
    impl->input_file_index.push_back(info.index);
  }
  for (const TensorInfo& info : sig != nullptr ? sig->outputs : model.outputs()) {
    impl->output_file_index.push_back(info.index);
  }
  impl->Describe();
  return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

void Interpreter::Impl::Describe() {
  const Graph& graph = runtime->graph();
  auto describe = [&](const std::vector<int>& ids, const std::vector<int>& file_index, std::vector<TensorInfo>* out) {
    out->resize(ids.size());  // in place: references to the vector stay valid
    for (size_t i = 0; i < ids.size(); ++i) {
      (*out)[i] = MakeTensorInfo(graph.tensors[static_cast<size_t>(ids[i])],
                                 i < file_index.size() ? file_index[i] : -1);
    }
  };
  describe(graph.inputs, input_file_index, &inputs);
  describe(graph.outputs, output_file_index, &outputs);
  report = runtime->report();
  pending.assign(inputs.size(), std::nullopt);
}

void Interpreter::Impl::DescribeDynamicOutputs() {
  const Graph& graph = runtime->graph();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const cpu::TensorData& d = runtime->tensor(graph.outputs[i]);
    outputs[i].shape.assign(d.shape.begin(), d.shape.end());
    outputs[i].bytes = static_cast<size_t>(d.num_elements()) * DataTypeSize(d.type);
  }
}

bool Interpreter::Impl::HasPending() const {
  for (const auto& shape : pending) {
    if (shape.has_value()) return true;
  }
  return false;
}

namespace {

std::string DimsToString(const std::vector<int>& dims) {
  std::string s = "[";
  for (size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + std::to_string(dims[d]);
  return s + "]";
}

Status WaitingForAllocate(const char* call) {
  return FailedPreconditionError(std::string(call) +
                                 ": an input was resized; call AllocateTensors before setting inputs or invoking");
}

}  // namespace

Status Interpreter::ResizeInput(int index, const std::vector<int>& shape, bool strict) {
  Impl& impl = *impl_;
  if (index < 0 || static_cast<size_t>(index) >= impl.inputs.size()) {
    return OutOfRangeError("ResizeInput: input index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(impl.inputs.size()) + " input(s)");
  }
  const TensorInfo& info = impl.inputs[static_cast<size_t>(index)];
  const std::string who = "ResizeInput: input " + std::to_string(index) + " ('" + info.name + "')";
  if (impl.runtime->HasGlBindings() || impl.runtime->HasHostBindings()) {
    return FailedPreconditionError(who + ": a GL object or host memory is bound to an input or output; unbind it "
                                   "before resizing");
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return InvalidArgumentError(who + ": dimension " + std::to_string(d) + " of " + DimsToString(shape) +
                                  " is negative");
    }
  }
  if (strict) {
    const std::vector<int>& signature = info.shape_signature;
    bool fits = signature.size() == shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) fits = signature[d] == -1 || signature[d] == shape[d];
    if (!fits) {
      return InvalidArgumentError(who + ": strict resize to " + DimsToString(shape) +
                                  " changes a dimension its shape_signature " + DimsToString(signature) +
                                  " fixes (only -1 dimensions may change)");
    }
  }
  // A request for the shape it has is no request (LiteRT re-plans nothing either).
  impl.pending[static_cast<size_t>(index)] = shape == info.shape ? std::nullopt : std::optional(shape);
  return OkStatus();
}

Status Interpreter::AllocateTensors() {
  Impl& impl = *impl_;
  if (!impl.HasPending()) return OkStatus();
  if (impl.runtime->HasGlBindings() || impl.runtime->HasHostBindings()) {
    impl.pending.assign(impl.inputs.size(), std::nullopt);
    return FailedPreconditionError(
        "AllocateTensors: a GL object or host memory is bound to an input or output; unbind it before resizing");
  }
  std::vector<Shape> shapes = impl.runtime->InputShapes();
  std::string asked;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!impl.pending[i].has_value()) continue;
    const std::vector<int>& want = *impl.pending[i];
    shapes[i].assign(want.begin(), want.end());
    asked += (asked.empty() ? "" : ", ") + std::string("input ") + std::to_string(i) + " ('" + impl.inputs[i].name +
             "') to " + DimsToString(want);
  }
  impl.pending.assign(impl.inputs.size(), std::nullopt);
  std::unique_ptr<Runtime> next;
  for (auto it = impl.kept.begin(); it != impl.kept.end(); ++it) {
    if ((*it)->InputShapes() == shapes) {
      next = std::move(*it);
      impl.kept.erase(it);
      break;
    }
  }
  if (next == nullptr) {
    auto made = impl.runtime->Reshaped(shapes);
    if (!made.ok()) {
      return Status(made.status().code(), "cannot resize " + asked + ": " + made.status().message() +
                                              " (the interpreter keeps its previous shapes)");
    }
    next = std::move(made).value();
  }
  impl.kept.push_back(std::move(impl.runtime));
  if (impl.kept.size() > Impl::kKeptShapePlans) impl.kept.erase(impl.kept.begin());
  impl.runtime = std::move(next);
  impl.Describe();
  return OkStatus();
}

Status Interpreter::ResizeInputs(const std::vector<std::vector<int>>& shapes) {
  if (shapes.size() != impl_->inputs.size()) {
    return InvalidArgumentError("ResizeInputs: " + std::to_string(shapes.size()) + " shapes for " +
                                std::to_string(impl_->inputs.size()) + " input(s)");
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    Status s = ResizeInput(static_cast<int>(i), shapes[i]);
    if (!s.ok()) {
      impl_->pending.assign(impl_->inputs.size(), std::nullopt);
      return s;
    }
  }
  return AllocateTensors();
}

const std::vector<TensorInfo>& Interpreter::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Interpreter::outputs() const { return impl_->outputs; }

Status Interpreter::SetInput(int index, const void* data, size_t bytes) {
  if (impl_->HasPending()) return WaitingForAllocate("SetInput");
  return impl_->runtime->SetInput(index, data, bytes);
}
Status Interpreter::Invoke() {
  if (impl_->HasPending()) return WaitingForAllocate("Invoke");
  GLD_RETURN_IF_ERROR(impl_->runtime->Invoke());
  if (impl_->runtime->HasDynamicTensors()) impl_->DescribeDynamicOutputs();
  return OkStatus();
}
Status Interpreter::GetOutput(int index, void* data, size_t bytes) const {
  return impl_->runtime->GetOutput(index, data, bytes);
}
const void* Interpreter::OutputData(int index) const { return impl_->runtime->OutputData(index); }
const InterpreterReport& Interpreter::report() const { return impl_->report; }
std::vector<ProfileRow> Interpreter::profile() const { return impl_->runtime->Profile(); }
DispatchIssueStats Interpreter::dispatch_issue_stats() const { return impl_->runtime->IssueStats(); }
void Interpreter::ResetProfile() { impl_->runtime->ResetProfile(); }
Status Interpreter::ResetVariables() { return impl_->runtime->ResetVariables(); }
// Cancel is documented as safe in a signal handler: a lock-free store.
static_assert(std::atomic<bool>::is_always_lock_free, "Interpreter::Cancel needs a lock-free atomic<bool>");
void Interpreter::Cancel() noexcept {
  if (impl_->cancel != nullptr) impl_->cancel->store(true, std::memory_order_relaxed);
}
std::vector<TraceEvent> Interpreter::trace() const { return impl_->runtime->Trace(); }

Status Interpreter::BindInputBuffer(int index, uint32_t buffer, GlLayout layout) {
  return impl_->runtime->BindInputBuffer(index, buffer, layout);
}
Status Interpreter::BindInputTexture(int index, const TextureInput& texture) {
  return impl_->runtime->BindInputTexture(index, texture);
}
Status Interpreter::BindOutputBuffer(int index, uint32_t buffer, GlLayout layout) {
  return impl_->runtime->BindOutputBuffer(index, buffer, layout);
}
Status Interpreter::KeepOutputOnGpu(int index) { return impl_->runtime->KeepOutputOnGpu(index); }
StatusOr<uint32_t> Interpreter::OutputGlBuffer(int index) const { return impl_->runtime->OutputGlBuffer(index); }
Status Interpreter::UnbindInput(int index) { return impl_->runtime->UnbindInput(index); }
Status Interpreter::UnbindOutput(int index) { return impl_->runtime->UnbindOutput(index); }
Status Interpreter::InvokeAsync(void** fence) {
  if (fence == nullptr) return InvalidArgumentError("InvokeAsync: fence is null");
  *fence = nullptr;
  if (impl_->HasPending()) return WaitingForAllocate("InvokeAsync");
  GLD_ASSIGN_OR_RETURN(*fence, impl_->runtime->InvokeAsync());
  return OkStatus();
}
TransferStats Interpreter::transfer_stats() const { return impl_->runtime->transfer_stats(); }
Status Interpreter::BindInputHostBuffer(int index, void* data, size_t bytes) {
  return impl_->runtime->BindHostBuffer(true, index, data, bytes);
}
Status Interpreter::BindOutputHostBuffer(int index, void* data, size_t bytes) {
  return impl_->runtime->BindHostBuffer(false, index, data, bytes);
}

}  // namespace gld
