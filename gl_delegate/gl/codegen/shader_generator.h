// Builds complete GLSL programs from the templates in glsl/ (embedded at build
// time): a "#version 310 es" line, the #defines of one variant, common.comp,
// the libraries the variant asks for (elementwise_ops.comp, the fused
// epilogue.comp), then the op's template. No GLSL is assembled from
// fragments in C++ beyond the #define lines and one generated library,
// elementwise_table.comp: the elementwise table's GLSL expressions
// (graph/elementwise_ops.inc, gl/codegen/elementwise_table.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"

namespace gld::gl {

using Workgroup = std::array<uint32_t, 3>;

struct ShaderSpec {
  std::string template_name;  // "conv2d.comp"
  // The template's text when it is not an embedded file (an app's custom
  // op, gldelegate/custom_op.hpp); template_name then only names it.
  std::shared_ptr<const std::string> source;
  // NAME -> value; values are integer literals or macro names, never code.
  std::vector<std::pair<std::string, std::string>> defines;
  // Library files placed between common.comp and the template, in order
  // (each once).
  std::vector<std::string> libraries;

  ShaderSpec& Define(const std::string& name, int64_t value) {
    defines.emplace_back(name, std::to_string(value));
    return *this;
  }
  ShaderSpec& Define(const std::string& name, const std::string& value) {
    defines.emplace_back(name, value);
    return *this;
  }
  ShaderSpec& Library(const std::string& name) {
    for (const std::string& l : libraries) {
      if (l == name) return *this;
    }
    libraries.push_back(name);
    return *this;
  }
};

// The embedded file `name`, or the generated elementwise_table.comp;
// NotFound when there is none.
StatusOr<std::string_view> FindTemplate(const std::string& name);

// The full source of one program. InvalidArgument when a define is not a
// plain identifier / integer (so that no code sneaks in through defines).
StatusOr<std::string> GenerateShader(const ShaderSpec& spec, Precision precision,
                                     const Workgroup& workgroup);

// A workgroup for a grid of (x, y, z) invocations: 64 invocations, one of
// 8x4x2 (images), 8x1x8 (rows: rank-3 tensors), 1x1x64 (1x1xN tensors) and
// 4x4x4 (small images). Few sizes keep the number of program variants low.
Workgroup ChooseWorkgroup(const std::array<uint32_t, 3>& grid);

}  // namespace gld::gl
