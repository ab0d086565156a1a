#!/usr/bin/env bash
# Makes the target root of a cross build: a Debian 12 chroot of the target
# architecture, with the project's -dev packages installed in it. It is the
# sysroot the cross compiler builds against (cmake/toolchains/) and the
# place the cross-built tests run (scripts/test_cross.sh): qemu-user through
# binfmt_misc runs its binaries, threads included (a bare `qemu-aarch64 -L`
# at the cross toolchain's libc hangs at the first thread creation).
# A chroot, not multiarch -dev packages on the host: Debian's libxnnpack-dev
# cannot be installed for two architectures at once.
#   scripts/make_target_root.sh aarch64|armhf
#   GLD_TARGET_ROOTS   where the roots lie (default /work/roots): <dir>/arm64, <dir>/armhf
#   GLD_DEBIAN_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
# Idempotent: a root whose stamp names the same package list is left as it
# is (seconds); the host packages, the binfmt registration and the mounts
# are checked each time. Prints the root's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  aarch64) deb_arch=arm64 qemu=aarch64 ;;
  armhf) deb_arch=armhf qemu=arm ;;
  *) echo "usage: $0 aarch64|armhf" >&2; exit 2 ;;
esac
roots=${GLD_TARGET_ROOTS:-/work/roots}
root=$roots/$deb_arch
mirror=${GLD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the library, the tools and the tests link against and load (the
# target's own Mesa: llvmpipe for the GL tests).
target_packages=(
  libc6-dev libstdc++-12-dev
  libepoxy-dev libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libgbm1
  libflatbuffers-dev libglm-dev libspdlog-dev libfmt-dev libgtest-dev libcli11-dev libxxhash-dev
  nlohmann-json3-dev libxnnpack-dev libpthreadpool-dev
)
host_packages=(debootstrap qemu-user-static "crossbuild-essential-$deb_arch" ccache)

log() { printf 'make_target_root(%s): %s\n' "$deb_arch" "$*" >&2; }

missing=()
for p in "${host_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing on the host: ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# binfmt_misc: the target's ELF files run through qemu-user-static. Its
# registration has the F flag (the interpreter opened now), so the chroot
# needs no copy of qemu.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [ ! -e "/proc/sys/fs/binfmt_misc/qemu-$qemu" ]; then
  log "registering qemu-$qemu with binfmt_misc"
  cat "/usr/lib/binfmt.d/qemu-$qemu.conf" >/proc/sys/fs/binfmt_misc/register
fi

stamp=$root/.gld-target-root
want_stamp="bookworm $deb_arch ${target_packages[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
  log "up to date"
  echo "$root"
  exit 0
fi

mkdir -p "$roots/debs"
if [ ! -x "$root/usr/bin/apt-get" ] || [ -e "$root/debootstrap" ]; then
  log "debootstrap (first stage on the host, second stage under qemu)"
  rm -rf "$root"
  debootstrap --arch="$deb_arch" --foreign --variant=minbase --cache-dir="$(realpath "$roots/debs")" \
    bookworm "$root" "$mirror" >&2
  chroot "$root" /debootstrap/debootstrap --second-stage >&2
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
log "installing the target packages"
# Its own mount namespace: /proc for apt and the maintainer scripts, gone
# when the command ends.
unshare --mount --propagation private bash -c '
  set -e
  mount -t proc proc "$1/proc"
  chroot "$1" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq --no-install-recommends "${@:2}"
  chroot "$1" apt-get clean' _ "$root" "${target_packages[@]}" >&2
echo "$want_stamp" >"$stamp"
log "ready: $root ($(du -sh "$root" | cut -f1))"
echo "$root"
