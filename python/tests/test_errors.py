"""Bad inputs raise ValueError or RuntimeError with gldelegate's message; the
interpreter stays usable afterwards."""
import threading

import numpy as np
import pytest

from conftest import model_path
from gldelegate.interpreter import Interpreter


@pytest.fixture
def hand():
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu")
    interpreter.allocate_tensors()
    return interpreter


def test_model_arguments(tmp_path):
    with pytest.raises(ValueError, match="Exactly one of model_path and model_content"):
        Interpreter()
    with pytest.raises(ValueError, match="Exactly one"):
        Interpreter(model_path="a.tflite", model_content=b"x")
    with pytest.raises(ValueError, match="missing.tflite"):
        Interpreter(model_path=str(tmp_path / "missing.tflite"))
    with pytest.raises(ValueError, match="is a directory|not a regular file"):
        Interpreter(model_path=str(tmp_path))
    with pytest.raises(ValueError, match="model"):
        Interpreter(model_content=b"not a flatbuffer at all, just text")
    with pytest.raises(ValueError, match="experimental_delegates"):
        Interpreter(model_path=model_path("hand_landmark_lite.tflite"), experimental_delegates=[object()])
    with pytest.raises(ValueError, match="num_threads"):
        Interpreter(model_path=model_path("hand_landmark_lite.tflite"), num_threads=0)


def test_bad_options_raise_at_allocation():
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="vulkan")
    with pytest.raises(ValueError, match="vulkan"):
        interpreter.allocate_tensors()
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), gpu_deny_ops=["NOT_AN_OP"])
    with pytest.raises(ValueError, match="NOT_AN_OP"):
        interpreter.allocate_tensors()


def test_unallocated():
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"))
    with pytest.raises(ValueError, match="allocate_tensors"):
        interpreter.invoke()
    with pytest.raises(ValueError, match="allocate_tensors"):
        interpreter.set_tensor(0, np.zeros((1, 224, 224, 3), np.float32))


def test_set_tensor_checks_like_litert(hand):
    index = hand.get_input_details()[0]["index"]
    with pytest.raises(ValueError, match="Got value of type FLOAT64 but expected type FLOAT32 for input 0"):
        hand.set_tensor(index, np.zeros((1, 224, 224, 3)))
    with pytest.raises(ValueError, match="Dimension mismatch. Got 3 but expected 4 for input 0"):
        hand.set_tensor(index, np.zeros((224, 224, 3), np.float32))
    with pytest.raises(ValueError, match="Got 200 but expected 224 for dimension 1 of input 0"):
        hand.set_tensor(index, np.zeros((1, 200, 224, 3), np.float32))
    with pytest.raises(ValueError, match="not an input"):
        hand.set_tensor(12345, np.zeros((1, 224, 224, 3), np.float32))
    # Still usable, and a non-contiguous array is accepted.
    value = np.zeros((1, 224, 224, 6), np.float32)[..., ::2]
    hand.set_tensor(index, value)
    hand.invoke()


def test_get_tensor_and_resize(hand):
    with pytest.raises(ValueError, match="not an input or output"):
        hand.get_tensor(5)
    with pytest.raises(ValueError, match="subgraph_index"):
        hand.get_tensor(hand.get_output_details()[0]["index"], subgraph_index=1)
    hand.resize_tensor_input(0, [1, 224, 224, 3])
    with pytest.raises(ValueError, match="Cannot resize input 0 'input_1' from \\[1, 224, 224, 3\\] to \\[2, 224, 224, 3\\]"):
        hand.resize_tensor_input(0, [2, 224, 224, 3])


def test_signature_errors(hand):
    assert hand.get_signature_list() == {}
    with pytest.raises(ValueError, match="model has 0 Signatures"):
        hand.get_signature_runner()


def test_invoke_releases_the_gil(hand):
    """Another Python thread runs while invoke() is busy."""
    hand.set_tensor(0, np.random.default_rng(0).random((1, 224, 224, 3), dtype=np.float32))
    ticks = []
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=counter)
    t.start()
    try:
        before = len(ticks)
        for _ in range(5):
            hand.invoke()
        during = len(ticks) - before
    finally:
        stop.set()
        t.join()
    assert during > 0
