#!/usr/bin/env bash
# tools/compare_litert.py on AArch64 under qemu-user: LiteRT's own aarch64
# wheel (ai-edge-litert from PyPI, XNNPACK) beside the cross-built
# gld_benchmark, in one run, in an arm64 Debian root. Emulation is not
# hardware: only the ratios of one run mean anything, and they are a proxy
# for the work each side does (docs/ARM.md).
#   scripts/compare_litert_cross.sh [compare_litert.py arguments]
#     e.g. --graph=tests/data/networks/mobilenet_v2_int8/model.tflite --backends=cpu --threads=1
#   GLD_CROSS_BUILD_DIR  the cross build with tools/gld_benchmark (default build-cross-arm64:
#                        scripts/test_cross.sh aarch64 makes it)
#   GLD_CROSS_ALSO       more builds for compare_litert.py --also, as NAME=DIR (space-separated;
#                        e.g. "scalar=build-cross-arm64-scalar": a build with -DGLD_SCALAR_KERNELS=ON)
#   QEMU_CPU             the emulated CPU (default cortex-a76, Raspberry Pi 5's: dot
#                        product, fp16; cortex-a72 is the Pi 4's). Not qemu's default
#                        "max": there LiteRT's aarch64 wheel gives other integers
#                        than on x86 (MobileNetV2 int8: 8.5% equal, 169 steps apart;
#                        equal on cortex-a72 and -a76), an emulation fault of the
#                        newer extensions "max" adds that it uses.
# The root (scripts/make_target_root.sh with python3) lies under
# $GLD_TARGET_ROOTS/bench (default /work/roots/bench); the wheels are
# downloaded by the host's pip for manylinux aarch64 and installed in a venv
# there (/opt/litert) once.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${GLD_CROSS_BUILD_DIR:-build-cross-arm64}
[ -x "$build/tools/gld_benchmark" ] || {
  echo "compare_litert_cross: no $build/tools/gld_benchmark (scripts/test_cross.sh aarch64, or cmake --build $build --target gld_benchmark)" >&2
  exit 2
}
roots=${GLD_TARGET_ROOTS:-/work/roots}/bench
root=$(GLD_TARGET_ROOTS=$roots GLD_TARGET_EXTRA_PACKAGES="python3 python3-venv" ./scripts/make_target_root.sh aarch64)
litert_version=2.3.0
also=()
for a in ${GLD_CROSS_ALSO:-}; do
  also+=("--also=${a%%=*}=$src/${a#*=}/tools/gld_benchmark")
done
shared=$(realpath -m "$src/../shared")
export QEMU_CPU=${QEMU_CPU:-cortex-a76}
echo "compare_litert_cross: QEMU_CPU=$QEMU_CPU" >&2
unshare --mount --propagation private bash -s "$root" "$src" "$shared" "$litert_version" \
  "$src/$build/tools/gld_benchmark" "${also[@]}" "$@" <<'EOF'
set -euo pipefail
root=$1 src=$2 shared=$3 litert_version=$4 bench=$5
shift 5
bind() { mkdir -p "$root$2" && mount --rbind "$1" "$root$2"; }
bind "$src" "$src"
[ -d "$shared" ] && bind "$shared" "$shared"
bind /dev /dev
mount -t proc proc "$root/proc"
# Not the host's sysfs: cpuinfo (in LiteRT's XNNPACK and in Debian's)
# reads the CPU list there, and the host's x86 topology crashed LiteRT's.
# The processor list alone, as the host's, in a tmpfs of its own.
mount -t tmpfs tmpfs "$root/sys"
mkdir -p "$root/sys/devices/system/cpu"
for f in possible present online; do cat "/sys/devices/system/cpu/$f" >"$root/sys/devices/system/cpu/$f"; done
mount -t tmpfs tmpfs "$root/tmp"
if ! chroot "$root" /opt/litert/bin/python -c "import ai_edge_litert, numpy" 2>/dev/null; then
  echo "compare_litert_cross: LiteRT $litert_version's aarch64 wheel into $root/opt/litert" >&2
  rm -rf "$root/wheels" && mkdir -p "$root/wheels"
  platforms=(--platform manylinux2014_aarch64)
  for v in 17 27 28 31 34 35 36; do platforms+=(--platform "manylinux_2_${v}_aarch64"); done
  python3 -m pip download -q --only-binary=:all: "${platforms[@]}" --python-version 3.11 --implementation cp \
    -d "$root/wheels" "ai-edge-litert==$litert_version" numpy
  chroot "$root" /usr/bin/python3 -m venv /opt/litert
  chroot "$root" /opt/litert/bin/python -m pip install -q --no-index --find-links /wheels \
    "ai-edge-litert==$litert_version" numpy
fi
cd "$root$src"
chroot "$root" /usr/bin/env -C "$src" HOME=/root PATH=/opt/litert/bin:/usr/bin:/bin \
  /opt/litert/bin/python tools/compare_litert.py --gld_benchmark="$bench" "$@"
EOF
