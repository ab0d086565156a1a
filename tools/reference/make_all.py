#!/usr/bin/env python3
"""Regenerates the model references in tests/data/models/<model_stem>/.

Usage (from anywhere):
    python3 tools/reference/make_all.py [--models DIR] [--out DIR] [--seed N] [--all]

--models defaults to $GLD_TEST_MODELS, else ../shared/models next to the repo;
--out defaults to tests/data/models in the repo. Without --all only the six
shared models the tests know are done; with --all every *.tflite in --models.

A model holding MediaPipe's Convolution2DTransposeBias custom op (which stock
LiteRT cannot run) is first rewritten by replace_transpose_conv_bias.py into a
temporary copy with an equivalent builtin TRANSPOSE_CONV; the reference is
LiteRT on that copy, and the manifest says so ("note", "run_model_sha256").
The rewritten copy is deleted afterwards and never committed.
"""

import argparse
import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference  # noqa: E402
import reflib  # noqa: E402
import replace_transpose_conv_bias as rtcb  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHARED_MODELS = [
    "face_detection_short_range", "face_landmark", "hand_landmark_lite",
    "palm_detection_lite", "pose_detection", "selfie_segmentation",
]


def has_custom_transpose_conv(path):
    with open(path, "rb") as f:
        model = rtcb.schema.ModelT.InitFromPackedBuf(f.read(), 0)
    return any(oc.customCode is not None and bytes(oc.customCode) == rtcb.CUSTOM_CODE
               for oc in model.operatorCodes)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default=os.environ.get("GLD_TEST_MODELS") or
                   os.path.join(REPO, "..", "shared", "models"))
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "models"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--all", action="store_true")
    a = p.parse_args()
    if not os.path.isdir(a.models):
        reflib.die(f"models folder {a.models} not found (set --models or GLD_TEST_MODELS)")
    if a.all:
        stems = sorted(f[:-7] for f in os.listdir(a.models) if f.endswith(".tflite"))
    else:
        stems = SHARED_MODELS
    for stem in stems:
        path = os.path.join(a.models, stem + ".tflite")
        if not os.path.isfile(path):
            reflib.die(f"{path} not found")
        out = os.path.join(a.out, stem)
        with open(path, "rb") as f:
            source = f.read()
        source_sha = hashlib.sha256(source).hexdigest()
        if has_custom_transpose_conv(path):
            with tempfile.TemporaryDirectory() as tmp:
                rewritten = os.path.join(tmp, stem + ".rewritten.tflite")
                rtcb.rewrite_file(path, rewritten)
                m = make_reference.generate(
                    rewritten, out, a.seed, model_name=stem + ".tflite",
                    note="LiteRT ran a rewritten copy: tools/reference/replace_transpose_conv_bias.py "
                         "turned each Convolution2DTransposeBias custom op into an equivalent "
                         "builtin TRANSPOSE_CONV (output_shape constant, OHWI weights, bias as "
                         "4th input)")
                m["run_model_sha256"] = m["model_sha256"]
                m["run_model_bytes"] = m["model_bytes"]
        else:
            m = make_reference.generate(path, out, a.seed, model_name=stem + ".tflite")
        m["model_sha256"] = source_sha
        m["model_bytes"] = len(source)
        reflib.write_json(os.path.join(out, "manifest.json"), m)
        for o in m["outputs"]:
            print(f"{stem}: output {o['index']} {o['name']} {o['shape']} max|ref|={o.get('max_abs')}")


if __name__ == "__main__":
    main()
