#!/usr/bin/env bash
# Cross-builds gldelegate for an ARM target (Release, warnings as errors)
# and runs its tests under qemu-user in the target's root:
#   scripts/test_cross.sh aarch64   every unit and model test that x86 runs
#                                   (the GL ones on the target's own Mesa
#                                   llvmpipe), but the skips below
#   scripts/test_cross.sh armhf     the unit tests and the CPU model tests (the GL
#                                   ones skip themselves, naming the defect: the
#                                   root's llvmpipe miscomputes under qemu-arm,
#                                   docs/ARM.md)
# The root (scripts/make_target_root.sh) is both the compiler's sysroot and
# the chroot the tests run in: the source tree and ../shared are bound into
# it at their own paths, in a mount namespace of this script's own (gone
# when it ends), and CMAKE_CROSSCOMPILING_EMULATOR (scripts/cross_exec.sh)
# runs each test binary there, through binfmt_misc's qemu.
#   GLD_JOBS            parallel build jobs and tests (default: nproc)
#   GLD_CROSS_BUILD_DIR the build folder (default build-cross-<arch>; ccache where installed)
#   GLD_CROSS_TESTS     a ctest -R regex instead of the default selection
#   GLD_CROSS_SAMPLE    all (default): every test; ci: the slowest families
#                       sampled, each sample named in the log (scripts/test.sh's
#                       stage cross)
#   GLD_CROSS_TARGETS   the build targets instead of the default ones (with
#                       GLD_CROSS_TESTS: e.g. "gld_test_cpu_kernels gld_test_util")
# Skipped on both (named): the Python checks of the source tree and of the
# build tree's symbols (architecture.*, docs.paths_check: the same on every
# target, run by the x86 stages), the graph page in the host's browser
# (tools.graph_page_in_browser) and the host script tools.gpu_run_without_nvidia.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
case ${1:-} in
  aarch64) deb_arch=arm64 toolchain=aarch64-linux-gnu ;;
  armhf) deb_arch=armhf toolchain=arm-linux-gnueabihf ;;
  *) echo "usage: $0 aarch64|armhf" >&2; exit 2 ;;
esac
arch=$1
jobs=${GLD_JOBS:-$(nproc)}
build=${GLD_CROSS_BUILD_DIR:-build-cross-$deb_arch}
skips='^(architecture\.|docs\.paths_check$|tools\.graph_page_in_browser$|tools\.gpu_run_without_nvidia$)'
if [ "$arch" = aarch64 ]; then
  targets=(gld_unit_tests gld_test_models gld_test_conformance gld_test_hostile)
  labels=(-L 'unit|model')
else
  # armhf: the unit tests, and of the model tests the CPU backend's.
  targets=(gld_unit_tests gld_test_models)
  labels=(-L 'unit|model')
  skips="$skips|^models\..*Gl|^hostile\.|^conformance\."
fi

if [ -n "${GLD_CROSS_TARGETS:-}" ]; then
  read -r -a targets <<<"$GLD_CROSS_TARGETS"
  skips="$skips|_NOT_BUILT\$"  # the test executables not asked for
fi

t0=$SECONDS
root=$(./scripts/make_target_root.sh "$arch")
t_root=$((SECONDS - t0))

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Everything below in a mount namespace of its own: the test binaries run
# (from the build's test discovery on) in the root, with the source tree,
# the shared models and /proc, /sys, /dev bound in.
shared=$(realpath -m "$src/../shared")
export GLD_CROSS_ROOT=$root
unshare --mount --propagation private bash -s "$src" "$shared" "$build" "$toolchain" "$jobs" "$skips" \
  "$t_root" "${GLD_CROSS_TESTS:-}" "${targets[*]}" "${labels[@]}" "${launcher[@]}" <<'EOF'
set -euo pipefail
src=$1 shared=$2 build=$3 toolchain=$4 jobs=$5 skips=$6 t_root=$7 only=$8
read -r -a targets <<<"$9"
labels=("${10}" "${11}")
launcher=("${@:12}")
root=$GLD_CROSS_ROOT
bind() { mkdir -p "$root$2" && mount --rbind "$1" "$root$2"; }
bind "$src" "$src"
[ -d "$shared" ] && bind "$shared" "$shared"
bind /dev /dev
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs tmpfs "$root/tmp"

t0=$SECONDS
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLD_WERROR=ON \
  -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/$toolchain.cmake" -DCMAKE_SYSROOT="$root" \
  -DCMAKE_CROSSCOMPILING_EMULATOR="$src/scripts/cross_exec.sh" "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
t_build=$((SECONDS - t0))

t0=$SECONDS
select=("${labels[@]}" -E "$skips")
[ -n "$only" ] && select=(-R "$only" -E "$skips")
echo "=== test_cross: ctest ${select[*]}"
if [ "${GLD_CROSS_SAMPLE:-all}" = ci ] && [ -z "$only" ]; then
  # CI's sample of the slowest families under qemu (the measured CPU-seconds
  # of a cold CI run: docs/ARM.md; the GL tests' shader compiles under
  # emulation are two thirds of them): the family (ctest -R), the tests of
  # it kept (ctest -R, less those matching `but`), and every Nth of those by
  # test number (-I 1,,N). Everything else runs whole. `^gl\.` is the GL
  # unit tests beyond the gl.Ops and gl.Models families before it.
  # The last three families are long checks of what no CPU changes (a
  # memory footprint flat over 2,000 benchmark runs, the address space flat
  # over create/destroy cycles: not run; the control-flow mutant loops:
  # every second); they run whole in the x86 Release tests and in a whole
  # cross run.
  fam=('^hostile\.SharedModels/' '^gl\.Models/SharedModelGlTest\.GlBackendMatchesCpuBackend/'
    '^models\.Networks/.*Gl' '^gl\.Ops/' '^conformance\..*Gl' '^gl\.'
    '^tools\.HostileEnvironmentTest\.BenchmarkMemoryStaysFlatOverLongRuns$'
    '^api\.Reliability\.RealModelCreateDestroyCyclesKeepTheAddressSpaceFlat$'
    '^hostile\.ControlFlowCases/')
  # (A parameterized test's name goes on with "  # GetParam() = ...".)
  # keep '^$': none of the family.
  keep=('^hostile\.SharedModels/.*/face_detection_short_range( |$)'
    '^gl\.Models/SharedModelGlTest\.GlBackendMatchesCpuBackend/face_detection_short_range( |$)'
    '^models\.Networks/.*Gl' '^gl\.Ops/' '^conformance\..*Gl' '^gl\.' '^$' '^$' '^hostile\.ControlFlowCases/')
  but=('^$' '^$' '^$' '^$' '^$' '^gl\.(Ops|Models)/' '^$' '^$' '^$')
  every=(1 1 6 4 4 3 1 1 2)
  # Test numbers, sorted as text (what comm needs; -I takes any order).
  numbers() { ctest --test-dir "$build" -N "$@" | sed -n 's/^ *Test *#\([0-9]*\):.*/\1/p' | sort; }
  numbers "${select[@]}" >"$build/cross-all.txt"
  : >"$build/cross-dropped.txt"
  : >"$build/cross-kept.txt"
  for i in "${!fam[@]}"; do
    family=$(numbers -R "${fam[i]}" | comm -12 - "$build/cross-all.txt")
    kept=$(numbers -R "${keep[i]}" -E "${but[i]}" -I "1,,${every[i]}" | comm -12 - "$build/cross-all.txt")
    echo "=== test_cross: sampled ${fam[i]}: $(grep -c . <<<"$kept") of $(grep -c . <<<"$family")" \
      "(those matching ${keep[i]}, but ${but[i]}, every ${every[i]})"
    echo "$family" >>"$build/cross-dropped.txt"
    echo "$kept" >>"$build/cross-kept.txt"
  done
  grep . "$build/cross-dropped.txt" | sort -u | comm -23 "$build/cross-all.txt" - |
    sort -u - "$build/cross-kept.txt" | grep . | sort -n >"$build/cross-run.txt"
  echo "=== test_cross: CI's sample: $(wc -l <"$build/cross-run.txt") of $(wc -l <"$build/cross-all.txt") tests"
  # Absolute: ctest reads it from the build folder. The labels and skips
  # again beside it (ctest intersects them with -I).
  select=(-I "$(realpath "$build")/cross-sample.txt" "${select[@]}")
  printf '0,0,0,%s\n' "$(paste -sd, "$build/cross-run.txt")" >"$build/cross-sample.txt"
fi
rc=0
dot=()
[[ $toolchain == aarch64* ]] && dot=(GLD_EXPECT_NEON_DOT=1)
env "${dot[@]}" ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 1800 "${select[@]}" || rc=$?
t_tests=$((SECONDS - t0))
t0=$SECONDS
if [[ $toolchain == aarch64* && -z $only ]]; then
  # qemu's default CPU has dot product and fp16 arithmetic: the kernels'
  # SDOT forms ran above. Once more on a Cortex-A53 (Raspberry Pi 3; the
  # A72 of the Pi 4 has them neither): the plain NEON forms, and no
  # instruction of a newer CPU anywhere in those paths.
  echo "=== test_cross: the CPU kernel and feature tests on an emulated Cortex-A53 (QEMU_CPU=cortex-a53)"
  QEMU_CPU=cortex-a53 GLD_EXPECT_NEON_DOT=0 ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 1800 \
    -R '^(cpu_kernels\.|util\.CpuFeatures)' -E "$skips" || rc=$?
fi
t_a53=$((SECONDS - t0))
echo "=== test_cross: wall times: target root ${t_root} s, cross build ${t_build} s, tests under qemu ${t_tests} s" \
  "(the Cortex-A53 pass ${t_a53} s)"
exit "$rc"
EOF
