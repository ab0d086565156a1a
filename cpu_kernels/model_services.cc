#include "cpu_kernels/model_services.h"

#include <cstring>

namespace gld::cpu {

int32_t ResourceVariables::Handle(const std::string& container, const std::string& shared_name) {
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (variables_[i].container == container && variables_[i].shared_name == shared_name) {
      return static_cast<int32_t>(i);
    }
  }
  Variable v;
  v.container = container;
  v.shared_name = shared_name;
  variables_.push_back(std::move(v));
  return static_cast<int32_t>(variables_.size() - 1);
}

std::string ResourceVariables::Label(int32_t id) const {
  std::string label = "variable " + std::to_string(id);
  if (id >= 0 && static_cast<size_t>(id) < variables_.size()) {
    const Variable& v = variables_[static_cast<size_t>(id)];
    label += " ('" + (v.container.empty() ? "" : v.container + "/") + v.shared_name + "')";
  }
  return label;
}

const TensorData* ResourceVariables::Value(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= variables_.size()) return nullptr;
  const Variable& v = variables_[static_cast<size_t>(id)];
  return v.assigned ? &v.value : nullptr;
}

Status ResourceVariables::Assign(int32_t id, const TensorData& value) {
  if (id < 0 || static_cast<size_t>(id) >= variables_.size()) {
    return InvalidArgumentError("resource id " + std::to_string(id) + " names no variable (no VAR_HANDLE made it)");
  }
  Variable& v = variables_[static_cast<size_t>(id)];
  if (v.storage.size() < value.bytes) v.storage.resize(value.bytes);
  if (value.bytes > 0) std::memcpy(v.storage.data(), value.data, value.bytes);
  v.value.type = value.type;
  if (v.value.shape != value.shape) v.value.shape = value.shape;
  v.value.data = v.storage.data();
  v.value.bytes = value.bytes;
  v.assigned = true;
  return OkStatus();
}

void ResourceVariables::Reset() {
  for (Variable& v : variables_) v.assigned = false;
  ++generation_;
}

}  // namespace gld::cpu
