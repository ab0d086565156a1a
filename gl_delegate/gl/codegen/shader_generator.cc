#include "gl/codegen/shader_generator.h"

#include <algorithm>
#include <cctype>

#include "gl/codegen/elementwise_table.h"
#include "gl/codegen/embedded_files.h"

namespace gld::gl {

StatusOr<std::string_view> FindTemplate(const std::string& name) {
  for (const EmbeddedFile* f = kEmbeddedFiles; !f->name.empty(); ++f) {
    if (f->name == name) return f->contents;
  }
  if (name == kElementwiseTableLibrary) return ElementwiseTableGlsl();
  return NotFoundError("no GLSL template '" + name + "' is embedded in this build");
}

namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool IsIntegerLiteral(const std::string& s) {
  size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i >= s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

StatusOr<std::string> GenerateShader(const ShaderSpec& spec, Precision precision,
                                     const Workgroup& workgroup) {
  GLD_ASSIGN_OR_RETURN(std::string_view common, FindTemplate("common.comp"));
  std::string_view body;
  if (spec.source != nullptr) {
    body = *spec.source;
  } else {
    GLD_ASSIGN_OR_RETURN(body, FindTemplate(spec.template_name));
  }
  std::string src;
  src.reserve(common.size() + body.size() + 512);
  src += "#version 310 es\n";
  src += "// generated from " + spec.template_name + "\n";
  auto define = [&src](const std::string& name, const std::string& value) {
    src += "#define " + name + " " + value + "\n";
  };
  define("GLD_FP16", precision != Precision::kFp32 ? "1" : "0");
  if (precision == Precision::kFp16Mediump) define("GLD_MEDIUMP", "1");
  define("WG_X", std::to_string(workgroup[0]));
  define("WG_Y", std::to_string(workgroup[1]));
  define("WG_Z", std::to_string(workgroup[2]));
  for (const auto& [name, value] : spec.defines) {
    if (!IsIdentifier(name) || !(IsIdentifier(value) || IsIntegerLiteral(value))) {
      return InvalidArgumentError("shader define '" + name + "' = '" + value +
                                  "' is not an identifier / integer pair");
    }
    define(name, value);
  }
  // No #line directives: compiler messages then number the lines of the
  // whole program, which CompileComputeProgram quotes.
  src.append(common);
  for (const std::string& name : spec.libraries) {
    GLD_ASSIGN_OR_RETURN(std::string_view lib, FindTemplate(name));
    src += "\n// ---- " + name + "\n";
    src.append(lib);
  }
  src += "\n// ---- " + spec.template_name + "\n";
  src.append(body);
  return src;
}

Workgroup ChooseWorkgroup(const std::array<uint32_t, 3>& grid) {
  // 64 invocations, from a menu of four shapes: every workgroup size is a
  // separate program, and programs cost compile time (tens of ms each on
  // llvmpipe), so the choice is deliberately coarse.
  if (grid[0] >= 8) return grid[1] >= 4 ? Workgroup{8, 4, 2} : Workgroup{8, 1, 8};
  if (grid[0] == 1 && grid[1] == 1) return Workgroup{1, 1, 64};
  return Workgroup{4, 4, 4};
}

}  // namespace gld::gl
