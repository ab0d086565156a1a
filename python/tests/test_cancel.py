"""Interpreter.cancel() from another thread ends a running invoke(): a WHILE
told to run 2^31 - 1 iterations (the op case while__fc_input_count, whose
input 0 is the count) raises gldelegate.InvokeCancelledError (a
RuntimeError) "invoke cancelled ..." within a bound, and the next invoke runs normally with LiteRT's result."""
import threading
import time

import numpy as np
import pytest

from conftest import REPO
from gldelegate import InvokeCancelledError
from gldelegate.interpreter import Interpreter

CASE = REPO / "tests" / "data" / "ops" / "while__fc_input_count"


@pytest.mark.parametrize("backend", ["cpu", "gl"])
def test_cancel_ends_a_loop_and_the_next_invoke_runs(backend):
    if not (CASE / "model.tflite").is_file():
        pytest.skip("op case %s not found" % CASE)
    interpreter = Interpreter(model_path=str(CASE / "model.tflite"), backend=backend,
                              max_loop_iterations=2**31 - 1)
    try:
        interpreter.allocate_tensors()
    except RuntimeError as e:
        if backend == "gl":
            pytest.skip("no GL here: %s" % e)
        raise
    count, x = [d["index"] for d in interpreter.get_input_details()]
    interpreter.set_tensor(count, np.array(2**31 - 1, np.int32))
    interpreter.set_tensor(x, np.load(CASE / "input_1.npy"))
    errors = []

    def run():
        try:
            interpreter.invoke()
        except InvokeCancelledError as e:
            errors.append(str(e))

    runner = threading.Thread(target=run)
    runner.start()
    time.sleep(0.3)
    first = time.monotonic()
    # A cancel before the invoke began would be for no invoke: ask until it ends.
    while runner.is_alive() and time.monotonic() - first < 60:
        interpreter.cancel()
        runner.join(0.005)
    assert not runner.is_alive(), "invoke did not end within 60 s of cancel()"
    assert time.monotonic() - first < 5
    assert errors and "invoke cancelled" in errors[0] and "WHILE" in errors[0], errors
    assert issubclass(InvokeCancelledError, RuntimeError)

    interpreter.set_tensor(count, np.load(CASE / "input_0.npy"))
    interpreter.invoke()
    out = interpreter.get_output_details()[0]["index"]
    np.testing.assert_allclose(interpreter.get_tensor(out), np.load(CASE / "output_0.npy"), rtol=1e-5, atol=1e-6)


def test_cancel_while_idle_does_nothing():
    if not (CASE / "model.tflite").is_file():
        pytest.skip("op case %s not found" % CASE)
    interpreter = Interpreter(model_path=str(CASE / "model.tflite"), backend="cpu")
    interpreter.cancel()  # before allocate_tensors too
    interpreter.allocate_tensors()
    interpreter.cancel()
    count, x = [d["index"] for d in interpreter.get_input_details()]
    interpreter.set_tensor(count, np.load(CASE / "input_0.npy"))
    interpreter.set_tensor(x, np.load(CASE / "input_1.npy"))
    interpreter.invoke()
    out = interpreter.get_output_details()[0]["index"]
    np.testing.assert_allclose(interpreter.get_tensor(out), np.load(CASE / "output_0.npy"), rtol=1e-5, atol=1e-6)
