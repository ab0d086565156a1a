#!/usr/bin/env bash
# The Debian package as a C or C++ user gets it: makes
# gldelegate_<version>_<arch>.deb from a built tree (cpack -G DEB,
# cmake/Package.cmake), installs it with `apt-get install ./...deb` in a clean
# Debian 12 root (debootstrap minbase, plus only a compiler, make and CMake:
# none of the -dev packages but those the package's Depends pull in), and
# builds and runs the external apps against /usr there: the C app through
# pkg-config and the CMake find_package app (tests/install/install_test.sh
# with GLD_INSTALLED_PREFIX=/usr), then the installed gld_run. Needs root
# (chroot, mount; sudo otherwise) and network to deb.debian.org the first time.
# Run by scripts/test.sh (stage packages); alone: ./scripts/test_packages.sh
#   test_packages.sh [BUILD_DIR]   a configured and built Release tree (build)
#   GLD_PKG_ROOT=DIR   the clean root (default /var/tmp/gldelegate-pkgroot),
#       made once and reused: each run first purges the package the last run
#       installed and what it pulled in (apt-get purge, autoremove)
#   GLD_DEBIAN_MIRROR  (default http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=${GLD_PKG_ROOT:-/var/tmp/gldelegate-pkgroot}
mirror=${GLD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
models=${GLD_TEST_MODELS:-$(cd .. && pwd)/shared/models}
model=face_detection_short_range.tflite
if [ ! -f "$models/$model" ]; then
  echo "SKIP: shared model $models/$model not found (set GLD_TEST_MODELS)"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
in_root() { $SUDO chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive "$@"; }
apt_in_root() { in_root apt-get -o Dpkg::Use-Pty=0 -y -qq "$@"; }  # no pty: the root has no /dev/pts

echo "== cpack -G DEB ($build)"
rm -f "$build"/gldelegate_*.deb
(cd "$build" && cpack -G DEB > cpack.log) || { cat "$build/cpack.log"; exit 1; }
deb=$(ls "$build"/gldelegate_*_"$(dpkg --print-architecture)".deb)
echo "$deb: $(du -h "$deb" | cut -f1)"
dpkg-deb -f "$deb" Depends Recommends
# The library, headers, CMake and pkg-config files and tools; not the Python
# extension (the wheel's), even when pip has built in this tree.
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in usr/lib/libgldelegate.so.0 usr/include/gldelegate/gldelegate.h usr/lib/cmake/gldelegate/gldelegateConfig.cmake \
         usr/lib/pkgconfig/gldelegate.pc usr/bin/gld_run usr/bin/gld_inspect usr/bin/gld_benchmark; do
  grep -qx "\./$f" <<< "$contents" || { echo "not in the package: /$f"; exit 1; }
done
if grep -q _gldelegate <<< "$contents"; then echo "the package holds the Python extension"; exit 1; fi

if [ ! -f "$root/.gld_root_ready" ]; then
  echo "== a clean root: debootstrap --variant=minbase bookworm $root"
  $SUDO rm -rf "$root"
  $SUDO debootstrap --variant=minbase bookworm "$root" "$mirror" > /tmp/gld_debootstrap.log 2>&1 ||
    { tail -20 /tmp/gld_debootstrap.log; exit 1; }
  $SUDO cp /etc/resolv.conf "$root/etc/resolv.conf"
  # What a user builds with; the package must bring everything else.
  { apt_in_root update && apt_in_root install --no-install-recommends g++ make cmake; } \
    > /tmp/gld_pkgroot_base.log 2>&1 || { tail -20 /tmp/gld_pkgroot_base.log; exit 1; }
  $SUDO touch "$root/.gld_root_ready"
fi
$SUDO cp /etc/resolv.conf "$root/etc/resolv.conf"
mountpoint -q "$root/proc" || { $SUDO mount -t proc proc "$root/proc"; trap '$SUDO umount "$root/proc"' EXIT; }

if in_root dpkg-query -W gldelegate > /dev/null 2>&1; then
  echo "== removing the last run's package and what it pulled in"
  apt_in_root purge gldelegate > /dev/null
  apt_in_root autoremove --purge > /dev/null
fi
work=/tmp/gld_pkg
$SUDO rm -rf "${root:?}$work"
$SUDO mkdir -p "$root$work/src/tests" "$root$work/src/docs" "$root$work/src/gl_delegate/include/gldelegate" \
  "$root$work/models"
$SUDO cp "$deb" "$root$work/"
$SUDO cp -r tests/install "$root$work/src/tests/"
$SUDO cp README.md "$root$work/src/"
$SUDO cp docs/USER_GUIDE.md docs/DELEGATE.md "$root$work/src/docs/"
$SUDO cp gl_delegate/include/gldelegate/gldelegate.hpp "$root$work/src/gl_delegate/include/gldelegate/"
$SUDO cp "$models/$model" "$root$work/models/"

echo "== apt-get install ./$(basename "$deb") (in $root)"
install_deb() { apt_in_root install "$work/$(basename "$deb")" > "$build/apt_install.log" 2>&1; }
install_deb || { apt_in_root update && install_deb; } || { cat "$build/apt_install.log"; exit 1; }
in_root dpkg -L gldelegate | grep -E 'bin/gld_run$|libgldelegate\.so\.[0-9]+$|gldelegate\.pc$|gldelegateConfig\.cmake$'

echo "== the external apps against /usr (tests/install/install_test.sh)"
in_root env GLD_INSTALLED_PREFIX=/usr GLD_TEST_MODELS="$work/models" \
  bash "$work/src/tests/install/install_test.sh" - "$work/src" "$work/work" "$work/models"
echo "== the installed gld_run"
in_root gld_run --graph="$work/models/$model" --backend=cpu --seed=1
echo "package test passed"
