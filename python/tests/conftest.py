import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MODELS = pathlib.Path(os.environ.get("GLD_TEST_MODELS") or REPO.parent / "shared" / "models")
SHARED_MODELS = [
    "face_detection_short_range.tflite",
    "face_landmark.tflite",
    "hand_landmark_lite.tflite",
    "palm_detection_lite.tflite",
    "pose_detection.tflite",
    "selfie_segmentation.tflite",
]
# As the C++ model tests: max|ours - LiteRT| / max|LiteRT| per output.
FP32_TOLERANCE = 1e-4


def model_path(name):
    path = MODELS / name
    if not path.is_file():
        pytest.skip("shared model %s not found (set GLD_TEST_MODELS)" % path)
    return str(path)


def relative_error(ours, ref):
    ours = np.asarray(ours, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert ours.shape == ref.shape
    scale = np.max(np.abs(ref)) if ref.size else 0.0
    return float(np.max(np.abs(ours - ref)) / max(scale, 1e-30)) if ref.size else 0.0


def random_inputs(interpreter, seed):
    """Uniform [-1, 1) values for every input of a LiteRT-shaped interpreter."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, d["shape"]).astype(d["dtype"]) for d in interpreter.get_input_details()]


def run(interpreter, inputs):
    """allocate_tensors, set every input, invoke; the outputs."""
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]
