#!/usr/bin/env python3
"""Cold time to the first result and peak memory: LiteRT against gldelegate's
CPU backend, side by side, each in fresh processes.

Usage (with a Python that has ai_edge_litert, e.g. /work/venvs/litert/bin/python):
    python tools/startup_vs_litert.py [--graph=M.tflite ...] [--threads=2] [--runs=3]
        [--gld_benchmark=PATH] [--phases] [--json=FILE] [--seed=S]

Without --graph: ../shared/models/*.tflite, tests/data/networks/*/model.tflite
and tests/data/decoders/*/model.tflite.

For each model, --runs times (default 3), alternating which goes first:
  LiteRT: a fresh Python process that has imported ai_edge_litert and read
      the inputs (.npy) times Interpreter(model_path, num_threads) +
      allocate_tensors + set_tensor of every input + the first invoke, from
      before the constructor; its RSS before the constructor (VmRSS) and its
      peak after the invoke (VmHWM, see peak_rss_bytes) give the growth up
      to the result;
  gld: a fresh `gld_benchmark --backend=cpu --warmup_runs=1 --num_runs=1`
      with the same inputs (--input_layer_value_files) and threads: load
      (Model::FromFile), init (Interpreter creation), the first run; its RSS
      at start and its peak after the first run (VmHWM).
Both read the model from a file whose page cache was warmed just before
(the file read once). The best (least) time to the first result of the runs
is reported for each, and the memory of that run.

Prints a Markdown table (model, LiteRT ms, gld ms, ratio, gld's load / init /
first run, LiteRT's and gld's peak RSS and its growth, the ratio of the
growths), the geometric mean and the worst ratio; with --phases each model's
start-up phases from --runs more gld_benchmark --startup_phases runs (the
startup trace on; not among the timed runs), each phase's least time over
them, the largest first.

Exit status: 0 when every run worked, 1 when one failed (the table still has
the rest), 2 for bad arguments.
"""

import argparse
import glob
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compare_litert as cl  # noqa: E402

# argv[1] of the process litert_first_result starts.
LITERT_CHILD = "--startup_litert_child"


def status_bytes(field):
    """A /proc/self/status size ('VmRSS', 'VmHWM') in bytes, 0 without /proc."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def peak_rss_bytes():
    """This process's peak resident set: VmHWM, which exec starts afresh.
    ru_maxrss would not do: Linux carries the peak of the process that
    forked this one across the exec (here the parent, which probed every
    model with LiteRT), so it only grows from model to model."""
    return status_bytes("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def litert_child(spec):
    """In the fresh process: the import and the inputs first, then the timed part."""
    cl.reflib.quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter
    inputs = [np.load(f) for f in spec["inputs"]]
    base = status_bytes("VmRSS")
    t0 = time.perf_counter()
    it = Interpreter(model_path=spec["model"], num_threads=spec["threads"])
    it.allocate_tensors()
    t1 = time.perf_counter()
    for d, v in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], v)
    it.invoke()
    t2 = time.perf_counter()
    peak = peak_rss_bytes()
    print(json.dumps({"first_result_us": (t2 - t0) * 1e6, "init_us": (t1 - t0) * 1e6, "first_us": (t2 - t1) * 1e6,
                      "rss_start_bytes": base, "peak_rss_bytes": peak}))


def warm_page_cache(path):
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


def litert_first_result(python, made, threads):
    warm_page_cache(made.litert_model)
    spec = {"model": made.litert_model, "inputs": made.input_files, "threads": threads}
    proc = subprocess.run([python, os.path.abspath(__file__), LITERT_CHILD, json.dumps(spec)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else "exit status %d" % proc.returncode)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def gld_first_result(exe, model_path, made, threads, work, phases=False):
    warm_page_cache(model_path)
    extra = ["--startup_phases"] if phases else []
    r = cl.run_gld(exe, model_path, "cpu", "fp32", threads, 1, 1, made.value_files, work, extra_flags=extra)
    r.pop("outputs", None)
    # gld_benchmark's init_us runs from before the load.
    r["first_result_us"] = r["init_us"] + r["first_inference_us"]
    r["peak_rss_bytes"] = r.get("peak_rss_after_first_bytes", r["peak_rss_bytes"])
    return r


def measure_model(args, model_path):
    """{'litert': best result, 'gld': best result} or {'error': text}."""
    work = tempfile.mkdtemp(prefix="gld_startup_")
    try:
        made = cl.prepare_inputs(model_path, work, args.seed)
        if made.error is not None:
            return {"error": "LiteRT could not run it: " + made.error}
        runs = {"litert": [], "gld": []}
        for r in range(args.runs):
            order = ["litert", "gld"] if r % 2 == 0 else ["gld", "litert"]
            for who in order:
                if who == "litert":
                    runs[who].append(litert_first_result(args.litert_python, made, args.threads))
                else:
                    runs[who].append(gld_first_result(args.gld_benchmark, model_path, made, args.threads, work))
        best = {who: min(rs, key=lambda x: x["first_result_us"]) for who, rs in runs.items()}
        if args.phases:
            # --runs more gld runs with the startup trace on (not among the
            # timed ones); each phase's least time over them.
            least = {}
            for _ in range(args.runs):
                traced = gld_first_result(args.gld_benchmark, model_path, made, args.threads, work, phases=True)
                for p in traced.get("startup_phases", []):
                    if p["name"] not in least or p["us"] < least[p["name"]]["us"]:
                        least[p["name"]] = p
            best["gld"]["startup_phases"] = list(least.values())
        return best
    except Exception as e:  # noqa: BLE001 - reported in the table
        text = str(e).strip().splitlines()
        return {"error": "failed: " + (text[-1] if text else type(e).__name__)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def mb(b):
    return b / (1024.0 * 1024.0)


def growth(r):
    return max(r["peak_rss_bytes"] - r["rss_start_bytes"], 0)


def ratio(a, b):
    return a / b if b > 0 else float("nan")


HEADER = ["model", "LiteRT ms", "gld ms", "gld / LiteRT", "gld load / init / first ms",
          "LiteRT peak RSS MB (growth)", "gld peak RSS MB (growth)", "growth gld / LiteRT"]


def table_row(name, res):
    if "error" in res:
        return [name, res["error"]] + [""] * (len(HEADER) - 2)
    lt, gd = res["litert"], res["gld"]
    load = gd["load_us"] / 1000.0
    return [
        name, "%.1f" % (lt["first_result_us"] / 1000.0), "%.1f" % (gd["first_result_us"] / 1000.0),
        "%.2fx" % ratio(gd["first_result_us"], lt["first_result_us"]),
        "%.1f / %.1f / %.1f" % (load, gd["init_us"] / 1000.0 - load, gd["first_inference_us"] / 1000.0),
        "%.1f (%.1f)" % (mb(lt["peak_rss_bytes"]), mb(growth(lt))),
        "%.1f (%.1f)" % (mb(gd["peak_rss_bytes"]), mb(growth(gd))),
        "%.2fx" % ratio(growth(gd), growth(lt)),
    ]


def summary(results):
    """'geomean X, worst Y (model)' over the models both ran."""
    ratios = [(ratio(r["gld"]["first_result_us"], r["litert"]["first_result_us"]), n)
              for n, r in results if "error" not in r]
    if not ratios:
        return "no model ran on both"
    geo = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
    worst = max(ratios)
    over = sum(1 for x, _ in ratios if x > 1.0)
    return "time to the first result, gld / LiteRT over %d models: geomean %.2fx, worst %.2fx (%s), %d above 1.0x" % (
        len(ratios), geo, worst[0], worst[1], over)


# Startup events that enclose others (left out of --phases).
ENCLOSING = ("create the interpreter", "partition and plan (GL segments and their programs)")


def phase_lines(name, res, top):
    """--phases: the model's init phases, the largest first."""
    phases = res.get("gld", {}).get("startup_phases") or []
    if not phases:
        return []
    ordered = sorted((p for p in phases if p["name"] not in ENCLOSING), key=lambda p: -p["us"])[:top]
    return ["%s: " % name + ", ".join("%s %.1f" % (p["name"], p["us"] / 1000.0) for p in ordered) + " (ms)"]


def default_models():
    found = sorted(glob.glob(os.path.join(REPO, "..", "shared", "models", "*.tflite")))
    found += sorted(glob.glob(os.path.join(REPO, "tests", "data", "networks", "*", "model.tflite")))
    found += sorted(glob.glob(os.path.join(REPO, "tests", "data", "decoders", "*", "model.tflite")))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", action="append", default=[], help=".tflite model (repeatable; default: see --help)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=3, help="fresh processes per runtime and model; the best counts")
    p.add_argument("--gld_benchmark", default=None, help="path of gld_benchmark (default: newest build*/tools/)")
    p.add_argument("--litert_python", default=sys.executable, help="the Python that runs LiteRT's child processes")
    p.add_argument("--seed", type=int, default=0, help="input seed (splitmix64 rule of tools/reference)")
    p.add_argument("--phases", action="store_true", help="also print gld's init phases per model")
    p.add_argument("--top_phases", type=int, default=8, help="with --phases: this many per model")
    p.add_argument("--json", default=None, help="also write every figure to this file")
    args = p.parse_args()
    if args.threads < 1 or args.runs < 1:
        p.error("--threads and --runs must be at least 1")
    if args.gld_benchmark is None:
        args.gld_benchmark = cl.default_gld_benchmark()
    if not args.gld_benchmark or not os.access(args.gld_benchmark, os.X_OK):
        p.error("no gld_benchmark found; build it or pass --gld_benchmark=PATH")
    models = args.graph or default_models()
    for g in models:
        if not os.path.isfile(g):
            p.error("--graph: no such file '%s'" % g)
    load = os.getloadavg()
    print("LiteRT %s (%d thread(s)) vs %s --backend=cpu: best of %d fresh processes each, load average %.2f %.2f %.2f"
          % (cl.reflib.litert_version(), args.threads, args.gld_benchmark, args.runs, *load), flush=True)
    results = []
    for g in models:
        name = cl.model_label(g)
        results.append((name, measure_model(args, g)))
        print("  %s: %s" % (name, " | ".join(table_row(name, results[-1][1])[1:5])), file=sys.stderr, flush=True)
    print()
    cl.print_table([table_row(n, r) for n, r in results], True, HEADER)
    print()
    print(summary(results))
    if args.phases:
        print()
        for n, r in results:
            for line in phase_lines(n, r, args.top_phases):
                print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"model": n, **r} for n, r in results], f, indent=1)
    return 1 if any("error" in r for _, r in results) else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == LITERT_CHILD:
        litert_child(json.loads(sys.argv[2]))
        sys.exit(0)
    sys.exit(main())
