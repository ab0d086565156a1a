// What every family's rules share: the RuleContext's checks, values and
// results, and the integer readers of shape_inference.h.
#include <cstring>
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

namespace {

// Bytes of one int32 / int64 value; 0 for other types.
size_t IntWidth(DataType type) {
  if (type == DataType::kInt32) return 4;
  if (type == DataType::kInt64) return 8;
  return 0;
}

// The whole int32 / int64 values in `size` bytes at `data` into `out`; false
// for other types.
bool DecodeInts(const uint8_t* data, size_t size, DataType type, std::vector<int64_t>* out) {
  out->clear();
  const size_t width = IntWidth(type);
  if (width == 0) return false;
  for (size_t i = 0; i + width <= size; i += width) {
    if (width == 4) {
      int32_t v;
      std::memcpy(&v, data + i, 4);
      out->push_back(v);
    } else {
      int64_t v;
      std::memcpy(&v, data + i, 8);
      out->push_back(v);
    }
  }
  return true;
}

}  // namespace

bool NormalizeAxis(int64_t axis, int64_t rank, int32_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = static_cast<int32_t>(axis < 0 ? axis + rank : axis);
  return true;
}

bool ReadConstantInts(const Tensor& tensor, std::vector<int64_t>* out) {
  if (!tensor.is_constant || !ShapeIsValid(tensor.shape)) return false;
  const size_t width = IntWidth(tensor.type);
  const size_t size = static_cast<size_t>(tensor.num_elements()) * width;
  out->clear();
  if (width == 0 || tensor.data.size() < size) return false;
  return DecodeInts(tensor.data.data(), size, tensor.type, out);
}

namespace shapes {

std::string Join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Status RuleContext::Inputs(size_t min, size_t max) const {
  if (NumInputs() < min || NumInputs() > max) {
    return Err("expected " + std::to_string(min) + (max != min ? ".." + std::to_string(max) : "") + " inputs, got " +
               std::to_string(NumInputs()));
  }
  for (size_t i = 0; i < min; ++i) {
    if (!Has(i)) return Err("required input " + std::to_string(i) + " is missing");
  }
  return OkStatus();
}

Status RuleContext::Outputs(size_t n) const {
  if (node_.outputs.size() != n) {
    return Err("expected " + std::to_string(n) + " outputs, got " + std::to_string(node_.outputs.size()));
  }
  return OkStatus();
}

Status RuleContext::Rank(size_t i, size_t rank) const {
  if (InShape(i).size() != rank) {
    return Err(Name(i) + " must be " + std::to_string(rank) + "-D, got " + ShapeToString(InShape(i)));
  }
  return OkStatus();
}

Status RuleContext::Axis(int64_t axis, int64_t rank, int32_t* out, const char* what) const {
  if (!NormalizeAxis(axis, rank, out)) {
    return Err(std::string(what) + " " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return OkStatus();
}

Status RuleContext::CheckShape(const Shape& s, const std::string& what) const {
  if (!ShapeIsValid(s, int64_t{1} << 40)) return Err(what + " " + ShapeToString(s) + " is invalid or too large");
  for (int32_t d : s) {
    if (d > kMaxDim) return Err(what + " " + ShapeToString(s) + " has a dimension above 2^30");
  }
  return OkStatus();
}

bool RuleContext::Values(size_t i, std::vector<int64_t>* v) const {
  if (!Has(i)) return false;
  if (input_values_ != nullptr && i < input_values_->size() && (*input_values_)[i].data != nullptr) {
    return DecodeInts((*input_values_)[i].data, (*input_values_)[i].size, In(i).type, v);
  }
  auto it = known_->find(node_.inputs[i]);
  if (it != known_->end()) return DecodeInts(it->second.data(), it->second.size(), In(i).type, v);
  return ReadConstantInts(In(i), v);
}

bool RuleContext::FloatScalar(size_t i, float* v) const {
  if (!Has(i) || In(i).type != DataType::kFloat32) return false;
  if (input_values_ != nullptr && i < input_values_->size() && (*input_values_)[i].data != nullptr) {
    if ((*input_values_)[i].size != sizeof(float)) return false;
    std::memcpy(v, (*input_values_)[i].data, sizeof(float));
    return true;
  }
  const Tensor& t = In(i);
  if (!t.is_constant || t.data.size() != sizeof(float)) return false;
  std::memcpy(v, t.data.data(), sizeof(float));
  return true;
}

void RuleContext::SetValues(size_t i, std::vector<uint8_t> bytes) { (*known_)[node_.outputs[i]] = std::move(bytes); }

void RuleContext::Set(size_t i, Shape shape, DataType type) {
  Tensor& t = MutableOut(i);
  if (t.type_declared && t.type != type && type_conflict_.empty()) {
    type_conflict_ = "output " + std::to_string(i) + " '" + t.name + "' is declared " + DataTypeName(t.type) +
                     " in the model, but " + NodeOpName(node_) + " produces " + DataTypeName(type) + " here";
  }
  t.shape = std::move(shape);
  t.type = type;
}

DataType RuleContext::StoredType(size_t i, DataType fallback) const {
  return Out(i).type == DataType::kUnknown ? fallback : Out(i).type;
}

Status RuleContext::KeepStored(size_t i, DataType type, const std::string& why) {
  if (dynamic_ != nullptr && (!ShapeIsKnown(Out(i).shape) || !ShapeIsKnown(SignatureOf(Out(i))))) {
    (*dynamic_)[static_cast<size_t>(node_.outputs[i])] = 1;
    MutableOut(i).type = type;
    return OkStatus();
  }
  if (!ShapeIsKnown(Out(i).shape)) {
    return Unimpl("output shape depends on the values of " + why + ", which are not constant, and the stored shape " +
                  ShapeToString(Out(i).shape) + " is not fully known");
  }
  MutableOut(i).type = type;
  return OkStatus();
}

Status RuleContext::SizedByKernel(size_t i, Shape shape, DataType type, const std::string& why) {
  const Tensor& out = Out(i);
  if (ShapeIsKnown(out.shape) && ShapeIsKnown(SignatureOf(out))) {
    if (out.shape.size() != shape.size()) {
      return Err("output " + std::to_string(i) + " '" + out.name + "' is stored as " + ShapeToString(out.shape) +
                 ", but " + why + " gives a " + std::to_string(shape.size()) + "-D shape " + ShapeToString(shape));
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] >= 0 && shape[d] != out.shape[d]) {
        return Err("output " + std::to_string(i) + " '" + out.name + "' is stored as " + ShapeToString(out.shape) +
                   ", but has shape " + ShapeToString(shape) + " here (-1: " + why + ")");
      }
    }
    Set(i, out.shape, type);
    return OkStatus();
  }
  if (dynamic_ != nullptr) {
    (*dynamic_)[static_cast<size_t>(node_.outputs[i])] = 1;
    MutableOut(i).type = type;
    return OkStatus();
  }
  if (node_alone_) {
    Set(i, std::move(shape), type);
    kernel_sized_[i] = 1;
    return OkStatus();
  }
  return Unimpl("output " + std::to_string(i) + " '" + out.name + "' is sized by " + why +
                ", known only when the node runs, and the stored shape " + ShapeToString(out.shape) +
                " is not fixed");
}

}  // namespace shapes

}  // namespace gld
