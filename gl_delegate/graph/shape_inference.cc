#include "graph/shape_inference.h"

#include "graph/custom_node.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

namespace gld {

// ---- Shared rules -----------------------------------------------------------

int32_t ConvOutputSize(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  if (padding == Padding::kSame) return static_cast<int32_t>((static_cast<int64_t>(in) + stride - 1) / stride);
  const int64_t span = static_cast<int64_t>(in) - eff;
  if (span < 0) return -1;
  return static_cast<int32_t>(span / stride + 1);
}

PaddingValues ComputePadding(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                             int32_t out) {
  PaddingValues p;
  if (padding != Padding::kSame) return p;
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>(0, (static_cast<int64_t>(out) - 1) * stride + eff - in);
  p.before = static_cast<int32_t>(total / 2);
  p.after = static_cast<int32_t>(total - total / 2);
  return p;
}

int32_t ConvPaddingBefore(Padding padding, int32_t in, int32_t extra_before, int32_t extra_after, int32_t filter,
                          int32_t stride, int32_t dilation, int32_t out) {
  return extra_before + ComputePadding(padding, in + extra_before + extra_after, filter, stride, dilation, out).before;
}

TransposeConvBiasSize MediaPipeTransposeConvSize(Padding padding, int32_t in, int32_t filter, int32_t stride) {
  TransposeConvBiasSize s;
  int64_t total = 0;
  if (padding == Padding::kSame && stride > 0 && in > 0) {
    total = std::max<int64_t>(0, static_cast<int64_t>(filter) - (static_cast<int64_t>(in) - 1) % stride - 1);
  }
  s.out = static_cast<int32_t>(static_cast<int64_t>(stride) * (static_cast<int64_t>(in) - 1) + filter - total);
  s.pad_before = static_cast<int32_t>(total / 2);
  return s;
}

bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape r(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      r[i] = da;
    } else if (da == 1) {
      r[i] = db;
    } else {
      return false;
    }
  }
  *out = std::move(r);
  return true;
}

bool NormalizeAxis(int64_t axis, int64_t rank, int32_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = static_cast<int32_t>(axis < 0 ? axis + rank : axis);
  return true;
}

bool ReadConstantInts(const Tensor& tensor, std::vector<int64_t>* out) {
  if (!tensor.is_constant || !ShapeIsValid(tensor.shape)) return false;
  const int64_t n = tensor.num_elements();
  out->clear();
  if (tensor.type == DataType::kInt32) {
    if (tensor.data.size() < static_cast<size_t>(n) * 4) return false;
    for (int64_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, tensor.data.data() + i * 4, 4);
      out->push_back(v);
    }
    return true;
  }
  if (tensor.type == DataType::kInt64) {
    if (tensor.data.size() < static_cast<size_t>(n) * 8) return false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v;
      std::memcpy(&v, tensor.data.data() + i * 8, 8);
      out->push_back(v);
    }
    return true;
  }
  return false;
}

bool ComputeStridedSlice(const Shape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                         const std::vector<int64_t>& strides, const StridedSliceAttributes& attrs,
                         StridedSliceSpec* spec, std::string* error) {
  const size_t spec_len = begin.size();
  const size_t rank = input.size();
  if (end.size() != spec_len || strides.size() != spec_len) {
    *error = "begin, end and strides must have the same length, got " + std::to_string(begin.size()) + ", " +
             std::to_string(end.size()) + ", " + std::to_string(strides.size());
    return false;
  }
  if (spec_len > 31) {
    *error = "too many slice entries (" + std::to_string(spec_len) + ")";
    return false;
  }
  auto bit = [](int32_t mask, size_t i) { return ((static_cast<uint32_t>(mask) >> i) & 1u) != 0; };
  size_t ellipses = 0, new_axes = 0;
  for (size_t i = 0; i < spec_len; ++i) {
    if (bit(attrs.ellipsis_mask, i)) {
      ++ellipses;
    } else if (bit(attrs.new_axis_mask, i)) {
      ++new_axes;
    }
  }
  if (ellipses > 1) {
    *error = "more than one ellipsis in ellipsis_mask " + std::to_string(attrs.ellipsis_mask);
    return false;
  }
  // Entries other than the ellipsis each take one dimension of the input (or
  // a new axis); the ellipsis covers whatever input dimensions remain.
  const int64_t consumed = static_cast<int64_t>(spec_len) - static_cast<int64_t>(ellipses) - static_cast<int64_t>(new_axes);
  if (consumed > static_cast<int64_t>(rank)) {
    *error = "slice has " + std::to_string(consumed) + " entries for an input of rank " + std::to_string(rank);
    return false;
  }
  spec->start.assign(rank, 0);
  spec->stride.assign(rank, 1);
  spec->count.assign(rank, 0);
  spec->output_shape.clear();
  size_t dim = 0;
  auto full = [&](size_t d) {
    spec->start[d] = 0;
    spec->stride[d] = 1;
    spec->count[d] = input[d];
    spec->output_shape.push_back(input[d]);
  };
  for (size_t i = 0; i < spec_len; ++i) {
    if (bit(attrs.ellipsis_mask, i)) {
      const size_t cover = rank - static_cast<size_t>(consumed);
      for (size_t k = 0; k < cover; ++k) full(dim++);
      continue;
    }
    if (bit(attrs.new_axis_mask, i)) {
      spec->output_shape.push_back(1);
      continue;
    }
    const int64_t size = input[dim];
    const int64_t stride = strides[i];
    if (stride == 0) {
      *error = "stride " + std::to_string(i) + " is zero";
      return false;
    }
    int64_t start = begin[i];
    if (start < 0) start += size;
    start = stride > 0 ? std::clamp<int64_t>(start, 0, size) : std::clamp<int64_t>(start, -1, size - 1);
    if (bit(attrs.begin_mask, i)) start = stride > 0 ? 0 : size - 1;
    if (bit(attrs.shrink_axis_mask, i)) {
      if (start < 0 || start >= size) {
        *error = "index " + std::to_string(begin[i]) + " out of range for dimension " + std::to_string(dim) +
                 " of size " + std::to_string(size);
        return false;
      }
      spec->start[dim] = start;
      spec->stride[dim] = 1;
      spec->count[dim] = 1;
      ++dim;
      continue;
    }
    int64_t stop = end[i];
    if (attrs.offset) stop += start;
    if (stop < 0) stop += size;
    stop = stride > 0 ? std::clamp<int64_t>(stop, 0, size) : std::clamp<int64_t>(stop, -1, size - 1);
    if (bit(attrs.end_mask, i)) stop = stride > 0 ? size : -1;
    int64_t count = 0;
    if (stride > 0 && stop > start) count = (stop - start + stride - 1) / stride;
    if (stride < 0 && stop < start) count = (start - stop + (-stride) - 1) / (-stride);
    spec->start[dim] = start;
    spec->stride[dim] = stride;
    spec->count[dim] = count;
    spec->output_shape.push_back(static_cast<int32_t>(count));
    ++dim;
  }
  while (dim < rank) full(dim++);
  return true;
}

// ---- Inference --------------------------------------------------------------

namespace {

constexpr int64_t kMaxDim = int64_t{1} << 30;
// Largest tensor shape inference accepts (as the .tflite reader does).
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

// Values of small non-constant integer tensors that shape inference could
// compute (SHAPE outputs and small integer ops on known values), as raw bytes
// in the tensor's type. They let shapes flow through SHAPE -> ... -> RESHAPE.
using KnownValues = std::map<int, std::vector<uint8_t>>;

bool DecodeInts(const std::vector<uint8_t>& bytes, DataType type, std::vector<int64_t>* out) {
  out->clear();
  if (type == DataType::kInt32) {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      int32_t v;
      std::memcpy(&v, bytes.data() + i, 4);
      out->push_back(v);
    }
    return true;
  }
  if (type == DataType::kInt64) {
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      int64_t v;
      std::memcpy(&v, bytes.data() + i, 8);
      out->push_back(v);
    }
    return true;
  }
  return false;
}

std::string Join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

bool ShapeIsKnown(const Shape& s) { return ShapeIsValid(s); }

class NodeInference {
 public:
  NodeInference(Graph& g, size_t index, KnownValues* known)
      : g_(g), index_(index), node_(g.nodes[index]), known_(known) {}

  // Applies the op's rule, then checks every output's size.
  Status Run() {
    GLD_RETURN_IF_ERROR(RunRule());
    if (!type_conflict_.empty()) return Err(type_conflict_);
    for (size_t i = 0; i < node_.outputs.size(); ++i) {
      const Tensor& t = Out(i);
      if (!ShapeIsValid(t.shape, kMaxElements)) {
        return Err("output " + std::to_string(i) + " '" + t.name + "' would have shape " + ShapeToString(t.shape) +
                   ", more than " + std::to_string(kMaxElements) + " elements or invalid");
      }
    }
    return OkStatus();
  }

 private:
  Status RunRule();
  // -- access and messages
  Status Err(const std::string& m) const { return InvalidArgumentError(g_.NodeLabel(index_) + ": " + m); }
  Status Unimpl(const std::string& m) const { return UnimplementedError(g_.NodeLabel(index_) + ": " + m); }
  size_t NumInputs() const { return node_.inputs.size(); }
  bool Has(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
  const Tensor& In(size_t i) const { return g_.tensors[static_cast<size_t>(node_.inputs[i])]; }
  Tensor& Out(size_t i) { return g_.tensors[static_cast<size_t>(node_.outputs[i])]; }
  const Shape& InShape(size_t i) const { return In(i).shape; }
  std::string Name(size_t i) const { return "input " + std::to_string(i) + " '" + In(i).name + "'"; }

  Status Inputs(size_t min, size_t max) const {
    if (NumInputs() < min || NumInputs() > max) {
      return Err("expected " + std::to_string(min) + (max != min ? ".." + std::to_string(max) : "") +
                 " inputs, got " + std::to_string(NumInputs()));
    }
    for (size_t i = 0; i < min; ++i) {
      if (!Has(i)) return Err("required input " + std::to_string(i) + " is missing");
    }
    return OkStatus();
  }
  Status Outputs(size_t n) const {
    if (node_.outputs.size() != n) {
      return Err("expected " + std::to_string(n) + " outputs, got " + std::to_string(node_.outputs.size()));
    }
    return OkStatus();
  }
  Status Rank(size_t i, size_t rank) const {
    if (InShape(i).size() != rank) {
      return Err(Name(i) + " must be " + std::to_string(rank) + "-D, got " + ShapeToString(InShape(i)));
    }
    return OkStatus();
  }
  // Kernels index a window's input as out * stride + tap * dilation in
  // int32; bounding the farthest position keeps that exact.
  Status WindowReach(const char* axis, int32_t out, int32_t filter, int32_t stride, int32_t dilation) const {
    const int64_t reach = (static_cast<int64_t>(out) - 1) * stride + (static_cast<int64_t>(filter) - 1) * dilation + 1;
    if (reach <= kMaxDim) return OkStatus();
    return Err(std::string(axis) + " window (filter " + std::to_string(filter) + ", stride " + std::to_string(stride) +
               ", dilation " + std::to_string(dilation) + ") reaches " + std::to_string(reach) +
               " input positions, more than 2^30");
  }
  template <typename A>
  Status Attrs(const A** a) const {
    *a = std::get_if<A>(&node_.attributes);
    if (*a == nullptr) return Err("missing or wrong attributes");
    return OkStatus();
  }
  // A type a file declares for an output must be the one the op produces:
  // kernels write what they produce, and a caller reading the declared type
  // would read other bytes.
  void Set(size_t i, Shape shape, DataType type) {
    Tensor& t = Out(i);
    if (t.type_declared && t.type != type && type_conflict_.empty()) {
      type_conflict_ = "output " + std::to_string(i) + " '" + t.name + "' is declared " + DataTypeName(t.type) +
                       " in the model, but " + NodeOpName(node_) + " produces " + DataTypeName(type) + " here";
    }
    t.shape = std::move(shape);
    t.type = type;
  }
  // Type of output i as stored in the file, or `fallback` when unknown.
  DataType StoredType(size_t i, DataType fallback) {
    return Out(i).type == DataType::kUnknown ? fallback : Out(i).type;
  }

  // Values of integer input i: constants, or values computed earlier (SHAPE
  // and small integer ops on known values).
  bool Values(size_t i, std::vector<int64_t>* v) const {
    if (!Has(i)) return false;
    const int t = node_.inputs[i];
    auto it = known_->find(t);
    if (it != known_->end()) return DecodeInts(it->second, In(i).type, v);
    return ReadConstantInts(In(i), v);
  }
  // For shapes that depend on values we cannot know: keep the stored shape if
  // it is fully known, else Unimplemented.
  Status KeepStored(size_t i, DataType type, const std::string& why) {
    if (!ShapeIsKnown(Out(i).shape)) {
      return Unimpl("output shape depends on the values of " + why +
                    ", which are not constant, and the stored shape " + ShapeToString(Out(i).shape) +
                    " is not fully known");
    }
    Out(i).type = type;
    return OkStatus();
  }
  Status Axis(int64_t axis, int64_t rank, int32_t* out, const char* what = "axis") const {
    if (!NormalizeAxis(axis, rank, out)) {
      return Err(std::string(what) + " " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    }
    return OkStatus();
  }
  Status CheckShape(const Shape& s, const std::string& what) const {
    if (!ShapeIsValid(s, int64_t{1} << 40)) return Err(what + " " + ShapeToString(s) + " is invalid or too large");
    for (int32_t d : s) {
      if (d > kMaxDim) return Err(what + " " + ShapeToString(s) + " has a dimension above 2^30");
    }
    return OkStatus();
  }

  // -- shared by the rules
  Status SameAsInput0(size_t min_in, size_t max_in, DataType type);
  Status Broadcast(DataType out_type, bool same_types);
  Status SplitInto(bool split_v);
  Status SpaceDepth(bool to_space);
  Status SelectBetween(bool v2);

 public:
  // -- the rules the op table (op_list.inc) names, by family
  // elementwise
  Status Unary() { return SameAsInput0(1, 1, DataType::kUnknown); }
  Status LogicalNot() { return SameAsInput0(1, 1, DataType::kBool); }
  Status UnaryWithAxisInput() { return SameAsInput0(2, 2, DataType::kUnknown); }
  Status LocalResponseNormalization();
  Status Quantize();
  Status Cast();
  Status Arithmetic() { return Broadcast(DataType::kUnknown, true); }
  Status Prelu() { return Broadcast(DataType::kUnknown, false); }
  Status Comparison() { return Broadcast(DataType::kBool, true); }
  Status AddN();
  Status Select() { return SelectBetween(false); }
  Status SelectV2() { return SelectBetween(true); }
  // convolution, pooling, matrix products
  Status Conv2d();
  Status DepthwiseConv2d();
  Status TransposeConv();
  Status TransposeConvBias();
  Status Pool();
  Status FullyConnected();
  Status BatchMatMul();
  Status Concatenation();
  Status Pack();
  Status Unpack();
  // shape changes
  Status Split() { return SplitInto(false); }
  Status SplitV() { return SplitInto(true); }
  Status Reshape();
  Status Squeeze();
  Status ExpandDims();
  Status Reduce();
  Status ArgMinMax();
  Status Resize();
  Status DepthToSpace() { return SpaceDepth(true); }
  Status SpaceToDepth() { return SpaceDepth(false); }
  Status Pad();
  Status Dequantize();
  Status Transpose();
  Status Tile();
  Status Slice();
  Status StridedSlice();
  Status Gather();
  Status GatherNd();
  Status OneHot();
  Status Fill();
  Status BroadcastTo();
  Status SpaceToBatch();
  Status BatchToSpace();
  Status ShapeOp();
  // MediaPipe
  Status MaxUnpooling2D();
  Status TransformTensorBilinear();
  Status TransformLandmarks();
  Status Landmarks2TransformMatrix();
  // an app's custom op: its registered shape function
  Status Custom();

 private:

  Graph& g_;
  size_t index_;
  const Node& node_;
  KnownValues* known_;
  std::string type_conflict_;  // the first output whose declared type differs
};

Status NodeInference::SameAsInput0(size_t min_in, size_t max_in, DataType type) {
  GLD_RETURN_IF_ERROR(Inputs(min_in, max_in));
  GLD_RETURN_IF_ERROR(Outputs(1));
  Set(0, InShape(0), type == DataType::kUnknown ? In(0).type : type);
  return OkStatus();
}

Status NodeInference::Broadcast(DataType out_type, bool same_types) {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  if (same_types && In(0).type != In(1).type) {
    return Err(std::string("input types differ: ") + DataTypeName(In(0).type) + " and " + DataTypeName(In(1).type));
  }
  Shape out;
  if (!BroadcastShapes(InShape(0), InShape(1), &out)) {
    return Err("shapes " + ShapeToString(InShape(0)) + " and " + ShapeToString(InShape(1)) + " do not broadcast");
  }
  Set(0, out, out_type == DataType::kUnknown ? In(0).type : out_type);
  return OkStatus();
}

Status NodeInference::Conv2d() {
  GLD_RETURN_IF_ERROR(Inputs(2, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Conv2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  GLD_RETURN_IF_ERROR(Rank(1, 4));
  const Shape& in = InShape(0);
  const Shape& f = InShape(1);
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->dilation_h <= 0 || a->dilation_w <= 0) {
    return Err("strides (" + std::to_string(a->stride_h) + ", " + std::to_string(a->stride_w) + ") and dilations (" +
               std::to_string(a->dilation_h) + ", " + std::to_string(a->dilation_w) + ") must be positive");
  }
  if (f[3] <= 0 || in[3] % f[3] != 0) {
    return Err("input channels " + std::to_string(in[3]) + " do not match filter " + ShapeToString(f));
  }
  const int32_t groups = in[3] / f[3];
  if (groups > 0 && f[0] % groups != 0) {
    return Err("output channels " + std::to_string(f[0]) + " not divisible by " + std::to_string(groups) + " groups");
  }
  if (Has(2) && In(2).num_elements() != f[0]) {
    return Err("bias " + ShapeToString(InShape(2)) + " does not match " + std::to_string(f[0]) + " output channels");
  }
  const int32_t oh = ConvOutputSize(a->padding, in[1] + a->explicit_padding.top + a->explicit_padding.bottom, f[1],
                                    a->stride_h, a->dilation_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2] + a->explicit_padding.left + a->explicit_padding.right, f[2],
                                    a->stride_w, a->dilation_w);
  if (oh < 0 || ow < 0) {
    return Err("VALID filter " + ShapeToString(f) + " with dilation (" + std::to_string(a->dilation_h) + ", " +
               std::to_string(a->dilation_w) + ") is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(WindowReach("height", oh, f[1], a->stride_h, a->dilation_h));
  GLD_RETURN_IF_ERROR(WindowReach("width", ow, f[2], a->stride_w, a->dilation_w));
  Set(0, {in[0], oh, ow, f[0]}, In(0).type);
  return OkStatus();
}

Status NodeInference::DepthwiseConv2d() {
  GLD_RETURN_IF_ERROR(Inputs(2, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const DepthwiseConv2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  GLD_RETURN_IF_ERROR(Rank(1, 4));
  const Shape& in = InShape(0);
  const Shape& f = InShape(1);
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->dilation_h <= 0 || a->dilation_w <= 0) {
    return Err("strides (" + std::to_string(a->stride_h) + ", " + std::to_string(a->stride_w) + ") and dilations (" +
               std::to_string(a->dilation_h) + ", " + std::to_string(a->dilation_w) + ") must be positive");
  }
  if (f[0] != 1 || in[3] <= 0 || f[3] % in[3] != 0) {
    return Err("filter " + ShapeToString(f) + " must be [1, KH, KW, C * multiplier] for input channels " +
               std::to_string(in[3]));
  }
  // The multiplier is taken from the shapes (filter channels / input
  // channels); the redundant depth_multiplier option is not checked, so a
  // model whose converter wrote a stale value still runs.
  if (Has(2) && In(2).num_elements() != f[3]) {
    return Err("bias " + ShapeToString(InShape(2)) + " does not match " + std::to_string(f[3]) + " output channels");
  }
  const int32_t oh = ConvOutputSize(a->padding, in[1] + a->explicit_padding.top + a->explicit_padding.bottom, f[1],
                                    a->stride_h, a->dilation_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2] + a->explicit_padding.left + a->explicit_padding.right, f[2],
                                    a->stride_w, a->dilation_w);
  if (oh < 0 || ow < 0) {
    return Err("VALID filter " + ShapeToString(f) + " is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(WindowReach("height", oh, f[1], a->stride_h, a->dilation_h));
  GLD_RETURN_IF_ERROR(WindowReach("width", ow, f[2], a->stride_w, a->dilation_w));
  Set(0, {in[0], oh, ow, f[3]}, In(0).type);
  return OkStatus();
}

Status NodeInference::TransposeConv() {
  GLD_RETURN_IF_ERROR(Inputs(3, 4));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(1, 4));
  GLD_RETURN_IF_ERROR(Rank(2, 4));
  const Shape& w = InShape(1);
  const Shape& in = InShape(2);
  if (a->stride_h <= 0 || a->stride_w <= 0) return Err("strides must be positive");
  if (w[3] != in[3]) {
    return Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (Has(3) && In(3).num_elements() != w[0]) {
    return Err("bias " + ShapeToString(InShape(3)) + " does not match " + std::to_string(w[0]) + " output channels");
  }
  std::vector<int64_t> os;
  if (!Values(0, &os)) return KeepStored(0, In(2).type, "output_shape (input 0)");
  if (os.size() != 4 || os[0] != in[0] || os[3] != w[0] || os[1] <= 0 || os[2] <= 0 || os[1] > kMaxDim ||
      os[2] > kMaxDim) {
    return Err("output_shape " + Join(os) + " must be [" + std::to_string(in[0]) + ", H, W, " +
               std::to_string(w[0]) + "]");
  }
  Set(0, {static_cast<int32_t>(os[0]), static_cast<int32_t>(os[1]), static_cast<int32_t>(os[2]),
          static_cast<int32_t>(os[3])},
      In(2).type);
  return OkStatus();
}

Status NodeInference::TransposeConvBias() {
  GLD_RETURN_IF_ERROR(Inputs(2, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  GLD_RETURN_IF_ERROR(Rank(1, 4));
  const Shape& in = InShape(0);
  const Shape& w = InShape(1);
  if (a->stride_h <= 0 || a->stride_w <= 0) return Err("strides must be positive");
  if (w[3] != in[3]) {
    return Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (Has(2) && In(2).num_elements() != w[0]) {
    return Err("bias " + ShapeToString(InShape(2)) + " does not match " + std::to_string(w[0]) + " output channels");
  }
  if (in[1] <= 0 || in[2] <= 0) return Err("empty input " + ShapeToString(in));
  const int32_t oh = MediaPipeTransposeConvSize(a->padding, in[1], w[1], a->stride_h).out;
  const int32_t ow = MediaPipeTransposeConvSize(a->padding, in[2], w[2], a->stride_w).out;
  if (oh <= 0 || ow <= 0) return Err("empty output for input " + ShapeToString(in) + " and weights " + ShapeToString(w));
  Set(0, {in[0], oh, ow, w[0]}, In(0).type);
  return OkStatus();
}

Status NodeInference::Pool() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->filter_h <= 0 || a->filter_w <= 0) {
    return Err("filter (" + std::to_string(a->filter_h) + ", " + std::to_string(a->filter_w) + ") and strides (" +
               std::to_string(a->stride_h) + ", " + std::to_string(a->stride_w) + ") must be positive");
  }
  const Shape& in = InShape(0);
  const int32_t oh = ConvOutputSize(a->padding, in[1], a->filter_h, a->stride_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2], a->filter_w, a->stride_w);
  if (oh < 0 || ow < 0) {
    return Err("VALID filter (" + std::to_string(a->filter_h) + ", " + std::to_string(a->filter_w) +
               ") is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(WindowReach("height", oh, a->filter_h, a->stride_h, 1));
  GLD_RETURN_IF_ERROR(WindowReach("width", ow, a->filter_w, a->stride_w, 1));
  if (node_.op == OpType::kMaxPoolingWithArgmax2D) {
    GLD_RETURN_IF_ERROR(Outputs(2));
    Set(0, {in[0], oh, ow, in[3]}, In(0).type);
    Set(1, {in[0], oh, ow, in[3]}, StoredType(1, DataType::kFloat32));
    return OkStatus();
  }
  GLD_RETURN_IF_ERROR(Outputs(1));
  Set(0, {in[0], oh, ow, in[3]}, In(0).type);
  return OkStatus();
}

Status NodeInference::FullyConnected() {
  GLD_RETURN_IF_ERROR(Inputs(2, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const FullyConnectedAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(1, 2));
  const Shape& in = InShape(0);
  const Shape& w = InShape(1);
  const int64_t units = w[0], depth = w[1];
  if (depth <= 0 || In(0).num_elements() % depth != 0) {
    return Err("input " + ShapeToString(in) + " is not a whole number of rows of depth " + std::to_string(depth) +
               " (weights " + ShapeToString(w) + ")");
  }
  if (Has(2) && In(2).num_elements() != units) {
    return Err("bias " + ShapeToString(InShape(2)) + " does not match " + std::to_string(units) + " units");
  }
  if (a->keep_num_dims) {
    if (in.empty() || in.back() != depth) {
      return Err("keep_num_dims needs the input's last dimension (" + ShapeToString(in) + ") to equal depth " +
                 std::to_string(depth));
    }
    Shape out = in;
    out.back() = static_cast<int32_t>(units);
    Set(0, out, In(0).type);
  } else {
    Set(0, {static_cast<int32_t>(In(0).num_elements() / depth), static_cast<int32_t>(units)}, In(0).type);
  }
  return OkStatus();
}

Status NodeInference::BatchMatMul() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  bool adj_x = false, adj_y = false;
  if (const auto* a = std::get_if<BatchMatMulAttributes>(&node_.attributes)) {
    adj_x = a->adj_x;
    adj_y = a->adj_y;
  }
  const Shape& x = InShape(0);
  const Shape& y = InShape(1);
  if (x.size() < 2 || y.size() < 2) {
    return Err("inputs must have rank >= 2, got " + ShapeToString(x) + " and " + ShapeToString(y));
  }
  const int32_t m = adj_x ? x[x.size() - 1] : x[x.size() - 2];
  const int32_t kx = adj_x ? x[x.size() - 2] : x[x.size() - 1];
  const int32_t ky = adj_y ? y[y.size() - 1] : y[y.size() - 2];
  const int32_t n = adj_y ? y[y.size() - 2] : y[y.size() - 1];
  if (kx != ky) {
    return Err("inner dimensions differ: " + ShapeToString(x) + (adj_x ? " (adj_x)" : "") + " x " + ShapeToString(y) +
               (adj_y ? " (adj_y)" : ""));
  }
  Shape bx(x.begin(), x.end() - 2), by(y.begin(), y.end() - 2), batch;
  if (!BroadcastShapes(bx, by, &batch)) {
    return Err("batch dimensions of " + ShapeToString(x) + " and " + ShapeToString(y) + " do not broadcast");
  }
  batch.push_back(m);
  batch.push_back(n);
  Set(0, batch, In(0).type);
  return OkStatus();
}

Status NodeInference::Concatenation() {
  if (NumInputs() == 0) return Err("no inputs");
  GLD_RETURN_IF_ERROR(Inputs(NumInputs(), NumInputs()));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const ConcatenationAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  const Shape& s0 = InShape(0);
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(Axis(a->axis, static_cast<int64_t>(s0.size()), &axis));
  Shape out = s0;
  int64_t total = 0;
  for (size_t i = 0; i < NumInputs(); ++i) {
    const Shape& s = InShape(i);
    bool ok = s.size() == s0.size();
    for (size_t d = 0; ok && d < s.size(); ++d) ok = static_cast<int32_t>(d) == axis || s[d] == s0[d];
    if (!ok) {
      return Err(Name(i) + " " + ShapeToString(s) + " does not match input 0 " + ShapeToString(s0) +
                 " outside axis " + std::to_string(axis));
    }
    if (In(i).type != In(0).type) {
      return Err(Name(i) + " has type " + DataTypeName(In(i).type) + ", input 0 " + DataTypeName(In(0).type));
    }
    total += s[static_cast<size_t>(axis)];
  }
  if (total > kMaxDim) return Err("concatenated dimension too large");
  out[static_cast<size_t>(axis)] = static_cast<int32_t>(total);
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Pack() {
  if (NumInputs() == 0) return Err("no inputs");
  GLD_RETURN_IF_ERROR(Inputs(NumInputs(), NumInputs()));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const AxisAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  if (a->count > 0 && static_cast<size_t>(a->count) != NumInputs()) {
    return Err("values_count " + std::to_string(a->count) + " but " + std::to_string(NumInputs()) + " inputs");
  }
  const Shape& s0 = InShape(0);
  for (size_t i = 1; i < NumInputs(); ++i) {
    if (InShape(i) != s0 || In(i).type != In(0).type) {
      return Err(Name(i) + " " + ShapeToString(InShape(i)) + " differs from input 0 " + ShapeToString(s0));
    }
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(Axis(a->axis, static_cast<int64_t>(s0.size()) + 1, &axis));
  Shape out = s0;
  out.insert(out.begin() + axis, static_cast<int32_t>(NumInputs()));
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Unpack() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  const AxisAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  const Shape& s = InShape(0);
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(Axis(a->axis, static_cast<int64_t>(s.size()), &axis));
  const int32_t n = s[static_cast<size_t>(axis)];
  if (a->count > 0 && a->count != n) {
    return Err("num " + std::to_string(a->count) + " != dimension " + std::to_string(n) + " of " + ShapeToString(s));
  }
  GLD_RETURN_IF_ERROR(Outputs(static_cast<size_t>(n)));
  Shape out = s;
  out.erase(out.begin() + axis);
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) Set(i, out, In(0).type);
  return OkStatus();
}

Status NodeInference::SplitInto(bool split_v) {
  // SPLIT: (axis, input); SPLIT_V: (input, size_splits, axis).
  GLD_RETURN_IF_ERROR(Inputs(split_v ? 3 : 2, split_v ? 3 : 2));
  const size_t data = split_v ? 0 : 1;
  const size_t axis_in = split_v ? 2 : 0;
  const Shape& s = InShape(data);
  std::vector<int64_t> axis_v;
  if (!Values(axis_in, &axis_v) || axis_v.size() != 1) {
    if (node_.outputs.empty()) return Err("no outputs");
    for (size_t i = 0; i < node_.outputs.size(); ++i) GLD_RETURN_IF_ERROR(KeepStored(i, In(data).type, "axis"));
    return OkStatus();
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(Axis(axis_v[0], static_cast<int64_t>(s.size()), &axis));
  const size_t n = node_.outputs.size();
  if (n == 0) return Err("no outputs");
  const AxisAttributes* a = std::get_if<AxisAttributes>(&node_.attributes);
  if (a != nullptr && a->count > 0 && static_cast<size_t>(a->count) != n) {
    return Err("num_splits " + std::to_string(a->count) + " but " + std::to_string(n) + " outputs");
  }
  const int64_t dim = s[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (!split_v) {
    if (dim % static_cast<int64_t>(n) != 0) {
      return Err("dimension " + std::to_string(dim) + " of " + ShapeToString(s) + " does not split into " +
                 std::to_string(n) + " equal parts");
    }
    sizes.assign(n, dim / static_cast<int64_t>(n));
  } else {
    if (!Values(1, &sizes)) {
      for (size_t i = 0; i < n; ++i) GLD_RETURN_IF_ERROR(KeepStored(i, In(0).type, "size_splits"));
      return OkStatus();
    }
    if (sizes.size() != n) {
      return Err("size_splits has " + std::to_string(sizes.size()) + " values for " + std::to_string(n) + " outputs");
    }
    int64_t known = 0;
    int unknown = -1;
    for (size_t i = 0; i < n; ++i) {
      if (sizes[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (sizes[i] < 0) {
        return Err("size_splits " + Join(sizes) + " has an invalid entry");
      } else {
        known += sizes[i];
      }
    }
    if (unknown >= 0) {
      if (known > dim) return Err("size_splits " + Join(sizes) + " exceed dimension " + std::to_string(dim));
      sizes[static_cast<size_t>(unknown)] = dim - known;
    } else if (known != dim) {
      return Err("size_splits " + Join(sizes) + " do not sum to dimension " + std::to_string(dim));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Shape out = s;
    out[static_cast<size_t>(axis)] = static_cast<int32_t>(sizes[i]);
    Set(i, out, In(data).type);
  }
  return OkStatus();
}

Status NodeInference::Reshape() {
  GLD_RETURN_IF_ERROR(Inputs(1, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const int64_t count = In(0).num_elements();
  std::vector<int64_t> target;
  bool have = false;
  // TFLite uses the shape input when it is a 1-D tensor, else the option.
  if (Has(1) && InShape(1).size() == 1) {
    if (!Values(1, &target)) {
      const Shape& stored = Out(0).shape;
      if (ShapeIsKnown(stored) && NumElements(stored) == count) {
        Out(0).type = In(0).type;
        return OkStatus();
      }
      return KeepStored(0, In(0).type, "the shape input");
    }
    have = true;
  }
  if (!have) {
    const auto* a = std::get_if<ReshapeAttributes>(&node_.attributes);
    if (a != nullptr && a->has_new_shape) {
      target.assign(a->new_shape.begin(), a->new_shape.end());
      // Legacy models write [0] for a scalar.
      if (target.size() == 1 && target[0] == 0 && count == 1) target.clear();
      have = true;
    } else if (Has(1) && InShape(1).empty() && Values(1, &target)) {
      have = true;  // scalar shape tensor: a 1-D output of that size
    }
  }
  if (!have) {
    const Shape& stored = Out(0).shape;
    if (ShapeIsKnown(stored) && NumElements(stored) == count) {
      Out(0).type = In(0).type;
      return OkStatus();
    }
    return Err("no target shape (neither a shape input nor new_shape)");
  }
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown >= 0) return Err("shape " + Join(target) + " has more than one -1");
      unknown = static_cast<int>(i);
    } else if (target[i] < 0 || target[i] > kMaxDim) {
      return Err("shape " + Join(target) + " has an invalid dimension");
    } else {
      known *= target[i];
      if (known > (int64_t{1} << 40)) return Err("shape " + Join(target) + " is too large");
    }
  }
  if (unknown >= 0) {
    if (known == 0 || count % known != 0) {
      return Err("cannot reshape " + ShapeToString(InShape(0)) + " (" + std::to_string(count) + " elements) to " +
                 Join(target));
    }
    target[static_cast<size_t>(unknown)] = count / known;
  } else if (known != count) {
    return Err("cannot reshape " + ShapeToString(InShape(0)) + " (" + std::to_string(count) + " elements) to " +
               Join(target) + " (" + std::to_string(known) + " elements)");
  }
  Set(0, Shape(target.begin(), target.end()), In(0).type);
  return OkStatus();
}

Status NodeInference::Squeeze() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Shape& s = InShape(0);
  std::vector<bool> drop(s.size(), false);
  const auto* a = std::get_if<SqueezeAttributes>(&node_.attributes);
  if (a == nullptr || a->squeeze_dims.empty()) {
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  } else {
    for (int32_t sd : a->squeeze_dims) {
      int32_t d = 0;
      GLD_RETURN_IF_ERROR(Axis(sd, static_cast<int64_t>(s.size()), &d, "squeeze dim"));
      if (s[static_cast<size_t>(d)] != 1) {
        return Err("cannot squeeze dimension " + std::to_string(sd) + " of size " +
                   std::to_string(s[static_cast<size_t>(d)]) + " in " + ShapeToString(s));
      }
      drop[static_cast<size_t>(d)] = true;
    }
  }
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!drop[d]) out.push_back(s[d]);
  }
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::ExpandDims() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> axis;
  if (!Values(1, &axis)) return KeepStored(0, In(0).type, "axis (input 1)");
  if (axis.size() != 1) return Err("axis must be one value, got " + Join(axis));
  const Shape& s = InShape(0);
  int32_t a = 0;
  GLD_RETURN_IF_ERROR(Axis(axis[0], static_cast<int64_t>(s.size()) + 1, &a));
  Shape out = s;
  out.insert(out.begin() + a, 1);
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Reduce() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  bool keep = false;
  if (const auto* a = std::get_if<ReduceAttributes>(&node_.attributes)) keep = a->keep_dims;
  std::vector<int64_t> axes;
  if (!Values(1, &axes)) return KeepStored(0, In(0).type, "axes (input 1)");
  const Shape& s = InShape(0);
  std::vector<bool> reduced(s.size(), false);
  for (int64_t ax : axes) {
    int32_t d = 0;
    GLD_RETURN_IF_ERROR(Axis(ax, static_cast<int64_t>(s.size()), &d));
    reduced[static_cast<size_t>(d)] = true;
  }
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(s[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::ArgMinMax() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const DataType type = StoredType(0, DataType::kInt64);
  if (type != DataType::kInt32 && type != DataType::kInt64) {
    return Err(std::string("output type must be int32 or int64, got ") + DataTypeName(type));
  }
  std::vector<int64_t> axis;
  if (!Values(1, &axis)) return KeepStored(0, type, "axis (input 1)");
  if (axis.size() != 1) return Err("axis must be one value, got " + Join(axis));
  const Shape& s = InShape(0);
  int32_t a = 0;
  GLD_RETURN_IF_ERROR(Axis(axis[0], static_cast<int64_t>(s.size()), &a));
  if (s[static_cast<size_t>(a)] == 0) return Err("reducing an empty axis of " + ShapeToString(s));
  Shape out = s;
  out.erase(out.begin() + a);
  Set(0, out, type);
  return OkStatus();
}

Status NodeInference::Resize() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const ResizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  if (a->align_corners && a->half_pixel_centers) {
    return Err("align_corners and half_pixel_centers cannot both be set");
  }
  std::vector<int64_t> size;
  if (!Values(1, &size)) return KeepStored(0, In(0).type, "size (input 1)");
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > kMaxDim || size[1] > kMaxDim) {
    return Err("size must be two positive values, got " + Join(size));
  }
  const Shape& s = InShape(0);
  if (s[1] == 0 || s[2] == 0) return Err("empty input " + ShapeToString(s));
  Set(0, {s[0], static_cast<int32_t>(size[0]), static_cast<int32_t>(size[1]), s[3]}, In(0).type);
  return OkStatus();
}

Status NodeInference::SpaceDepth(bool to_space) {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const BlockSizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  const Shape& s = InShape(0);
  const int64_t b = a->block_size;
  if (b < 1 || b > 65536) return Err("block_size " + std::to_string(b) + " must be positive");
  if (to_space) {
    if (s[3] % (b * b) != 0) {
      return Err("channels " + std::to_string(s[3]) + " not divisible by block_size^2 = " + std::to_string(b * b));
    }
    if (s[1] * b > kMaxDim || s[2] * b > kMaxDim) return Err("output too large");
    Set(0, {s[0], static_cast<int32_t>(s[1] * b), static_cast<int32_t>(s[2] * b), static_cast<int32_t>(s[3] / (b * b))},
        In(0).type);
  } else {
    if (s[1] % b != 0 || s[2] % b != 0) {
      return Err("height and width of " + ShapeToString(s) + " not divisible by block_size " + std::to_string(b));
    }
    if (s[3] * b * b > kMaxDim) return Err("output too large");
    Set(0, {s[0], static_cast<int32_t>(s[1] / b), static_cast<int32_t>(s[2] / b), static_cast<int32_t>(s[3] * b * b)},
        In(0).type);
  }
  return OkStatus();
}

Status NodeInference::Pad() {
  const bool v2 = node_.op == OpType::kPadV2;
  GLD_RETURN_IF_ERROR(Inputs(2, v2 ? 3 : 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Shape& s = InShape(0);
  if (v2 && Has(2) && (In(2).num_elements() != 1 || In(2).type != In(0).type)) {
    return Err("constant value must be one " + std::string(DataTypeName(In(0).type)) + " element, got " +
               ShapeToString(InShape(2)) + " " + DataTypeName(In(2).type));
  }
  std::vector<int64_t> p;
  if (!Values(1, &p)) return KeepStored(0, In(0).type, "paddings (input 1)");
  if (p.size() != s.size() * 2) {
    return Err("paddings " + ShapeToString(InShape(1)) + " do not match input rank " + std::to_string(s.size()));
  }
  Shape out = s;
  const bool mirror = node_.op == OpType::kMirrorPad;
  bool symmetric = false;
  if (const auto* a = std::get_if<MirrorPadAttributes>(&node_.attributes)) symmetric = a->symmetric;
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t b = p[2 * d], e = p[2 * d + 1];
    if (b < 0 || e < 0) return Err("negative paddings " + Join(p));
    if (mirror) {
      const int64_t limit = symmetric ? s[d] : s[d] - 1;
      if (b > limit || e > limit) {
        return Err("paddings " + Join(p) + " exceed " + std::to_string(limit) + " in dimension " + std::to_string(d) +
                   " of " + ShapeToString(s));
      }
    }
    const int64_t n = s[d] + b + e;
    if (n > kMaxDim) return Err("padded dimension " + std::to_string(n) + " too large");
    out[d] = static_cast<int32_t>(n);
  }
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Dequantize() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  Set(0, InShape(0), DataType::kFloat32);
  return OkStatus();
}

Status NodeInference::Transpose() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> perm;
  if (!Values(1, &perm)) return KeepStored(0, In(0).type, "perm (input 1)");
  const Shape& s = InShape(0);
  if (perm.size() != s.size()) return Err("perm " + Join(perm) + " does not match rank of " + ShapeToString(s));
  std::vector<bool> seen(s.size(), false);
  Shape out(s.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int32_t p = 0;
    if (!NormalizeAxis(perm[i], static_cast<int64_t>(s.size()), &p) || seen[static_cast<size_t>(p)]) {
      return Err("perm " + Join(perm) + " is not a permutation");
    }
    seen[static_cast<size_t>(p)] = true;
    out[i] = s[static_cast<size_t>(p)];
  }
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Tile() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> m;
  if (!Values(1, &m)) return KeepStored(0, In(0).type, "multiples (input 1)");
  const Shape& s = InShape(0);
  if (m.size() != s.size()) return Err("multiples " + Join(m) + " do not match rank of " + ShapeToString(s));
  Shape out(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    if (m[d] < 0 || s[d] * m[d] > kMaxDim) return Err("invalid multiples " + Join(m));
    out[d] = static_cast<int32_t>(s[d] * m[d]);
  }
  GLD_RETURN_IF_ERROR(CheckShape(out, "output"));
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::Slice() {
  GLD_RETURN_IF_ERROR(Inputs(3, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> begin, size;
  if (!Values(1, &begin) || !Values(2, &size)) return KeepStored(0, In(0).type, "begin/size (inputs 1, 2)");
  const Shape& s = InShape(0);
  if (begin.size() != s.size() || size.size() != s.size()) {
    return Err("begin " + Join(begin) + " and size " + Join(size) + " must match rank of " + ShapeToString(s));
  }
  Shape out(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t b = begin[d];
    const int64_t n = size[d] == -1 ? s[d] - b : size[d];
    if (b < 0 || b > s[d] || n < 0 || b + n > s[d]) {
      return Err("begin " + Join(begin) + " / size " + Join(size) + " out of bounds for " + ShapeToString(s));
    }
    out[d] = static_cast<int32_t>(n);
  }
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::StridedSlice() {
  GLD_RETURN_IF_ERROR(Inputs(4, 4));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const StridedSliceAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  std::vector<int64_t> begin, end, strides;
  if (!Values(1, &begin) || !Values(2, &end) || !Values(3, &strides)) {
    return KeepStored(0, In(0).type, "begin/end/strides (inputs 1-3)");
  }
  StridedSliceSpec spec;
  std::string error;
  if (!ComputeStridedSlice(InShape(0), begin, end, strides, *a, &spec, &error)) return Err(error);
  Set(0, spec.output_shape, In(0).type);
  return OkStatus();
}

Status NodeInference::Gather() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  int32_t axis_attr = 0, batch_dims = 0;
  if (const auto* a = std::get_if<AxisAttributes>(&node_.attributes)) {
    axis_attr = a->axis;
    batch_dims = a->batch_dims;
  }
  const Shape& p = InShape(0);
  const Shape& idx = InShape(1);
  if (In(1).type != DataType::kInt32 && In(1).type != DataType::kInt64) {
    return Err(std::string("indices must be int32 or int64, got ") + DataTypeName(In(1).type));
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(Axis(axis_attr, static_cast<int64_t>(p.size()), &axis));
  int32_t bd = batch_dims;
  if (bd < 0) bd += static_cast<int32_t>(idx.size());
  if (bd < 0 || bd > axis || static_cast<size_t>(bd) > idx.size()) {
    return Err("batch_dims " + std::to_string(batch_dims) + " invalid for axis " + std::to_string(axis) +
               " and indices " + ShapeToString(idx));
  }
  for (int32_t d = 0; d < bd; ++d) {
    if (p[static_cast<size_t>(d)] != idx[static_cast<size_t>(d)]) {
      return Err("batch dimensions of params " + ShapeToString(p) + " and indices " + ShapeToString(idx) + " differ");
    }
  }
  Shape out(p.begin(), p.begin() + axis);
  out.insert(out.end(), idx.begin() + bd, idx.end());
  out.insert(out.end(), p.begin() + axis + 1, p.end());
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::GatherNd() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Shape& p = InShape(0);
  const Shape& idx = InShape(1);
  if (idx.empty()) return Err("indices must have rank >= 1");
  const int32_t k = idx.back();
  if (k < 0 || static_cast<size_t>(k) > p.size()) {
    return Err("index depth " + std::to_string(k) + " exceeds params rank " + std::to_string(p.size()));
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), p.begin() + k, p.end());
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::OneHot() {
  GLD_RETURN_IF_ERROR(Inputs(4, 4));
  GLD_RETURN_IF_ERROR(Outputs(1));
  int32_t axis_attr = -1;
  if (const auto* a = std::get_if<AxisAttributes>(&node_.attributes)) axis_attr = a->axis;
  if (In(2).type != In(3).type) return Err("on_value and off_value types differ");
  std::vector<int64_t> depth;
  if (!Values(1, &depth)) return KeepStored(0, In(2).type, "depth (input 1)");
  if (depth.size() != 1 || depth[0] < 0 || depth[0] > kMaxDim) return Err("depth must be one non-negative value");
  const Shape& s = InShape(0);
  int32_t axis = 0;
  if (axis_attr == -1) {
    axis = static_cast<int32_t>(s.size());
  } else {
    GLD_RETURN_IF_ERROR(Axis(axis_attr, static_cast<int64_t>(s.size()) + 1, &axis));
  }
  Shape out = s;
  out.insert(out.begin() + axis, static_cast<int32_t>(depth[0]));
  GLD_RETURN_IF_ERROR(CheckShape(out, "output"));
  Set(0, out, In(2).type);
  return OkStatus();
}

Status NodeInference::Fill() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  if (In(1).num_elements() != 1) return Err("value must be a scalar, got " + ShapeToString(InShape(1)));
  std::vector<int64_t> dims;
  if (!Values(0, &dims)) return KeepStored(0, In(1).type, "dims (input 0)");
  Shape out;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDim) return Err("invalid dims " + Join(dims));
    out.push_back(static_cast<int32_t>(d));
  }
  GLD_RETURN_IF_ERROR(CheckShape(out, "output"));
  Set(0, out, In(1).type);
  return OkStatus();
}

Status NodeInference::BroadcastTo() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> dims;
  if (!Values(1, &dims)) return KeepStored(0, In(0).type, "shape (input 1)");
  Shape target;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDim) return Err("invalid shape " + Join(dims));
    target.push_back(static_cast<int32_t>(d));
  }
  Shape out;
  if (!BroadcastShapes(InShape(0), target, &out) || out != target) {
    return Err("input " + ShapeToString(InShape(0)) + " does not broadcast to " + ShapeToString(target));
  }
  GLD_RETURN_IF_ERROR(CheckShape(out, "output"));
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::SelectBetween(bool v2) {
  GLD_RETURN_IF_ERROR(Inputs(3, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  if (In(0).type != DataType::kBool) return Err(std::string("condition must be bool, got ") + DataTypeName(In(0).type));
  if (In(1).type != In(2).type) return Err("x and y types differ");
  const Shape& c = InShape(0);
  const Shape& x = InShape(1);
  const Shape& y = InShape(2);
  if (!v2) {
    if (x != y) return Err("x " + ShapeToString(x) + " and y " + ShapeToString(y) + " differ");
    const bool ok = c == x || (c.size() == 1 && !x.empty() && c[0] == x[0]);
    if (!ok) return Err("condition " + ShapeToString(c) + " must match x " + ShapeToString(x) + " or its first dimension");
    Set(0, x, In(1).type);
    return OkStatus();
  }
  Shape xy, out;
  if (!BroadcastShapes(x, y, &xy) || !BroadcastShapes(c, xy, &out)) {
    return Err("condition " + ShapeToString(c) + ", x " + ShapeToString(x) + ", y " + ShapeToString(y) +
               " do not broadcast");
  }
  Set(0, out, In(1).type);
  return OkStatus();
}

Status NodeInference::SpaceToBatch() {
  GLD_RETURN_IF_ERROR(Inputs(3, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> block, pads;
  if (!Values(1, &block) || !Values(2, &pads)) return KeepStored(0, In(0).type, "block_shape/paddings");
  const Shape& s = InShape(0);
  const size_t m = block.size();
  if (m < 1 || s.size() < m + 1 || pads.size() != 2 * m) {
    return Err("block_shape " + Join(block) + " / paddings " + Join(pads) + " do not fit input " + ShapeToString(s));
  }
  Shape out = s;
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1 || pads[2 * i] < 0 || pads[2 * i + 1] < 0) return Err("invalid block_shape or paddings");
    const int64_t padded = s[i + 1] + pads[2 * i] + pads[2 * i + 1];
    if (padded % block[i] != 0) {
      return Err("padded dimension " + std::to_string(padded) + " not divisible by block " + std::to_string(block[i]));
    }
    out[i + 1] = static_cast<int32_t>(padded / block[i]);
    prod *= block[i];
    if (prod > kMaxDim) return Err("block_shape too large");
  }
  if (s[0] * prod > kMaxDim) return Err("output batch too large");
  out[0] = static_cast<int32_t>(s[0] * prod);
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::BatchToSpace() {
  GLD_RETURN_IF_ERROR(Inputs(3, 3));
  GLD_RETURN_IF_ERROR(Outputs(1));
  std::vector<int64_t> block, crops;
  if (!Values(1, &block) || !Values(2, &crops)) return KeepStored(0, In(0).type, "block_shape/crops");
  const Shape& s = InShape(0);
  const size_t m = block.size();
  if (m < 1 || s.size() < m + 1 || crops.size() != 2 * m) {
    return Err("block_shape " + Join(block) + " / crops " + Join(crops) + " do not fit input " + ShapeToString(s));
  }
  Shape out = s;
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1 || crops[2 * i] < 0 || crops[2 * i + 1] < 0) return Err("invalid block_shape or crops");
    prod *= block[i];
    if (prod > kMaxDim) return Err("block_shape too large");
    const int64_t n = s[i + 1] * block[i] - crops[2 * i] - crops[2 * i + 1];
    if (n < 0 || n > kMaxDim) return Err("crops " + Join(crops) + " exceed the dimension");
    out[i + 1] = static_cast<int32_t>(n);
  }
  if (s[0] % prod != 0) {
    return Err("batch " + std::to_string(s[0]) + " not divisible by block product " + std::to_string(prod));
  }
  out[0] = static_cast<int32_t>(s[0] / prod);
  Set(0, out, In(0).type);
  return OkStatus();
}

Status NodeInference::AddN() {
  if (NumInputs() == 0) return Err("no inputs");
  GLD_RETURN_IF_ERROR(Inputs(NumInputs(), NumInputs()));
  GLD_RETURN_IF_ERROR(Outputs(1));
  for (size_t i = 1; i < NumInputs(); ++i) {
    if (InShape(i) != InShape(0) || In(i).type != In(0).type) {
      return Err(Name(i) + " " + ShapeToString(InShape(i)) + " differs from input 0 " + ShapeToString(InShape(0)));
    }
  }
  Set(0, InShape(0), In(0).type);
  return OkStatus();
}

Status NodeInference::ShapeOp() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const DataType type = StoredType(0, DataType::kInt32);
  if (type != DataType::kInt32 && type != DataType::kInt64) {
    return Err(std::string("output type must be int32 or int64, got ") + DataTypeName(type));
  }
  Set(0, {static_cast<int32_t>(InShape(0).size())}, type);
  std::vector<uint8_t> bytes;
  for (int32_t d : InShape(0)) {
    if (type == DataType::kInt32) {
      const int32_t v = d;
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 4);
    } else {
      const int64_t v = d;
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 8);
    }
  }
  (*known_)[node_.outputs[0]] = std::move(bytes);
  return OkStatus();
}

// (values, argmax indices) -> values placed back; size = input * filter.
Status NodeInference::MaxUnpooling2D() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  if (InShape(1) != InShape(0)) {
    return Err("indices " + ShapeToString(InShape(1)) + " must match values " + ShapeToString(InShape(0)));
  }
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->filter_h <= 0 || a->filter_w <= 0) {
    return Err("filter and strides must be positive");
  }
  const Shape& s = InShape(0);
  const int64_t oh = static_cast<int64_t>(s[1]) * a->filter_h, ow = static_cast<int64_t>(s[2]) * a->filter_w;
  if (oh > kMaxDim || ow > kMaxDim) return Err("output too large");
  Set(0, {s[0], static_cast<int32_t>(oh), static_cast<int32_t>(ow), s[3]}, In(0).type);
  return OkStatus();
}

Status NodeInference::TransformTensorBilinear() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const TransformTensorBilinearAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  if (In(1).num_elements() % 16 != 0 || In(1).num_elements() == 0) {
    return Err("matrix input " + ShapeToString(InShape(1)) + " must hold 4x4 matrices");
  }
  const Shape& s = InShape(0);
  Set(0, {s[0], a->output_height, a->output_width, s[3]}, In(0).type);
  return OkStatus();
}

Status NodeInference::TransformLandmarks() {
  GLD_RETURN_IF_ERROR(Inputs(2, 2));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const TransformLandmarksAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  GLD_RETURN_IF_ERROR(Rank(0, a->version == 1 ? 4 : 3));
  const int64_t dims = a->version == 1 ? a->dimensions : InShape(0).back();
  if ((dims != 2 && dims != 3) || InShape(0).back() % dims != 0) {
    return Err("landmarks " + ShapeToString(InShape(0)) + " do not hold " + std::to_string(dims) + "-D points");
  }
  if (In(1).num_elements() < 16) return Err("matrix input " + ShapeToString(InShape(1)) + " is not 4x4");
  Set(0, InShape(0), In(0).type);
  return OkStatus();
}

Status NodeInference::Landmarks2TransformMatrix() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  const Landmarks2TransformMatrixAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  if (In(0).num_elements() % 3 != 0) {
    return Err("landmarks " + ShapeToString(InShape(0)) + " are not (x, y, z) triples");
  }
  Set(0, {1, 4, 4}, DataType::kFloat32);
  return OkStatus();
}

Status NodeInference::Custom() {
  const CustomAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(Attrs(&a));
  if (a->op == nullptr) return Unimpl(UnregisteredCustomOpMessage(*a));
  CustomOpNode view = MakeCustomOpNode(g_, index_);
  const size_t n = view.outputs.size();
  Status s = CallCustomOp([&] { return a->op->shape(&view); });
  if (!s.ok()) return Status(s.code(), g_.NodeLabel(index_) + ": shape function: " + s.message());
  if (view.outputs.size() != n) {
    return Err("shape function left " + std::to_string(view.outputs.size()) + " outputs, the node has " +
               std::to_string(n));
  }
  for (size_t i = 0; i < n; ++i) {
    const CustomTensorType& o = view.outputs[i];
    const DataType type = FromElementType(o.type);
    if (type == DataType::kUnknown) return Err("shape function set no type for output " + std::to_string(i));
    Shape shape(o.shape.begin(), o.shape.end());
    if (!ShapeIsValid(shape)) {
      return Err("shape function gave output " + std::to_string(i) + " the invalid shape " + ShapeToString(shape));
    }
    Set(i, std::move(shape), type);
  }
  return OkStatus();
}

Status NodeInference::LocalResponseNormalization() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Rank(0, 4));
  return SameAsInput0(1, 1, DataType::kUnknown);
}

Status NodeInference::Quantize() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  Set(0, InShape(0), StoredType(0, DataType::kInt8));
  return OkStatus();
}

Status NodeInference::Cast() {
  GLD_RETURN_IF_ERROR(Inputs(1, 1));
  GLD_RETURN_IF_ERROR(Outputs(1));
  if (Out(0).type == DataType::kUnknown) return Err("output type unknown");
  Set(0, InShape(0), Out(0).type);
  return OkStatus();
}

using ShapeRule = Status (NodeInference::*)();

// Indexed by OpType: the rule each row of the op table names.
constexpr ShapeRule kShapeRules[] = {
#define GLD_OP(e, name, min_inputs, max_inputs, min_outputs, max_outputs, optional_input, rule, known_values) \
  &NodeInference::rule,
#include "graph/op_list.inc"
#undef GLD_OP
};

Status NodeInference::RunRule() {
  const size_t nt = g_.tensors.size();
  for (size_t i = 0; i < node_.inputs.size(); ++i) {
    const int t = node_.inputs[i];
    if (t == kNoTensor) continue;
    if (t < 0 || static_cast<size_t>(t) >= nt) return Err("input " + std::to_string(i) + " refers to tensor " + std::to_string(t) + " of " + std::to_string(nt));
    if (!ShapeIsValid(g_.tensors[static_cast<size_t>(t)].shape)) {
      return Err(Name(i) + " has invalid shape " + ShapeToString(InShape(i)));
    }
  }
  for (size_t i = 0; i < node_.outputs.size(); ++i) {
    const int t = node_.outputs[i];
    if (t < 0 || static_cast<size_t>(t) >= nt) return Err("output " + std::to_string(i) + " refers to tensor " + std::to_string(t) + " of " + std::to_string(nt));
    if (g_.tensors[static_cast<size_t>(t)].is_constant) return Err("output " + std::to_string(i) + " '" + g_.tensors[static_cast<size_t>(t)].name + "' is a constant");
  }
  return (this->*kShapeRules[static_cast<size_t>(node_.op)])();
}

// After node `index` got its shapes: when all its inputs have known values
// and its outputs are small integer tensors, asks `oracle` for them and
// records them. Failures only mean "not known".
void EvaluateKnownValues(const Graph& g, size_t index, const ValueOracle& oracle, KnownValues* known) {
  const Node& node = g.nodes[index];
  if (!oracle || !GetOpInfo(node.op).known_values || node.outputs.empty()) return;
  constexpr int64_t kMaxElements = 1024;
  for (int t : node.outputs) {
    const Tensor& o = g.tensors[static_cast<size_t>(t)];
    if ((o.type != DataType::kInt32 && o.type != DataType::kInt64) || !ShapeIsValid(o.shape) ||
        o.num_elements() > kMaxElements) {
      return;
    }
  }
  std::vector<ValueBytes> inputs(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int t = node.inputs[i];
    if (t < 0) continue;
    const Tensor& in = g.tensors[static_cast<size_t>(t)];
    if (in.num_elements() > kMaxElements) return;
    auto it = known->find(t);
    if (it != known->end()) {
      inputs[i] = {it->second.data(), it->second.size()};
    } else if (in.is_constant && !in.sparsity.has_value()) {
      inputs[i] = {in.data.data(), in.data.size()};
    } else {
      return;
    }
  }
  std::vector<std::vector<uint8_t>> outputs(node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const Tensor& o = g.tensors[static_cast<size_t>(node.outputs[i])];
    outputs[i].assign(static_cast<size_t>(o.num_elements()) * DataTypeSize(o.type), 0);
  }
  if (!oracle(g, index, inputs, &outputs)) return;
  for (size_t i = 0; i < node.outputs.size(); ++i) (*known)[node.outputs[i]] = std::move(outputs[i]);
}

}  // namespace

Status InferNodeShapes(Graph& graph, size_t node_index) {
  if (node_index >= graph.nodes.size()) {
    return InvalidArgumentError("node index " + std::to_string(node_index) + " out of range");
  }
  KnownValues known;
  NodeInference inf(graph, node_index, &known);
  return inf.Run();
}

Status InferShapes(Graph& graph, const ValueOracle& values) {
  const size_t nt = graph.tensors.size();
  for (int t : graph.inputs) {
    if (t < 0 || static_cast<size_t>(t) >= nt) {
      return InvalidArgumentError("graph input refers to tensor " + std::to_string(t) + " of " + std::to_string(nt));
    }
    const Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
    if (!ShapeIsValid(tensor.shape)) {
      return InvalidArgumentError("graph input '" + tensor.name + "' has unknown or invalid shape " +
                                  ShapeToString(tensor.shape));
    }
  }
  KnownValues known;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    NodeInference inf(graph, i, &known);
    GLD_RETURN_IF_ERROR(inf.Run());
    EvaluateKnownValues(graph, i, values, &known);
  }
  return OkStatus();
}

}  // namespace gld
