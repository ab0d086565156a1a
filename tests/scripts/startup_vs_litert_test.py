#!/usr/bin/env python3
"""tools/startup_vs_litert.py: its table cells and summary from made-up
figures, then (with ai_edge_litert importable and --benchmark given) one run
over a small model: exit 0, the header, the model's row with a ratio, and
its init phases with --phases. Exit 77 (skipped) without numpy.

Usage: startup_vs_litert_test.py [--benchmark PATH --model PATH]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")

try:
    import numpy  # noqa: F401
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

sys.path.insert(0, TOOLS)
import startup_vs_litert as svl  # noqa: E402

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what)


def made_up(litert_us, gld_load_us, gld_init_us, gld_first_us):
    mib = 1024 * 1024
    return {
        "litert": {"first_result_us": litert_us, "rss_start_bytes": 50 * mib, "peak_rss_bytes": 60 * mib},
        "gld": {"first_result_us": gld_init_us + gld_first_us, "load_us": gld_load_us, "init_us": gld_init_us,
                "first_inference_us": gld_first_us, "rss_start_bytes": 5 * mib, "peak_rss_bytes": 25 * mib,
                "startup_phases": [{"name": "a", "us": 1000.0, "count": 1}, {"name": "b", "us": 3000.0, "count": 2}]},
    }


def unit_checks():
    res = made_up(10000.0, 1000.0, 6000.0, 2000.0)
    row = svl.table_row("m", res)
    check(len(row) == len(svl.HEADER), "one cell per column")
    check(row[1] == "10.0" and row[2] == "8.0", "first-result times in ms: %s" % row[1:3])
    check(row[3] == "0.80x", "ratio gld / LiteRT: %s" % row[3])
    check(row[4] == "1.0 / 5.0 / 2.0", "load / init (without the load) / first: %s" % row[4])
    check(row[5] == "60.0 (10.0)" and row[6] == "25.0 (20.0)", "peak RSS and growth: %s" % row[5:7])
    check(row[7] == "2.00x", "growth ratio: %s" % row[7])
    err = svl.table_row("bad", {"error": "failed: x"})
    check(err[1] == "failed: x" and len(err) == len(svl.HEADER), "an error fills the row")
    text = svl.summary([("m", res), ("n", made_up(1000.0, 100.0, 1500.0, 500.0)), ("bad", {"error": "x"})])
    check("over 2 models" in text and "geomean 1.26x" in text and "worst 2.00x (n)" in text and "1 above" in text,
          "summary: %s" % text)
    lines = svl.phase_lines("m", res, 1)
    check(lines == ["m: b 3.0 (ms)"], "largest phase first: %s" % lines)


def tool_run(benchmark, model):
    try:
        import ai_edge_litert  # noqa: F401
    except ImportError:
        print("ai_edge_litert is not installed: the tool run is skipped")
        return
    proc = subprocess.run([sys.executable, os.path.join(TOOLS, "startup_vs_litert.py"), "--graph=" + model,
                           "--runs=1", "--threads=1", "--phases", "--gld_benchmark=" + benchmark],
                          capture_output=True, text=True, timeout=600)
    out = proc.stdout
    check(proc.returncode == 0, "exit status %d: %s" % (proc.returncode, proc.stderr[-2000:]))
    check("| " + " | ".join(svl.HEADER) + " |" in out, "the header")
    name = svl.cl.model_label(model)
    rows = [line for line in out.splitlines() if line.startswith("| %s |" % name)]
    check(len(rows) == 1 and "x |" in rows[0], "the model's row: %s" % rows)
    check("geomean" in out, "the summary line")
    check(any(line.startswith(name + ": ") and "(ms)" in line for line in out.splitlines()), "its phases")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--benchmark", default=None)
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    unit_checks()
    if args.benchmark and args.model:
        tool_run(args.benchmark, args.model)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
