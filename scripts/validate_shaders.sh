#!/usr/bin/env bash
# Runs the Khronos reference compiler (glslangValidator, Debian's
# glslang-tools) over every compute shader gldelegate's GPU plans compile:
# the shared models, the per-op conformance cases and the whole networks of
# tests/data, gld_make_model's MediaPipe-transforms model and its custom-op
# model (with examples/custom_op's GL kernel), in fp32, fp16 and fp16_mediump,
# as `gld_inspect --dump_shaders`
# writes them (the plan at the GLES 3.1 minimum limits; the exact sources
# given to a driver). Identical programs are checked once. Fails on any
# error; warnings are printed and counted.
#   usage: scripts/validate_shaders.sh [BUILD_DIR] [OUT_DIR]
#   GLD_TEST_MODELS   the shared models (default ../shared/models)
#   GLD_JOBS          parallel compiler runs (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/shaders}
inspect=$build/tools/gld_inspect
models=${GLD_TEST_MODELS:-$(cd .. && pwd)/shared/models}
jobs=${GLD_JOBS:-$(nproc)}
command -v glslangValidator >/dev/null || { echo "validate_shaders: glslangValidator not found (apt-get install glslang-tools)" >&2; exit 1; }
[ -x "$inspect" ] || { echo "validate_shaders: $inspect not built" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out/dump" "$out/unique" "$out/made"
list=()
[ -d "$models" ] && for m in "$models"/*.tflite; do list+=("$m"); done
for m in tests/data/ops/*/model.tflite tests/data/networks/*/model.tflite; do list+=("$m"); done
# Templates no model above reaches: MediaPipe's transform ops, a custom op's.
"$build/tools/gld_make_model" --kind=mediapipe_transforms --out="$out/made/mediapipe_transforms.tflite" >/dev/null
list+=("$out/made/mediapipe_transforms.tflite")
plugin=$build/examples/custom_op/libgld_example_custom_op.so
if [ -f "$plugin" ]; then
  "$build/tools/gld_make_model" --kind=custom_op --out="$out/made/custom_op.tflite" >/dev/null
  list+=("$out/made/custom_op.tflite")
fi
export GLD_VALIDATE_PLUGIN=$plugin

# Dump every plan (gld_inspect runs without a GL context), in parallel.
dump_one() {
  local inspect=$1 out=$2 model=$3 name
  name=$(echo "$model" | sed 's|.*/\([^/]*\)/model.tflite$|\1|; s|.*/\([^/]*\)\.tflite$|\1|')
  local extra=()
  [ "$name" = custom_op ] && extra=(--custom_ops="$GLD_VALIDATE_PLUGIN")
  for p in fp32 fp16 fp16_mediump; do
    if ! "$inspect" --graph="$model" --precision=$p --log_level=error "${extra[@]}" --dump_shaders="$out/dump/$name/$p" \
        > "$out/dump/$name.$p.log" 2>&1; then
      echo "validate_shaders: gld_inspect failed on $model ($p):" >&2
      cat "$out/dump/$name.$p.log" >&2
      return 1
    fi
  done
}
export -f dump_one
printf '%s\n' "${list[@]}" | xargs -P "$jobs" -I{} bash -c 'dump_one "$@"' _ "$inspect" "$out" {}

# One copy of each distinct program (named by its content hash; one
# sha1sum run hashes them all).
find "$out/dump" -type f ! -name '*.log' -print0 | xargs -0 sha1sum | while read -r h f; do
  h=${h:0:16}
  [ -e "$out/unique/$h.comp" ] || { cp "$f" "$out/unique/$h.comp"; echo "$f" > "$out/unique/$h.from"; }
done
programs=$(find "$out/dump" -type f ! -name '*.log' | wc -l)
unique=$(find "$out/unique" -name '*.comp' | wc -l)

# glslangValidator compiles each as an ES 3.1 compute shader (the #version
# line and the .comp stage); its output names errors and warnings.
find "$out/unique" -name '*.comp' -print0 |
  xargs -0 -P "$jobs" -n 16 sh -c 'for f; do glslangValidator "$f" > "${f%.comp}.out" 2>&1 || echo "$f" >> "${f%.comp}.failed"; done' _
# The programs with errors (a failed run or an ERROR line) and with
# warnings, each list from one grep over every output.
errors=0; warnings=0
while read -r f; do
  [ -n "$f" ] || continue
  o=${f%.comp}.out
  errors=$((errors + 1))
  echo "== ERROR in $(cat "${f%.comp}.from") ($f):"; grep -E "ERROR|error" "$o" | head -10
done < <({ find "$out/unique" -name '*.failed' | sed 's/\.failed$/.comp/'
           grep -l "ERROR" "$out"/unique/*.out | sed 's/\.out$/.comp/'; } | sort -u)
while read -r o; do
  [ -n "$o" ] || continue
  warnings=$((warnings + 1))
  echo "== warning in $(cat "${o%.out}.from"):"; grep "WARNING" "$o" | head -5
done < <(grep -l "WARNING" "$out"/unique/*.out || true)
echo "validate_shaders: ${#list[@]} models x 3 precisions: $programs programs, $unique distinct; $errors with errors, $warnings with warnings"
[ "$errors" -eq 0 ]
