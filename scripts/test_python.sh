#!/usr/bin/env bash
# The Python package as a user gets it: a fresh virtual environment,
# `pip install .` (scikit-build-core builds the CMake project), then the
# README's Python example and the pytest suite (LiteRT from PyPI as the
# reference). Run by scripts/test.sh; alone: ./scripts/test_python.sh
#   GLD_PYTHON=python3   the interpreter to make the environment with
#   GLD_PYTHON_BUILD_DIR=DIR   scikit-build-core builds in DIR (an existing
#       build tree of the same configuration, e.g. scripts/test.sh's Release
#       build: only the extension module is compiled then, the library's
#       objects are reused); default: a temporary folder, everything compiled
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-python/venv
rm -rf "$venv"
"${GLD_PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q numpy pytest ai-edge-litert
if [ -n "${GLD_PYTHON_BUILD_DIR:-}" ]; then
  # Keep the tree's tests and tools as they are (pyproject.toml turns them off).
  "$venv/bin/python" -m pip install -q . --config-settings=build-dir="$GLD_PYTHON_BUILD_DIR" \
    --config-settings=cmake.define.GLD_BUILD_TESTS=ON --config-settings=cmake.define.GLD_BUILD_TOOLS=ON
else
  "$venv/bin/python" -m pip install -q .
fi
models=${GLD_TEST_MODELS:-$(cd .. && pwd)/shared/models}
"$venv/bin/python" examples/python/quickstart.py "$models/hand_landmark_lite.tflite"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
