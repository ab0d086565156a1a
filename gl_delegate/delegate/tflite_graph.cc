#include "delegate/tflite_graph.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "model/mediapipe_options.h"
#include "model/tflite_ops.h"
#include "model/tflite_reader.h"
#include "util/aligned_buffer.h"
#include "util/raw_enum.h"

namespace gld::delegate {
namespace {

constexpr int kBuiltinCustom = 32;          // TFLite's BuiltinOperator_CUSTOM
constexpr size_t kMaxTensors = size_t{1} << 24;  // sanity bounds, far above real models
constexpr int kMaxPlan = 1 << 24;
constexpr int kMaxNodeTensors = 1 << 16;
constexpr int kMaxRank = 16;
constexpr int kLastType = kTfLiteBFloat16;
constexpr int kLastAllocation = kTfLiteVariantObject + 1;  // TFLite 2.20 adds kTfLiteNonCpu

std::vector<int> ArrayOf(const TfLiteIntArray* a) {
  if (a == nullptr || a->size <= 0) return {};
  return std::vector<int>(a->data, a->data + a->size);
}

Status Mismatch(const std::string& what) {
  return FailedPreconditionError("the TfLiteContext does not look like the layout this library was built for "
                                 "(TFLite 2.20 / LiteRT 2.3.0, model/tflite_abi.h): " + what);
}

Status CheckTensor(const TfLiteContext* context, int index) {
  const TfLiteTensor& t = context->tensors[index];
  const std::string who = "tensor " + std::to_string(index);
  const int raw_type = RawEnum(t.type), raw_allocation = RawEnum(t.allocation_type);
  if (raw_type < 0 || raw_type > kLastType + 8) return Mismatch(who + " has type " + std::to_string(raw_type));
  if (raw_allocation < 0 || raw_allocation > kLastAllocation) {
    return Mismatch(who + " has allocation type " + std::to_string(raw_allocation));
  }
  if (t.dims == nullptr) return OkStatus();
  if (t.dims->size < 0 || t.dims->size > kMaxRank) {
    return Mismatch(who + " has rank " + std::to_string(t.dims->size));
  }
  int64_t elements = 1;
  for (int d = 0; d < t.dims->size; ++d) {
    if (t.dims->data[d] < 0) return Mismatch(who + " has dimension " + std::to_string(t.dims->data[d]));
    elements *= t.dims->data[d];
    if (elements > (int64_t{1} << 40)) return Mismatch(who + " has more than 2^40 elements");
  }
  DataType type;
  // Dense constants hold exactly their elements (sparse ones fewer).
  if (IsTfLiteConstant(t) && t.sparsity == nullptr && FromTfLiteType(t.type, &type) &&
      t.bytes != static_cast<size_t>(elements) * DataTypeSize(type)) {
    return Mismatch(who + " holds " + std::to_string(t.bytes) + " bytes for " + std::to_string(elements) + " " +
                    DataTypeName(type) + " values");
  }
  return OkStatus();
}

Status ReadQuantization(const TfLiteTensor& t, const Shape& shape, QuantizationParams* out) {
  *out = QuantizationParams{};
  if (t.quantization.type != kTfLiteAffineQuantization || t.quantization.params == nullptr) return OkStatus();
  const auto* q = static_cast<const TfLiteAffineQuantization*>(t.quantization.params);
  if (q->scale == nullptr || q->scale->size <= 0) return OkStatus();
  const int n = q->scale->size;
  out->scale.assign(q->scale->data, q->scale->data + n);
  if (q->zero_point != nullptr && q->zero_point->size > 0) {
    if (q->zero_point->size != n) {
      return InvalidArgumentError("quantization has " + std::to_string(n) + " scales but " +
                                  std::to_string(q->zero_point->size) + " zero points");
    }
    out->zero_point.assign(q->zero_point->data, q->zero_point->data + n);
  }
  out->quantized_dimension = q->quantized_dimension;
  if (n > 1 && (q->quantized_dimension < 0 || static_cast<size_t>(q->quantized_dimension) >= shape.size() ||
                shape[static_cast<size_t>(q->quantized_dimension)] != n)) {
    return InvalidArgumentError(std::to_string(n) + " per-channel scales for dimension " +
                                std::to_string(q->quantized_dimension) + " of shape " + ShapeToString(shape));
  }
  return OkStatus();
}

void ReadSparsity(const TfLiteSparsity& s, SparsityParams* out) {
  out->traversal_order = ArrayOf(s.traversal_order);
  out->block_map = ArrayOf(s.block_map);
  out->dim_metadata.clear();
  for (int i = 0; s.dim_metadata != nullptr && i < s.dim_metadata_size; ++i) {
    const TfLiteDimensionMetadata& m = s.dim_metadata[i];
    SparseDimension d;
    d.sparse_csr = m.format == kTfLiteDimSparseCSR;
    d.dense_size = m.dense_size;
    d.array_segments = ArrayOf(m.array_segments);
    d.array_indices = ArrayOf(m.array_indices);
    out->dim_metadata.push_back(std::move(d));
  }
}

// The constant's bytes: decoded into a buffer of its own as the reader
// decodes them, else TFLite's read-only data in place.
Status ReadConstant(const TfLiteTensor& t, Tensor* out) {
  out->is_constant = true;
  const auto* data = static_cast<const uint8_t*>(t.data);
  if (t.sparsity != nullptr) {
    SparsityParams sp;
    ReadSparsity(*t.sparsity, &sp);
    out->sparsity = std::move(sp);
  }
  const size_t esize = DataTypeSize(out->type);
  const int64_t stored = esize == 0 ? 0 : static_cast<int64_t>(t.bytes / esize);
  if (TfliteConstantDecodesToFloat(*out)) {
    if (out->quant.scale.size() > 1 && out->sparsity) {
      return UnimplementedError("per-channel quantized sparse constants are not supported");
    }
    const size_t bytes = static_cast<size_t>(stored) * sizeof(float);
    std::shared_ptr<uint8_t[]> block = AllocateAlignedBlock(bytes);
    if (block == nullptr) return InternalError("cannot allocate " + std::to_string(bytes) + " bytes for a constant");
    DecodeTfliteConstant(data, t.bytes, stored, *out, reinterpret_cast<float*>(block.get()));
    std::memset(block.get() + bytes, 0, AlignedBuffer::kAlignment);  // the readable tail
    out->data = ConstantData::View(block, block.get(), bytes);
    return OkStatus();
  }
  if (reinterpret_cast<uintptr_t>(data) % std::max<size_t>(esize, 1) != 0) {
    out->data = ConstantData::CopyOf(data, t.bytes);
  } else {
    // TFLite keeps the model's data for the interpreter's life, which the
    // delegate's kernels do not outlive.
    out->data = ConstantData::View(std::shared_ptr<const void>(data, [](const void*) {}), data, t.bytes);
  }
  return OkStatus();
}

Status ReadTensor(const TfLiteContext* context, int index, Tensor* out) {
  const TfLiteTensor& t = context->tensors[index];
  out->name = t.name != nullptr ? t.name : "";
  if (!FromTfLiteType(t.type, &out->type)) {
    return UnimplementedError("tensor " + std::to_string(index) + " '" + out->name + "' has TFLite type " +
                              std::to_string(static_cast<int>(t.type)) + ", which the library does not take");
  }
  out->type_declared = true;
  out->shape = TfLiteShape(t);
  out->is_variable = t.is_variable;
  Status q = ReadQuantization(t, out->shape, &out->quant);
  if (!q.ok()) return q.WithContext("tensor " + std::to_string(index) + " '" + out->name + "'");
  if (int64_t lo = 0, hi = 0; !out->quant.empty() && IntegerTypeRange(out->type, &lo, &hi)) {
    out->quant.storage_type = out->type;
  }
  if (IsTfLiteConstant(t)) GLD_RETURN_IF_ERROR(ReadConstant(t, out));
  return OkStatus();
}

}  // namespace

Shape TfLiteShape(const TfLiteTensor& tensor) {
  if (tensor.dims == nullptr) return {};
  return Shape(tensor.dims->data, tensor.dims->data + std::max(tensor.dims->size, 0));
}

bool FromTfLiteType(TfLiteType type, DataType* out) {
  switch (type) {
    case kTfLiteFloat32: *out = DataType::kFloat32; return true;
    case kTfLiteFloat16: *out = DataType::kFloat16; return true;
    case kTfLiteFloat64: *out = DataType::kFloat64; return true;
    case kTfLiteInt8: *out = DataType::kInt8; return true;
    case kTfLiteUInt8: *out = DataType::kUInt8; return true;
    case kTfLiteInt16: *out = DataType::kInt16; return true;
    case kTfLiteInt32: *out = DataType::kInt32; return true;
    case kTfLiteInt64: *out = DataType::kInt64; return true;
    case kTfLiteBool: *out = DataType::kBool; return true;
    default: return false;
  }
}

bool IsTfLiteConstant(const TfLiteTensor& tensor) {
  return tensor.allocation_type == kTfLiteMmapRo && (tensor.data != nullptr || tensor.bytes == 0);
}

StatusOr<std::vector<int>> CheckedExecutionPlan(TfLiteContext* context) {
  if (context == nullptr || context->GetExecutionPlan == nullptr || context->GetNodeAndRegistration == nullptr ||
      context->ReplaceNodeSubsetsWithDelegateKernels == nullptr || context->ResizeTensor == nullptr) {
    return Mismatch("a function the delegate calls is null");
  }
  if (context->tensors_size > kMaxTensors || (context->tensors_size > 0 && context->tensors == nullptr)) {
    return Mismatch("it holds " + std::to_string(context->tensors_size) + " tensors");
  }
  TfLiteIntArray* plan = nullptr;
  if (context->GetExecutionPlan(context, &plan) != kTfLiteOk || plan == nullptr) {
    return FailedPreconditionError("the interpreter gave no execution plan");
  }
  if (plan->size < 0 || plan->size > kMaxPlan) return Mismatch("the execution plan has " + std::to_string(plan->size) + " nodes");
  std::vector<int> nodes = ArrayOf(plan);
  std::vector<char> checked(context->tensors_size, 0);
  const int num_tensors = static_cast<int>(context->tensors_size);
  for (int n : nodes) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* reg = nullptr;
    if (context->GetNodeAndRegistration(context, n, &node, &reg) != kTfLiteOk || node == nullptr || reg == nullptr) {
      return Mismatch("node " + std::to_string(n) + " of the execution plan has no node or registration");
    }
    for (const TfLiteIntArray* list : {node->inputs, node->outputs}) {
      if (list == nullptr || list->size < 0 || list->size > kMaxNodeTensors) {
        return Mismatch("node " + std::to_string(n) + " has a tensor list of " +
                        (list == nullptr ? std::string("null") : std::to_string(list->size)) + " entries");
      }
      for (int k = 0; k < list->size; ++k) {
        const int t = list->data[k];
        if (t < -1 || t >= num_tensors) {
          return Mismatch("node " + std::to_string(n) + " names tensor " + std::to_string(t) + " of " +
                          std::to_string(num_tensors));
        }
        if (t >= 0 && !checked[static_cast<size_t>(t)]) {
          GLD_RETURN_IF_ERROR(CheckTensor(context, t));
          checked[static_cast<size_t>(t)] = 1;
        }
      }
    }
  }
  return nodes;
}

StatusOr<Node> NodeFromTfLite(TfLiteContext* context, int node_index) {
  TfLiteNode* tnode = nullptr;
  TfLiteRegistration* reg = nullptr;
  if (context->GetNodeAndRegistration(context, node_index, &tnode, &reg) != kTfLiteOk) {
    return InternalError("node " + std::to_string(node_index) + ": no such node");
  }
  Node node;
  node.source_index = node_index;
  std::string custom_name;
  if (reg->builtin_code == kBuiltinCustom) {
    custom_name = reg->custom_name != nullptr ? reg->custom_name : "";
    if (custom_name.empty()) return UnimplementedError("custom op without a name");
    node.op = tflite_ops::CustomOpType(custom_name);
  } else if (!tflite_ops::OpTypeFromBuiltin(reg->builtin_code, &node.op)) {
    const char* name = tflite_ops::BuiltinName(reg->builtin_code);
    return UnimplementedError(std::string("op ") + (name != nullptr ? name : "#" + std::to_string(reg->builtin_code)) +
                              " has no row in the library's op table");
  }
  const std::string label = "node " + std::to_string(node_index) + " (" +
                            (custom_name.empty() ? std::string(OpTypeName(node.op)) : custom_name) + ")";
  const OpInfo& info = GetOpInfo(node.op);
  for (int k = 0; k < tnode->inputs->size; ++k) {
    const int t = tnode->inputs->data[k];
    if (t < 0 && !info.InputMayBeAbsent(static_cast<size_t>(k))) {
      return InvalidArgumentError(label + ": input " + std::to_string(k) + " is absent (-1) but required");
    }
    node.inputs.push_back(t < 0 ? kNoTensor : t);
  }
  node.outputs = ArrayOf(tnode->outputs);
  for (int t : node.outputs) {
    if (t < 0) return InvalidArgumentError(label + ": an output is absent");
  }
  GLD_RETURN_IF_ERROR(tflite_ops::CheckArity(node).WithContext(label));
  for (const std::vector<int>* list : {&node.inputs, &node.outputs}) {
    for (int t : *list) {
      if (t < 0) continue;
      const TfLiteTensor& tensor = context->tensors[t];
      DataType type;
      if (!FromTfLiteType(tensor.type, &type)) {
        return UnimplementedError(label + ": tensor " + std::to_string(t) + " has a type the library does not take");
      }
      if (tensor.is_variable) return UnimplementedError(label + ": reads or writes a variable");
      if (tensor.dims == nullptr) return UnimplementedError(label + ": tensor " + std::to_string(t) + " has no shape");
    }
  }
  Status s;
  if (!custom_name.empty()) {
    const auto* data = static_cast<const uint8_t*>(tnode->custom_initial_data);
    const size_t size = static_cast<size_t>(std::max(tnode->custom_initial_data_size, 0));
    // LiteRT's stand-in for a custom op it has no kernel for says version 1.
    const int version = tflite_ops::MediaPipeOptionsVersion(custom_name, data, size, reg->version);
    s = tflite_ops::SetCustomNodeAttributes(custom_name, version, data, size, &node);
  } else {
    s = tflite_ops::ParseBuiltinData(node.op, tnode->builtin_data, &node.attributes);
  }
  if (!s.ok()) return s.WithContext(label);
  return node;
}

StatusOr<ContextGraph> BuildContextGraph(TfLiteContext* context, const std::vector<Node>& nodes,
                                         const std::vector<int>& inputs, const std::vector<int>& outputs) {
  ContextGraph out;
  std::map<int, int> ir_of;  // TFLite tensor -> IR tensor
  auto tensor = [&](int t) -> StatusOr<int> {
    auto it = ir_of.find(t);
    if (it != ir_of.end()) return it->second;
    Tensor ir;
    GLD_RETURN_IF_ERROR(ReadTensor(context, t, &ir));
    const int index = static_cast<int>(out.graph.tensors.size());
    out.graph.tensors.push_back(std::move(ir));
    out.tflite_tensor.push_back(t);
    ir_of[t] = index;
    return index;
  };
  for (Node node : nodes) {
    for (std::vector<int>* list : {&node.inputs, &node.outputs}) {
      for (int& t : *list) {
        if (t == kNoTensor) continue;
        GLD_ASSIGN_OR_RETURN(t, tensor(t));
      }
    }
    out.graph.nodes.push_back(std::move(node));
  }
  for (int t : inputs) {
    if (t < 0 || IsTfLiteConstant(context->tensors[t])) continue;
    GLD_ASSIGN_OR_RETURN(int ir, tensor(t));
    out.graph.inputs.push_back(ir);
  }
  for (int t : outputs) {
    GLD_ASSIGN_OR_RETURN(int ir, tensor(t));
    out.graph.outputs.push_back(ir);
  }
  return out;
}

}  // namespace gld::delegate
