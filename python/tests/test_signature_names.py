"""Models with a SignatureDef (converted from SavedModels: tensors named
serving_default_image:0, signature names image, probabilities): the
details give the tensors' names as LiteRT's do, and only the signature APIs
(get_signature_list, get_signature_runner) speak the signature's names.
Was: get_input_details() said 'image' where LiteRT says
'serving_default_image:0', so a LiteRT script selecting by name broke."""
import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

from conftest import FP32_TOLERANCE, REPO, relative_error
from gldelegate.interpreter import Interpreter

NETWORKS = REPO / "tests" / "data" / "networks"
# One input and two outputs; two inputs and two outputs (outputs in another
# order than the signature's).
CASES = ["effnet_lite_float32", "bert_tiny_float32"]


def model(name):
    path = NETWORKS / name / "model.tflite"
    if not path.is_file():
        pytest.skip("network %s not found" % path)
    return str(path)


@pytest.mark.parametrize("name", CASES)
def test_details_names_are_litert_tensor_names(name):
    path = model(name)
    litert = LiteRTInterpreter(model_path=path)
    ours = Interpreter(model_path=path, backend="cpu")
    for theirs, mine in ((litert.get_input_details(), ours.get_input_details()),
                         (litert.get_output_details(), ours.get_output_details())):
        assert [(d["name"], d["index"]) for d in mine] == [(d["name"], d["index"]) for d in theirs]
    assert any(d["name"].startswith("serving_default_") for d in ours.get_input_details())
    # get_tensor_details names the same tensors the same way.
    theirs = {d["index"]: d["name"] for d in litert.get_tensor_details()}
    ours.allocate_tensors()
    for d in ours.get_input_details() + ours.get_output_details():
        assert theirs[d["index"]] == d["name"]


@pytest.mark.parametrize("name", CASES)
def test_signature_apis_keep_the_signature_names(name):
    path = model(name)
    litert = LiteRTInterpreter(model_path=path)
    ours = Interpreter(model_path=path, backend="cpu")
    assert ours.get_signature_list() == litert.get_signature_list()
    mine, theirs = ours.get_signature_runner(), litert.get_signature_runner()
    for side in ("get_input_details", "get_output_details"):
        a, b = getattr(mine, side)(), getattr(theirs, side)()
        assert sorted(a) == sorted(b)
        for key in a:
            assert a[key]["name"] == b[key]["name"] and a[key]["index"] == b[key]["index"], (key, a[key], b[key])
    rng = np.random.default_rng(5)
    feeds = {}
    for key, d in theirs.get_input_details().items():
        if np.issubdtype(d["dtype"], np.integer):
            feeds[key] = rng.integers(0, 2, d["shape"]).astype(d["dtype"])
        else:
            feeds[key] = rng.uniform(-1, 1, d["shape"]).astype(d["dtype"])
    got, want = mine(**feeds), theirs(**feeds)
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key].shape == want[key].shape, (key, got[key].shape, want[key].shape)
        assert relative_error(got[key], want[key]) <= FP32_TOLERANCE, (key, relative_error(got[key], want[key]))
