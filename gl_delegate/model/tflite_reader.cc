#include "model/tflite_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gldelegate/tflite_generated.h"
#include "graph/dequantize.h"
#include "graph/graph_check.h"
#include "model/tflite_ops.h"
#include "util/aligned_buffer.h"
#include "util/half.h"

namespace gld {
namespace {

static_assert(sizeof(float) == 4, "float must be IEEE binary32");

std::string Quote(const flatbuffers::String* s) {
  return s == nullptr ? std::string() : s->str();
}

// The schema version of TFLite's own schema.fbs (TFLITE_SCHEMA_VERSION).
constexpr uint32_t kMaxSchemaVersion = 3;

// Four identifier bytes for a message: quoted text, or hex when any byte is
// not printable.
std::string IdentifierText(const uint8_t* id) {
  bool printable = true;
  for (int i = 0; i < 4; ++i) printable = printable && id[i] >= 0x20 && id[i] < 0x7f;
  if (printable) return "'" + std::string(reinterpret_cast<const char*>(id), 4) + "'";
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%02x%02x%02x%02x", id[0], id[1], id[2], id[3]);
  return hex;
}

StatusOr<DataType> ToDataType(tflite::TensorType t) {
  switch (t) {
    case tflite::TensorType::FLOAT32: return DataType::kFloat32;
    case tflite::TensorType::FLOAT16: return DataType::kFloat16;
    case tflite::TensorType::FLOAT64: return DataType::kFloat64;
    case tflite::TensorType::INT8: return DataType::kInt8;
    case tflite::TensorType::UINT8: return DataType::kUInt8;
    case tflite::TensorType::INT16: return DataType::kInt16;
    case tflite::TensorType::INT32: return DataType::kInt32;
    case tflite::TensorType::INT64: return DataType::kInt64;
    case tflite::TensorType::BOOL: return DataType::kBool;
    // A resource handle holds the int32 id of its variable (LiteRT stores it
    // so); VAR_HANDLE writes it, READ_VARIABLE / ASSIGN_VARIABLE read it.
    case tflite::TensorType::RESOURCE: return DataType::kInt32;
    default: break;
  }
  const char* name = tflite::EnumNameTensorType(t);
  return UnimplementedError(std::string("unsupported type ") +
                            (name != nullptr && name[0] != '\0'
                                 ? std::string(name)
                                 : "#" + std::to_string(static_cast<int>(t))));
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size, const TfliteReaderLimits& limits)
      : file_(data), size_(size), limits_(limits) {}

  StatusOr<Graph> Read(TfliteLoadInfo* info);

 private:
  struct BufferRef {
    const uint8_t* data = nullptr;
    uint64_t size = 0;
    bool present = false;  // inline data or an offset into the file
  };

  std::string TensorLabel(int index) const {
    std::string name;
    if (sg_->tensors() != nullptr && index >= 0 &&
        static_cast<size_t>(index) < sg_->tensors()->size()) {
      name = Quote(sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->name());
    }
    return "subgraph " + std::to_string(sg_index_) + ", tensor " + std::to_string(index) + " '" +
           name + "'";
  }
  std::string NodeLabel(size_t index, const std::string& op_name) const {
    return "subgraph " + std::to_string(sg_index_) + ", node " + std::to_string(index) + " (" +
           op_name + ")";
  }

  Status ChooseSubgraph(TfliteLoadInfo* info);
  // Reads subgraph `index` into a Graph (its constants in a block of their
  // own); `info` (the entry subgraph's) gets the op versions.
  StatusOr<Graph> ReadSubgraph(int index, TfliteLoadInfo* info, int64_t* total_bytes);
  Status CheckSignatureTensors(const Graph& graph) const;
  static Status ResolveScatterUpdates(const std::vector<Graph>& graphs);
  Status ReadSignatures(const flatbuffers::Vector<flatbuffers::Offset<tflite::SignatureDef>>& sigs,
                        TfliteLoadInfo* info) const;
  StatusOr<BufferRef> GetBuffer(uint32_t index, const std::string& who) const;
  Status ReadTensor(int index, Tensor* out, int64_t* total_bytes);
  Status ReadQuantization(const tflite::QuantizationParameters* qp, const Shape& shape,
                          const std::string& who, QuantizationParams* out) const;
  StatusOr<int64_t> ReadSparsity(const tflite::SparsityParameters& sp, const Shape& shape,
                                 const std::string& who, SparsityParams* out) const;
  // A constant whose checks have passed; its bytes are decoded into the
  // model's constant block once every tensor has been read.
  struct PendingConstant {
    int tensor = 0;
    BufferRef buf;
    int64_t stored = 0;  // values in the buffer (fewer than the shape's when sparse)
  };
  Status CheckConstant(int index, const BufferRef& buf, const tflite::Tensor& t, const std::string& who,
                       Tensor* out);
  static bool DecodesToFloat(const Tensor& t);
  Status MaterializeConstants();
  PhaseTimes phases_;
  double constants_us_ = 0;  // in MaterializeConstants, over the subgraphs
  static void DecodeToFloat(const PendingConstant& p, Tensor& t, float* f);
  Status ResolveOpCode(uint32_t opcode_index, size_t node, OpType* op, int* version,
                       std::string* custom_name);
  Status ReadNode(size_t index, Node* node, int* version);

  const uint8_t* file_;
  size_t size_;
  const TfliteReaderLimits& limits_;
  const tflite::Model* model_ = nullptr;
  const tflite::SubGraph* sg_ = nullptr;
  int sg_index_ = 0;  // the subgraph being read
  int entry_ = 0;     // the subgraph the model runs
  Graph graph_;
  std::vector<PendingConstant> pending_;
  // Constants stored as they are in the file, by their bytes' place and
  // type: a buffer several subgraphs read (a decoder's prefill and decode
  // share their weights) is copied once.
  std::map<std::pair<const uint8_t*, DataType>, ConstantData> copied_;
  // TfliteLoadInfo's constant_ranges and constant_blocks, every subgraph's.
  std::vector<std::pair<uint64_t, uint64_t>> constant_ranges_;
  std::vector<std::pair<std::shared_ptr<const uint8_t[]>, uint64_t>> constant_blocks_;
};

StatusOr<Reader::BufferRef> Reader::GetBuffer(uint32_t index, const std::string& who) const {
  const auto* buffers = model_->buffers();
  const uint32_t count = buffers == nullptr ? 0 : buffers->size();
  if (index >= count) {
    return InvalidArgumentError(who + ": buffer index " + std::to_string(index) +
                                " is out of range, the model has " + std::to_string(count) +
                                " buffers");
  }
  const tflite::Buffer* b = buffers->Get(index);
  BufferRef ref;
  const bool has_inline = b->data() != nullptr && b->data()->size() > 0;
  if (b->offset() > 1) {
    if (has_inline) {
      return InvalidArgumentError(who + ": buffer " + std::to_string(index) +
                                  " has both inline data and an offset");
    }
    const uint64_t offset = b->offset(), bytes = b->size();
    if (offset > size_ || bytes > size_ - offset) {
      return InvalidArgumentError(who + ": buffer " + std::to_string(index) + " at offset " +
                                  std::to_string(offset) + " with " + std::to_string(bytes) +
                                  " bytes lies outside the file (" + std::to_string(size_) +
                                  " bytes)");
    }
    ref.data = file_ + offset;
    ref.size = bytes;
    ref.present = true;
  } else if (has_inline) {
    ref.data = b->data()->data();
    ref.size = b->data()->size();
    ref.present = true;
  }
  return ref;
}

Status Reader::ReadSignatures(const flatbuffers::Vector<flatbuffers::Offset<tflite::SignatureDef>>& sigs,
                              TfliteLoadInfo* info) const {
  const auto* subgraphs = model_->subgraphs();
  for (const tflite::SignatureDef* sig : sigs) {
    const uint32_t s = sig->subgraph_index();
    if (s >= subgraphs->size()) {
      return InvalidArgumentError("signature '" + Quote(sig->signature_key()) + "' refers to subgraph " +
                                  std::to_string(s) + ", the model has " + std::to_string(subgraphs->size()));
    }
    const uint32_t num_tensors = subgraphs->Get(s)->tensors() == nullptr ? 0 : subgraphs->Get(s)->tensors()->size();
    SignatureInfo out;
    out.key = Quote(sig->signature_key());
    for (int side = 0; side < 2; ++side) {
      const auto* maps = side == 0 ? sig->inputs() : sig->outputs();
      if (maps == nullptr) continue;
      for (const tflite::TensorMap* map : *maps) {
        if (map->tensor_index() >= num_tensors) {
          return InvalidArgumentError("signature '" + out.key + "' " + (side == 0 ? "input" : "output") + " '" +
                                      Quote(map->name()) + "' refers to tensor " +
                                      std::to_string(map->tensor_index()) + ", the subgraph has " +
                                      std::to_string(num_tensors) + " tensors");
        }
        (side == 0 ? out.inputs : out.outputs)
            .push_back({Quote(map->name()), static_cast<int>(map->tensor_index())});
      }
    }
    info->signatures.push_back(std::move(out));
    info->signature_subgraphs.push_back(static_cast<int>(s));
  }
  return OkStatus();
}

Status Reader::ChooseSubgraph(TfliteLoadInfo* info) {
  const auto* subgraphs = model_->subgraphs();
  if (subgraphs == nullptr || subgraphs->size() == 0) {
    return InvalidArgumentError("model has no subgraphs");
  }
  sg_index_ = 0;
  const auto* sigs = model_->signature_defs();
  if (sigs != nullptr && sigs->size() > 0) {
    const uint32_t s = sigs->Get(0)->subgraph_index();
    if (s >= subgraphs->size()) {
      return InvalidArgumentError("signature def 0 ('" + Quote(sigs->Get(0)->signature_key()) +
                                  "') refers to subgraph " + std::to_string(s) +
                                  ", the model has " + std::to_string(subgraphs->size()));
    }
    sg_index_ = static_cast<int>(s);
    if (info != nullptr) info->signature_key = Quote(sigs->Get(0)->signature_key());
  }
  entry_ = sg_index_;
  sg_ = subgraphs->Get(static_cast<flatbuffers::uoffset_t>(sg_index_));
  if (sigs != nullptr && info != nullptr) GLD_RETURN_IF_ERROR(ReadSignatures(*sigs, info));
  if (info != nullptr) {
    info->subgraph_index = sg_index_;
    info->subgraph_name = Quote(sg_->name());
  }
  return OkStatus();
}

Status Reader::ReadQuantization(const tflite::QuantizationParameters* qp, const Shape& shape,
                                const std::string& who, QuantizationParams* out) const {
  *out = QuantizationParams{};
  if (qp == nullptr || qp->scale() == nullptr || qp->scale()->size() == 0) return OkStatus();
  const auto* scale = qp->scale();
  const auto* zp = qp->zero_point();
  const size_t n = scale->size();
  if (zp != nullptr && zp->size() != 0 && zp->size() != n) {
    return InvalidArgumentError(who + ": quantization has " + std::to_string(n) + " scales but " +
                                std::to_string(zp->size()) + " zero points");
  }
  const int32_t qd = qp->quantized_dimension();
  if (n > 1) {
    if (qd < 0 || static_cast<size_t>(qd) >= shape.size()) {
      return InvalidArgumentError(who + ": quantized_dimension " + std::to_string(qd) +
                                  " is outside shape " + ShapeToString(shape));
    }
    if (static_cast<int64_t>(n) != shape[static_cast<size_t>(qd)]) {
      return InvalidArgumentError(who + ": " + std::to_string(n) + " per-channel scales for dimension " +
                                  std::to_string(qd) + " of shape " + ShapeToString(shape));
    }
  }
  out->scale.assign(scale->begin(), scale->end());
  if (zp != nullptr && zp->size() > 0) {
    // The verifier only checks a vector's 4-byte length alignment, so the
    // int64 elements may sit misaligned in a hostile file.
    out->zero_point.resize(zp->size());
    std::memcpy(out->zero_point.data(), zp->Data(), zp->size() * sizeof(int64_t));
  }
  out->quantized_dimension = qd;
  return OkStatus();
}

// A sparse dimension's array_segments or array_indices, of any index type.
Status ReadIndexVector(const std::string& where, tflite::SparseIndexVector type, const void* table,
                       const char* field, size_t level, std::vector<int32_t>* values) {
  values->clear();
  if (type != tflite::SparseIndexVector::NONE && table == nullptr) {
    return InvalidArgumentError(where + "dim_metadata " + std::to_string(level) + " " + field +
                                " names a vector type but has no table");
  }
  switch (type) {
    case tflite::SparseIndexVector::Int32Vector: {
      const auto* v = static_cast<const tflite::Int32Vector*>(table)->values();
      if (v != nullptr) values->assign(v->begin(), v->end());
      return OkStatus();
    }
    case tflite::SparseIndexVector::Uint16Vector: {
      const auto* v = static_cast<const tflite::Uint16Vector*>(table)->values();
      if (v != nullptr) values->assign(v->begin(), v->end());
      return OkStatus();
    }
    case tflite::SparseIndexVector::Uint8Vector: {
      const auto* v = static_cast<const tflite::Uint8Vector*>(table)->values();
      if (v != nullptr) values->assign(v->begin(), v->end());
      return OkStatus();
    }
    default:
      return InvalidArgumentError(where + "dim_metadata " + std::to_string(level) + " " + field + " is missing");
  }
}

// A SPARSE_CSR level i of `dim_size` under `count` entries of the level above:
// count + 1 monotonic segments from 0 to the number of indices, each index in
// range.
Status ReadCsrLevel(const std::string& where, const tflite::DimensionMetadata& dm, size_t i, int64_t dim_size,
                    int64_t count, SparseDimension* sd) {
  sd->sparse_csr = true;
  GLD_RETURN_IF_ERROR(ReadIndexVector(where, dm.array_segments_type(), dm.array_segments(), "array_segments", i,
                                      &sd->array_segments));
  GLD_RETURN_IF_ERROR(ReadIndexVector(where, dm.array_indices_type(), dm.array_indices(), "array_indices", i,
                                      &sd->array_indices));
  const auto& seg = sd->array_segments;
  const auto& idx = sd->array_indices;
  if (static_cast<int64_t>(seg.size()) != count + 1) {
    return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) + " has " +
                                std::to_string(seg.size()) + " array_segments, expected " +
                                std::to_string(count + 1));
  }
  if (seg[0] != 0 || seg.back() != static_cast<int64_t>(idx.size())) {
    return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) +
                                " array_segments must run from 0 to " +
                                std::to_string(idx.size()));
  }
  for (size_t s = 1; s < seg.size(); ++s) {
    if (seg[s] < seg[s - 1] || seg[s] - seg[s - 1] > dim_size) {
      return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) +
                                  " array_segments entry " + std::to_string(s) + " (" +
                                  std::to_string(seg[s]) + ") is out of order");
    }
  }
  for (size_t s = 0; s < idx.size(); ++s) {
    if (idx[s] < 0 || idx[s] >= dim_size) {
      return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) +
                                  " array_indices entry " + std::to_string(s) + " is " +
                                  std::to_string(idx[s]) + ", dimension size " +
                                  std::to_string(dim_size));
    }
  }
  return OkStatus();
}

// Checks a TACO-style sparse encoding against the dense shape and returns
// the number of values it stores. The checks make DENSIFY safe to run
// without further validation: traversal_order is a permutation whose first
// `rank` entries cover the dense dimensions, every block dimension divides
// its dense dimension, DENSE sizes match, and CSR segments are monotonic and
// indices in range.
StatusOr<int64_t> Reader::ReadSparsity(const tflite::SparsityParameters& sp, const Shape& shape,
                                       const std::string& who, SparsityParams* out) const {
  const std::string where = who + ": sparsity: ";
  const size_t n = shape.size();
  const auto* order = sp.traversal_order();
  const auto* block_map = sp.block_map();
  const auto* dims = sp.dim_metadata();
  const size_t k = block_map == nullptr ? 0 : block_map->size();
  const size_t m = order == nullptr ? 0 : order->size();
  if (m != n + k) {
    return InvalidArgumentError(where + "traversal_order has " + std::to_string(m) +
                                " entries, expected rank " + std::to_string(n) + " + " +
                                std::to_string(k) + " block dimensions");
  }
  if (dims == nullptr || dims->size() != m) {
    return InvalidArgumentError(where + "dim_metadata has " +
                                std::to_string(dims == nullptr ? 0 : dims->size()) +
                                " entries, expected " + std::to_string(m));
  }
  if (k > n) return InvalidArgumentError(where + "more block dimensions than dimensions");
  std::vector<char> seen(m, 0);
  for (size_t i = 0; i < m; ++i) {
    const int32_t d = order->Get(static_cast<flatbuffers::uoffset_t>(i));
    const bool ok = i < n ? (d >= 0 && static_cast<size_t>(d) < n)
                          : (static_cast<size_t>(d) >= n && static_cast<size_t>(d) < m);
    if (d < 0 || !ok || seen[static_cast<size_t>(d)]) {
      return InvalidArgumentError(where + "traversal_order entry " + std::to_string(i) + " is " +
                                  std::to_string(d) + ", not a valid permutation");
    }
    seen[static_cast<size_t>(d)] = 1;
  }
  // Position in traversal order of each dimension.
  std::vector<size_t> position(m);
  for (size_t i = 0; i < m; ++i) position[static_cast<size_t>(order->Get(static_cast<flatbuffers::uoffset_t>(i)))] = i;
  std::vector<int64_t> size(m);
  for (size_t d = 0; d < n; ++d) size[d] = shape[d];
  std::vector<char> blocked(n, 0);
  for (size_t j = 0; j < k; ++j) {
    const int32_t d = block_map->Get(static_cast<flatbuffers::uoffset_t>(j));
    if (d < 0 || static_cast<size_t>(d) >= n || blocked[static_cast<size_t>(d)]) {
      return InvalidArgumentError(where + "block_map entry " + std::to_string(j) + " is " +
                                  std::to_string(d));
    }
    blocked[static_cast<size_t>(d)] = 1;
    const tflite::DimensionMetadata* bm = dims->Get(static_cast<flatbuffers::uoffset_t>(position[n + j]));
    const int32_t bs = bm->dense_size();
    if (bm->format() != tflite::DimensionType::DENSE || bs < 1 || shape[static_cast<size_t>(d)] % bs != 0) {
      return InvalidArgumentError(where + "block dimension " + std::to_string(j) + " (size " +
                                  std::to_string(bs) + ") does not divide dimension " +
                                  std::to_string(d) + " of shape " + ShapeToString(shape));
    }
    size[n + j] = bs;
    size[static_cast<size_t>(d)] = shape[static_cast<size_t>(d)] / bs;
  }

  out->traversal_order.assign(order->begin(), order->end());
  if (block_map != nullptr) out->block_map.assign(block_map->begin(), block_map->end());
  out->dim_metadata.resize(m);
  int64_t count = 1;  // entries at the current level
  for (size_t i = 0; i < m; ++i) {
    const tflite::DimensionMetadata* dm = dims->Get(static_cast<flatbuffers::uoffset_t>(i));
    const int64_t dim_size = size[static_cast<size_t>(order->Get(static_cast<flatbuffers::uoffset_t>(i)))];
    SparseDimension& sd = out->dim_metadata[i];
    if (dm->format() == tflite::DimensionType::DENSE) {
      if (dm->dense_size() != dim_size) {
        return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) + " dense_size " +
                                    std::to_string(dm->dense_size()) + " != dimension size " +
                                    std::to_string(dim_size));
      }
      sd.sparse_csr = false;
      sd.dense_size = dm->dense_size();
      count *= dim_size;  // bounded: the product of all sizes is the element count
    } else if (dm->format() == tflite::DimensionType::SPARSE_CSR) {
      GLD_RETURN_IF_ERROR(ReadCsrLevel(where, *dm, i, dim_size, count, &sd));
      count = static_cast<int64_t>(sd.array_indices.size());
    } else {
      return InvalidArgumentError(where + "dim_metadata " + std::to_string(i) + " has unknown format " +
                                  std::to_string(static_cast<int>(dm->format())));
    }
  }
  return count;
}

Status Reader::CheckConstant(int index, const BufferRef& buf, const tflite::Tensor& t, const std::string& who,
                             Tensor* out) {
  int64_t stored = out->num_elements();
  if (t.sparsity() != nullptr) {
    SparsityParams sp;
    GLD_ASSIGN_OR_RETURN(stored, ReadSparsity(*t.sparsity(), out->shape, who, &sp));
    out->sparsity = std::move(sp);
  }
  const size_t esize = DataTypeSize(out->type);
  const uint64_t need = static_cast<uint64_t>(stored) * esize;
  if (buf.size != need) {
    std::string what = out->sparsity ? std::to_string(stored) + " stored values" : "shape " + ShapeToString(out->shape);
    return InvalidArgumentError(who + ": buffer " + std::to_string(t.buffer()) + " holds " +
                                std::to_string(buf.size) + " bytes, " + what + " " +
                                DataTypeName(out->type) + " needs " + std::to_string(need));
  }
  if (DecodesToFloat(*out) && out->quant.scale.size() > 1 && out->sparsity) {
    return UnimplementedError(who + ": per-channel quantized sparse constants are not supported");
  }
  out->is_constant = true;
  pending_.push_back(PendingConstant{index, buf, stored});
  return OkStatus();
}

// float16 constants become float32, and quantized integer ones their float
// values; everything else is kept as stored.
bool Reader::DecodesToFloat(const Tensor& t) { return TfliteConstantDecodesToFloat(t); }

// One block holds every constant, each at a 64-byte boundary, so that the
// few MiB of weights are written into huge pages rather than faulted in page
// by page (AllocateAlignedBlock).
Status Reader::MaterializeConstants() {
  auto bytes_of = [&](const PendingConstant& p) {
    const Tensor& t = graph_.tensors[static_cast<size_t>(p.tensor)];
    return DecodesToFloat(t) ? static_cast<uint64_t>(p.stored) * sizeof(float) : p.buf.size;
  };
  auto round_up = [](uint64_t n) { return (n + AlignedBuffer::kAlignment - 1) & ~(AlignedBuffer::kAlignment - 1); };
  // Stored as is and already copied for another subgraph: that copy.
  auto shared = [&](const PendingConstant& p) {
    const Tensor& t = graph_.tensors[static_cast<size_t>(p.tensor)];
    return DecodesToFloat(t) || t.sparsity || p.buf.size == 0 ? copied_.end() : copied_.find({p.buf.data, t.type});
  };
  std::vector<PendingConstant> fresh;
  for (const PendingConstant& p : pending_) {
    auto it = shared(p);
    if (it == copied_.end()) {
      fresh.push_back(p);
    } else {
      graph_.tensors[static_cast<size_t>(p.tensor)].data = it->second;
    }
  }
  pending_ = std::move(fresh);
  uint64_t total = 0;
  for (const PendingConstant& p : pending_) total += round_up(bytes_of(p));
  std::shared_ptr<uint8_t[]> block = AllocateAlignedBlock(total);
  if (block == nullptr) {
    return InternalError("cannot allocate " + std::to_string(total) + " bytes for the model's constants");
  }
  uint64_t offset = 0;
  for (const PendingConstant& p : pending_) {
    Tensor& t = graph_.tensors[static_cast<size_t>(p.tensor)];
    const uint64_t bytes = bytes_of(p);
    uint8_t* dst = block.get() + offset;
    offset += round_up(bytes);
    if (DecodesToFloat(t)) DecodeToFloat(p, t, reinterpret_cast<float*>(dst));
    else if (bytes > 0) std::memcpy(dst, p.buf.data, static_cast<size_t>(bytes));
    std::memset(dst + bytes, 0, static_cast<size_t>(round_up(bytes) - bytes));  // the gap to the next
    t.data = ConstantData::View(block, dst, static_cast<size_t>(bytes));
    if (!DecodesToFloat(t) && !t.sparsity && p.buf.size > 0) copied_[{p.buf.data, t.type}] = t.data;
    if (p.buf.size > 0) constant_ranges_.emplace_back(static_cast<uint64_t>(p.buf.data - file_), p.buf.size);
  }
  std::memset(block.get() + total, 0, AlignedBuffer::kAlignment);  // the readable tail
  if (total > 0) constant_blocks_.emplace_back(block, total);
  pending_.clear();
  return OkStatus();
}

void Reader::DecodeToFloat(const PendingConstant& p, Tensor& t, float* f) {
  DecodeTfliteConstant(p.buf.data, static_cast<size_t>(p.buf.size), p.stored, t, f);
}

Status Reader::ReadTensor(int index, Tensor* out, int64_t* total_bytes) {
  const tflite::Tensor* t = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const std::string who = TensorLabel(index);
  out->name = Quote(t->name());
  {
    auto type = ToDataType(t->type());
    if (!type.ok()) return type.status().WithContext(who);
    out->type = *type;
    out->type_declared = true;
  }
  const auto* shape = t->shape();
  const size_t rank = shape == nullptr ? 0 : shape->size();
  if (rank > static_cast<size_t>(limits_.max_rank)) {
    return InvalidArgumentError(who + ": rank " + std::to_string(rank) + " exceeds the limit of " +
                                std::to_string(limits_.max_rank));
  }
  if (shape != nullptr) out->shape.assign(shape->begin(), shape->end());
  for (size_t d = 0; d < rank; ++d) {
    if (out->shape[d] < 0) {
      return InvalidArgumentError(who + ": negative dimension " + std::to_string(out->shape[d]) +
                                  " at " + std::to_string(d) + " of shape " +
                                  ShapeToString(out->shape));
    }
  }
  if (!ShapeIsValid(out->shape, limits_.max_tensor_elements)) {
    return InvalidArgumentError(who + ": shape " + ShapeToString(out->shape) + " has more than " +
                                std::to_string(limits_.max_tensor_elements) + " elements");
  }
  if (const auto* sig = t->shape_signature(); sig != nullptr && sig->size() > 0) {
    if (sig->size() != rank) {
      return InvalidArgumentError(who + ": shape_signature has rank " + std::to_string(sig->size()) +
                                  ", shape has rank " + std::to_string(rank));
    }
    for (flatbuffers::uoffset_t d = 0; d < sig->size(); ++d) {
      if (sig->Get(d) < -1) {
        return InvalidArgumentError(who + ": shape_signature dimension " + std::to_string(d) +
                                    " is " + std::to_string(sig->Get(d)));
      }
    }
    out->signature.assign(sig->begin(), sig->end());
  }
  out->is_variable = t->is_variable();
  GLD_RETURN_IF_ERROR(ReadQuantization(t->quantization(), out->shape, who, &out->quant));
  if (int64_t lo = 0, hi = 0; !out->quant.empty() && IntegerTypeRange(out->type, &lo, &hi)) {
    out->quant.storage_type = out->type;
  }

  const int64_t elements = out->num_elements();
  // Constants are stored as float32 after decoding, so count 4 bytes at least.
  const int64_t bytes = elements * static_cast<int64_t>(std::max<size_t>(DataTypeSize(out->type), 4));
  if (bytes > limits_.max_total_bytes - *total_bytes) {
    return InvalidArgumentError(who + ": tensors exceed the limit of " +
                                std::to_string(limits_.max_total_bytes) + " bytes in total");
  }
  *total_bytes += bytes;

  if (t->buffer() != 0) {
    GLD_ASSIGN_OR_RETURN(BufferRef buf, GetBuffer(t->buffer(), who));
    // An absent buffer is still a constant when there is nothing to store (an
    // empty shape operand, say); it is decoded like any other, so it gets the
    // same type (float16 becomes float32) and checks.
    if (buf.present || (elements == 0 && !out->is_variable)) {
      GLD_RETURN_IF_ERROR(CheckConstant(index, buf, *t, who, out));
    }
  }
  if (t->sparsity() != nullptr && !out->is_constant) {
    return InvalidArgumentError(who + ": sparse tensor without constant data");
  }
  return OkStatus();
}

Status Reader::ResolveOpCode(uint32_t opcode_index, size_t node, OpType* op, int* version,
                             std::string* custom_name) {
  const auto* codes = model_->operator_codes();
  const uint32_t count = codes == nullptr ? 0 : codes->size();
  if (opcode_index >= count) {
    return InvalidArgumentError("subgraph " + std::to_string(sg_index_) + ", node " +
                                std::to_string(node) + ": opcode_index " +
                                std::to_string(opcode_index) + " is out of range, the model has " +
                                std::to_string(count) + " operator codes");
  }
  const tflite::OperatorCode* oc = codes->Get(opcode_index);
  *version = oc->version();
  // Files written before builtin_code existed only set the byte field;
  // newer ones set both, with the byte saturated at 127.
  const int32_t code = std::max<int32_t>(static_cast<int32_t>(oc->builtin_code()),
                                         static_cast<int32_t>(oc->deprecated_builtin_code()));
  if (code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM)) {
    *custom_name = Quote(oc->custom_code());
    if (custom_name->empty()) {
      return UnimplementedError("subgraph " + std::to_string(sg_index_) + ", node " +
                                std::to_string(node) + ": custom op without a custom_code");
    }
    *op = tflite_ops::CustomOpType(*custom_name);
    return OkStatus();
  }
  if (!tflite_ops::OpTypeFromBuiltin(code, op)) {
    const char* name = tflite_ops::BuiltinName(code);
    if (name != nullptr) {
      return UnimplementedError("subgraph " + std::to_string(sg_index_) + ", node " + std::to_string(node) +
                                ": unsupported builtin op '" + name + "' (code " + std::to_string(code) + ")");
    }
    return UnimplementedError("subgraph " + std::to_string(sg_index_) + ", node " + std::to_string(node) +
                              ": unknown builtin op code " + std::to_string(code));
  }
  return OkStatus();
}

Status Reader::ReadNode(size_t index, Node* node, int* version) {
  const tflite::Operator* op = sg_->operators()->Get(static_cast<flatbuffers::uoffset_t>(index));
  std::string custom_name;
  GLD_RETURN_IF_ERROR(ResolveOpCode(op->opcode_index(), index, &node->op, version, &custom_name));
  const std::string label = NodeLabel(index, node->op == OpType::kCustom ? custom_name.c_str() : OpTypeName(node->op));
  node->source_index = static_cast<int>(index);

  const int num_tensors = static_cast<int>(graph_.tensors.size());
  auto read_list = [&](const flatbuffers::Vector<int32_t>* list, const char* kind,
                       bool inputs, std::vector<int>* out) -> Status {
    out->clear();
    if (list == nullptr) return OkStatus();
    out->reserve(list->size());
    for (flatbuffers::uoffset_t i = 0; i < list->size(); ++i) {
      const int32_t t = list->Get(i);
      if (t == kNoTensor && inputs && GetOpInfo(node->op).InputMayBeAbsent(i)) {
        out->push_back(kNoTensor);
        continue;
      }
      if (t == kNoTensor) {
        return InvalidArgumentError(label + ": " + kind + " " + std::to_string(i) +
                                    " is absent (-1) but required");
      }
      if (t < 0 || t >= num_tensors) {
        return InvalidArgumentError(label + ": " + kind + " " + std::to_string(i) +
                                    " refers to tensor " + std::to_string(t) + ", the subgraph has " +
                                    std::to_string(num_tensors) + " tensors");
      }
      out->push_back(t);
    }
    return OkStatus();
  };
  GLD_RETURN_IF_ERROR(read_list(op->inputs(), "input", true, &node->inputs));
  GLD_RETURN_IF_ERROR(read_list(op->outputs(), "output", false, &node->outputs));

  GLD_RETURN_IF_ERROR(tflite_ops::CheckArity(*node).WithContext(label));

  if (!custom_name.empty()) {
    const uint8_t* data = nullptr;
    uint64_t size = 0;
    if (op->large_custom_options_offset() > 1) {
      const uint64_t offset = op->large_custom_options_offset();
      size = op->large_custom_options_size();
      if (offset > size_ || size > size_ - offset) {
        return InvalidArgumentError(label + ": custom options at offset " + std::to_string(offset) +
                                    " with " + std::to_string(size) +
                                    " bytes lie outside the file (" + std::to_string(size_) +
                                    " bytes)");
      }
      data = file_ + offset;
    } else if (op->custom_options() != nullptr) {
      data = op->custom_options()->data();
      size = op->custom_options()->size();
    }
    Status s = tflite_ops::SetCustomNodeAttributes(custom_name, *version, data, static_cast<size_t>(size), node);
    if (!s.ok()) return s.WithContext(label);
  } else {
    Status s = tflite_ops::ParseBuiltinOptions(node->op, *op, &node->attributes);
    if (!s.ok()) return s.WithContext(label);
  }
  return OkStatus();
}

StatusOr<Graph> Reader::Read(TfliteLoadInfo* info) {
  if (size_ == 0) return InvalidArgumentError("empty model file (0 bytes)");
  if (size_ < 8) {
    return InvalidArgumentError("model file is " + std::to_string(size_) +
                                " bytes, too small for a flatbuffer");
  }
  // The verifier looks at the flatbuffer only; buffers stored after it (by
  // offset) may take the file past the 2 GB flatbuffer limit.
  const size_t verify_size = std::min<size_t>(size_, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier verifier(file_, verify_size,
                                 static_cast<flatbuffers::uoffset_t>(limits_.max_flatbuffer_depth),
                                 static_cast<flatbuffers::uoffset_t>(limits_.max_flatbuffer_tables));
  const auto verify_start = PhaseTimes::Clock::now();
  const bool verified = verifier.VerifyBuffer<tflite::Model>(nullptr);
  phases_.Add("verify the flatbuffer", PhaseTimes::MicrosSince(verify_start));
  if (!verified) {
    const bool tfl3 = std::memcmp(file_ + 4, "TFL3", 4) == 0;
    return DataLossError(std::string("not a valid TFLite model: flatbuffer verification failed") +
                         (tfl3 ? " (file is marked TFL3, so it is corrupt or truncated)"
                               : " (no TFL3 file identifier)"));
  }
  // LiteRT refuses both: another identifier is another format that happens
  // to verify, and a newer schema may give old fields new meanings.
  if (std::memcmp(file_ + 4, "TFL3", 4) != 0) {
    return InvalidArgumentError("file identifier is " + IdentifierText(file_ + 4) + ", not 'TFL3'");
  }
  model_ = tflite::GetModel(file_);
  if (model_->version() > kMaxSchemaVersion) {
    return InvalidArgumentError("schema version " + std::to_string(model_->version()) + " is newer than " +
                                std::to_string(kMaxSchemaVersion) + ", the newest TFLite reads");
  }
  if (info != nullptr) {
    *info = TfliteLoadInfo{};
    info->schema_version = model_->version();
    info->description = Quote(model_->description());
    if (model_->metadata() != nullptr) {
      for (const tflite::Metadata* md : *model_->metadata()) info->metadata_names.push_back(Quote(md->name()));
    }
  }
  GLD_RETURN_IF_ERROR(ChooseSubgraph(info));
  const auto* subgraphs = model_->subgraphs();
  std::vector<Graph> graphs(subgraphs->size());
  int64_t total_bytes = 0;
  const auto read_start = PhaseTimes::Clock::now();
  for (size_t i = 0; i < graphs.size(); ++i) {
    const int index = static_cast<int>(i);
    GLD_ASSIGN_OR_RETURN(graphs[i], ReadSubgraph(index, index == entry_ ? info : nullptr, &total_bytes));
  }
  phases_.Add("read the subgraphs (constants apart)", PhaseTimes::MicrosSince(read_start) - constants_us_);
  phases_.Add("copy and decode the constants", constants_us_);
  const auto check_start = PhaseTimes::Clock::now();
  for (const Graph& g : graphs) GLD_RETURN_IF_ERROR(CheckSignatureTensors(g));
  GLD_RETURN_IF_ERROR(ResolveScatterUpdates(graphs));
  GLD_RETURN_IF_ERROR(CheckSubgraphCalls(graphs));
  phases_.Add("check the subgraphs", PhaseTimes::MicrosSince(check_start));
  if (info != nullptr) {
    info->constant_ranges = std::move(constant_ranges_);
    info->constant_blocks = std::move(constant_blocks_);
    info->phases = std::move(phases_);
  }
  Graph main = std::move(graphs[static_cast<size_t>(entry_)]);
  for (const Graph& g : graphs) {
    if (g.subgraph_index == entry_) continue;
    main.other_subgraphs.push_back(g.subgraph_name.empty() ? "subgraph " + std::to_string(g.subgraph_index)
                                                           : g.subgraph_name);
  }
  if (graphs.size() > 1) {
    Graph placeholder;
    placeholder.subgraph_index = entry_;
    placeholder.subgraph_name = main.subgraph_name;
    graphs[static_cast<size_t>(entry_)] = std::move(placeholder);
    main.subgraphs = std::make_shared<const std::vector<Graph>>(std::move(graphs));
  }
  return main;
}

StatusOr<Graph> Reader::ReadSubgraph(int index, TfliteLoadInfo* info, int64_t* total_bytes_io) {
  sg_index_ = index;
  sg_ = model_->subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  graph_ = Graph{};
  graph_.subgraph_index = index;
  graph_.subgraph_name = Quote(sg_->name());
  graph_.is_callee = index != entry_;
  int64_t& total_bytes = *total_bytes_io;

  const auto* tensors = sg_->tensors();
  const size_t num_tensors = tensors == nullptr ? 0 : tensors->size();
  graph_.tensors.resize(num_tensors);
  for (size_t i = 0; i < num_tensors; ++i) {
    GLD_RETURN_IF_ERROR(ReadTensor(static_cast<int>(i), &graph_.tensors[i], &total_bytes));
  }
  const auto constants_start = PhaseTimes::Clock::now();
  GLD_RETURN_IF_ERROR(MaterializeConstants());
  constants_us_ += PhaseTimes::MicrosSince(constants_start);

  auto read_io = [&](const flatbuffers::Vector<int32_t>* list, const char* kind,
                     std::vector<int>* out) -> Status {
    if (list == nullptr) return OkStatus();
    for (flatbuffers::uoffset_t i = 0; i < list->size(); ++i) {
      const int32_t t = list->Get(i);
      if (t < 0 || static_cast<size_t>(t) >= num_tensors) {
        return InvalidArgumentError("subgraph " + std::to_string(sg_index_) + ": " + kind + " " +
                                    std::to_string(i) + " refers to tensor " + std::to_string(t) +
                                    ", the subgraph has " + std::to_string(num_tensors) + " tensors");
      }
      out->push_back(t);
    }
    return OkStatus();
  };
  GLD_RETURN_IF_ERROR(read_io(sg_->inputs(), "input", &graph_.inputs));
  GLD_RETURN_IF_ERROR(read_io(sg_->outputs(), "output", &graph_.outputs));

  const auto* ops = sg_->operators();
  const size_t num_ops = ops == nullptr ? 0 : ops->size();
  graph_.nodes.resize(num_ops);
  if (info != nullptr) info->op_versions.resize(num_ops);
  // Tensors with a value so far: graph inputs, constants, variables, and the
  // outputs of earlier nodes; every node input must be one of them.
  std::vector<char> available(num_tensors, 0);
  for (size_t t = 0; t < num_tensors; ++t) {
    available[t] = graph_.tensors[t].is_constant || graph_.tensors[t].is_variable;
  }
  std::vector<char> is_input(num_tensors, 0), is_output(num_tensors, 0);
  for (int t : graph_.inputs) available[static_cast<size_t>(t)] = is_input[static_cast<size_t>(t)] = 1;
  for (int t : graph_.outputs) is_output[static_cast<size_t>(t)] = 1;
  std::vector<char> produced(num_tensors, 0);
  for (size_t i = 0; i < num_ops; ++i) {
    int version = 1;
    Node& node = graph_.nodes[i];
    GLD_RETURN_IF_ERROR(ReadNode(i, &node, &version));
    if (info != nullptr) info->op_versions[i] = version;
    const std::string label = NodeLabel(i, NodeOpName(node));
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const int t = node.inputs[k];
      if (t != kNoTensor && !available[static_cast<size_t>(t)]) {
        return InvalidArgumentError(label + ": input " + std::to_string(k) + " (" + TensorLabel(t) +
                                    ") is not a graph input, a constant or the output of an "
                                    "earlier node");
      }
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const size_t t = static_cast<size_t>(node.outputs[k]);
      if (produced[t] || graph_.tensors[t].is_constant || is_input[t]) {
        return InvalidArgumentError(label + ": output " + std::to_string(k) + " (" +
                                    TensorLabel(node.outputs[k]) +
                                    ") is already a constant, a graph input or another node's output");
      }
      produced[t] = 1;
      available[t] = 1;
    }
  }
  for (size_t i = 0; i < graph_.outputs.size(); ++i) {
    const int t = graph_.outputs[i];
    if (!available[static_cast<size_t>(t)]) {
      return InvalidArgumentError("subgraph " + std::to_string(sg_index_) + ": output " +
                                  std::to_string(i) + " (" + TensorLabel(t) +
                                  ") is never computed");
    }
  }

  return std::move(graph_);
}

// Each STABLEHLO_SCATTER's update subgraph must be the plain assignment
// (no nodes, its output its input 1, the update): index_copy's and
// index_put's. LiteRT also runs stablehlo ADD, MUL, MAX and MIN there.
Status Reader::ResolveScatterUpdates(const std::vector<Graph>& graphs) {
  for (const Graph& g : graphs) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.op != OpType::kStablehloScatter) continue;
      const auto& a = n.attrs<ScatterAttributes>();
      if (a.update_subgraph < 0 || static_cast<size_t>(a.update_subgraph) >= graphs.size()) {
        return InvalidArgumentError(g.NodeLabel(i) + ": update subgraph " + std::to_string(a.update_subgraph) +
                                    " is out of range, the model has " + std::to_string(graphs.size()));
      }
      const Graph& u = graphs[static_cast<size_t>(a.update_subgraph)];
      if (u.inputs.size() != 2 || u.outputs.size() != 1 || !u.nodes.empty() || u.outputs[0] != u.inputs[1]) {
        return UnimplementedError(g.NodeLabel(i) + ": the update computation " + u.SubgraphLabel() +
                                  " is not the plain assignment (index_copy, index_put), the one form "
                                  "gldelegate runs");
      }
    }
  }
  return OkStatus();
}

// A signature over this subgraph must name tensors it has (each
// signature may be run: Model's signature graphs). Their names
// stay a mapping of their own (TfliteLoadInfo::signatures: the signature
// runners' names); the tensors keep the file's names, as LiteRT's
// get_input_details gives them ("serving_default_image:0").
Status Reader::CheckSignatureTensors(const Graph& graph) const {
  const size_t num_tensors = graph.tensors.size();
  const auto* sigs = model_->signature_defs();
  if (sigs == nullptr) return OkStatus();
  for (flatbuffers::uoffset_t s = 0; s < sigs->size(); ++s) {
    const tflite::SignatureDef* sig = sigs->Get(s);
    if (static_cast<int>(sig->subgraph_index()) != graph.subgraph_index) continue;
    for (const auto* maps : {sig->inputs(), sig->outputs()}) {
      if (maps == nullptr) continue;
      for (const tflite::TensorMap* map : *maps) {
        if (map->tensor_index() < num_tensors) continue;
        return InvalidArgumentError("signature def " + std::to_string(s) + " ('" + Quote(sig->signature_key()) +
                                    "'): " + (maps == sig->inputs() ? "input" : "output") + " '" +
                                    Quote(map->name()) + "' refers to tensor " + std::to_string(map->tensor_index()) +
                                    ", the subgraph has " + std::to_string(num_tensors) + " tensors");
      }
    }
  }
  return OkStatus();
}

}  // namespace

bool TfliteConstantDecodesToFloat(const Tensor& t) {
  if (t.type == DataType::kFloat16) return true;
  // int64: the biases of 16-bit-activation (int16x8) models.
  const bool quantizable = t.type == DataType::kInt8 || t.type == DataType::kUInt8 ||
                           t.type == DataType::kInt16 || t.type == DataType::kInt32 ||
                           t.type == DataType::kInt64;
  return quantizable && !t.quant.empty();
}

void DecodeTfliteConstant(const uint8_t* data, size_t bytes, int64_t stored, Tensor& t, float* f) {
  if (t.type == DataType::kFloat16) {
    // A buffer inside the flatbuffer may sit at an odd address: convert from
    // an aligned copy then.
    std::vector<uint16_t> copy;
    const uint16_t* halves = reinterpret_cast<const uint16_t*>(data);
    if (reinterpret_cast<uintptr_t>(data) % alignof(uint16_t) != 0) {
      copy.resize(static_cast<size_t>(stored));
      std::memcpy(copy.data(), data, bytes);
      halves = copy.data();
    }
    HalfToFloatArray(halves, f, stored);
  } else {
    const QuantizationParams& q = t.quant;
    AffineQuantization affine;
    affine.scale = q.scale.data();
    affine.zero_point = q.zero_point.empty() ? nullptr : q.zero_point.data();
    if (q.scale.size() > 1) {  // per channel (never sparse: CheckConstant)
      affine.channels = static_cast<int64_t>(q.scale.size());
      for (size_t d = static_cast<size_t>(q.quantized_dimension) + 1; d < t.shape.size(); ++d) {
        affine.inner *= t.shape[d];
      }
      if (affine.inner == 0) affine.inner = 1;  // no elements at all
    }
    switch (t.type) {
      case DataType::kInt8: DequantizeAffine<int8_t>(data, 0, stored, affine, f); break;
      case DataType::kUInt8: DequantizeAffine<uint8_t>(data, 0, stored, affine, f); break;
      case DataType::kInt16: DequantizeAffine<int16_t>(data, 0, stored, affine, f); break;
      case DataType::kInt32: DequantizeAffine<int32_t>(data, 0, stored, affine, f); break;
      case DataType::kInt64: DequantizeAffine<int64_t>(data, 0, stored, affine, f); break;
      default: break;
    }
  }
  // A quantized constant keeps its quantization, naming the grid its values
  // were stored on (storage_type the file's type): the CPU's integer kernels
  // take the stored integers back from it (cpu_kernels/ops/integer_kernels.h).
  if (t.type != DataType::kFloat16) {
    t.quant.storage_type = t.type;
  } else {
    t.quant = QuantizationParams{};
  }
  t.type = DataType::kFloat32;
}

StatusOr<Graph> ReadTfliteModel(const uint8_t* data, size_t size, TfliteLoadInfo* info,
                                const TfliteReaderLimits& limits) {
  if (data == nullptr && size != 0) return InvalidArgumentError("model data is null");
  // Flatbuffer accessors read scalars in place, and the verifier insists on
  // their natural alignment, so misaligned input is copied first.
  std::unique_ptr<uint64_t[]> aligned;
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0 && size > 0) {
    aligned.reset(new uint64_t[(size + 7) / 8 + 1]);
    std::memcpy(aligned.get(), data, size);
    data = reinterpret_cast<const uint8_t*>(aligned.get());
  }
  Reader reader(data, size, limits);
  return reader.Read(info);
}

}  // namespace gld
