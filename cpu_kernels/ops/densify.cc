// DENSIFY and the sparse-format decoder behind it.
//
// Format (TFLite SparsityParameters): the dense shape has rank n; k of its
// dimensions may be split into blocks (block_map[j] names the dense dimension
// of block dimension n + j). The stored tensor has n + k levels visited in
// traversal_order; dim_metadata[l] describes level l: DENSE (every index
// 0..dense_size-1) or SPARSE_CSR (for the position p reached through the
// levels above, indices array_indices[array_segments[p] ..
// array_segments[p + 1])). Values are stored in visiting order.
#include "cpu_kernels/ops/densify.h"

#include <cstring>
#include <string>

#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {

constexpr size_t kMaxLevels = 16;

struct Decoder {
  const Tensor* tensor = nullptr;
  const SparsityParams* sp = nullptr;
  std::vector<int64_t> level_dim;    // dense dimension each level indexes (n + j for blocks)
  std::vector<int64_t> level_size;   // extent of each level
  std::vector<int64_t> block_size;   // per dense dimension (1 if not blocked)
  std::vector<int64_t> block_level_of_dim;  // dense dim -> block dimension index, -1
  std::vector<int64_t> level_stride;  // dense elements one step of each level moves
  size_t es = 0;
  int64_t num_values = 0;
  int64_t next_value = 0;
  const uint8_t* src = nullptr;
  uint8_t* dst = nullptr;

  Status Error(const std::string& m) const {
    return InvalidArgumentError("sparse tensor '" + tensor->name + "': " + m);
  }

  // Reserves the next `count` stored values; the error when the metadata
  // addresses more values than are stored.
  Status Take(int64_t count, int64_t* first) {
    if (count > num_values - next_value) {
      return Error("metadata addresses more than the " + std::to_string(num_values) + " stored values");
    }
    *first = next_value;
    next_value += count;
    return OkStatus();
  }

  // Copies stored value `v` to dense element `flat`.
  template <size_t kEs>
  void CopyValue(int64_t v, int64_t flat) const {
    std::memcpy(dst + static_cast<size_t>(flat) * kEs, src + static_cast<size_t>(v) * kEs, kEs);
  }
  void CopyValue(int64_t v, int64_t flat) const {
    switch (es) {
      case 1: CopyValue<1>(v, flat); break;
      case 2: CopyValue<2>(v, flat); break;
      case 4: CopyValue<4>(v, flat); break;
      case 8: CopyValue<8>(v, flat); break;
      default: std::memcpy(dst + static_cast<size_t>(flat) * es, src + static_cast<size_t>(v) * es, es); break;
    }
  }

  // The innermost level copies values in runs, not one call each: this
  // loop is most of the time a sparse model takes to load.
  Status EmitDense(int64_t size, int64_t stride, int64_t flat) {
    int64_t v = 0;
    GLD_RETURN_IF_ERROR(Take(size, &v));
    if (stride == 1) {
      std::memcpy(dst + static_cast<size_t>(flat) * es, src + static_cast<size_t>(v) * es, static_cast<size_t>(size) * es);
    } else {
      for (int64_t i = 0; i < size; ++i) CopyValue(v + i, flat + i * stride);
    }
    return OkStatus();
  }

  // Visits level `level` at position `prev` of the level above; `flat` is
  // the dense offset the levels above add up to (each level adds its index
  // times its stride).
  Status Visit(size_t level, int64_t prev, int64_t flat) {
    const bool last = level + 1 == level_size.size();
    const int64_t stride = level_stride[level];
    const SparseDimension& md = sp->dim_metadata[level];
    const int64_t size = level_size[level];
    if (!md.sparse_csr) {
      if (last) return EmitDense(size, stride, flat);
      for (int64_t i = 0; i < size; ++i) {
        GLD_RETURN_IF_ERROR(Visit(level + 1, prev * size + i, flat + i * stride));
      }
      return OkStatus();
    }
    const auto& seg = md.array_segments;
    const auto& idx = md.array_indices;
    if (prev < 0 || static_cast<size_t>(prev) + 1 >= seg.size()) {
      return Error("level " + std::to_string(level) + " has " + std::to_string(seg.size()) +
                   " segments, position " + std::to_string(prev) + " needs more");
    }
    const int64_t b = seg[static_cast<size_t>(prev)];
    const int64_t e = seg[static_cast<size_t>(prev) + 1];
    if (b < 0 || e < b || static_cast<size_t>(e) > idx.size()) {
      return Error("level " + std::to_string(level) + " segment [" + std::to_string(b) + ", " + std::to_string(e) +
                   ") is invalid for " + std::to_string(idx.size()) + " indices");
    }
    auto out_of_range = [&](int64_t i) {
      return Error("level " + std::to_string(level) + " index " + std::to_string(i) + " out of range [0, " +
                   std::to_string(size) + ")");
    };
    if (last) {
      int64_t v = 0;
      GLD_RETURN_IF_ERROR(Take(e - b, &v));
      for (int64_t p = b; p < e; ++p, ++v) {
        const int64_t i = idx[static_cast<size_t>(p)];
        if (i < 0 || i >= size) return out_of_range(i);
        CopyValue(v, flat + i * stride);
      }
      return OkStatus();
    }
    for (int64_t p = b; p < e; ++p) {
      const int64_t i = idx[static_cast<size_t>(p)];
      if (i < 0 || i >= size) return out_of_range(i);
      GLD_RETURN_IF_ERROR(Visit(level + 1, p, flat + i * stride));
    }
    return OkStatus();
  }
};

}  // namespace

Status DensifyTensor(const Tensor& sparse, std::vector<uint8_t>* dense_bytes) {
  Decoder dec;
  dec.tensor = &sparse;
  if (!sparse.sparsity.has_value()) return dec.Error("has no sparsity parameters");
  const SparsityParams& sp = *sparse.sparsity;
  dec.sp = &sp;
  dec.es = DataTypeSize(sparse.type);
  if (dec.es == 0) return dec.Error("unknown element type");
  if (!ShapeIsValid(sparse.shape, int64_t{1} << 31)) {
    return dec.Error("dense shape " + ShapeToString(sparse.shape) + " is invalid or too large");
  }
  const size_t n = sparse.shape.size();
  const size_t k = sp.block_map.size();
  const size_t levels = n + k;
  if (levels > kMaxLevels || sp.traversal_order.size() != levels || sp.dim_metadata.size() != levels) {
    return dec.Error("traversal_order (" + std::to_string(sp.traversal_order.size()) + ") and dim_metadata (" +
                     std::to_string(sp.dim_metadata.size()) + ") must both have rank + blocks = " +
                     std::to_string(levels) + " entries (at most " + std::to_string(kMaxLevels) + ")");
  }
  std::vector<bool> seen(levels, false);
  for (int32_t t : sp.traversal_order) {
    if (t < 0 || static_cast<size_t>(t) >= levels || seen[static_cast<size_t>(t)]) {
      return dec.Error("traversal_order is not a permutation of 0.." + std::to_string(levels - 1));
    }
    seen[static_cast<size_t>(t)] = true;
  }
  dec.block_size.assign(n, 1);
  dec.block_level_of_dim.assign(n, -1);
  for (size_t j = 0; j < k; ++j) {
    const int32_t d = sp.block_map[j];
    if (d < 0 || static_cast<size_t>(d) >= n || dec.block_level_of_dim[static_cast<size_t>(d)] >= 0) {
      return dec.Error("block_map entry " + std::to_string(d) + " is out of range or repeated");
    }
    dec.block_level_of_dim[static_cast<size_t>(d)] = static_cast<int64_t>(j);
  }
  // Block sizes come from the DENSE level that traverses each block dimension.
  for (size_t l = 0; l < levels; ++l) {
    const size_t t = static_cast<size_t>(sp.traversal_order[l]);
    if (t >= n) {
      const SparseDimension& md = sp.dim_metadata[l];
      if (md.sparse_csr || md.dense_size <= 0) {
        return dec.Error("block dimension at level " + std::to_string(l) + " must be DENSE with a positive size");
      }
      const size_t d = static_cast<size_t>(sp.block_map[t - n]);
      dec.block_size[d] = md.dense_size;
    }
  }
  for (size_t d = 0; d < n; ++d) {
    if (dec.block_size[d] > 0 && sparse.shape[d] % dec.block_size[d] != 0) {
      return dec.Error("dimension " + std::to_string(d) + " of size " + std::to_string(sparse.shape[d]) +
                       " is not a multiple of its block size " + std::to_string(dec.block_size[d]));
    }
  }
  for (size_t l = 0; l < levels; ++l) {
    const size_t t = static_cast<size_t>(sp.traversal_order[l]);
    const int64_t size = t < n ? sparse.shape[t] / dec.block_size[t] : dec.block_size[static_cast<size_t>(sp.block_map[t - n])];
    const SparseDimension& md = sp.dim_metadata[l];
    if (!md.sparse_csr && md.dense_size != size) {
      return dec.Error("DENSE level " + std::to_string(l) + " has dense_size " + std::to_string(md.dense_size) +
                       ", expected " + std::to_string(size));
    }
    dec.level_dim.push_back(static_cast<int64_t>(t));
    dec.level_size.push_back(size);
  }
  // A level over dense dimension d moves block_size[d] rows of d; a level
  // over d's block dimension moves one.
  const std::vector<int64_t> strides = Strides(sparse.shape);
  for (size_t l = 0; l < levels; ++l) {
    const size_t t = static_cast<size_t>(dec.level_dim[l]);
    dec.level_stride.push_back(t < n ? strides[t] * dec.block_size[t]
                                     : strides[static_cast<size_t>(sp.block_map[t - n])]);
  }
  dec.num_values = static_cast<int64_t>(sparse.data.size() / dec.es);
  dec.src = sparse.data.data();
  const int64_t total = NumElements(sparse.shape);
  dense_bytes->assign(static_cast<size_t>(total) * dec.es, 0);
  dec.dst = dense_bytes->data();
  if (total == 0) return OkStatus();
  GLD_RETURN_IF_ERROR(levels == 0 ? dec.EmitDense(1, 1, 0) : dec.Visit(0, 0, 0));
  return OkStatus();
}

Status RunDensify(KernelContext& ctx) {
  // The input buffer holds compressed values, not its (dense) shape, so only
  // the output is checked against its shape.
  if (ctx.inputs.size() != 1 || ctx.outputs.size() != 1 || ctx.outputs[0] == nullptr) {
    return KernelError(ctx, "expected 1 input and 1 output");
  }
  {
    KernelContext out_only = ctx;
    out_only.inputs.clear();
    GLD_RETURN_IF_ERROR(CheckIo(out_only, 0, 0, 1));
  }
  const Tensor* t = InputTensor(ctx, 0);
  if (t == nullptr || !t->is_constant || !t->sparsity.has_value()) {
    return KernelError(ctx, "input must be a constant sparse tensor");
  }
  TensorData& out = *ctx.outputs[0];
  if (out.type != t->type || out.shape != t->shape) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " " + DataTypeName(out.type) +
                                " does not match the dense shape " + ShapeToString(t->shape) + " " +
                                DataTypeName(t->type));
  }
  std::vector<uint8_t> dense;
  Status s = DensifyTensor(*t, &dense);
  if (!s.ok()) return s.WithContext(KernelLabel(ctx));
  if (!dense.empty()) std::memcpy(out.data, dense.data(), dense.size());
  return OkStatus();
}

}  // namespace gld::cpu
