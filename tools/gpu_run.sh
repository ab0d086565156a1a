#!/bin/bash
# gpu_run.sh OUT_DIR: one call on a machine with an NVIDIA GPU and this
# repository (with gpu_carry/ made by tools/gpu_prepare.sh). It
#   1. checks for NVIDIA's EGL driver and stops at once without it
#      ("no NVIDIA EGL device", exit status 3);
#   2. unpacks the carried GL loader packages into / and the project's
#      dependencies into a private folder;
#   3. builds in Release;
#   4. runs the GL tests (ctest -R '^gl\.'; the barrier hazard check runs in
#      every GL segment they make), and the GL model tests again at the GLES
#      3.1 minimum limits (GLD_GL_LIMITS=minimum);
#   5. runs the six models through tools/compare_litert.py (LiteRT XNNPACK on
#      all the host's cores vs GL fp32, GL fp16, GL fp16_mediump and the CPU
#      backend), LiteRT's own GPU accelerator (tools/litert_gpu_bench.py:
#      CompiledModel with HardwareAccelerator.GPU, or why it cannot run) and
#      tools/startup_table.py (cold and warm start-up through the cache);
#   6. writes OUT_DIR/gpu_run.json and OUT_DIR/gpu_run.md.
# Every step has a time limit; the whole run stays under 9 minutes.
# Environment: GLD_NVIDIA_EGL_VENDOR_FILE (default
# /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json), GLD_GPU_RUNS
# (timed runs per model, default 20).
set -uo pipefail
die() { echo "gpu_run: $1" >&2; exit "${2:-1}"; }
[ $# -eq 1 ] || die "usage: tools/gpu_run.sh OUT_DIR" 2
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
vendor=${GLD_NVIDIA_EGL_VENDOR_FILE:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
[ -f "$vendor" ] || die "no NVIDIA EGL device: no EGL vendor file $vendor (NVIDIA's driver is not installed here)" 3
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || die "no NVIDIA EGL device: nvidia-smi sees no GPU" 3
carry="$root/gpu_carry"
[ -d "$carry/loader" ] && [ -d "$carry/deps" ] || die "no $carry/loader or $carry/deps: run tools/gpu_prepare.sh first and carry gpu_carry" 2
mkdir -p "$out" || die "cannot make $out" 2
start=$(date +%s)
log="$out/gpu_run.log"
: >"$log"
deadline=$((start + 520))  # every step ends by then: the report is written within 9 minutes
step() {  # step NAME SECONDS COMMAND...: runs it with a time limit (and the deadline), logs it
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s)
  local left=$((deadline - t0))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then
    echo "$name 124 0" >>"$out/steps.txt"
    echo "== $name: skipped, the 9-minute budget is spent" | tee -a "$log"
    return 124
  fi
  echo "== $name (limit ${limit}s)" | tee -a "$log"
  timeout "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  echo "$name $rc $(( $(date +%s) - t0 ))" >>"$out/steps.txt"
  echo "== $name: exit $rc after $(( $(date +%s) - t0 ))s" | tee -a "$log"
  return $rc
}
: >"$out/steps.txt"

# 2. Loaders into / (they add libraries only); dependencies elsewhere.
deps=/tmp/gld_deps
for f in "$carry"/loader/*.deb; do dpkg -x "$f" / || die "cannot unpack $f"; done
ldconfig
rm -rf "$deps" && mkdir -p "$deps"
for f in "$carry"/deps/*.deb; do dpkg -x "$f" "$deps" || die "cannot unpack $f"; done
# Development links whose library came with the loaders (libEGL.so -> libEGL.so.1) point into /.
for l in "$deps"/usr/lib/x86_64-linux-gnu/*.so; do
  [ -e "$l" ] || ln -sf "/usr/lib/x86_64-linux-gnu/$(readlink "$l")" "$l"
done
export __EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
export PATH="$deps/usr/bin:$PATH"
export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$deps"
export PKG_CONFIG_LIBDIR="$deps/usr/lib/x86_64-linux-gnu/pkgconfig:$deps/usr/share/pkgconfig"
export CMAKE_PREFIX_PATH="$deps/usr"
if [ -d "$carry/wheels" ] && ls "$carry"/wheels/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/gld_site \
    "$carry"/wheels/*.whl >>"$log" 2>&1 || die "cannot install the carried wheels (see $log)"
  export PYTHONPATH="/tmp/gld_site${PYTHONPATH:+:$PYTHONPATH}"
fi
models="$carry/models"
[ -d "$models" ] || models="$root/../shared/models"

# 3. Release build.
build="$root/build-gpu"
jobs=$(nproc)
step configure 60 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLD_WERROR=OFF \
  -DCMAKE_PREFIX_PATH="$deps/usr" -DFLATC="$deps/usr/bin/flatc" || die "configure failed (see $log)"
step build 180 cmake --build "$build" -j "$jobs" || die "build failed (see $log)"
renderer=$("$build/tools/gld_benchmark" --graph "$models/face_detection_short_range.tflite" --backend=gl \
  --num_runs 1 2>&1 | sed -n 's/^GL renderer: //p')
case "$renderer" in
  *NVIDIA*) ;;
  *) die "no NVIDIA EGL device: the GL renderer is '${renderer:-none}'" 3 ;;
esac

# 4. GL tests; 5. models.
step gl_tests 90 ctest --test-dir "$build" -R '^gl\.' -j "$jobs" --timeout 60 --output-junit "$out/gl_tests.xml"
step gl_tests_minimum_limits 45 env GLD_GL_LIMITS=minimum ctest --test-dir "$build" -j "$jobs" --timeout 60 \
  -R '^gl\.(Models/|SharedModelSplitTest|MinimumLimitsTest)|^models\..*Gl' --output-junit "$out/gl_tests_minimum.xml"
runs=${GLD_GPU_RUNS:-20}
graphs=()
for m in "$models"/*.tflite; do graphs+=("--graph=$m"); done
cmp=(python3 "$root/tools/compare_litert.py" --gld_benchmark "$build/tools/gld_benchmark" --threads "$jobs"
     --num_runs "$runs" --markdown "${graphs[@]}")
step compare_fp32 90 "${cmp[@]}" --precision fp32 --backends gl,cpu --json "$out/compare_fp32.json"
step compare_fp16 50 "${cmp[@]}" --precision fp16 --backends gl --json "$out/compare_fp16.json"
step compare_mediump 50 "${cmp[@]}" --precision fp16_mediump --backends gl --json "$out/compare_fp16_mediump.json"
step litert_gpu 45 python3 "$root/tools/litert_gpu_bench.py" --json "$out/litert_gpu.json" --runs "$runs" \
  "$models"/*.tflite
step startup 45 sh -c "python3 '$root/tools/startup_table.py' --build '$build' --models '$models' --runs 5 \
  --precision fp16 > '$out/startup.md'"

# 6. One JSON and one Markdown table.
python3 "$root/tools/gpu_report.py" --out "$out" --renderer "$renderer" --seconds $(( $(date +%s) - start )) \
  || die "cannot write the report (see $log)"
echo "gpu_run: wrote $out/gpu_run.json and $out/gpu_run.md in $(( $(date +%s) - start ))s"
