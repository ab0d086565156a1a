// What a compute shader's source says it touches, read from the complete
// GLSL a dispatch compiles (not from the plan's bindings or the issue plan's
// helpers): its shader storage blocks and image uniforms per binding point,
// each read and / or written as its `readonly` / `writeonly` qualifiers say,
// and whether it samples textures. The source is preprocessed first
// (#define with parameters, #if / #ifdef / #elif / #else / #endif), so a
// block a condition compiles out touches nothing, and a binding point a
// macro names is the macro's value.
//
// Pure text work, no GL. Used by the hazard checker (gl/hazard_check.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gld::gl {

struct ShaderInterface {
  struct Use {
    bool read = false;
    bool write = false;
  };
  std::map<uint32_t, Use> storage_blocks;  // SSBO binding point -> how the shader uses it
  std::map<uint32_t, Use> images;          // image unit -> how
  int samplers = 0;                        // sampler uniforms (texture fetches)
  // Declarations whose binding point cannot be told (a name left after
  // macro expansion, an unreadable #if): "buffer 'Weights': binding = N".
  std::vector<std::string> problems;
};

ShaderInterface ReadShaderInterface(const std::string& glsl);

// The active text of `glsl` after its preprocessor directives: lines a
// condition drops removed, macros expanded. Errors go to `problems`.
// `declarations_only`: of lines inside braces (function bodies, block
// members) only the braces are kept, unexpanded (a macro whose body has
// unbalanced braces would mislead it; none does) - what ReadShaderInterface
// needs, at a fraction of the cost.
std::string PreprocessGlsl(const std::string& glsl, std::vector<std::string>* problems,
                           bool declarations_only = false);

}  // namespace gld::gl
