"""tools/compare_litert.py, the side-by-side tool docs/PERFORMANCE.md's CPU tables
come from: alternating rounds (--rounds), the busy-neighbour repeat (--busy), and
LiteRT measured in a process of its own, on a real model against the
gld_benchmark the build made."""
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import FP32_TOLERANCE, model_path

REPO = pathlib.Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "compare_litert.py"


def gld_benchmark():
    for build in sorted(REPO.glob("build*/tools/gld_benchmark")):
        return str(build)
    pytest.skip("no gld_benchmark built under build*/tools/")


def test_rounds_and_busy_rows(tmp_path):
    model = model_path("face_detection_short_range.tflite")
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, str(TOOL), "--graph=" + model, "--backends=cpu", "--threads=2",
                           "--num_runs=3", "--rounds=2", "--busy", "--json=" + str(report),
                           "--gld_benchmark=" + gld_benchmark()], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "in each of 2 alternating rounds" in proc.stdout
    assert "slowdown / LiteRT's" in proc.stdout  # the --busy table
    runs = {r["runtime"]: r for r in json.loads(report.read_text())[0]["runs"]}
    assert sorted(runs) == ["LiteRT", "LiteRT (busy)", "gld cpu", "gld cpu (busy)"]
    for name, r in runs.items():
        assert "error" not in r, (name, r)
        assert r["rounds"] == 2 and len(r["run_times_us"]) == 6, name  # pooled over both rounds
        assert r["init_us"] > 0 and r["inference_median_us"] > 0, name
    for name in ("gld cpu", "gld cpu (busy)"):
        assert runs[name]["backend"] == "cpu"
        assert runs[name]["max_rel_diff"] <= FP32_TOLERANCE, (name, runs[name]["max_rel_diff"])


def test_bad_rounds_is_an_argument_error():
    proc = subprocess.run([sys.executable, str(TOOL), "--graph=x.tflite", "--rounds=0"], capture_output=True,
                          text=True)
    assert proc.returncode == 2
    assert "--rounds" in proc.stderr


def test_signature_compares_a_decoders_decode_step(tmp_path):
    """--signature=decode: LiteRT's signature runner against gld_benchmark
    --signature=decode, the inputs by name, the outputs matched by name."""
    model = REPO / "tests" / "data" / "decoders" / "litert_gen" / "model.tflite"
    if not model.is_file():
        pytest.skip("no decoder %s" % model)
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, str(TOOL), "--graph=" + str(model), "--backends=cpu", "--num_runs=3",
                           "--signature=decode", "--json=" + str(report), "--gld_benchmark=" + gld_benchmark()],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "signature decode" in proc.stdout
    runs = {r["runtime"]: r for r in json.loads(report.read_text())[0]["runs"]}
    assert sorted(runs) == ["LiteRT", "gld cpu"]
    assert "decode_logits_output" in runs["gld cpu"]["output_names"]
    assert runs["gld cpu"]["max_rel_diff"] <= FP32_TOLERANCE
