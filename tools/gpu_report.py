#!/usr/bin/env python3
"""Merges what tools/gpu_run.sh left in OUT_DIR (compare_fp32.json,
compare_fp16.json, compare_fp16_mediump.json, litert_gpu.json, startup.md,
steps.txt) into OUT_DIR/gpu_run.json and one Markdown table OUT_DIR/gpu_run.md:
per model, the median latency of LiteRT (XNNPACK, all cores), LiteRT's own GPU
accelerator (CompiledModel, WebGPU; why not, where it cannot run), GL fp32,
GL fp16 and the CPU backend, LiteRT / GL fp16 (the speed-up), the fp16
accuracy against LiteRT, then the start-up table.

  tools/gpu_report.py --out OUT_DIR [--renderer TEXT] [--seconds N]
"""
import argparse
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def medians(report):
    """{model basename: {runtime: median ms or error, runtime + ' diff': max rel diff}}"""
    out = {}
    for entry in report:
        row = out.setdefault(os.path.basename(entry["model"]), {})
        for run in entry.get("runs", []):
            name = run["runtime"]
            if "error" in run:
                row[name] = run["error"]
                continue
            row[name] = run["inference_median_us"] / 1000.0
            if "max_rel_diff" in run:
                row[name + " diff"] = run["max_rel_diff"]
            if "host_issue_us_per_dispatch" in run:
                row[name + " issue"] = run["host_issue_us_per_dispatch"]
    return out


def cell(v, fmt="%.2f"):
    return fmt % v if isinstance(v, (int, float)) else ("-" if v is None else str(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--renderer", default="")
    ap.add_argument("--seconds", type=int, default=0)
    args = ap.parse_args()
    fp32 = medians(load(os.path.join(args.out, "compare_fp32.json")))
    fp16 = medians(load(os.path.join(args.out, "compare_fp16.json")))
    mediump = medians(load(os.path.join(args.out, "compare_fp16_mediump.json")))
    steps = []
    steps_path = os.path.join(args.out, "steps.txt")
    if os.path.exists(steps_path):
        for line in open(steps_path):
            name, rc, secs = line.split()
            steps.append({"step": name, "exit": int(rc), "seconds": int(secs)})
    litert_gpu = {r["model"]: r for r in (load(os.path.join(args.out, "litert_gpu.json")) or {}).get("models", [])}
    startup_path = os.path.join(args.out, "startup.md")
    startup = open(startup_path).read() if os.path.exists(startup_path) else ""
    rows = []
    for model in sorted(set(fp32) | set(fp16) | set(litert_gpu)):
        a, b = fp32.get(model, {}), fp16.get(model, {})
        litert = a.get("LiteRT", b.get("LiteRT"))
        gl16 = b.get("gld gl")
        speedup = litert / gl16 if isinstance(litert, float) and isinstance(gl16, float) and gl16 > 0 else None
        lg = litert_gpu.get(model, {})
        rows.append({"model": model, "litert_ms": litert,
                     "litert_gpu_ms": lg.get("median_ms") if lg.get("ok") else None,
                     "litert_gpu_why": lg.get("why", "not measured"),
                     "gl_fp32_ms": a.get("gld gl"), "gl_fp16_ms": gl16,
                     "gl_fp16_mediump_ms": mediump.get(model, {}).get("gld gl"),
                     "gl_fp16_mediump_max_rel_diff": mediump.get(model, {}).get("gld gl diff"),
                     "gl_fp16_host_issue_us_per_dispatch": b.get("gld gl issue"),
                     "cpu_ms": a.get("gld cpu"), "litert_over_gl_fp16": speedup,
                     "gl_fp32_max_rel_diff": a.get("gld gl diff"), "gl_fp16_max_rel_diff": b.get("gld gl diff")})
    report = {"renderer": args.renderer, "seconds": args.seconds, "steps": steps, "models": rows,
              "startup_markdown": startup}
    with open(os.path.join(args.out, "gpu_run.json"), "w") as f:
        json.dump(report, f, indent=1)
    lines = ["GL renderer: %s; %d s in all" % (args.renderer or "?", args.seconds), "",
             "| model | LiteRT ms | LiteRT GPU ms | GL fp32 ms | GL fp16 ms | GL fp16_mediump ms | CPU ms "
             "| LiteRT / GL fp16 | fp16 max rel diff | mediump max rel diff |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], cell(r["litert_ms"]), cell(r["litert_gpu_ms"] if r["litert_gpu_ms"] is not None else "n/a"),
            cell(r["gl_fp32_ms"]), cell(r["gl_fp16_ms"]),
            cell(r["gl_fp16_mediump_ms"]), cell(r["cpu_ms"]), cell(r["litert_over_gl_fp16"], "%.2fx"),
            cell(r["gl_fp16_max_rel_diff"], "%.1e"), cell(r["gl_fp16_mediump_max_rel_diff"], "%.1e")))
    why = sorted({r["litert_gpu_why"] for r in rows if r["litert_gpu_ms"] is None})
    if why:
        lines += ["", "LiteRT GPU n/a: " + " | ".join(why)]
    lines += ["", "Steps: " + ", ".join("%s %ds (exit %d)" % (s["step"], s["seconds"], s["exit"]) for s in steps),
              "", "Start-up (fp16, cold and warm through the cache):", "", startup]
    with open(os.path.join(args.out, "gpu_run.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
