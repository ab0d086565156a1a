#!/usr/bin/env bash
# Installs dependencies, builds gldelegate with warnings as errors, runs every
# test; validates every generated shader with glslangValidator; runs the GL
# model tests again at the GLES 3.1 minimum limits and on Mesa's softpipe;
# then rebuilds under AddressSanitizer + UBSan and runs the unit tests
# again; then fuzzes the model loader, the .npy reader and the program cache
# entry reader for 60 s each; builds the Python package with `pip install .`
# in a fresh virtual environment and runs its tests. This is what CI runs.
#   GLD_JOBS     parallel build jobs (default: nproc)
#   GLD_SKIP_SANITIZE=1, GLD_SKIP_FUZZ=1, GLD_SKIP_PYTHON=1   skip those stages
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${GLD_JOBS:-$(nproc)}
stage() { printf '\n=== %s (%ds)\n' "$1" "$SECONDS"; }

stage "dependencies"
./scripts/install_deps.sh

stage "build (Release, -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLD_WERROR=ON
cmake --build build -j "$jobs"

stage "tests"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900

stage "shader validation (glslangValidator over every plan's programs)"
./scripts/validate_shaders.sh build

# The GL tests on real models once more, planned for the smallest GLES 3.1
# device (GLD_GL_LIMITS=minimum), then on a second driver, Mesa's softpipe.
gl_model_tests='^gl\.(Models/|SharedModelSplitTest|MinimumLimitsTest)|^models\..*Gl'
stage "GL model tests at the GLES 3.1 minimum limits"
GLD_GL_LIMITS=minimum ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900 -R "$gl_model_tests"
stage "GL tests of the shared models on softpipe (fp32)"
GALLIUM_DRIVER=softpipe GLD_TEST_GL_PRECISIONS=fp32 ctest --test-dir build --output-on-failure -j "$jobs" --timeout 1200 \
  -R '^gl\.Models/SharedModelGlTest\.GlBackendMatchesCpuBackend'

if [ "${GLD_SKIP_PYTHON:-0}" != 1 ]; then
  stage "Python package (pip install . in a fresh venv, example, pytest)"
  # pip builds in the Release tree above: the library's objects are reused,
  # only the extension module compiles.
  GLD_PYTHON_BUILD_DIR=build ./scripts/test_python.sh
fi

if [ "${GLD_SKIP_SANITIZE:-0}" != 1 ]; then
  stage "build (ASan + UBSan)"
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLD_WERROR=ON -DGLD_SANITIZE=ON
  cmake --build build-sanitize -j "$jobs"
  stage "unit tests under ASan + UBSan"
  # llvmpipe and the EGL loader keep allocations alive until exit on purpose.
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -L unit --timeout 900
fi

if [ "${GLD_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz the loader (60 s)"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGLD_FUZZ=ON -DGLD_BUILD_TOOLS=OFF -DGLD_BUILD_TESTS=ON
  cmake --build build-fuzz -j "$jobs" --target gld_fuzz_loader gld_fuzz_seeds
  corpus=build-fuzz/loader_corpus
  rm -rf "$corpus" && mkdir -p "$corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_seeds "$corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_loader -max_total_time=60 -seed=1 -print_final_stats=1 "$corpus"

  stage "fuzz the .npy reader (60 s)"
  cmake --build build-fuzz -j "$jobs" --target gld_fuzz_npy gld_fuzz_npy_seeds
  npy_corpus=build-fuzz/npy_corpus
  rm -rf "$npy_corpus" && mkdir -p "$npy_corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_npy_seeds "$npy_corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_npy -max_total_time=60 -seed=1 -print_final_stats=1 "$npy_corpus"

  stage "fuzz the program cache entry reader (60 s)"
  cmake --build build-fuzz -j "$jobs" --target gld_fuzz_cache gld_fuzz_cache_seeds
  corpus=build-fuzz/cache_corpus
  rm -rf "$corpus" && mkdir -p "$corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_cache_seeds "$corpus"
  ./build-fuzz/tests/fuzz/gld_fuzz_cache -max_total_time=60 -seed=1 -print_final_stats=1 "$corpus"
fi

stage "done"
