#!/usr/bin/env bash
# Fails naming each symbol libgldelegate.so exports beyond its public API:
# the C API (Gld*) and the public gld:: C++ API (gld::Model, gld::Status, ...;
# no internal namespace such as gld::gl, gld::cpu or gld::tflite, and nothing
# of flatbuffers, spdlog, fmt or the standard library); and the pthreadpool
# interface (pthreadpool_*) that XNNPACK calls, served by the library's own
# thread pool (see gl_delegate/gldelegate.map); and TFLite's external delegate
# interface (tflite_plugin_create_delegate, tflite_plugin_destroy_delegate).
#   check_exports.sh LIBRARY
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only --demangle "$lib" | awk '{ $1 = ""; $2 = ""; sub(/^  /, ""); print }' | sed 's/@.*//')
bad=$(printf '%s\n' "$syms" | grep -v -E '^(Gld[A-Za-z]+|GLDELEGATE_[0-9]+|pthreadpool_[a-z0-9_]+|tflite_plugin_(create|destroy)_delegate)$' |
      grep -v -E '^gld::(Model|Interpreter|Status|StatusCodeName|SupportedOps|VerifyProgramCache|PlanModel|VersionString|BackendName|PrecisionName|ContextModeName|GlLimitsName|ElementTypeName|ElementTypeSize|HalfToFloat|FloatToHalf|ParseBackend|ParsePrecision|ParseContextMode|ParseGlLimits|RegisterCustomOp|LoadCustomOpLibrary|CustomOptionsMap|CustomOpsOf|CheckOption|CheckOptions)[(:]' || true)
count=$(printf '%s\n' "$syms" | grep -c -E '^(Gld|gld::)' || true)
echo "$lib: $count public symbols"
if [ -n "$bad" ]; then
  echo "exported beyond the public API:"
  printf '  %s\n' "$bad"
  exit 1
fi
# The C API must be there (a script that hid everything would pass above).
for s in GldModelCreateFromFile GldInterpreterCreate GldInterpreterInvoke GldTfLiteDelegateCreate \
         tflite_plugin_create_delegate tflite_plugin_destroy_delegate; do
  printf '%s\n' "$syms" | grep -qx "$s" || { echo "missing export: $s"; exit 1; }
done
printf '%s\n' "$syms" | grep -q '^gld::Interpreter::Create(' || { echo "missing export: gld::Interpreter::Create"; exit 1; }
