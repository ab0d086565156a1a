#!/usr/bin/env bash
# The first command: installs the Debian packages the demo needs
# (install_deps.sh demo), builds the library and the three tools it runs
# (no tests: those are scripts/test.sh's), then runs a real network, a
# MobileNetV2 converted by TensorFlow (tests/data/networks/), and prints
#   - its outputs and where each node ran and why (backend auto: the GPU
#     through EGL/GLES 3.1 when it is a hardware one, else the CPU, saying
#     why; --backend=gl forces GL, e.g. on llvmpipe),
#   - its median time next to the CPU backend's, and next to LiteRT's when
#     the python3 on PATH imports ai_edge_litert and numpy,
#   - the path of the HTML placement page (gld_inspect --html).
# Arguments go to the tools (e.g. --backend=gl, --precision=fp16).
#   GLD_DEMO_MODEL=M.tflite   another model;  GLD_JOBS   build jobs (nproc)
#   GLD_DEMO_BUILD_DIR=DIR    the build folder (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GLD_DEMO_BUILD_DIR:-build}
model=${GLD_DEMO_MODEL:-tests/data/networks/mobilenet_v2_float32/model.tflite}
tools=(gld_run gld_inspect gld_benchmark)
phase() { printf '\n=== run_demo [%3ds] %s\n' "$SECONDS" "$*"; }

phase "1/4 dependencies (scripts/install_deps.sh demo)"
./scripts/install_deps.sh demo
phase "2/4 configure ($build: Release, library and tools, no tests)"
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLD_BUILD_TESTS=OFF -DGLD_BUILD_TOOLS=ON > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
phase "3/4 build (libgldelegate, ${tools[*]})"
cmake --build "$build" -j "${GLD_JOBS:-$(nproc)}" --target "${tools[@]}"
phase "4/4 run $model $*"
demo=$build/demo
mkdir -p "$demo"
"$build/tools/gld_run" --graph="$model" --seed=0 --output_dir="$demo/out" "$@"

echo
echo "--- where each node ran, and why (gld_inspect; nodes per place and reason):"
page=$demo/$(basename "$(dirname "$model")").html
"$build/tools/gld_inspect" --graph="$model" "$@" > "$demo/inspect.txt" 2>&1 || { cat "$demo/inspect.txt"; exit 1; }
grep -E '^(backend|placement|steps|dispatches):' "$demo/inspect.txt"
sed -n '/^per node/,$p' "$demo/inspect.txt" | sed -n 's/^  node .*\]  //p' | sed 's/ segment [0-9]*//' | sort | uniq -c
"$build/tools/gld_inspect" --graph="$model" --html="$page" "$@" 2>/dev/null

echo
echo "--- median time (gld_benchmark, 20 runs, 1 thread)"
median() {  # median BACKEND_ARGS...: "<backend> <median> ms"
  "$build/tools/gld_benchmark" --graph="$model" --num_runs=20 "$@" 2>/dev/null |
    awk '/^Backend:/{b=$2} /^Inference \(us\)/{for(i=1;i<=NF;i++) if($i=="median") m=$(i+1)} END{printf "%s %.3f\n", b, m/1000}'
}
read -r ran ran_ms < <(median "$@")
printf '  gldelegate %-4s %9.3f ms   (the backend the arguments chose)\n' "$ran" "$ran_ms"
if [ "$ran" != cpu ]; then
  cpu_args=()  # the same arguments, the backend replaced
  for a in "$@"; do [[ $a == --backend=* ]] || cpu_args+=("$a"); done
  read -r _ cpu_ms < <(median "${cpu_args[@]}" --backend=cpu)
  printf '  gldelegate %-4s %9.3f ms\n' cpu "$cpu_ms"
fi
if python3 -c 'import ai_edge_litert, numpy' 2>/dev/null; then
  echo "--- LiteRT (ai_edge_litert, XNNPACK) beside it (tools/compare_litert.py):"
  backends=cpu
  [ "$ran" = cpu ] || backends=$ran,cpu
  python3 tools/compare_litert.py --graph="$model" --gld_benchmark="$build/tools/gld_benchmark" \
    --backends="$backends" --num_runs=20 || echo "(compare_litert.py failed; the figures above stand)"
else
  echo "  LiteRT: not measured (python3 does not import ai_edge_litert and numpy;" \
    "pip install ai-edge-litert numpy, then tools/compare_litert.py --graph=$model)"
fi

echo
case $page in /*) ;; *) page=$(pwd)/$page ;; esac
echo "=== run_demo done in ${SECONDS}s. Open the placement page: $page"
