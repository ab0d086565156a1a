/* GLD_EXPORT marks what libgldelegate exports: the C API (gldelegate.h) and
 * the public gld:: C++ API (gldelegate.hpp, types.hpp, status.hpp). The
 * library is compiled with hidden visibility, so everything else (the
 * flatbuffers, spdlog and fmt code it uses, its copy of the TFLite schema,
 * its internals) stays inside it; a version script (gl_delegate/
 * gldelegate.map) also keeps the C++ standard library's template code it
 * instantiates out of the dynamic symbol table. */
#ifndef GLDELEGATE_EXPORT_H_
#define GLDELEGATE_EXPORT_H_

#if defined(_WIN32)
#if defined(GLD_BUILDING_LIBRARY)
#define GLD_EXPORT __declspec(dllexport)
#else
#define GLD_EXPORT
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define GLD_EXPORT __attribute__((visibility("default")))
#else
#define GLD_EXPORT
#endif

#endif /* GLDELEGATE_EXPORT_H_ */
