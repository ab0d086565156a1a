#include "model/mediapipe_options.h"

#include <flatbuffers/flexbuffers.h>

#include <string>
#include <vector>

namespace gld::tflite_ops {

namespace {

// A verified flexbuffer map.
class FlexMap {
 public:
  Status Open(const uint8_t* data, size_t size, const char* op) {
    op_ = op;
    if (size < 3 || !flexbuffers::VerifyBuffer(data, size)) {
      return InvalidArgumentError(std::string(op) + ": custom options are not a valid flexbuffer (" +
                                  std::to_string(size) + " bytes)");
    }
    const flexbuffers::Reference root = flexbuffers::GetRoot(data, size);
    if (!root.IsMap()) return InvalidArgumentError(std::string(op) + ": custom options are not a flexbuffer map");
    map_ = root.AsMap();
    return OkStatus();
  }
  bool Has(const char* key) const { return !map_[key].IsNull(); }
  Status Int(const char* key, int32_t* out, bool required = true) const {
    const flexbuffers::Reference r = map_[key];
    if (r.IsNull()) return required ? Missing(key) : OkStatus();
    if (!r.IsNumeric() && !r.IsBool()) return Wrong(key, "a number");
    *out = r.AsInt32();
    return OkStatus();
  }
  Status Float(const char* key, float* out, bool required = true) const {
    const flexbuffers::Reference r = map_[key];
    if (r.IsNull()) return required ? Missing(key) : OkStatus();
    if (!r.IsNumeric()) return Wrong(key, "a number");
    *out = r.AsFloat();
    return OkStatus();
  }
  Status Ints(const char* key, std::vector<int32_t>* out, bool required = true) const {
    const flexbuffers::Reference r = map_[key];
    out->clear();
    if (r.IsNull()) return required ? Missing(key) : OkStatus();
    if (r.IsTypedVector()) {
      const flexbuffers::TypedVector v = r.AsTypedVector();
      for (size_t i = 0; i < v.size(); ++i) out->push_back(v[i].AsInt32());
    } else if (r.IsFixedTypedVector()) {
      const flexbuffers::FixedTypedVector v = r.AsFixedTypedVector();
      for (size_t i = 0; i < v.size(); ++i) out->push_back(v[i].AsInt32());
    } else if (r.IsVector()) {
      const flexbuffers::Vector v = r.AsVector();
      for (size_t i = 0; i < v.size(); ++i) out->push_back(v[i].AsInt32());
    } else {
      return Wrong(key, "a vector");
    }
    return OkStatus();
  }
  Status String(const char* key, std::string* out) const {
    const flexbuffers::Reference r = map_[key];
    if (r.IsNull()) return OkStatus();
    if (!r.IsString()) return Wrong(key, "a string");
    *out = r.AsString().str();
    return OkStatus();
  }

 private:
  Status Missing(const char* key) const {
    return InvalidArgumentError(std::string(op_) + ": custom option '" + key + "' is missing");
  }
  Status Wrong(const char* key, const char* what) const {
    return InvalidArgumentError(std::string(op_) + ": custom option '" + key + "' is not " + what);
  }
  const char* op_ = "";
  flexbuffers::Map map_ = flexbuffers::Map::EmptyMap();
};

Status CheckVersion(int version, const char* op) {
  if (version != 1 && version != 2) {
    return UnimplementedError(std::string(op) + " version " + std::to_string(version) + " (only 1 and 2)");
  }
  return OkStatus();
}

}  // namespace

Status ParseTransformTensorBilinearOptions(const uint8_t* data, size_t size, int version,
                                           TransformTensorBilinearAttributes* out) {
  constexpr const char* kOp = "TransformTensorBilinear";
  GLD_RETURN_IF_ERROR(CheckVersion(version, kOp));
  FlexMap m;
  GLD_RETURN_IF_ERROR(m.Open(data, size, kOp));
  if (version == 1) {
    std::string mode;
    GLD_RETURN_IF_ERROR(m.String("mode", &mode));
    if (!mode.empty() && mode != "bilinear") {
      return UnimplementedError(std::string(kOp) + ": mode '" + mode + "' (only bilinear)");
    }
    std::vector<int32_t> size;
    GLD_RETURN_IF_ERROR(m.Ints("output_size", &size));
    if (size.size() != 2) return InvalidArgumentError(std::string(kOp) + ": output_size must hold 2 values");
    out->output_height = size[0];
    out->output_width = size[1];
    out->align_corners = false;
  } else {
    GLD_RETURN_IF_ERROR(m.Int("output_height", &out->output_height));
    GLD_RETURN_IF_ERROR(m.Int("output_width", &out->output_width));
    out->align_corners = true;
  }
  if (out->output_height <= 0 || out->output_width <= 0 || out->output_height > (1 << 20) ||
      out->output_width > (1 << 20)) {
    return InvalidArgumentError(std::string(kOp) + ": invalid output size " + std::to_string(out->output_height) +
                                "x" + std::to_string(out->output_width));
  }
  return OkStatus();
}

Status ParseTransformLandmarksOptions(const uint8_t* data, size_t size, int version,
                                      TransformLandmarksAttributes* out) {
  constexpr const char* kOp = "TransformLandmarks";
  GLD_RETURN_IF_ERROR(CheckVersion(version, kOp));
  out->version = version;
  if (version == 2) return OkStatus();  // no options; dimensions from the input
  FlexMap m;
  GLD_RETURN_IF_ERROR(m.Open(data, size, kOp));
  GLD_RETURN_IF_ERROR(m.Int("dimensions", &out->dimensions));
  GLD_RETURN_IF_ERROR(m.Float("scale", &out->scale));
  if (out->dimensions != 2 && out->dimensions != 3) {
    return InvalidArgumentError(std::string(kOp) + ": dimensions " + std::to_string(out->dimensions) +
                                " (must be 2 or 3)");
  }
  if (out->scale == 0.f) return InvalidArgumentError(std::string(kOp) + ": scale is 0");
  return OkStatus();
}

Status ParseLandmarks2TransformMatrixOptions(const uint8_t* data, size_t size, int version,
                                             Landmarks2TransformMatrixAttributes* out) {
  constexpr const char* kOp = "Landmarks2TransformMatrix";
  GLD_RETURN_IF_ERROR(CheckVersion(version, kOp));
  out->version = version;
  FlexMap m;
  GLD_RETURN_IF_ERROR(m.Open(data, size, kOp));
  std::vector<int32_t> subset;
  auto bad = [&](const std::string& what) { return InvalidArgumentError(std::string(kOp) + ": " + what); };
  if (version == 1) {
    std::vector<int32_t> in_hw, out_hw;
    GLD_RETURN_IF_ERROR(m.Ints("input_hw", &in_hw));
    GLD_RETURN_IF_ERROR(m.Ints("output_hw", &out_hw));
    if (in_hw.size() != 2 || out_hw.size() != 2) return bad("input_hw and output_hw must hold 2 values");
    out->input_h = in_hw[0];
    out->input_w = in_hw[1];
    out->output_h = out_hw[0];
    out->output_w = out_hw[1];
    GLD_RETURN_IF_ERROR(m.Int("dimensions", &out->dimensions));
    GLD_RETURN_IF_ERROR(m.Int("landmarks_range", &out->landmarks_range));
    GLD_RETURN_IF_ERROR(m.Float("bbox_size_multiplier", &out->bbox_size_multiplier));
    GLD_RETURN_IF_ERROR(m.Ints("subset", &subset));
    if (out->bbox_size_multiplier == 0.f) return bad("bbox_size_multiplier is 0");
    if (out->dimensions != 3) return bad("dimensions " + std::to_string(out->dimensions) + " (must be 3)");
    if (out->input_h <= 0 || out->input_w <= 0 || out->output_h <= 0 || out->output_w <= 0) {
      return bad("input_hw and output_hw must be positive");
    }
    if (out->landmarks_range <= 0) return bad("landmarks_range must be positive");
  } else {
    GLD_RETURN_IF_ERROR(m.Ints("subset_idxs", &subset));
    GLD_RETURN_IF_ERROR(m.Float("target_rotation_radians", &out->target_rotation_radians));
    GLD_RETURN_IF_ERROR(m.Int("output_height", &out->output_height));
    GLD_RETURN_IF_ERROR(m.Int("output_width", &out->output_width));
    GLD_RETURN_IF_ERROR(m.Float("scale_x", &out->scale_x));
    GLD_RETURN_IF_ERROR(m.Float("scale_y", &out->scale_y));
    if (out->output_height <= 0 || out->output_width <= 0) return bad("output size must be positive");
    if (!(out->scale_x > 0.f) || !(out->scale_y > 0.f)) return bad("scale_x and scale_y must be positive");
  }
  GLD_RETURN_IF_ERROR(m.Int("left_rotation_idx", &out->left_rotation_idx));
  GLD_RETURN_IF_ERROR(m.Int("right_rotation_idx", &out->right_rotation_idx));
  if (out->left_rotation_idx < 0 || out->right_rotation_idx < 0) return bad("negative rotation landmark index");
  // Pairs; an odd trailing index pairs with itself.
  out->subset.clear();
  for (size_t i = 0; i + 1 < subset.size(); i += 2) out->subset.emplace_back(subset[i], subset[i + 1]);
  if (subset.size() % 2 == 1) out->subset.emplace_back(subset.back(), subset.back());
  if (out->subset.empty()) return bad("subset is empty");
  for (const auto& p : out->subset) {
    if (p.first < 0 || p.second < 0) return bad("negative subset index");
  }
  return OkStatus();
}

int MediaPipeOptionsVersion(const std::string& name, const uint8_t* data, size_t size, int version) {
  const bool bilinear = name == "TransformTensorBilinear", landmarks = name == "TransformLandmarks";
  if (!bilinear && !landmarks && name != "Landmarks2TransformMatrix") return version;
  FlexMap m;
  if (!m.Open(data, size, name.c_str()).ok()) return landmarks && size == 0 ? 2 : version;
  if (landmarks) return m.Has("dimensions") || m.Has("scale") ? 1 : version;
  const char* v1_key = bilinear ? "output_size" : "input_hw";
  if (m.Has(v1_key)) return 1;
  return m.Has("output_height") ? 2 : version;
}

}  // namespace gld::tflite_ops
