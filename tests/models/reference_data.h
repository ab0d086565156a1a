// Reading the LiteRT references that tools/reference/ writes into tests/data/
// (manifest.json, input_<i>.npy / input_<i>_head.npy, output_<i>.npy), the
// deterministic input rule they use, and the comparison the model and
// conformance tests apply. Header-only so that tests/models and
// tests/conformance share it without a library of their own.
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/strict_json.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/npy.hpp"
#include "gldelegate/seeded_values.hpp"
#include "gldelegate/status.hpp"

namespace gld::testing {

// The reference inputs are "splitmix64_pm1" from tools/reference/reflib.py:
// gld::UniformPm1 (gldelegate/seeded_values.hpp), bit for bit.
using gld::UniformPm1;

inline bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

inline bool DirExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The folders under `root` holding a manifest.json, sorted.
inline std::vector<std::string> ListCaseDirs(const std::string& root) {
  std::vector<std::string> names;
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return names;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    if (FileExists(root + "/" + name + "/manifest.json")) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// The per-op cases under tests/data/ops (tools/reference/make_op_cases.py).
inline std::string OpCasesDir() { return std::string(GLD_TEST_DATA_DIR) + "/ops"; }
inline std::vector<std::string> ListOpCases() { return ListCaseDirs(OpCasesDir()); }

// A case's manifest.json, written by tools/reference (reflib.write_json).
inline StatusOr<nlohmann::json> ReadManifest(const std::string& dir) {
  return ReadStrictJsonFile(dir + "/manifest.json");
}

// One top-level field of a manifest, of the type the tests need.
inline StatusOr<std::string> ManifestString(const nlohmann::json& manifest, const std::string& key) {
  const auto field = manifest.find(key);
  if (field == manifest.end()) return NotFoundError("manifest has no field '" + key + "'");
  if (!field->is_string()) return InvalidArgumentError("manifest field '" + key + "' is not a string");
  return field->get<std::string>();
}

inline StatusOr<int64_t> ManifestInt(const nlohmann::json& manifest, const std::string& key) {
  const auto field = manifest.find(key);
  if (field == manifest.end()) return NotFoundError("manifest has no field '" + key + "'");
  if (!field->is_number_integer()) return InvalidArgumentError("manifest field '" + key + "' is not an integer");
  return field->get<int64_t>();
}

template <typename T>
void AppendAsDoubles(const uint8_t* bytes, size_t count, std::vector<double>* out) {
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, bytes + i * sizeof(T), sizeof(T));
    out->push_back(static_cast<double>(v));
  }
}

// Widens `count` elements of `type` to double (float16 is not needed here).
inline StatusOr<std::vector<double>> ToDoubles(const void* data, ElementType type, size_t count) {
  std::vector<double> out;
  out.reserve(count);
  const auto* bytes = static_cast<const uint8_t*>(data);
  switch (type) {
    case ElementType::kFloat32: AppendAsDoubles<float>(bytes, count, &out); break;
    case ElementType::kFloat64: AppendAsDoubles<double>(bytes, count, &out); break;
    case ElementType::kInt8: AppendAsDoubles<int8_t>(bytes, count, &out); break;
    case ElementType::kUInt8: AppendAsDoubles<uint8_t>(bytes, count, &out); break;
    case ElementType::kInt16: AppendAsDoubles<int16_t>(bytes, count, &out); break;
    case ElementType::kInt32: AppendAsDoubles<int32_t>(bytes, count, &out); break;
    case ElementType::kInt64: AppendAsDoubles<int64_t>(bytes, count, &out); break;
    case ElementType::kBool:
      for (size_t i = 0; i < count; ++i) out.push_back(bytes[i] != 0 ? 1.0 : 0.0);
      break;
    default:
      return UnimplementedError(std::string("cannot compare element type ") + ElementTypeName(type));
  }
  return out;
}

struct Comparison {
  double max_abs_diff = 0;
  double max_abs_ref = 0;
  double relative = 0;  // max|ours - ref| / max|ref| (max|ours - ref| when ref is all zero)
  size_t worst_index = 0;
  double worst_ours = 0, worst_ref = 0;
  size_t mismatches = 0;  // elements that differ at all (for exact integer outputs)
};

// NaN in one and not the other at the same position makes the error infinite.
inline Comparison Compare(const std::vector<double>& ours, const std::vector<double>& ref) {
  Comparison c;
  for (size_t i = 0; i < ref.size() && i < ours.size(); ++i) {
    if (std::isfinite(ref[i])) c.max_abs_ref = std::max(c.max_abs_ref, std::fabs(ref[i]));
    double diff;
    if (std::isnan(ref[i]) && std::isnan(ours[i])) {
      diff = 0;
    } else if (ref[i] == ours[i]) {  // also equal infinities
      diff = 0;
    } else {
      diff = std::fabs(ours[i] - ref[i]);
      if (std::isnan(diff)) diff = std::numeric_limits<double>::infinity();
    }
    if (diff != 0) ++c.mismatches;
    if (i == 0 || diff > c.max_abs_diff) {
      c.max_abs_diff = diff;
      c.worst_index = i;
      c.worst_ours = ours[i];
      c.worst_ref = ref[i];
    }
  }
  c.relative = c.max_abs_ref > 0 ? c.max_abs_diff / c.max_abs_ref : c.max_abs_diff;
  return c;
}

inline std::string ShapeString(const std::vector<int>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

inline size_t ElementCount(const std::vector<int>& shape) {
  size_t n = 1;
  for (int d : shape) n *= static_cast<size_t>(d < 0 ? 0 : d);
  return n;
}

// The bytes of input `index` of a reference case in `dir`: input_<i>.npy when
// stored, else regenerated from the manifest's seed and checked bit for bit
// against input_<i>_head.npy.
inline StatusOr<std::vector<uint8_t>> LoadReferenceInput(const std::string& dir, const nlohmann::json& manifest,
                                                         int index, const TensorInfo& info) {
  const std::string where = dir + " input " + std::to_string(index) + " (" + info.name + ")";
  const std::string stored = dir + "/input_" + std::to_string(index) + ".npy";
  if (FileExists(stored)) {
    GLD_ASSIGN_OR_RETURN(NpyArray array, ReadNpy(stored));
    if (array.type != info.type)
      return InvalidArgumentError(where + ": stored " + ElementTypeName(array.type) + ", model wants " +
                                  ElementTypeName(info.type));
    if (array.data.size() != info.bytes)
      return InvalidArgumentError(where + ": stored " + ShapeString(array.shape) + ", model wants " +
                                  ShapeString(info.shape));
    return std::move(array.data);
  }
  const std::string head_path = dir + "/input_" + std::to_string(index) + "_head.npy";
  if (!FileExists(head_path)) return NotFoundError(where + ": neither " + stored + " nor " + head_path);
  if (info.type != ElementType::kFloat32)
    return InvalidArgumentError(where + ": regenerated inputs must be float32");
  GLD_ASSIGN_OR_RETURN(int64_t seed, ManifestInt(manifest, "seed"));
  const size_t count = info.bytes / sizeof(float);
  std::vector<float> values = UniformPm1(static_cast<uint64_t>(seed), static_cast<uint64_t>(index), count);
  GLD_ASSIGN_OR_RETURN(NpyArray head, ReadNpy(head_path));
  if (head.type != ElementType::kFloat32) return InvalidArgumentError(head_path + ": not float32");
  const size_t head_count = head.data.size() / sizeof(float);
  if (head_count > count || std::memcmp(head.data.data(), values.data(), head.data.size()) != 0)
    return InternalError(where + ": regenerated input differs from " + head_path +
                         " (reference_data.h and tools/reference/reflib.py disagree)");
  std::vector<uint8_t> bytes(count * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace gld::testing
