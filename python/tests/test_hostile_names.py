"""A model whose tensor names are not UTF-8 (bytes 0xff, 0xfe in place of
letters): every accessor gives text, each byte outside UTF-8 written as
\\xNN, the rule the tools print names by and error messages follow; runs
are unchanged. Was: .placement (and the details) raised UnicodeDecodeError.
LiteRT loads such a model too and raises UnicodeDecodeError from
get_input_details."""
import numpy as np
import pytest

from conftest import REPO
from gldelegate.interpreter import Interpreter

CASE = REPO / "tests" / "data" / "ops" / "add__broadcast_both"


def patched(tmp_path):
    path = CASE / "model.tflite"
    if not path.is_file():
        pytest.skip("op case %s not found" % CASE)
    data = bytearray(path.read_bytes())
    for name, byte in ((b"input_0", 0xFF), (b"output_0", 0xFE)):
        assert data.count(name) == 1, name
        data[data.find(name) + 1] = byte  # "i\xffput_0", "o\xfetput_0"
    out = tmp_path / "not_utf8.tflite"
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("backend", ["cpu", "gl"])
def test_names_outside_utf8_are_escaped_everywhere(tmp_path, backend):
    ours = Interpreter(model_path=str(patched(tmp_path)), backend=backend)
    try:
        ours.allocate_tensors()
    except RuntimeError as e:
        if backend == "gl":
            pytest.skip("no GL here: %s" % e)
        raise
    inputs = ours.get_input_details()
    outputs = ours.get_output_details()
    assert inputs[0]["name"] == "i\\xffput_0"
    assert outputs[0]["name"] == "o\\xfetput_0"
    names = [d["name"] for d in ours.get_tensor_details()]
    assert "i\\xffput_0" in names and "o\\xfetput_0" in names
    placement = ours.placement
    assert placement["nodes"][0]["input_names"][0] == "i\\xffput_0"
    assert placement["nodes"][0]["output_names"] == ["o\\xfetput_0"]
    # The run is the unpatched model's.
    reference = Interpreter(model_path=str(CASE / "model.tflite"), backend=backend)
    reference.allocate_tensors()
    for interp in (ours, reference):
        for k, d in enumerate(interp.get_input_details()):
            interp.set_tensor(d["index"], np.load(CASE / ("input_%d.npy" % k)))
        interp.invoke()
    np.testing.assert_array_equal(ours.get_tensor(outputs[0]["index"]),
                                  reference.get_tensor(reference.get_output_details()[0]["index"]))
