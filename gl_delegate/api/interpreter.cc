// gld::Interpreter on top of the runtime.
#include "gldelegate/gldelegate.hpp"
#include "api/model_impl.h"
#include "runtime/runtime.h"

namespace gld {

class Interpreter::Impl {
 public:
  std::unique_ptr<Runtime> runtime;
};

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Interpreter::~Interpreter() = default;

StatusOr<std::unique_ptr<Interpreter>> Interpreter::Create(const Model& model, const Options& options) {
  auto impl = std::make_unique<Impl>();
  Options with_token = options;
  // The program cache names a model's entry by its token; by default the
  // fingerprint of its bytes.
  if (with_token.model_token.empty()) with_token.model_token = model.impl().fingerprint;
  GLD_ASSIGN_OR_RETURN(impl->runtime, Runtime::Create(model.impl().graph, with_token));
  return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

const std::vector<TensorInfo>& Interpreter::inputs() const { return impl_->runtime->inputs(); }
const std::vector<TensorInfo>& Interpreter::outputs() const { return impl_->runtime->outputs(); }

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
void Interpreter::ResetProfile() { impl_->runtime->ResetProfile(); }

}  // namespace gld
