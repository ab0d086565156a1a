// The GL bindings this backend changes in a context: the current program,
// the generic and indexed shader storage buffer bindings, the active texture
// unit and its 2D texture. When the backend runs in the app's own context
// (ContextMode kCurrent / kCurrentIfAny), ScopedCurrent captures them on
// entry and restores them on exit, so the app's GL state is what it was.
#pragma once

#include <epoxy/gl.h>

#include <vector>

namespace gld::gl {

struct GlBufferRange {
  GLint buffer = 0;
  GLint64 start = 0, size = 0;  // size 0: bound whole (glBindBufferBase)
  bool operator==(const GlBufferRange& o) const {
    return buffer == o.buffer && start == o.start && size == o.size;
  }
};

struct GlBindingState {
  GLint program = 0;
  GLint ssbo = 0;                        // GL_SHADER_STORAGE_BUFFER
  std::vector<GlBufferRange> ssbo_indexed;  // one per binding point
  GLint active_texture = GL_TEXTURE0;
  GLint texture_2d = 0;                  // on the active unit

  // Reads the bindings of the current context (GLES 3.1).
  static GlBindingState Capture();
  // Puts back every binding that differs from this state in the current
  // context.
  void Restore() const;
  bool operator==(const GlBindingState& o) const;
};

}  // namespace gld::gl
