#!/bin/bash
# gpu_prepare.sh: run on the development machine (Debian 12, network) before a
# run on a machine with an NVIDIA GPU. Fills gpu_carry/ (ignored by git) with
# what tools/gpu_run.sh needs there and the GPU machine lacks:
#   gpu_carry/loader/  GL loader packages (libglvnd, libEGL, libGLESv2, ...),
#                      unpacked into / there (they only add libraries)
#   gpu_carry/deps/    build and run dependencies of this project (epoxy,
#                      flatbuffers, spdlog, fmt, glm, CLI11, nlohmann-json,
#                      GoogleTest, xxhash), unpacked into a private folder there
#   gpu_carry/wheels/  ai-edge-litert for the GPU machine's Python 3.12 (and
#                      backports.strenum; numpy, flatbuffers, protobuf,
#                      ml_dtypes, tqdm are there)
#   gpu_carry/models/  the six shared models (../shared/models)
# Usage: tools/gpu_prepare.sh [--models DIR]  (GLD_LITERT_VERSION: default 2.3.0,
# the version tools/compare_litert.py was checked with)
# Then carry gpu_carry and run tools/gpu_run.sh OUT_DIR there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models="$root/../shared/models"
if [ "${1:-}" = "--models" ]; then models="$2"; fi
carry="$root/gpu_carry"
rm -rf "$carry"
mkdir -p "$carry/loader" "$carry/deps" "$carry/wheels" "$carry/models" /tmp/gld_amd64/partial
apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gld_amd64)
apt-get "${apt_opts[@]}" update >/dev/null
(cd "$carry/loader" && apt-get "${apt_opts[@]}" download libegl1 libglvnd0 libgles2 libopengl0 libgl1 libglx0)
(cd "$carry/deps" && apt-get "${apt_opts[@]}" download \
  libepoxy0 libepoxy-dev libegl-dev libgles-dev libgl-dev libglx-dev libglvnd-dev libxxhash0 libxxhash-dev \
  libflatbuffers2 libflatbuffers-dev flatbuffers-compiler libspdlog1.10 libspdlog-dev libfmt9 libfmt-dev \
  libglm-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev pkgconf pkgconf-bin libpkgconf3 \
  libx11-6 libx11-dev libxcb1 libxcb1-dev libxau6 libxau-dev libxdmcp6 libxdmcp-dev x11proto-dev xtrans-dev \
  libpthread-stubs0-dev libbsd0 libmd0)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$carry/wheels" "ai-edge-litert==${GLD_LITERT_VERSION:-2.3.0}" \
  backports.strenum  # its one requirement the GPU machine's Python lacks
cp "$models"/*.tflite "$carry/models/"
du -sh "$carry"
echo "gpu_prepare: done; carry gpu_carry and run tools/gpu_run.sh OUT_DIR on the GPU machine"
