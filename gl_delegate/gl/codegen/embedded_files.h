// GLSL templates from glsl/, embedded at build time (cmake/EmbedFilesScript.cmake).
#pragma once

#include <string_view>

namespace gld::gl {

struct EmbeddedFile {
  std::string_view name;      // "conv2d.comp"; empty name ends the table
  std::string_view contents;
};

extern const EmbeddedFile kEmbeddedFiles[];

}  // namespace gld::gl
