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
#   GLD_TARGET_EXTRA_PACKAGES  more target packages, space-separated (e.g.
#                      "python3 python3-venv" for LiteRT's aarch64 wheel beside
#                      the tools: scripts/compare_litert_cross.sh)
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
read -r -a extra_packages <<<"${GLD_TARGET_EXTRA_PACKAGES:-}"
target_packages+=("${extra_packages[@]}")
host_packages=(qemu-user-static "crossbuild-essential-$deb_arch" ccache)

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

# The packages and everything they depend on, resolved and downloaded by
# the host's apt for the target architecture (a state of their own under
# $roots/apt-$deb_arch, an empty dpkg status: nothing counts as installed),
# then unpacked into the root with dpkg-deb. No maintainer script runs, none
# under qemu: for a sysroot and a place to run test programs the files are
# what counts. The few things a script would have done follow: the merged
# /usr links (made before the unpacking, kept by tar), the dynamic linker's
# cache (the target's static ldconfig, one emulated program) and an
# /etc/passwd for the programs that look a user up.
apt_dir=$roots/apt-$deb_arch
rm -rf "$root" "$apt_dir"
mkdir -p "$roots/debs/partial" "$apt_dir"/{lists/partial,etc/apt.conf.d,etc/preferences.d,etc/sources.list.d} "$root"
: >"$apt_dir/status"
echo "deb [arch=$deb_arch] $mirror bookworm main" >"$apt_dir/etc/sources.list"
apt_opts=(-o "APT::Architecture=$deb_arch" -o "APT::Architectures::=$deb_arch" -o "Dir::Etc=$apt_dir/etc"
  -o "Dir::Etc::Trusted=/etc/apt/trusted.gpg" -o "Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d"
  -o "Dir::State=$apt_dir" -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir"
  -o "Dir::Cache::archives=$(realpath "$roots/debs")" -o "APT::Install-Recommends=false"
  -o "Debug::NoLocking=true")
log "resolving and downloading the $deb_arch packages (host apt)"
apt-get "${apt_opts[@]}" update -qq >&2
# The runtime of the test programs' commands beside the libraries: env
# (cross_exec.sh), sh and bash.
DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --download-only \
  "${target_packages[@]}" coreutils bash dash libc-bin base-files >&2
mapfile -t debs < <(apt-get "${apt_opts[@]}" install -s -qq "${target_packages[@]}" coreutils bash dash \
  libc-bin base-files | awk '$1 == "Inst" { print $2 " " $3 }' | tr -d '()[]' |
  while read -r name version; do
    v=${version//:/%3a}
    ls "$roots/debs/${name}_${v}_"{"$deb_arch",all}.deb 2>/dev/null || true
  done)
log "unpacking ${#debs[@]} packages"
for d in bin sbin lib; do ln -s "usr/$d" "$root/$d"; done
mkdir -p "$root"/usr/{bin,sbin,lib} "$root"/{etc,tmp,proc,sys,dev,root}
for deb in "${debs[@]}"; do
  dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$root"
done
[ -e "$root/etc/passwd" ] || printf 'root:x:0:0:root:/root:/bin/bash\n' >"$root/etc/passwd"
[ -e "$root/etc/group" ] || printf 'root:x:0:\n' >"$root/etc/group"
chmod 1777 "$root/tmp"
chroot "$root" /sbin/ldconfig
echo "$want_stamp" >"$stamp"
log "ready: $root ($(du -sh "$root" | cut -f1))"
echo "$root"
