#!/usr/bin/env bash
# Installs the Debian packages gldelegate needs to build and test.
# Skips apt entirely when everything is already installed (works offline then).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libepoxy-dev libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libgbm1
  libflatbuffers-dev flatbuffers-compiler libglm-dev libspdlog-dev libfmt-dev
  libgtest-dev libcli11-dev libxxhash-dev nlohmann-json3-dev glslang-tools
  libxnnpack-dev libpthreadpool-dev
  clang libclang-rt-14-dev
  python3 python3-venv python3-dev
  chromium  # headless: renders gld_inspect --html in tests/scripts/check_graph_page.py
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
