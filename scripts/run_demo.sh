#!/usr/bin/env bash
# Installs dependencies, builds gldelegate, writes the project's own demo model
# and runs it (backend auto: the GPU through EGL/GLES 3.1 when it is a hardware
# one, else the CPU, saying why; pass --backend=gl to force GL, e.g. llvmpipe).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${GLD_JOBS:-$(nproc)}"
./build/tools/gld_make_model --out=build/demo.tflite
./build/tools/gld_run --graph=build/demo.tflite --seed=1 --output_dir=build/demo_out "$@"
