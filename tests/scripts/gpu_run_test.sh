#!/bin/bash
# tools/gpu_run.sh on a machine without NVIDIA's EGL driver: it stops at
# once, exit status 3, one line naming "no NVIDIA EGL device", nothing
# written; tools/gpu_report.py turns sample step output into its two files.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check_refuses() {  # check_refuses WHAT: gpu_run.sh must refuse with exit 3
  local t0=$SECONDS
  "$root/tools/gpu_run.sh" "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  [ $rc -eq 3 ] || fail "$1: exit status $rc, expected 3; stderr: $(cat "$tmp/stderr")"
  grep -q "^gpu_run: no NVIDIA EGL device" "$tmp/stderr" || fail "$1: stderr lacks the message: $(cat "$tmp/stderr")"
  [ "$(wc -l <"$tmp/stderr")" -eq 1 ] || fail "$1: more than one line on stderr"
  [ ! -e "$tmp/out" ] || fail "$1: wrote $tmp/out"
  [ $((SECONDS - t0)) -le 5 ] || fail "$1: took $((SECONDS - t0)) s"
}

if [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  echo "SKIP: NVIDIA's EGL driver is installed here"; exit 0
fi
GLD_NVIDIA_EGL_VENDOR_FILE=$tmp/none.json check_refuses "no vendor file"
# A vendor file but no GPU that nvidia-smi sees (none here, or no nvidia-smi).
echo '{}' >"$tmp/vendor.json"
if ! nvidia-smi -L >/dev/null 2>&1; then
  GLD_NVIDIA_EGL_VENDOR_FILE=$tmp/vendor.json check_refuses "vendor file, no GPU"
fi
"$root/tools/gpu_run.sh" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no OUT_DIR: expected exit status 2"

# The report from sample step output.
mkdir -p "$tmp/rep"
cat >"$tmp/rep/compare_fp32.json" <<'JSON'
[{"model": "/m/a.tflite", "notes": [], "runs": [
  {"runtime": "LiteRT", "inference_median_us": 9000.0},
  {"runtime": "gld gl", "inference_median_us": 3000.0, "max_rel_diff": 1e-5},
  {"runtime": "gld cpu", "error": "failed: boom"}]}]
JSON
cat >"$tmp/rep/compare_fp16.json" <<'JSON'
[{"model": "/m/a.tflite", "notes": [], "runs": [
  {"runtime": "LiteRT", "inference_median_us": 9000.0},
  {"runtime": "gld gl", "inference_median_us": 2000.0, "max_rel_diff": 0.004, "host_issue_us_per_dispatch": 1.5}]}]
JSON
cat >"$tmp/rep/litert_gpu.json" <<'JSON'
{"litert_version": "2.3.0", "models": [
  {"model": "a.tflite", "ok": true, "why": "", "fully_accelerated": true, "init_ms": 40.0, "median_ms": 5.0, "runs": 20},
  {"model": "b.tflite", "ok": false, "why": "GPU accelerator unavailable: no adapter"}]}
JSON
printf 'build 0 100\ncompare_fp32 0 50\n' >"$tmp/rep/steps.txt"
echo "| model | cold ms |" >"$tmp/rep/startup.md"
python3 "$root/tools/gpu_report.py" --out "$tmp/rep" --renderer "NVIDIA H100" --seconds 300 || fail "gpu_report.py failed"
python3 - "$tmp/rep/gpu_run.json" <<'PY' || fail "gpu_run.json is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
m = r["models"][0]
assert m["model"] == "a.tflite", m
assert abs(m["litert_over_gl_fp16"] - 4.5) < 1e-9, m
assert m["gl_fp32_ms"] == 3.0 and m["gl_fp16_ms"] == 2.0 and m["cpu_ms"] == "failed: boom", m
assert m["gl_fp16_host_issue_us_per_dispatch"] == 1.5, m
assert m["litert_gpu_ms"] == 5.0, m
assert r["models"][1]["litert_gpu_ms"] is None and "no adapter" in r["models"][1]["litert_gpu_why"], r["models"][1]
assert r["steps"][0] == {"step": "build", "exit": 0, "seconds": 100}, r["steps"]
PY
grep -q "| a.tflite | 9.00 | 5.00 | 3.00 | 2.00 | - | failed: boom | 4.50x | 4.0e-03 | - |" "$tmp/rep/gpu_run.md" || fail "gpu_run.md row: $(cat "$tmp/rep/gpu_run.md")"
grep -q "| b.tflite | - | n/a |" "$tmp/rep/gpu_run.md" || fail "gpu_run.md LiteRT GPU n/a row: $(cat "$tmp/rep/gpu_run.md")"
grep -q "LiteRT GPU n/a: GPU accelerator unavailable: no adapter" "$tmp/rep/gpu_run.md" || fail "gpu_run.md: no reason"
echo "PASS"
