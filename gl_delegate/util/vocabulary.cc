// The functions of the public vocabulary (gldelegate/types.hpp: the enums'
// names and parsers, element sizes, the version), which every layer may
// call: they live in util/, below all of them (the half-float conversions are
// in util/half.cc, Status in util/status.cc, CheckOption in runtime/options.cc, beside the op names its deny-list check reads).
#include "gldelegate/types.hpp"

#include <string>

#ifndef GLD_VERSION
#define GLD_VERSION "0.0.0"
#endif

namespace gld {

const char* VersionString() { return GLD_VERSION; }

const char* BackendName(Backend b) {
  switch (b) {
    case Backend::kAuto: return "auto";
    case Backend::kGl: return "gl";
    case Backend::kCpu: return "cpu";
  }
  return "unknown";
}

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kFp16Mediump: return "fp16_mediump";
  }
  return "unknown";
}

const char* ElementTypeName(ElementType t) {
  switch (t) {
    case ElementType::kFloat32: return "float32";
    case ElementType::kFloat16: return "float16";
    case ElementType::kFloat64: return "float64";
    case ElementType::kInt8: return "int8";
    case ElementType::kUInt8: return "uint8";
    case ElementType::kInt16: return "int16";
    case ElementType::kInt32: return "int32";
    case ElementType::kInt64: return "int64";
    case ElementType::kBool: return "bool";
    case ElementType::kUnknown: return "unknown";
  }
  return "unknown";
}

size_t ElementTypeSize(ElementType t) {
  switch (t) {
    case ElementType::kFloat32: return 4;
    case ElementType::kFloat16: return 2;
    case ElementType::kFloat64: return 8;
    case ElementType::kInt8: return 1;
    case ElementType::kUInt8: return 1;
    case ElementType::kInt16: return 2;
    case ElementType::kInt32: return 4;
    case ElementType::kInt64: return 8;
    case ElementType::kBool: return 1;
    case ElementType::kUnknown: return 0;
  }
  return 0;
}

StatusOr<Backend> ParseBackend(const std::string& s) {
  if (s == "auto") return Backend::kAuto;
  if (s == "gl") return Backend::kGl;
  if (s == "cpu") return Backend::kCpu;
  return InvalidArgumentError("unknown backend '" + s + "' (expected auto, gl or cpu)");
}

const char* ContextModeName(ContextMode m) {
  switch (m) {
    case ContextMode::kPrivate: return "private";
    case ContextMode::kCurrentIfAny: return "current_if_any";
    case ContextMode::kCurrent: return "current";
  }
  return "unknown";
}

StatusOr<ContextMode> ParseContextMode(const std::string& s) {
  if (s == "private") return ContextMode::kPrivate;
  if (s == "current_if_any") return ContextMode::kCurrentIfAny;
  if (s == "current") return ContextMode::kCurrent;
  return InvalidArgumentError("unknown context mode '" + s + "' (expected private, current_if_any or current)");
}

const char* GlLimitsName(GlLimits l) {
  switch (l) {
    case GlLimits::kDriver: return "driver";
    case GlLimits::kMinimum: return "minimum";
  }
  return "unknown";
}

StatusOr<GlLimits> ParseGlLimits(const std::string& s) {
  if (s == "driver") return GlLimits::kDriver;
  if (s == "minimum") return GlLimits::kMinimum;
  return InvalidArgumentError("unknown GL limits '" + s + "' (expected driver or minimum)");
}

StatusOr<Precision> ParsePrecision(const std::string& s) {
  if (s == "fp32") return Precision::kFp32;
  if (s == "fp16") return Precision::kFp16;
  if (s == "fp16_mediump") return Precision::kFp16Mediump;
  return InvalidArgumentError("unknown precision '" + s + "' (expected fp32, fp16 or fp16_mediump)");
}

}  // namespace gld
