// Custom op registration (gldelegate/custom_op.hpp) and the flexbuffer
// reader of custom options.
#include "gldelegate/custom_op.hpp"

#include <flatbuffers/flexbuffers.h>

#include <algorithm>

#include "api/model_impl.h"
#include "cpu_kernels/kernel_interface.h"
#include "gl/codegen/support.h"
#include "gldelegate/gldelegate.hpp"
#include "runtime/custom_ops.h"

namespace gld {

Status RegisterCustomOp(Options* options, CustomOp op) {
  if (options == nullptr) return InvalidArgumentError("RegisterCustomOp: null options");
  if (op.name.empty()) return InvalidArgumentError("RegisterCustomOp: a custom op needs a name (its custom_code)");
  const std::string who = "custom op '" + op.name + "'";
  if (op.version < 0) return InvalidArgumentError(who + ": version " + std::to_string(op.version) + " is negative");
  if (!op.shape) return InvalidArgumentError(who + " has no shape function");
  if (!op.run) return InvalidArgumentError(who + " has no CPU kernel (run); every custom op needs one");
  for (const auto& other : options->custom_ops) {
    if (other != nullptr && other->name == op.name && other->version == op.version) {
      return InvalidArgumentError(who + (op.version == 0 ? std::string(" (every version)")
                                                         : " version " + std::to_string(op.version)) +
                                  " is already registered on these options");
    }
  }
  options->custom_ops.push_back(std::make_shared<const CustomOp>(std::move(op)));
  return OkStatus();
}

namespace {

flexbuffers::Map RootMap(const std::vector<uint8_t>& bytes) {
  return flexbuffers::GetRoot(bytes.data(), bytes.size()).AsMap();
}

StatusOr<flexbuffers::Reference> Lookup(const std::vector<uint8_t>& bytes, const std::string& key) {
  const flexbuffers::Reference r = RootMap(bytes)[key.c_str()];
  if (r.IsNull()) return NotFoundError("custom option '" + key + "' is missing");
  return r;
}

Status WrongType(const std::string& key, const char* what) {
  return InvalidArgumentError("custom option '" + key + "' is not " + what);
}

}  // namespace

StatusOr<CustomOptionsMap> CustomOptionsMap::Parse(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 3 || !flexbuffers::VerifyBuffer(data, size)) {
    return InvalidArgumentError("custom options are not a valid flexbuffer (" + std::to_string(size) + " bytes)");
  }
  if (!flexbuffers::GetRoot(data, size).IsMap()) {
    return InvalidArgumentError("custom options are a flexbuffer but not a map");
  }
  CustomOptionsMap m;
  m.bytes_.assign(data, data + size);
  return m;
}

std::vector<std::string> CustomOptionsMap::Keys() const {
  std::vector<std::string> out;
  if (bytes_.empty()) return out;
  const flexbuffers::TypedVector keys = RootMap(bytes_).Keys();
  for (size_t i = 0; i < keys.size(); ++i) out.push_back(keys[i].AsKey());
  return out;
}

bool CustomOptionsMap::Has(const std::string& key) const {
  return !bytes_.empty() && !RootMap(bytes_)[key.c_str()].IsNull();
}

StatusOr<int64_t> CustomOptionsMap::Int(const std::string& key) const {
  GLD_ASSIGN_OR_RETURN(flexbuffers::Reference r, Lookup(bytes_, key));
  if (!r.IsNumeric() && !r.IsBool()) return WrongType(key, "a number");
  return r.AsInt64();
}

StatusOr<double> CustomOptionsMap::Float(const std::string& key) const {
  GLD_ASSIGN_OR_RETURN(flexbuffers::Reference r, Lookup(bytes_, key));
  if (!r.IsNumeric() && !r.IsBool()) return WrongType(key, "a number");
  return r.AsDouble();
}

StatusOr<bool> CustomOptionsMap::Bool(const std::string& key) const {
  GLD_ASSIGN_OR_RETURN(flexbuffers::Reference r, Lookup(bytes_, key));
  if (!r.IsBool() && !r.IsNumeric()) return WrongType(key, "a bool");
  return r.AsBool();
}

StatusOr<std::string> CustomOptionsMap::String(const std::string& key) const {
  GLD_ASSIGN_OR_RETURN(flexbuffers::Reference r, Lookup(bytes_, key));
  if (!r.IsString()) return WrongType(key, "a string");
  return r.AsString().str();
}

StatusOr<std::vector<double>> CustomOptionsMap::Numbers(const std::string& key) const {
  GLD_ASSIGN_OR_RETURN(flexbuffers::Reference r, Lookup(bytes_, key));
  std::vector<double> out;
  auto take = [&](const auto& v) -> Status {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].IsNumeric() && !v[i].IsBool()) return WrongType(key, "a vector of numbers");
      out.push_back(v[i].AsDouble());
    }
    return OkStatus();
  };
  if (r.IsFixedTypedVector()) {
    GLD_RETURN_IF_ERROR(take(r.AsFixedTypedVector()));
  } else if (r.IsTypedVector()) {
    GLD_RETURN_IF_ERROR(take(r.AsTypedVector()));
  } else if (r.IsVector()) {
    GLD_RETURN_IF_ERROR(take(r.AsVector()));
  } else {
    return WrongType(key, "a vector");
  }
  return out;
}

std::vector<CustomOpUse> CustomOpsOf(const Model& model, const Options& options) {
  std::vector<CustomOpUse> out;
  for (const Node& node : model.impl().graph.nodes) {
    const auto* a = std::get_if<CustomAttributes>(&node.attributes);
    if (node.op != OpType::kCustom || a == nullptr) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const CustomOpUse& u) { return u.name == a->name && u.version == a->version; });
    if (it != out.end()) {
      ++it->nodes;
      continue;
    }
    CustomOpUse use;
    use.name = a->name;
    use.version = a->version;
    use.nodes = 1;
    const std::shared_ptr<const CustomOp> op = FindCustomOp(options.custom_ops, a->name, a->version);
    use.registered = op != nullptr;
    use.gl = op != nullptr && !op->gl.source.empty();
    if (op == nullptr && a->library != nullptr) {
      // The library's own row runs it (BindCustomOps): what its kernels do.
      use.library = true;
      use.registered = cpu::FindCpuKernel(a->library->op) != nullptr;
      const std::vector<OpType> gl_ops = gl::GlSupportedOps();
      use.gl = std::find(gl_ops.begin(), gl_ops.end(), a->library->op) != gl_ops.end();
    }
    out.push_back(std::move(use));
  }
  return out;
}

}  // namespace gld
