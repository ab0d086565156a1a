#!/usr/bin/env bash
# Installs the built project into a temporary prefix, then builds and runs
# apps against it the way a user would:
#   - a C app through pkg-config (c_app.c: GL against CPU on a shared model),
#   - a C++ app through find_package(gldelegate): the README's C++ quick
#     start (the "embedding-example" block), docs/USER_GUIDE.md's zero-copy
#     block (compiled only) and the example in gldelegate.hpp's comment,
# and configures a parent project that embeds the source tree with
# add_subdirectory. With STATIC_ARCHIVE (the same objects as a static
# libgldelegate.a), it also links the C app statically through
# `pkg-config --static` (Requires.private / Libs.private). Exits 77 (skipped)
# when the shared models are absent.
#   install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR DEFAULT_MODELS_DIR [STATIC_ARCHIVE]
#   GLD_INSTALLED_PREFIX=/usr: nothing is installed (BUILD_DIR is unused): the
#       apps build against what a package put there (scripts/test_packages.sh,
#       the .deb), and the add_subdirectory project (which needs the
#       build dependencies) is left out
set -euo pipefail
build=$1 src=$2 work=$3
models=${GLD_TEST_MODELS:-$4}
model=$models/face_detection_short_range.tflite
if [ ! -f "$model" ]; then
  echo "SKIP: shared model $model not found (set GLD_TEST_MODELS)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
prefix=${GLD_INSTALLED_PREFIX:-$work/prefix}

if [ -z "${GLD_INSTALLED_PREFIX:-}" ]; then
  echo "== cmake --install $build --prefix $prefix"
  cmake --install "$build" --prefix "$prefix" > "$work/install.log"
fi
libdir=$(dirname "$(find "$prefix" -name gldelegate.pc)")/..
for f in include/gldelegate/gldelegate.h include/gldelegate/gldelegate.hpp include/gldelegate/export.h \
         include/gldelegate/options.hpp include/gldelegate/options.inc include/gldelegate/report.inc \
         bin/gld_run bin/gld_inspect; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
ls "$libdir"/libgldelegate.* "$libdir"/cmake/gldelegate/

echo "== C app through pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
pkg-config --exists --print-errors gldelegate
pkg-config --static --libs gldelegate > /dev/null  # every Requires.private module resolves
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror -o "$work/c_app" "$src/tests/install/c_app.c" \
  $(pkg-config --cflags --libs gldelegate) -lm -Wl,-rpath,"$(cd "$libdir" && pwd)"
"$work/c_app" "$model"

if [ -n "${5:-}" ]; then
  echo "== C app linked statically through pkg-config --static"
  static=$work/static_prefix
  cp -r "$prefix" "$static"
  slibdir=$(dirname "$(find "$static" -name gldelegate.pc)")/..
  rm -f "$slibdir"/libgldelegate.so*
  cp "$5" "$slibdir/libgldelegate.a"
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror -o "$work/c_app_static" "$src/tests/install/c_app.c" \
    $(PKG_CONFIG_PATH=$slibdir/pkgconfig pkg-config --static --cflags --libs gldelegate) -lm
  if ldd "$work/c_app_static" | grep -q gldelegate; then
    echo "c_app_static links libgldelegate dynamically"
    exit 1
  fi
  "$work/c_app_static" "$model"
fi

echo "== C++ app through find_package(gldelegate)"
app=$work/cxx_app
mkdir -p "$app"
# The README's example: the ```cpp block after the <!-- embedding-example --> mark.
awk '/<!-- embedding-example -->/{mark=1; next} mark && /^```cpp/{code=1; next} code && /^```/{exit} code{print}' \
  "$src/README.md" > "$app/readme_example.cpp"
[ -s "$app/readme_example.cpp" ] || { echo "README.md has no embedding example"; exit 1; }
# The user guide's zero-copy block (a function, compiled only).
awk '/<!-- zero-copy-example -->/{mark=1; next} mark && /^```cpp/{code=1; next} code && /^```/{exit} code{print}' \
  "$src/docs/USER_GUIDE.md" > "$app/zero_copy_example.cpp"
grep -q InvokeAsync "$app/zero_copy_example.cpp" || { echo "docs/USER_GUIDE.md has no zero-copy example"; exit 1; }
# docs/DELEGATE.md's C++ example (a function template, compiled only).
awk '/<!-- delegate-example -->/{mark=1; next} mark && /^```cpp/{code=1; next} code && /^```/{exit} code{print}' \
  "$src/docs/DELEGATE.md" > "$app/delegate_example.cpp"
grep -q GldTfLiteDelegateCreate "$app/delegate_example.cpp" || { echo "docs/DELEGATE.md has no C++ example"; exit 1; }
# gldelegate.hpp's example: the comment lines after "// Example", in a function.
{
  echo '#include <vector>'
  echo '#include <gldelegate/gldelegate.hpp>'
  echo 'gld::Status HeaderExample() {'
  awk '/^\/\/ Example/{code=1; next} code && /^\/\/   /{sub(/^\/\/   /, ""); print; next} code{exit}' \
    "$src/gl_delegate/include/gldelegate/gldelegate.hpp"
  echo '  return gld::OkStatus();'
  echo '}'
} > "$app/header_example.cpp"
grep -q Invoke "$app/header_example.cpp" || { echo "gldelegate.hpp has no example"; exit 1; }
cmake -S "$src/tests/install/cxx_app" -B "$app" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" > "$app/configure.log" || { cat "$app/configure.log"; exit 1; }
cmake --build "$app"
"$app/readme_example" "$model"

if [ -n "${GLD_INSTALLED_PREFIX:-}" ]; then
  echo "install test passed (against $prefix)"
  exit 0
fi
echo "== parent project with add_subdirectory (configure only)"
cmake -S "$src/tests/install/subdir_app" -B "$work/subdir_app" -DGLD_SOURCE_DIR="$src" -G Ninja \
  > "$work/subdir.log" 2>&1 || { cat "$work/subdir.log"; exit 1; }
grep "subdir_app:" "$work/subdir.log"
echo "install test passed"
