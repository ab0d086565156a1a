"""LiteRT idioms from users' scripts (issue 35): arrays wrapping received bytes
(read-only, or in another byte order), model paths as bytes, and writing an
input through interpreter.tensor(i)(). The same steps on LiteRT and on
gldelegate give the same outputs."""
import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

from conftest import FP32_TOLERANCE, model_path, relative_error
from gldelegate.interpreter import Interpreter

MODEL = "hand_landmark_lite.tflite"


def make(cls, path):
    kwargs = {"backend": "cpu"} if cls is Interpreter else {}
    interpreter = cls(model_path=path, **kwargs)
    interpreter.allocate_tensors()
    return interpreter


def outputs(interpreter):
    return [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]


def assert_close(got, expected):
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape and g.dtype == e.dtype, k
        assert relative_error(g, e) <= FP32_TOLERANCE, (k, relative_error(g, e))


def image(seed):
    return np.random.default_rng(seed).uniform(0, 1, (1, 224, 224, 3)).astype(np.float32)


class SpyImpl:
    """The module's interpreter, recording the arrays set_input is given."""

    def __init__(self, impl):
        self._impl = impl
        self.given = []

    def set_input(self, position, value):
        self.given.append(value)
        return self._impl.set_input(position, value)

    def __getattr__(self, name):
        return getattr(self._impl, name)


def test_set_tensor_takes_read_only_and_other_byte_orders():
    path = model_path(MODEL)
    x = image(1)
    litert = make(LiteRTInterpreter, path)
    index = litert.get_input_details()[0]["index"]
    litert.set_tensor(index, x)
    litert.invoke()
    expected = outputs(litert)

    ours = make(Interpreter, path)
    # np.frombuffer over bytes: read-only, and passed on without a copy.
    received = np.frombuffer(x.tobytes(), dtype=np.float32).reshape(x.shape)
    assert not received.flags.writeable
    ours._impl = spy = SpyImpl(ours._impl)
    ours.set_tensor(index, received)
    assert len(spy.given) == 1 and spy.given[0] is received
    ours.invoke()
    assert_close(outputs(ours), expected)
    # A read-only array that is not contiguous.
    wide = np.repeat(x, 2, axis=3)
    wide.flags.writeable = False
    ours.set_tensor(index, wide[..., ::2])
    ours.invoke()
    assert_close(outputs(ours), expected)
    # Big-endian float32 (and the other order of the machine's): taken by
    # value, as get_tensor shows.
    for order in (">", "<"):
        swapped = x.astype(order + "f4")
        ours.set_tensor(index, swapped)
        np.testing.assert_array_equal(ours.get_tensor(index), x)
        ours.invoke()
        assert_close(outputs(ours), expected)
    # Still a dtype error for another type in a non-native order.
    with pytest.raises(ValueError, match="Got value of type FLOAT64 but expected type FLOAT32"):
        ours.set_tensor(index, x.astype(">f8"))


def test_model_path_as_bytes_and_with_nul(tmp_path):
    path = model_path(MODEL)
    x = image(2)
    LiteRTInterpreter(model_path=path.encode())  # LiteRT takes bytes
    by_str, by_bytes = make(Interpreter, path), make(Interpreter, path.encode())
    for interpreter in (by_str, by_bytes):
        interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
        interpreter.invoke()
    for a, b in zip(outputs(by_str), outputs(by_bytes)):
        np.testing.assert_array_equal(a, b)
    # LiteRT opens the path cut at the NUL: another file. A clear error here.
    for bad in (path + "\0.bak", path.encode() + b"\0.bak"):
        with pytest.raises(ValueError, match="NUL byte"):
            Interpreter(model_path=bad)
    # A name that is not UTF-8 is named in the error, byte by byte.
    with pytest.raises(ValueError, match=r"\\xff"):
        Interpreter(model_path=bytes(tmp_path) + b"/missing\xff.tflite")


def write_through_script(cls, path):
    """LiteRT's zero-copy idiom as its docs show it, and set_tensor mixed in."""
    interpreter = make(cls, path)
    index = interpreter.get_input_details()[0]["index"]
    out_index = interpreter.get_output_details()[0]["index"]
    results = []
    interpreter.tensor(index)()[...] = image(3)
    interpreter.invoke()
    results.append(outputs(interpreter))
    # A partial write keeps the rest of the last value.
    interpreter.tensor(index)()[0, :100] = 0.25
    interpreter.invoke()
    results.append(outputs(interpreter))
    results.append([interpreter.get_tensor(index)])
    # set_tensor after writes through tensor(): set_tensor's value runs.
    interpreter.set_tensor(index, image(4))
    interpreter.invoke()
    results.append(outputs(interpreter))
    results.append([interpreter.tensor(index)().copy()])
    # An output's array holds the last invoke's values.
    results.append([interpreter.tensor(out_index)().copy()])
    return results


def test_tensor_writes_reach_invoke_as_on_litert():
    path = model_path(MODEL)
    expected = write_through_script(LiteRTInterpreter, path)
    got = write_through_script(Interpreter, path)
    assert len(got) == len(expected)
    for step, (g, e) in enumerate(zip(got, expected)):
        assert_close(g, e)
    # The first invoke did not run on zeros.
    zeros = make(Interpreter, path)
    zeros.invoke()
    assert relative_error(outputs(zeros)[0], got[0][0]) > 1e-3


def test_tensor_arrays_may_be_held_across_invoke():
    """LiteRT raises RuntimeError when a tensor() array is held over invoke;
    gldelegate's stay valid: an input's still feeds the next invokes, an
    output's keeps the values it had."""
    path = model_path(MODEL)
    interpreter = make(Interpreter, path)
    index = interpreter.get_input_details()[0]["index"]
    out_index = interpreter.get_output_details()[0]["index"]
    held = interpreter.tensor(index)()
    held[...] = image(5)
    interpreter.invoke()
    first = interpreter.tensor(out_index)()
    kept = first.copy()
    held[...] = image(6)
    interpreter.invoke()
    np.testing.assert_array_equal(first, kept)
    reference = make(Interpreter, path)
    reference.set_tensor(index, image(6))
    reference.invoke()
    np.testing.assert_array_equal(interpreter.get_tensor(out_index), reference.get_tensor(out_index))
    interpreter.allocate_tensors()
    held[...] = image(5)
    interpreter.invoke()
    np.testing.assert_array_equal(interpreter.get_tensor(out_index), kept)
