#!/usr/bin/env python3
"""Runs LiteRT on deterministic inputs and stores the reference outputs.

Usage:
    python3 tools/reference/make_reference.py --model M.tflite --out DIR [--seed N]
        [--resolver BUILTIN_REF|BUILTIN|AUTO|BUILTIN_WITHOUT_DEFAULT_DELEGATES]
        [--store-inputs auto|always|never] [--model-name NAME] [--note TEXT]

Writes into DIR:
    output_<i>.npy     every model output, as LiteRT computed it
    input_<i>.npy      the input, when stored (always for non-float inputs; for
                       float inputs with --store-inputs auto only when <= 64 KiB)
    input_<i>_head.npy the first 256 values of a float input that is not stored,
                       so the C++ side can check that it regenerated it exactly
    manifest.json      names, shapes, dtypes, seed, generator, LiteRT version,
                       op resolver, notes

Float inputs are uniform in [-1, 1) from the "splitmix64_pm1" rule in reflib.py
(stream = input index), which tests/models/reference_inputs.h reimplements
bit-exactly. Integer / bool inputs are uniform in [0, 4) / [0, 2) from the same
words and are always stored.

The default resolver is BUILTIN_REF: LiteRT's reference kernels, without XNNPACK
and its own rounding.
"""

import argparse
import glob
import hashlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reflib  # noqa: E402

INLINE_LIMIT_BYTES = 64 * 1024
HEAD_VALUES = 256


def make_inputs(details, seed):
    values = []
    for i, d in enumerate(details):
        shape = tuple(int(s) for s in d["shape"])
        dtype = np.dtype(d["dtype"])
        if dtype == np.float32:
            v = reflib.uniform_pm1(seed, i, shape)
        elif dtype == np.bool_:
            v = reflib.uniform_int(seed, i, shape, 0, 2).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            v = reflib.uniform_int(seed, i, shape, 0, 4).astype(dtype)
        else:
            reflib.die(f"input {i} ({d['name']}): unsupported dtype {dtype}")
        values.append(v)
    return values


def generate(model_path, out_dir, seed=0, resolver="BUILTIN_REF", store_inputs="auto",
             model_name=None, note=None, inputs=None, extra=None):
    """`inputs` replaces the generated inputs (then always stored); `extra`
    adds keys to the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(out_dir, "input_*.npy")) + \
            glob.glob(os.path.join(out_dir, "output_*.npy")):
        os.remove(stale)

    with open(model_path, "rb") as f:
        model_bytes = f.read()
    it = reflib.make_interpreter(model_content=model_bytes, resolver=resolver)
    in_details = it.get_input_details()
    given_inputs = inputs is not None
    if not given_inputs:
        inputs = make_inputs(in_details, seed)
    outputs = reflib.run_litert(it, inputs)

    manifest = {
        "model": model_name or os.path.basename(model_path),
        "model_sha256": hashlib.sha256(model_bytes).hexdigest(),
        "model_bytes": len(model_bytes),
        "seed": int(seed),
        "generator": reflib.GENERATOR_NAME,
        "litert_version": reflib.litert_version(),
        "resolver": resolver,
        "numpy_version": np.__version__,
        "inputs": [],
        "outputs": [],
    }
    if note:
        manifest["note"] = note
    if extra:
        manifest.update(extra)

    for i, (d, v) in enumerate(zip(in_details, inputs)):
        entry = {"index": i, "name": d["name"], "shape": list(v.shape),
                 "dtype": str(v.dtype), "stream": i}
        store = (given_inputs or store_inputs == "always" or v.dtype != np.float32 or
                 (store_inputs == "auto" and v.nbytes <= INLINE_LIMIT_BYTES))
        if store:
            entry["file"] = f"input_{i}.npy"
            np.save(os.path.join(out_dir, entry["file"]), v)
        else:
            entry["file"] = None
            entry["head_file"] = f"input_{i}_head.npy"
            np.save(os.path.join(out_dir, entry["head_file"]), v.reshape(-1)[:HEAD_VALUES])
        manifest["inputs"].append(entry)

    for i, (d, v) in enumerate(zip(it.get_output_details(), outputs)):
        entry = {"index": i, "name": d["name"], "shape": list(v.shape),
                 "dtype": str(v.dtype), "file": f"output_{i}.npy"}
        if v.dtype.kind == "f":
            entry["max_abs"] = float(np.max(np.abs(v))) if v.size else 0.0
        np.save(os.path.join(out_dir, entry["file"]), v)
        manifest["outputs"].append(entry)

    reflib.write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resolver", default="BUILTIN_REF",
                   choices=["BUILTIN_REF", "BUILTIN", "AUTO", "BUILTIN_WITHOUT_DEFAULT_DELEGATES"])
    p.add_argument("--store-inputs", default="auto", choices=["auto", "always", "never"])
    p.add_argument("--model-name", help="name recorded in the manifest (default: file name)")
    p.add_argument("--note", help="free text recorded in the manifest")
    a = p.parse_args()
    if a.seed < 0 or a.seed >= 1 << 40:
        reflib.die(f"--seed {a.seed} out of range [0, 2^40)")
    m = generate(a.model, a.out, a.seed, a.resolver, a.store_inputs, a.model_name, a.note)
    for o in m["outputs"]:
        print(f"{m['model']}: output {o['index']} {o['name']} {o['shape']} "
              f"max|ref|={o.get('max_abs', 'n/a')}")


if __name__ == "__main__":
    main()
