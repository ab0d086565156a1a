// gld::Interpreter on top of the runtime.
#include "gldelegate/gldelegate.hpp"
#include "api/interpreter_impl.h"
#include "api/model_impl.h"
#include "util/logging.h"

namespace gld {

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Interpreter::~Interpreter() = default;

StatusOr<std::unique_ptr<Interpreter>> Interpreter::Create(const Model& model, const Options& options) {
  auto impl = std::make_unique<Impl>();
  Options with_token = options;
  // The program cache names a model's entry by its token; by default the
  // fingerprint of its bytes.
  if (with_token.model_token.empty()) with_token.model_token = model.impl().fingerprint;
  // The passes log at the level these options ask for when this Interpreter
  // is the one that prepares the model's graph.
  GLD_RETURN_IF_ERROR(ConfigureLogging(options.log_level));
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedGraph> prepared, model.impl().Prepared());
  GLD_ASSIGN_OR_RETURN(impl->runtime, Runtime::Create(*prepared, with_token));
  const Graph& graph = impl->runtime->graph();
  // Inputs and outputs keep their positions through the passes; their file
  // indices are the Model's.
  auto describe = [&](const std::vector<int>& ids, const std::vector<TensorInfo>& as_read) {
    std::vector<TensorInfo> infos;
    for (size_t i = 0; i < ids.size(); ++i) {
      infos.push_back(MakeTensorInfo(graph.tensors[static_cast<size_t>(ids[i])],
                                     i < as_read.size() ? as_read[i].index : -1));
    }
    return infos;
  };
  impl->inputs = describe(graph.inputs, model.inputs());
  impl->outputs = describe(graph.outputs, model.outputs());
  return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

const std::vector<TensorInfo>& Interpreter::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Interpreter::outputs() const { return impl_->outputs; }

Status Interpreter::SetInput(int index, const void* data, size_t bytes) {
  return impl_->runtime->SetInput(index, data, bytes);
}
Status Interpreter::Invoke() { return impl_->runtime->Invoke(); }
Status Interpreter::GetOutput(int index, void* data, size_t bytes) const {
  return impl_->runtime->GetOutput(index, data, bytes);
}
const void* Interpreter::OutputData(int index) const { return impl_->runtime->OutputData(index); }
const InterpreterReport& Interpreter::report() const { return impl_->runtime->report(); }
std::vector<ProfileRow> Interpreter::profile() const { return impl_->runtime->Profile(); }
DispatchIssueStats Interpreter::dispatch_issue_stats() const { return impl_->runtime->IssueStats(); }
void Interpreter::ResetProfile() { impl_->runtime->ResetProfile(); }
Status Interpreter::ResetVariables() { return impl_->runtime->ResetVariables(); }
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
  GLD_ASSIGN_OR_RETURN(*fence, impl_->runtime->InvokeAsync());
  return OkStatus();
}
TransferStats Interpreter::transfer_stats() const { return impl_->runtime->transfer_stats(); }

}  // namespace gld
