#!/usr/bin/env bash
# Installs dependencies, builds gldelegate with warnings as errors, runs every
# test; validates every generated shader with glslangValidator; runs the GL
# model tests again at the GLES 3.1 minimum limits and on Mesa's softpipe;
# makes the .deb and builds apps against it in a clean Debian root, and the
# Python wheel, installed in a fresh virtual environment where its tests run
# (both in the background, beside the next build); builds the unit tests
# under AddressSanitizer + UBSan and runs them, and fuzzes the model loader, the .npy reader and the program cache
# entry reader (clang, libFuzzer, ASan + UBSan) for 60 s each, the three at
# once; cross-builds for aarch64 and runs its tests under qemu (CI's sample
# of the slowest families, scripts/test_cross.sh). This is what CI runs. At the end (also when a stage fails) a table
# gives each stage's wall time and the CPU time of its commands.
#   GLD_JOBS     parallel build jobs (default: nproc)
#   GLD_SKIP_SANITIZE=1, GLD_SKIP_FUZZ=1, GLD_SKIP_PYTHON=1, GLD_SKIP_PACKAGES=1,
#   GLD_SKIP_CROSS=1   skip those stages
#   GLD_STAGES="..."   run only these stages (default: all), of
#       deps build tests shaders minimum softpipe packages python sanbuild sanitize fuzz cross
#       (cross: the aarch64 target root, made in the background from the
#       build stage on, then scripts/test_cross.sh aarch64 with
#       GLD_CROSS_SAMPLE=ci unless set)
#       (a stage needs the build tree of the stages before it: build makes
#       build/, sanbuild the sanitizer builds of what sanitize and fuzz run,
#       as far as they are listed)
#   GLD_SANITIZER_CC=clang|gcc   the sanitizer builds (below; default clang)
#   GLD_FUZZ_SECONDS   how long each fuzzer runs (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${GLD_JOBS:-$(nproc)}
fuzz_seconds=${GLD_FUZZ_SECONDS:-60}
stages=" ${GLD_STAGES:-deps build tests shaders minimum softpipe packages python sanbuild sanitize fuzz cross} "
[ "${GLD_SKIP_PYTHON:-0}" = 1 ] && stages=${stages/ python / }
[ "${GLD_SKIP_PACKAGES:-0}" = 1 ] && stages=${stages/ packages / }
[ "${GLD_SKIP_SANITIZE:-0}" = 1 ] && stages=${stages/ sanitize / }
[ "${GLD_SKIP_FUZZ:-0}" = 1 ] && stages=${stages/ fuzz / }
[ "${GLD_SKIP_CROSS:-0}" = 1 ] && stages=${stages/ cross / }
want() { [[ $stages == *" $1 "* ]]; }

# ---- Stage timing: wall seconds and CPU seconds (user + system of the
# commands the stage waited for: cutime + cstime of this shell).
stage_rows=()
bg_rows=()  # background stages waited for in this stage (their CPU time is the stage's)
stage_name=""
stage_wall0=0
stage_cpu0=0
clock_ticks=$(getconf CLK_TCK)
children_cpu() {  # user + sys seconds of the finished children, as an integer
  awk -v hz="$clock_ticks" '{ printf "%d", ($16 + $17) / hz }' "/proc/$$/stat"
}
end_stage() {
  [ -n "$stage_name" ] || return 0
  stage_rows+=("$(printf '%6d s %8d s   %s' $((SECONDS - stage_wall0)) $(($(children_cpu) - stage_cpu0)) "$stage_name")")
  stage_rows+=("${bg_rows[@]}")
  bg_rows=()
  stage_name=""
}
stage() {
  end_stage
  stage_name=$1
  stage_wall0=$SECONDS
  stage_cpu0=$(children_cpu)
  printf '\n=== %s (%ds)\n' "$1" "$SECONDS"
}
summary() {
  local rc=$? failed=$stage_name
  # A stage that failed leaves no background stage running behind it.
  local pid
  for pid in $(jobs -p); do
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  end_stage
  printf '\n=== stage times (%s jobs)\n    wall      CPU   stage\n' "$jobs"
  printf '%s\n' "${stage_rows[@]}"
  printf '%6d s %8d s   total\n' "$SECONDS" "$(children_cpu)"
  if [ "$rc" -ne 0 ]; then
    echo "=== FAILED (exit status $rc) in: ${failed:-setup}"
  fi
  exit "$rc"
}
trap summary EXIT

# A stage run in the background (its output kept in a log and printed when
# it ends); wait_bg NAME returns its exit status.
declare -A bg_pid bg_log bg_start
start_bg() {
  local name=$1
  shift
  bg_log[$name]=$(mktemp)
  bg_start[$name]=$SECONDS
  printf '\n=== %s: started in the background (%ds)\n' "$name" "$SECONDS"
  "$@" >"${bg_log[$name]}" 2>&1 &
  bg_pid[$name]=$!
}
wait_bg() {
  local name=$1 rc=0
  wait "${bg_pid[$name]}" || rc=$?
  printf '\n=== %s: ended (exit status %d) after %ds; its output:\n' "$name" "$rc" $((SECONDS - bg_start[$name]))
  cat "${bg_log[$name]}"
  rm -f "${bg_log[$name]}"
  bg_rows+=("$(printf '%6d s %8s     - %s' $((SECONDS - bg_start[$name])) "" "$name (in the background)")")
  return "$rc"
}

if want deps; then
  stage "dependencies"
  ./scripts/install_deps.sh
fi

# The aarch64 target root (host cross packages, the arm64 packages fetched
# and unpacked: network and dpkg, little CPU) beside the builds.
if want cross; then
  start_bg "aarch64 target root" ./scripts/make_target_root.sh aarch64
fi

if want build; then
  stage "build (Release, -Werror)"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLD_WERROR=ON
  cmake --build build -j "$jobs"
fi

if want tests; then
  stage "tests"
  ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900
fi

if want shaders; then
  stage "shader validation (glslangValidator over every plan's programs)"
  ./scripts/validate_shaders.sh build
fi

# The GL tests on real models once more, planned for the smallest GLES 3.1
# device (GLD_GL_LIMITS=minimum), then on a second driver, Mesa's softpipe.
gl_model_tests='^gl\.(Models/|SharedModelSplitTest|MinimumLimitsTest)|^models\..*Gl'
if want minimum; then
  stage "GL model tests at the GLES 3.1 minimum limits"
  GLD_GL_LIMITS=minimum ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900 -R "$gl_model_tests"
fi
if want softpipe; then
  stage "GL tests of the shared models on softpipe (fp32)"
  GALLIUM_DRIVER=softpipe GLD_TEST_GL_PRECISIONS=fp32 ctest --test-dir build --output-on-failure -j "$jobs" \
    --timeout 1200 -R '^gl\.Models/SharedModelGlTest\.GlBackendMatchesCpuBackend'
fi

# The package stages wait mostly on apt, pip and single processes (pytest,
# the chroot's apt-get): they run in the background, one after the other
# (cpack installs from the Release tree, pip builds in it), beside the
# sanitizer build, and are waited for when that build ends.
#   packages: scripts/test_packages.sh: the .deb (cpack) installed in a
#     clean Debian root, the external C and CMake apps built against it
#   python: scripts/test_python.sh: the wheel (pip wheel, auditwheel
#     repair) built in the Release tree (only the extension module
#     compiles), installed in a fresh venv, its tests with PATH = the venv
bg_stages=()
want packages && bg_stages+=(packages)
want python && bg_stages+=(python)
package_stages() {  # package_stages STAGE...: each in turn, with its time
  local s t0 rc=0
  for s in "$@"; do
    t0=$SECONDS
    printf '\n=== %s\n' "$s"
    case $s in
      packages) ./scripts/test_packages.sh build || rc=1 ;;
      python) GLD_PYTHON_BUILD_DIR=build ./scripts/test_python.sh || rc=1 ;;
    esac
    printf '=== %s: %d s\n' "$s" $((SECONDS - t0))
  done
  return "$rc"
}
package_stage="package stages (${bg_stages[*]}: the .deb in a clean root; the wheel in a fresh venv)"
if [ ${#bg_stages[@]} -gt 0 ]; then
  start_bg "$package_stage" package_stages "${bg_stages[@]}"
fi

# The sanitizer builds, of only what the stages after them run: the unit
# tests (gld_unit_tests) and the fuzzers (gld_fuzzers).
#   GLD_SANITIZER_CC=gcc: GCC builds the unit tests under ASan +
#     UBSan (build-sanitize), clang the fuzzers, also under ASan + UBSan
#     (build-fuzz): two builds of the library.
#   GLD_SANITIZER_CC=clang (default): one clang build under ASan + UBSan with
#     libFuzzer's instrumentation (-fsanitize=fuzzer-no-link) serves both
#     (build-sanitize-clang: a folder of its own, since CMake keeps the
#     compiler a build folder was first configured with).
# Their debug information is line tables only (GCC -g1, clang
# -gline-tables-only): the sanitizers' reports still name function, file and
# line, and a file compiles in about 30% less time than with -g (GCC ASan,
# cpu_kernels/ops/activations.cc: 7.5 -> 5.3 CPU-s); the code is the same -O2.
san_cc=${GLD_SANITIZER_CC:-clang}
case $san_cc in
  gcc) san_dir=build-sanitize fuzz_dir=build-fuzz ;;
  clang) san_dir=build-sanitize-clang fuzz_dir=build-sanitize-clang ;;
  *) echo "test.sh: GLD_SANITIZER_CC is gcc or clang, not '$san_cc'" >&2; exit 2 ;;
esac
if want sanbuild && [ "$san_cc" = clang ] && { want sanitize || want fuzz; }; then
  san_targets=()
  if want sanitize; then san_targets+=(gld_unit_tests); fi
  if want fuzz; then san_targets+=(gld_fuzzers); fi
  stage "build (clang, ASan + UBSan + libFuzzer instrumentation, -Werror): ${san_targets[*]}"
  CC=clang CXX=clang++ cmake -S . -B "$san_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLD_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DGLD_SANITIZE=ON -DGLD_FUZZ=ON
  cmake --build "$san_dir" -j "$jobs" --target "${san_targets[@]}"
fi
if want sanbuild && [ "$san_cc" = gcc ] && want sanitize; then
  stage "build (GCC, ASan + UBSan, -Werror): gld_unit_tests"
  cmake -S . -B "$san_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLD_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DGLD_SANITIZE=ON
  cmake --build "$san_dir" -j "$jobs" --target gld_unit_tests
fi
if want sanbuild && [ "$san_cc" = gcc ] && want fuzz; then
  stage "build (clang, ASan + UBSan + libFuzzer instrumentation): gld_fuzzers"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DGLD_FUZZ=ON -DGLD_BUILD_TOOLS=OFF \
    -DGLD_BUILD_TESTS=ON
  cmake --build build-fuzz -j "$jobs" --target gld_fuzzers
fi

if [ ${#bg_stages[@]} -gt 0 ]; then
  stage "wait for the package stages"
  wait_bg "$package_stage"
fi

if want sanitize; then
  stage "unit tests under ASan + UBSan"
  # llvmpipe and the EGL loader keep allocations alive until exit on purpose.
  # A request too large fails as malloc does (null), as the library expects
  # (util.AllocateAlignedBlock.SizesBeyondTheAddressSpaceFail), not as an ASan report.
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$san_dir" --output-on-failure -j "$jobs" -L unit --timeout 900
  # The same unit tests as the Release tree's: a GoogleTest binary that
  # gld_unit_tests does not build would drop out of `-L unit` unnoticed.
  if [ -f build/CTestTestfile.cmake ]; then
    release_units=$(ctest --test-dir build -N -L unit | sed -n 's/^Total Tests: //p')
    sanitized_units=$(ctest --test-dir "$san_dir" -N -L unit | sed -n 's/^Total Tests: //p')
    if [ "$release_units" != "$sanitized_units" ]; then
      echo "=== the sanitizer build has $sanitized_units unit tests, the Release build $release_units" \
        "(an executable gld_unit_tests does not build?)"
      exit 1
    fi
    echo "=== $sanitized_units unit tests, as in the Release build"
  fi
fi

if want fuzz; then
  stage "fuzz the loader, the .npy reader and the program cache entry reader (${fuzz_seconds} s, the three at once)"
  # Each fuzzer is one process on one core: the three run side by side,
  # each on its own seed corpus, and the stage fails if any of them does.
  fuzz() {  # fuzz NAME SEED_WRITER: seeds a fresh corpus, then fuzzes it
    local corpus=$fuzz_dir/$1_corpus
    rm -rf "$corpus" && mkdir -p "$corpus"
    "./$fuzz_dir/tests/fuzz/$2" "$corpus"
    "./$fuzz_dir/tests/fuzz/$1" -max_total_time="$fuzz_seconds" -seed=1 -print_final_stats=1 "$corpus"
  }
  start_bg "fuzz the loader" fuzz gld_fuzz_loader gld_fuzz_seeds
  start_bg "fuzz the .npy reader" fuzz gld_fuzz_npy gld_fuzz_npy_seeds
  start_bg "fuzz the program cache entry reader" fuzz gld_fuzz_cache gld_fuzz_cache_seeds
  fuzz_failed=0
  for f in "fuzz the loader" "fuzz the .npy reader" "fuzz the program cache entry reader"; do
    wait_bg "$f" || fuzz_failed=1
  done
  [ "$fuzz_failed" -eq 0 ] || { echo "=== a fuzzer failed (output above)"; exit 1; }
fi

if want cross; then
  stage "aarch64 cross build and tests under qemu (scripts/test_cross.sh aarch64, sample ${GLD_CROSS_SAMPLE:-ci})"
  wait_bg "aarch64 target root"
  GLD_JOBS=$jobs GLD_CROSS_SAMPLE=${GLD_CROSS_SAMPLE:-ci} ./scripts/test_cross.sh aarch64
fi

stage "done"
