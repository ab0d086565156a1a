#!/usr/bin/env bash
# CMAKE_CROSSCOMPILING_EMULATOR of scripts/test_cross.sh: runs a target
# binary with its arguments in the target root GLD_CROSS_ROOT (a chroot
# whose binfmt_misc qemu runs it), in the current folder (bound into the
# root at its own path by test_cross.sh).
set -eu
: "${GLD_CROSS_ROOT:?cross_exec.sh: GLD_CROSS_ROOT names the target root (scripts/test_cross.sh sets it)}"
exec chroot "$GLD_CROSS_ROOT" /usr/bin/env --chdir="$PWD" "$@"
