#!/usr/bin/env python3
"""LiteRT's own GPU path, the peer of gldelegate's GL backend on Linux: each
model through ai_edge_litert's CompiledModel with the GPU accelerator (its
WebGPU backend), cold start and the median of timed runs; or, per model, why
it cannot run (no adapter, not fully accelerated, an error), so the table
says so instead of leaving a gap.

    python3 tools/litert_gpu_bench.py --json OUT.json [--runs 20] MODEL.tflite...

Writes {"litert_version", "models": [{"model", "ok", "why", "fully_accelerated",
"init_ms", "median_ms", "runs"}]} and prints one line per model; exits 0
whenever the file was written (a model that cannot run is a result).
"""
import argparse
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time


@contextlib.contextmanager
def captured_stderr(lines):
    """Collects what native code writes to fd 2 (LiteRT logs there why an
    accelerator is missing: no Vulkan loader, no WebGPU adapter)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            lines.extend(tmp.read().decode(errors="replace").splitlines())


def reason(lines, exc):
    """The log lines that say why, else the exception's first line."""
    why = [l.strip() for l in lines if re.search(r"(?i)couldn't|cannot|no (suitable )?adapter|not found|failed", l)
           and "NPU" not in l and "compiler_plugin" not in l and "openvino" not in l.lower()]
    return "; ".join(dict.fromkeys(why)) if why else str(exc).strip().splitlines()[0]


def bench(path, runs):
    from ai_edge_litert.compiled_model import CompiledModel, HardwareAccelerator
    import numpy as np

    row = {"model": os.path.basename(path), "ok": False, "why": "", "fully_accelerated": False,
           "init_ms": None, "median_ms": None, "runs": 0}
    t0 = time.perf_counter()
    log = []
    try:
        with captured_stderr(log):
            model = CompiledModel.from_file(path, hardware_accel=HardwareAccelerator.GPU)
    except Exception as e:  # LiteRT raises RuntimeError; its log says why
        row["why"] = "GPU accelerator unavailable: " + reason(log, e)
        return row
    row["fully_accelerated"] = bool(model.is_fully_accelerated())
    if not row["fully_accelerated"]:
        row["why"] = "not fully accelerated: some ops stay on LiteRT's CPU kernels"
    inputs = model.create_input_buffers(0)
    outputs = model.create_output_buffers(0)
    rng = np.random.default_rng(0)
    for buf in inputs:
        details = buf.get_tensor_details()
        shape = details.get("shape", ())
        dtype = np.dtype(details.get("dtype", np.float32))
        buf.write(rng.random(shape).astype(dtype) if dtype.kind == "f" else np.zeros(shape, dtype))
    try:
        model.run_by_index(0, inputs, outputs)
    except Exception as e:
        row["why"] = "first run failed: %s" % str(e).strip()
        return row
    row["init_ms"] = (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        model.run_by_index(0, inputs, outputs)
        times.append((time.perf_counter() - t) * 1e3)
    row["ok"] = True
    row["runs"] = runs
    row["median_ms"] = statistics.median(times)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    try:
        import ai_edge_litert
        version = getattr(ai_edge_litert, "__version__", "unknown")
    except ImportError as e:
        version = None
        rows = [{"model": os.path.basename(m), "ok": False, "why": "ai-edge-litert is not installed (%s)" % e}
                for m in args.models]
    if version is not None:
        rows = [bench(m, args.runs) for m in args.models]
    with open(args.json, "w") as f:
        json.dump({"litert_version": version, "models": rows}, f, indent=1)
    for r in rows:
        if r["ok"]:
            print("%s: LiteRT GPU median %.3f ms (init %.1f ms)%s" % (
                r["model"], r["median_ms"], r["init_ms"], "" if r["fully_accelerated"] else " [partly on CPU]"))
        else:
            print("%s: LiteRT GPU: %s" % (r["model"], r["why"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
