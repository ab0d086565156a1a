"""Every shared model through gldelegate.interpreter.Interpreter (CPU and GL
backends) against ai_edge_litert's Interpreter on the same inputs, within the
C++ model tests' fp32 tolerance; and the LiteRT API used as LiteRT's docs
show it, details dicts included."""
import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

from conftest import FP32_TOLERANCE, SHARED_MODELS, model_path, random_inputs, relative_error, run
from gldelegate.interpreter import Interpreter


@pytest.mark.parametrize("backend", ["cpu", "gl"])
@pytest.mark.parametrize("name", SHARED_MODELS)
def test_outputs_match_litert(name, backend):
    path = model_path(name)
    litert = LiteRTInterpreter(model_path=path)
    ours = Interpreter(model_path=path, backend=backend)
    inputs = random_inputs(litert, seed=3)
    expected = run(litert, inputs)
    got = run(ours, inputs)
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g.dtype == e.dtype and g.shape == e.shape, (k, g.dtype, g.shape, e.dtype, e.shape)
        assert relative_error(g, e) <= FP32_TOLERANCE, (name, backend, k, relative_error(g, e))
    assert ours.placement["backend"] == backend


@pytest.mark.parametrize("name", SHARED_MODELS)
def test_details_match_litert(name):
    path = model_path(name)
    litert = LiteRTInterpreter(model_path=path)
    ours = Interpreter(model_path=path)
    for theirs, mine in ((litert.get_input_details(), ours.get_input_details()),
                         (litert.get_output_details(), ours.get_output_details())):
        assert len(theirs) == len(mine)
        for t, m in zip(theirs, mine):
            assert set(t) == set(m), (set(t) ^ set(m))
            for key in ("name", "index", "dtype", "quantization"):
                assert t[key] == m[key], (key, t[key], m[key])
            np.testing.assert_array_equal(t["shape"], m["shape"])
            assert m["shape"].dtype == t["shape"].dtype
            np.testing.assert_array_equal(t["shape_signature"], m["shape_signature"])
            assert set(t["quantization_parameters"]) == set(m["quantization_parameters"])


def test_model_content_and_documented_flow():
    """The flow of LiteRT's Python guide, from bytes instead of a path."""
    path = model_path("hand_landmark_lite.tflite")
    with open(path, "rb") as f:
        content = f.read()
    interpreter = Interpreter(model_content=content, num_threads=2)
    interpreter.allocate_tensors()
    input_details = interpreter.get_input_details()
    output_details = interpreter.get_output_details()
    input_shape = input_details[0]["shape"]
    input_data = np.array(np.random.random_sample(input_shape), dtype=np.float32)
    interpreter.set_tensor(input_details[0]["index"], input_data)
    interpreter.invoke()
    output_data = interpreter.get_tensor(output_details[0]["index"])
    assert output_data.shape == tuple(output_details[0]["shape"])
    np.testing.assert_array_equal(interpreter.get_tensor(input_details[0]["index"]), input_data)
    assert interpreter.tensor(output_details[0]["index"])().shape == output_data.shape


def test_signature_runner_matches_litert():
    import pathlib
    path = str(pathlib.Path(__file__).resolve().parents[2] / "tests/data/networks/mobilenet_v2_float32/model.tflite")
    litert = LiteRTInterpreter(model_path=path)
    ours = Interpreter(model_path=path, backend="cpu")
    assert ours.get_signature_list() == litert.get_signature_list()
    key = next(iter(litert.get_signature_list()))
    theirs_runner = litert.get_signature_runner(key)
    ours_runner = ours.get_signature_runner()
    assert set(ours_runner.get_input_details()) == set(theirs_runner.get_input_details())
    image = np.random.default_rng(5).random(ours_runner.get_input_details()["image"]["shape"], dtype=np.float32)
    expected = theirs_runner(image=image)
    got = ours_runner(image=image)
    assert set(got) == set(expected)
    for k in expected:
        assert relative_error(got[k], expected[k]) <= FP32_TOLERANCE, (k, relative_error(got[k], expected[k]))


def test_placement_and_profile():
    ours = Interpreter(model_path=model_path("palm_detection_lite.tflite"), backend="gl", enable_profiling=True)
    run(ours, random_inputs(ours, seed=1))
    ours.invoke()
    ours.invoke()
    placement = ours.placement
    assert placement["backend"] == "gl"
    assert placement["placement"].startswith("placement: ")
    assert placement["gpu_nodes"] == placement["total_nodes"] > 0
    assert all(n["on_gpu"] for n in placement["nodes"])
    rows = ours.profile
    # The first invoke (compiling and warming) is not timed.
    assert rows and all(r["count"] == 2 and r["time_us"] >= 0 for r in rows)
    assert {r["backend"] for r in rows} == {"gl"}
