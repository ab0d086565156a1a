#!/usr/bin/env bash
# The Python package as a user gets it: a fresh virtual environment,
# `pip install .` (scikit-build-core builds the CMake project), then the
# README's Python example and the pytest suite (LiteRT from PyPI as the
# reference). Run by scripts/test.sh; alone: ./scripts/test_python.sh
#   GLD_PYTHON=python3   the interpreter to make the environment with
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-python/venv
rm -rf "$venv"
"${GLD_PYTHON:-python3}" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q numpy pytest ai-edge-litert
"$venv/bin/python" -m pip install -q .
models=${GLD_TEST_MODELS:-$(cd .. && pwd)/shared/models}
"$venv/bin/python" examples/python/quickstart.py "$models/hand_landmark_lite.tflite"
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
