#!/usr/bin/env bash
# Installs the Debian packages gldelegate needs.
#   install_deps.sh [demo|all]   (--minimal is demo; default all)
#     demo: what scripts/run_demo.sh builds and runs: a C++ compiler, CMake,
#           Ninja, the library's and the tools' -dev packages and Mesa (EGL,
#           GLES, llvmpipe)
#     all:  demo plus what scripts/test.sh needs: GoogleTest, glslang, clang
#           (sanitizers, fuzzers), Python (venv, headers), chromium (renders
#           gld_inspect --html in tests/scripts/check_graph_page.py), dpkg-dev
#           and debootstrap (scripts/test_packages.sh)
# Skips apt entirely when everything is already installed (works offline then).
set -euo pipefail
profile=${1:-all}
demo=(
  g++ cmake ninja-build pkg-config
  libepoxy-dev libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libgbm1
  libflatbuffers-dev flatbuffers-compiler libglm-dev libspdlog-dev libfmt-dev
  libcli11-dev libxxhash-dev nlohmann-json3-dev
  libxnnpack-dev libpthreadpool-dev
)
ci=(
  build-essential git libgtest-dev glslang-tools
  clang libclang-rt-14-dev
  python3 python3-venv python3-dev
  chromium
  dpkg-dev debootstrap
)
case $profile in
  demo | --minimal) packages=("${demo[@]}") ;;
  all) packages=("${demo[@]}" "${ci[@]}") ;;
  *) echo "install_deps.sh: the profile is demo (--minimal) or all, not '$profile'" >&2; exit 2 ;;
esac
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
