#!/usr/bin/env python3
"""Side by side: LiteRT (XNNPACK, N threads) against gld_benchmark's GL and
CPU backends on the same model and the same inputs.

Usage:
    python3 tools/compare_litert.py --graph=M.tflite [--graph=M2.tflite ...]
        [--threads=N] [--num_runs=K] [--warmup_runs=W] [--gld_benchmark=PATH] [--also=NAME=PATH]
        [--rounds=R] [--busy] [--backends=gl,cpu] [--precision=fp32|fp16]
        [--seed=S] [--signature=NAME] [--markdown] [--json=FILE]

For each model it
  1. makes the inputs with the seeded splitmix64 rule of tools/reference
     (reflib.py; the same values gld_run --seed gives) and writes them as .npy
     files to a temporary folder;
  2. runs LiteRT's Interpreter (ai_edge_litert, default op resolver, so
     XNNPACK, with --threads threads) in a fresh Python process that has
     imported ai_edge_litert and read the inputs: init = constructor +
     allocate_tensors, first inference, then warmup_runs - 1 more untimed
     runs and num_runs timed ones (average and median);
  3. runs gld_benchmark once per backend with --json, the same run counts,
     --input_layer_value_files pointing at those .npy files and --output_dir.
     Both runtimes thus start each measurement in a process of their own
     with their library loaded and nothing of it used yet (XNNPACK's CPU
     detection, the first touch of code and heap are in both inits);
  4. with --rounds=R (default 1), does 2 and 3 R times, alternating which
     runs first (LiteRT first in odd rounds, gld first in even ones), each
     round a fresh Interpreter and a fresh gld_benchmark process: on a noisy
     machine a slow phase then falls on both sides instead of on one. Init
     and first inference are the median over the rounds, average and median
     latency are over all R * num_runs timed runs;
  5. with --busy, runs every round twice: calm, then with one busy neighbour
     process (`sh -c 'while :; do :; done'`, started before and killed after
     the runs); the busy rows are labelled "(busy)" and compared with
     LiteRT's busy row, and a second table gives each runtime's slowdown
     (busy median / calm median) and its ratio to LiteRT's slowdown (how much
     worse than LiteRT a shared machine treats it);
  6. prints one table: init, first inference, average and median latency (ms)
     for each, their ratios to LiteRT, and the largest output difference of
     each gld backend from LiteRT, relative to that output's largest magnitude
     (the tolerance convention of the tests: fp32 1e-4, fp16 1e-2); for
     integer outputs a note gives the share of values equal to LiteRT's and
     the largest difference in quantization steps (also in --json:
     int_equal, int_max_step).

With --signature=NAME both run that signature (a decoder's `decode`):
LiteRT through interpreter.get_signature_runner(NAME) (its first call is the
first inference; the runs after it invoke the signature's subgraph with the
inputs set, as gld_benchmark's runs do), gld_benchmark with
--signature=NAME; the inputs are made in the order of the signature's input
names and given to gld_benchmark by tensor name, and the outputs are
compared by tensor name.

Should LiteRT refuse a model for MediaPipe's Convolution2DTransposeBias
custom op (ai-edge-litert 2.3.0 has it built in), the model is rewritten for
LiteRT only (tools/reference/replace_transpose_conv_bias.py); gld_benchmark
runs the original file, and a note under the table says so.

Exit status: 0 when every run worked, 1 when something failed (the table
still shows the rest), 2 for bad arguments.
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "reference"))
import reflib  # noqa: E402


def default_gld_benchmark():
    """The first built gld_benchmark under <repo>/build*/tools/, or on PATH."""
    repo = os.path.dirname(HERE)
    found = []
    for name in sorted(os.listdir(repo)):
        path = os.path.join(repo, name, "tools", "gld_benchmark")
        if name.startswith("build") and os.access(path, os.X_OK):
            found.append((os.path.getmtime(path), path))
    if found:
        return max(found)[1]
    return shutil.which("gld_benchmark")


def make_inputs(details, seed):
    """One array per input detail, by the rule gld_run/gld_benchmark --seed use."""
    inputs = []
    for stream, d in enumerate(details):
        shape = tuple(int(s) for s in d["shape"])
        dtype = np.dtype(d["dtype"])
        if dtype == np.float32 or dtype == np.float16 or dtype == np.float64:
            v = reflib.uniform_pm1(seed, stream, shape).astype(dtype)
        elif dtype == np.bool_:
            v = reflib.uniform_int(seed, stream, shape, 0, 2).astype(np.bool_)
        else:
            v = reflib.uniform_int(seed, stream, shape, 0, 4).astype(dtype)
        inputs.append(v)
    return inputs


def run_litert(model_path, input_files, threads, warmup_runs, num_runs, work, signature=None, input_names=None):
    """LiteRT's figures and outputs, measured in a fresh process (litert_child)."""
    out_dir = os.path.join(work, "out_litert")
    spec = {"model": model_path, "inputs": input_files, "threads": threads, "warmup_runs": warmup_runs,
            "num_runs": num_runs, "out_dir": out_dir, "signature": signature, "input_names": input_names}
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), LITERT_CHILD, json.dumps(spec)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else "exit status %d" % proc.returncode)
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["outputs"] = [np.load(os.path.join(out_dir, "%d.npy" % i)) for i in range(report.pop("output_count"))]
    return report


# argv[1] of the process run_litert starts.
LITERT_CHILD = "--litert_child"


def litert_child(spec):
    """Runs in the fresh process: imports and inputs first, then the timed part."""
    reflib.quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter
    inputs = [np.load(f) for f in spec["inputs"]]
    if spec.get("signature"):
        r = measure_litert_signature(Interpreter, spec["model"], spec["signature"], dict(zip(spec["input_names"], inputs)),
                                     spec["threads"], spec["warmup_runs"], spec["num_runs"])
    else:
        r = measure_litert(Interpreter, spec["model"], inputs, spec["threads"], spec["warmup_runs"], spec["num_runs"])
    os.makedirs(spec["out_dir"], exist_ok=True)
    outputs = r.pop("outputs")
    for i, o in enumerate(outputs):
        np.save(os.path.join(spec["out_dir"], "%d.npy" % i), o)
    r["output_count"] = len(outputs)
    print(json.dumps(r))


def timed_result(init_us, times, warmup_runs, outputs):
    """The figures of one LiteRT measurement: `times` holds the warmup runs
    (the first is the first inference) and then the timed ones."""
    warm, runs = times[:max(warmup_runs, 1)], times[max(warmup_runs, 1):]
    return {
        "init_us": init_us,
        "first_inference_us": warm[0],
        "inference_avg_us": statistics.fmean(runs),
        "inference_median_us": statistics.median(runs),
        "run_times_us": runs,
        "outputs": outputs,
    }


def measure_litert(Interpreter, model_path, inputs, threads, warmup_runs, num_runs):
    t0 = time.perf_counter()
    it = Interpreter(model_path=model_path, num_threads=threads)
    it.allocate_tensors()
    init_us = (time.perf_counter() - t0) * 1e6
    for d, v in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], v)
    times = []
    for _ in range(max(warmup_runs, 1) + num_runs):
        t = time.perf_counter()
        it.invoke()
        times.append((time.perf_counter() - t) * 1e6)
    outputs = [np.array(it.get_tensor(d["index"])) for d in it.get_output_details()]
    return timed_result(init_us, times, warmup_runs, outputs)


def measure_litert_signature(Interpreter, model_path, signature, feeds, threads, warmup_runs, num_runs):
    """measure_litert for one signature: the runner's first call (inputs set
    by name) is the first inference; the other runs invoke its subgraph with
    those inputs, as gld_benchmark does (no input copies, no output reads)."""
    t0 = time.perf_counter()
    it = Interpreter(model_path=model_path, num_threads=threads)
    it.allocate_tensors()
    runner = it.get_signature_runner(signature)
    init_us = (time.perf_counter() - t0) * 1e6
    t = time.perf_counter()
    runner(**feeds)
    times = [(time.perf_counter() - t) * 1e6]
    wrapper, subgraph = runner._interpreter_wrapper, runner._subgraph_index
    for _ in range(max(warmup_runs, 1) - 1 + num_runs):
        t = time.perf_counter()
        wrapper.Invoke(subgraph)
        times.append((time.perf_counter() - t) * 1e6)
    details = runner.get_output_details()
    names = sorted(details)
    outputs = [np.array(wrapper.GetTensor(details[n]["index"], subgraph)) for n in names]
    r = timed_result(init_us, times, warmup_runs, outputs)
    r["output_names"] = [details[n]["name"] for n in names]
    return r


def sanitized(name):
    """A tensor name as gld_benchmark's --output_dir files spell it."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in name) or "tensor"


def aligned_reference(res, ref):
    """LiteRT's outputs in the order of gld's, matched by tensor name when
    LiteRT gave names (--signature); else as they are."""
    names = ref.get("output_names")
    if not names or not res.get("output_names"):
        return ref["outputs"]
    by_name = {sanitized(n): o for n, o in zip(names, ref["outputs"])}
    if sorted(by_name) != sorted(res["output_names"]):
        return ref["outputs"]
    return [by_name[n] for n in res["output_names"]]


# The label suffix of runs made beside a busy neighbour (--busy).
BUSY = " (busy)"


def backend_of(label):
    """'gld cpu (busy)' -> 'cpu'; 'gld cpu scalar' -> 'cpu'."""
    return label[len("gld "):].split(" ")[0]


def gld_runtimes(args):
    """(label, gld_benchmark path) per row of gldelegate: each backend of
    --gld_benchmark, then each backend of every --also build, labelled by its
    name ('gld cpu scalar')."""
    builds = [("", args.gld_benchmark)] + [(" " + n, path) for n, path in args.also]
    return [("gld " + b + n, path) for n, path in builds for b in args.backends]


class BusyNeighbour:
    """One process spinning on a core for as long as the block runs."""

    def __enter__(self):
        self.proc = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        time.sleep(0.2)  # let the scheduler place it
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        return False


def merge_rounds(results):
    """One result from the rounds' results of one runtime: init and first
    inference the median over rounds, latencies over every timed run."""
    if len(results) == 1:
        return results[0]
    merged = dict(results[-1])
    merged["init_us"] = statistics.median(r["init_us"] for r in results)
    merged["first_inference_us"] = statistics.median(r["first_inference_us"] for r in results)
    runs = [t for r in results for t in r["run_times_us"]]
    merged["inference_avg_us"] = statistics.fmean(runs)
    merged["inference_median_us"] = statistics.median(runs)
    merged["run_times_us"] = runs
    merged["rounds"] = len(results)
    return merged


def run_gld(exe, model_path, backend, precision, threads, warmup_runs, num_runs, value_files, work, seed=0,
            signature=None, extra_flags=()):
    out_dir = os.path.join(work, "out_" + backend)
    json_path = os.path.join(work, backend + ".json")
    cmd = [exe, "--graph=" + model_path, "--backend=" + backend, "--precision=" + precision,
           "--threads=%d" % threads, "--num_runs=%d" % num_runs, "--warmup_runs=%d" % warmup_runs,
           "--json=" + json_path, "--output_dir=" + out_dir]
    if signature:
        cmd.append("--signature=" + signature)
    cmd.extend(extra_flags)
    if value_files:
        cmd.append("--input_layer_value_files=" + value_files)
    else:
        cmd.append("--seed=%d" % seed)  # the rule make_inputs follows
    env = dict(os.environ)
    env.setdefault("GLD_LOG_LEVEL", "error")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise RuntimeError(lines[-1] if lines else "exit status %d" % proc.returncode)
    with open(json_path) as f:
        report = json.load(f)
    outputs = []
    names = sorted(os.listdir(out_dir), key=lambda n: int(n.split("_", 1)[0]))
    for n in names:
        outputs.append(np.load(os.path.join(out_dir, n)))
    report["outputs"] = outputs
    # '3_decode_logits_output.npy' -> 'decode_logits_output'
    report["output_names"] = [n.split("_", 1)[1][:-len(".npy")] for n in names]
    return report


def max_relative_difference(ours, ref):
    """Largest |ours - ref| over all outputs, each relative to max |ref| of that output."""
    if len(ours) != len(ref):
        return float("nan")
    worst = 0.0
    for a, b in zip(ours, ref):
        if a.shape != b.shape:
            return float("nan")
        a = a.astype(np.float64)
        b = b.astype(np.float64)
        scale = float(np.max(np.abs(b))) if b.size else 0.0
        diff = float(np.max(np.abs(a - b))) if b.size else 0.0
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def integer_agreement(ours, ref):
    """Over the integer outputs: the fraction of values equal to LiteRT's and
    the largest difference in quantization steps; None without integer outputs."""
    pairs = [(a, b) for a, b in zip(ours, ref)
             if np.issubdtype(b.dtype, np.integer) and a.shape == b.shape and b.size]
    if not pairs or len(ours) != len(ref):
        return None
    equal = sum(int(np.count_nonzero(a.astype(np.int64) == b.astype(np.int64))) for a, b in pairs)
    total = sum(b.size for _, b in pairs)
    step = max(int(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64)))) for a, b in pairs)
    return equal / total, step


class ModelInputs:
    """What both runtimes of a comparison read: the file LiteRT runs, the
    inputs as .npy files and as gld_benchmark's --input_layer_value_files,
    the signature's input names, notes; `error` when LiteRT cannot run it."""

    def __init__(self):
        self.litert_model = None
        self.input_files = []
        self.value_files = None
        self.input_names = None
        self.notes = []
        self.error = None


def prepare_inputs(model_path, work, seed, signature=None):
    """Probes the model with LiteRT (one thread) and writes its inputs, made
    by make_inputs' rule, to `work`. Should LiteRT refuse the model for
    Convolution2DTransposeBias, a rewritten copy is what LiteRT runs."""
    made = ModelInputs()
    made.litert_model = model_path
    reflib.quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter
    probe = None
    try:
        probe = Interpreter(model_path=model_path, num_threads=1)
        probe.allocate_tensors()
    except (RuntimeError, ValueError) as e:
        if "Convolution2DTransposeBias" not in str(e):
            made.error = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            return made
    if probe is None:
        sys.path.insert(0, os.path.join(HERE, "reference"))
        import replace_transpose_conv_bias as rtcb
        made.litert_model = os.path.join(work, "litert_rewritten.tflite")
        import io
        with contextlib.redirect_stderr(io.StringIO()):
            rtcb.rewrite_file(model_path, made.litert_model)
        probe = Interpreter(model_path=made.litert_model, num_threads=1)
        probe.allocate_tensors()
        made.notes.append("LiteRT ran a copy with Convolution2DTransposeBias rewritten to TRANSPOSE_CONV")
    if signature:
        # The signature's inputs by name (LiteRT's order of them); to
        # gld_benchmark by tensor name, which both keep from the file.
        by_name = probe.get_signature_runner(signature).get_input_details()
        made.input_names = list(by_name)
        details = [by_name[n] for n in made.input_names]
    else:
        details = probe.get_input_details()
    items = []
    for i, (d, v) in enumerate(zip(details, make_inputs(details, seed))):
        path = os.path.join(work, "input_%d.npy" % i)
        np.save(path, v)
        made.input_files.append(path)
        # By index: LiteRT names a converter model's input by its tensor
        # ('serving_default_x:0'), gld_benchmark by its signature ('x');
        # both list the inputs in the subgraph's order. A signature's by
        # tensor name (':' written '::').
        items.append((d["name"].replace(":", "::") if signature else str(i)) + ":" + path)
    made.value_files = ",".join(items)
    return made


def compare_model(args, model_path):
    """Rows for one model: [(runtime, dict or error string)], notes."""
    work = tempfile.mkdtemp(prefix="gld_compare_")
    try:
        made = prepare_inputs(model_path, work, args.seed, args.signature)
        notes = made.notes
        if made.error is not None:
            # gldelegate alone: its random inputs follow make_inputs' rule.
            rows = [("LiteRT", "could not run this model: %s" % made.error)]
            notes.append("LiteRT could not run %s; gldelegate's rows have no comparison" % os.path.basename(model_path))
            for label, bench in gld_runtimes(args):
                try:
                    rows.append((label, run_gld(bench, model_path, backend_of(label), args.precision, args.threads,
                                                args.warmup_runs, args.num_runs, None, work, args.seed,
                                                args.signature)))
                except Exception as e:  # noqa: BLE001 - reported in the table
                    rows.append((label, "failed: %s" % e))
            return rows, notes
        litert_model, input_files, value_files = made.litert_model, made.input_files, made.value_files
        input_names = made.input_names

        # Each runtime's results of every round, or the error that stopped it.
        bench_of = dict(gld_runtimes(args))
        runtimes = ["LiteRT"] + list(bench_of)
        conditions = [""] + ([BUSY] if args.busy else [])
        labels = [r + c for c in conditions for r in runtimes]
        results = {label: [] for label in labels}
        errors = {}

        def run_one(label):
            if label in errors:
                return
            try:
                if label.startswith("LiteRT"):
                    results[label].append(run_litert(litert_model, input_files, args.threads,
                                                     args.warmup_runs, args.num_runs, work, args.signature,
                                                     input_names))
                else:
                    results[label].append(run_gld(bench_of[label[:-len(BUSY)] if label.endswith(BUSY) else label],
                                                  model_path, backend_of(label), args.precision,
                                                  args.threads, args.warmup_runs, args.num_runs, value_files,
                                                  work, signature=args.signature))
            except Exception as e:  # noqa: BLE001 - reported in the table
                text = str(e).strip().splitlines()
                errors[label] = "failed: %s" % (text[-1] if text else type(e).__name__)

        for r in range(args.rounds):
            order = runtimes if r % 2 == 0 else runtimes[1:] + runtimes[:1]
            for c in conditions:
                with (BusyNeighbour() if c == BUSY else contextlib.nullcontext()):
                    for runtime in order:
                        run_one(runtime + c)
        rows = []
        refs = {}
        for label in labels:
            if label in errors:
                rows.append((label, errors[label]))
                continue
            res = merge_rounds(results[label])
            condition = BUSY if label.endswith(BUSY) else ""
            if label.startswith("LiteRT"):
                refs[condition] = res
            else:
                backend = backend_of(label)
                if res.get("backend") != backend:
                    notes.append("%s ran on %s" % (label, res.get("backend")))
                ref = refs.get(condition)
                if ref is not None:
                    ref_outputs = aligned_reference(res, ref)
                    res["max_rel_diff"] = max_relative_difference(res["outputs"], ref_outputs)
                    agreement = integer_agreement(res["outputs"], ref_outputs)
                    if agreement is not None:
                        res["int_equal"], res["int_max_step"] = agreement
                        notes.append("%s: integer outputs %.2f%% equal to LiteRT's, largest difference %d step(s)"
                                     % (label, 100.0 * agreement[0], agreement[1]))
            rows.append((label, res))
        return rows, notes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def model_label(path):
    """The file's name, or its folder's for the networks' model.tflite."""
    name = os.path.basename(path)
    if name == "model.tflite" and os.path.dirname(path):
        return os.path.basename(os.path.dirname(os.path.abspath(path)))
    return name


def fmt_ms(us):
    # Three decimals below a millisecond (the recurrent models run in tens of us).
    return ("%.3f" if us < 1000.0 else "%.1f") % (us / 1000.0)


def fmt_ratio(x, ref):
    return "%.2fx" % (x / ref) if ref else "-"


def table_rows(model_name, rows):
    out = []
    for name, r in rows:
        if not isinstance(r, dict):
            out.append([model_name, name, r, "", "", "", "", "", ""])
            continue
        ref_name = "LiteRT" + (BUSY if name.endswith(BUSY) else "")
        ref = next((x for n, x in rows if n == ref_name and isinstance(x, dict)), None)
        diff = r.get("max_rel_diff")
        out.append([
            model_name, name,
            fmt_ms(r["init_us"]), fmt_ms(r["first_inference_us"]),
            fmt_ms(r["inference_avg_us"]), fmt_ms(r["inference_median_us"]),
            fmt_ratio(r["inference_avg_us"], ref["inference_avg_us"]) if ref else "-",
            fmt_ratio(r["inference_median_us"], ref["inference_median_us"]) if ref else "-",
            "-" if name.startswith("LiteRT") or diff is None else "%.1e" % diff,
        ])
    return out


SLOWDOWN_HEADER = ["model", "runtime", "calm median ms", "busy median ms", "slowdown", "slowdown / LiteRT's"]


def slowdown_rows(model_name, rows):
    """--busy: each runtime's busy median over its calm one, and that over LiteRT's."""
    got = {n: r for n, r in rows if isinstance(r, dict)}
    out = []
    ref = None
    for name, calm in got.items():
        busy = got.get(name + BUSY)
        if name.endswith(BUSY) or busy is None:
            continue
        slowdown = busy["inference_median_us"] / calm["inference_median_us"]
        if name == "LiteRT":
            ref = slowdown
        out.append([model_name, name, fmt_ms(calm["inference_median_us"]), fmt_ms(busy["inference_median_us"]),
                    "%.2fx" % slowdown, "%.2f" % (slowdown / ref) if ref else "-"])
    return out


HEADER = ["model", "runtime", "init ms", "first ms", "avg ms", "median ms", "avg / LiteRT",
          "median / LiteRT", "max rel diff"]


def print_table(rows, markdown, header=HEADER):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w)
                        for i, (x, w) in enumerate(zip(r, widths))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", action="append", required=True, help=".tflite model (repeatable)")
    p.add_argument("--threads", type=int, default=1, help="LiteRT threads and gld CPU kernel threads")
    p.add_argument("--num_runs", type=int, default=50)
    p.add_argument("--warmup_runs", type=int, default=1, help="the first is the 'first inference'")
    p.add_argument("--rounds", type=int, default=1,
                   help="alternate LiteRT and gld this many times per model (each num_runs timed runs)")
    p.add_argument("--busy", action="store_true",
                   help="also run every round beside one busy neighbour process, and print the slowdowns")
    p.add_argument("--gld_benchmark", default=None, help="path of gld_benchmark (default: newest build*/tools/)")
    p.add_argument("--also", action="append", default=[], metavar="NAME=PATH",
                   help="another gld_benchmark build, its rows labelled 'gld BACKEND NAME' (repeatable; e.g. "
                   "scalar=build-scalar/tools/gld_benchmark)")
    p.add_argument("--backends", default="gl,cpu", help="gld backends to run, comma-separated")
    p.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "fp16_mediump"], help="gld GPU precision")
    p.add_argument("--seed", type=int, default=0, help="input seed (splitmix64 rule of tools/reference)")
    p.add_argument("--signature", default=None, metavar="NAME",
                   help="run this signature of each model (LiteRT: get_signature_runner(NAME); gld_benchmark "
                   "--signature=NAME), e.g. a decoder's decode")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--json", default=None, help="also write every figure to this file")
    args = p.parse_args()
    if args.threads < 1 or args.num_runs < 1 or args.warmup_runs < 1 or args.rounds < 1:
        p.error("--threads, --num_runs, --warmup_runs and --rounds must be at least 1")
    args.backends = [b for b in args.backends.split(",") if b]
    for b in args.backends:
        if b not in ("gl", "cpu", "auto"):
            p.error("--backends: unknown backend '%s' (gl, cpu, auto)" % b)
    if args.gld_benchmark is None:
        args.gld_benchmark = default_gld_benchmark()
    if not args.gld_benchmark or not os.access(args.gld_benchmark, os.X_OK):
        p.error("no gld_benchmark found; build it or pass --gld_benchmark=PATH")
    also = []
    for a in args.also:
        n, sep, path = a.partition("=")
        if not sep or not n or " " in n or not os.access(path, os.X_OK):
            p.error("--also: want NAME=PATH of an executable gld_benchmark, got '%s'" % a)
        also.append((n, path))
    args.also = also
    for g in args.graph:
        if not os.path.isfile(g):
            p.error("--graph: no such file '%s'" % g)

    print("LiteRT %s (XNNPACK, %d thread(s)) vs %s: %d warmup + %d timed runs%s, seed %d, gld precision %s%s"
          % (reflib.litert_version(), args.threads,
             ", ".join([args.gld_benchmark] + ["%s (%s)" % (path, n) for n, path in args.also]),
             args.warmup_runs, args.num_runs,
             " in each of %d alternating rounds" % args.rounds if args.rounds > 1 else "",
             args.seed, args.precision, ", signature " + args.signature if args.signature else ""), flush=True)
    table, slowdowns, all_notes, report, failed = [], [], [], [], False
    for g in args.graph:
        name = model_label(g)
        rows, notes = compare_model(args, g)
        failed = failed or any(not isinstance(r, dict) for _, r in rows)
        table.extend(table_rows(name, rows))
        slowdowns.extend(slowdown_rows(name, rows))
        all_notes.extend("%s: %s" % (name, n) for n in notes)
        report.append({"model": g, "notes": notes, "runs": [
            {"runtime": n, **({k: v for k, v in r.items() if k != "outputs" and k != "ops"}
                              if isinstance(r, dict) else {"error": r})} for n, r in rows]})
    print()
    print_table(table, args.markdown)
    if args.busy:
        print()
        print_table(slowdowns, args.markdown, SLOWDOWN_HEADER)
    for n in all_notes:
        print("note: " + n)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == LITERT_CHILD:
        litert_child(json.loads(sys.argv[2]))
        sys.exit(0)
    sys.exit(main())
