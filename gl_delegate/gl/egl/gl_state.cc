#include "gl/egl/gl_state.h"

namespace gld::gl {

GlBindingState GlBindingState::Capture() {
  GlBindingState s;
  glGetIntegerv(GL_CURRENT_PROGRAM, &s.program);
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s.ssbo);
  GLint points = 0;
  glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &points);
  s.ssbo_indexed.resize(static_cast<size_t>(points > 0 ? points : 0));
  for (GLuint i = 0; i < s.ssbo_indexed.size(); ++i) {
    GlBufferRange& r = s.ssbo_indexed[i];
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &r.buffer);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &r.start);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &r.size);
  }
  glGetIntegerv(GL_ACTIVE_TEXTURE, &s.active_texture);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &s.texture_2d);
  return s;
}

void GlBindingState::Restore() const {
  const GlBindingState now = Capture();
  if (now.program != program) glUseProgram(static_cast<GLuint>(program));
  for (GLuint i = 0; i < ssbo_indexed.size() && i < now.ssbo_indexed.size(); ++i) {
    const GlBufferRange& r = ssbo_indexed[i];
    if (now.ssbo_indexed[i] == r) continue;
    if (r.buffer != 0 && r.size > 0) {
      glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, static_cast<GLuint>(r.buffer), static_cast<GLintptr>(r.start),
                        static_cast<GLsizeiptr>(r.size));
    } else {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, static_cast<GLuint>(r.buffer));
    }
  }
  // Indexed binds also set the generic binding: it goes back last.
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(ssbo));
  if (now.active_texture != active_texture || now.texture_2d != texture_2d) {
    glActiveTexture(static_cast<GLenum>(active_texture));
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture_2d));
  }
}

bool GlBindingState::operator==(const GlBindingState& o) const {
  return program == o.program && ssbo == o.ssbo && ssbo_indexed == o.ssbo_indexed &&
         active_texture == o.active_texture && texture_2d == o.texture_2d;
}

}  // namespace gld::gl
