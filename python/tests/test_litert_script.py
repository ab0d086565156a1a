"""examples/python/litert_six_models.py, a script written for LiteRT, gives the
same outputs after changing only its import to gldelegate."""
import pathlib
import subprocess
import sys

import numpy as np

from conftest import FP32_TOLERANCE, MODELS, model_path, relative_error

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "litert_six_models.py"
LITERT_IMPORT = "from ai_edge_litert.interpreter import Interpreter"
OUR_IMPORT = "from gldelegate.interpreter import Interpreter"


def test_switching_the_import_keeps_the_outputs(tmp_path):
    model_path("hand_landmark_lite.tflite")  # skips without the shared models
    text = SCRIPT.read_text()
    assert text.count(LITERT_IMPORT) == 1
    ours = tmp_path / "ours.py"
    ours.write_text(text.replace(LITERT_IMPORT, OUR_IMPORT))
    subprocess.run([sys.executable, str(SCRIPT), str(MODELS), str(tmp_path / "litert.npz")], check=True)
    subprocess.run([sys.executable, str(ours), str(MODELS), str(tmp_path / "ours.npz")], check=True)
    expected = np.load(tmp_path / "litert.npz")
    got = np.load(tmp_path / "ours.npz")
    assert sorted(got.files) == sorted(expected.files) and len(expected.files) >= 6
    for key in expected.files:
        assert relative_error(got[key], expected[key]) <= FP32_TOLERANCE, (key, relative_error(got[key], expected[key]))


def test_readme_shows_the_quickstart():
    readme = (SCRIPT.parents[2] / "README.md").read_text()
    quickstart = (SCRIPT.parent / "quickstart.py").read_text()
    assert quickstart in readme
