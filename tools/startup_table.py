#!/usr/bin/env python3
"""Cold vs warm start-up cost per model, as gld_benchmark prints it.

start-up cost = init + first inference - median steady inference

cold: an empty --cache_dir and XDG_CACHE_HOME pointed at a fresh folder (so
      ~/.cache/mesa_shader_cache does not help);
warm: gld_warmup fills a cache folder first; then a new gld_benchmark process
      whose XDG_CACHE_HOME is another fresh folder, so only the cache folder
      carries anything over.

  tools/startup_table.py --build build [--models ../shared/models] [--runs 10] [--precision fp32]

Prints a Markdown table (model, cold ms, warm ms, warm/cold).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile


def benchmark(tool, model, cache_dir, xdg, runs, precision):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        json_path = f.name
    env = dict(os.environ, XDG_CACHE_HOME=xdg)
    env.pop("MESA_SHADER_CACHE_DIR", None)
    cmd = [tool, "--graph=" + model, "--backend=gl", "--precision=" + precision, "--num_runs=%d" % runs,
           "--cache_dir=" + cache_dir, "--json=" + json_path]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(json_path) as f:
        result = json.load(f)
    os.unlink(json_path)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="build folder with tools/gld_benchmark and tools/gld_warmup")
    ap.add_argument("--models", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "models"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--precision", default="fp32")
    args = ap.parse_args()
    bench = os.path.join(args.build, "tools", "gld_benchmark")
    warmup = os.path.join(args.build, "tools", "gld_warmup")
    models = sorted(glob.glob(os.path.join(args.models, "*.tflite")))
    if not models:
        sys.exit("no .tflite files in " + args.models)
    print("| model | cold ms | warm ms | warm / cold | warm init ms | warm first ms | median ms | hits |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for model in models:
        with tempfile.TemporaryDirectory() as tmp:
            def fresh(name):
                path = os.path.join(tmp, name)
                os.makedirs(path)
                return path

            cold = benchmark(bench, model, fresh("cold_cache"), fresh("xdg_cold"), args.runs, args.precision)
            warm_cache = fresh("warm_cache")
            env = dict(os.environ, XDG_CACHE_HOME=fresh("xdg_warmup"))
            env.pop("MESA_SHADER_CACHE_DIR", None)
            subprocess.run([warmup, "--graph=" + model, "--cache_dir=" + warm_cache, "--precision=" + args.precision],
                           check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            warm = benchmark(bench, model, warm_cache, fresh("xdg_warm"), args.runs, args.precision)
        c, w = cold["startup_cost_us"] / 1000.0, warm["startup_cost_us"] / 1000.0
        print("| %s | %.0f | %.0f | %.1f%% | %.0f | %.0f | %.0f | %d/%d |" % (
            os.path.basename(model), c, w, 100.0 * w / c if c > 0 else 0.0, warm["init_us"] / 1000.0,
            warm["first_inference_us"] / 1000.0, warm["inference_median_us"] / 1000.0, warm["cache_hits"],
            warm["cache_hits"] + warm["cache_misses"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
