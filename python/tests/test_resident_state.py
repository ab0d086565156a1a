"""A state kept in the caller's numpy arrays across invokes
(bind_input_host_buffer / bind_output_host_buffer): examples/python/decode_loop.py,
the KV caches of tests/data/decoders resident, gives LiteRT's tokens on the
CPU and GL backends; bad arrays and unsafe bindings raise clear errors."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from gldelegate.interpreter import Interpreter

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "python" / "decode_loop.py"
DECODERS = REPO / "tests" / "data" / "decoders"
NAMES = sorted(d.name for d in DECODERS.iterdir() if (d / "model.tflite").is_file()) if DECODERS.is_dir() else []


@pytest.mark.parametrize("backend", ["cpu", "gl"])
@pytest.mark.parametrize("name", NAMES)
def test_decode_loop_example_gives_litert_tokens(name, backend):
    folder = DECODERS / name
    if backend == "gl":
        try:
            Interpreter(model_path=str(folder / "model.tflite"), backend="gl").allocate_tensors()
        except RuntimeError as e:
            pytest.skip("no GL here: %s" % e)
    proc = subprocess.run([sys.executable, str(EXAMPLE), str(folder / "model.tflite"), backend, "16",
                           str(folder / "prompt.npy"), "--expect=%s" % (folder / "tokens.npy")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tokens equal" in proc.stdout
    assert "tokens/s" in proc.stdout


def _decoder():
    if not NAMES:
        pytest.skip("no decoders")
    interpreter = Interpreter(model_path=str(DECODERS / NAMES[0] / "model.tflite"), backend="cpu")
    return interpreter, interpreter.get_signature_runner("decode")


def test_the_bound_array_is_updated_in_place_and_returned():
    interpreter, decode = _decoder()
    details = decode.get_input_details()
    names = [n for n in details if n not in ("tokens", "input_pos")]
    caches = {n: np.zeros(details[n]["shape"], details[n]["dtype"]) for n in names}
    for n, a in caches.items():
        decode.bind_input_host_buffer(n, a)
        decode.bind_output_host_buffer(n, a)
    out = decode(tokens=np.array([[3]], np.int32), input_pos=np.array([0], np.int32))
    for n, a in caches.items():
        assert out[n] is a
    assert any(np.any(a != 0) for a in caches.values())  # position 0 written in place
    with pytest.raises(ValueError, match="bound to host buffers"):
        decode(tokens=np.array([[3]], np.int32), input_pos=np.array([1], np.int32), **caches)
    decode.unbind_input(names[0])
    decode.unbind_output(names[0])
    with pytest.raises(ValueError, match="expected 3 vs provided 2"):
        decode(tokens=np.array([[3]], np.int32), input_pos=np.array([1], np.int32))


def test_bad_arrays_are_refused_clearly():
    interpreter, decode = _decoder()
    details = decode.get_input_details()
    name = next(n for n in details if n not in ("tokens", "input_pos"))
    shape, dtype = tuple(details[name]["shape"]), details[name]["dtype"]
    with pytest.raises(ValueError, match="is FLOAT32, got an array of float64"):
        decode.bind_input_host_buffer(name, np.zeros(shape, np.float64))
    with pytest.raises(ValueError, match="has shape"):
        decode.bind_input_host_buffer(name, np.zeros((1,) + shape, dtype))
    wide = np.zeros(shape[:-1] + (shape[-1] * 2,), dtype)
    with pytest.raises(ValueError, match="C-contiguous"):
        decode.bind_input_host_buffer(name, wide[..., ::2])
    frozen = np.zeros(shape, dtype)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        decode.bind_input_host_buffer(name, frozen)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        decode.bind_input_host_buffer(name, [0.0])
    with pytest.raises(ValueError, match="Invalid input name"):
        decode.bind_input_host_buffer("nope", np.zeros(shape, dtype))
    # Two outputs never share one array.
    logits = decode.get_output_details()["logits"]
    other = next(n for n in decode.get_output_details() if n not in ("logits", name))
    shared = np.zeros(shape, dtype)
    decode.bind_output_host_buffer(name, shared)
    with pytest.raises((ValueError, RuntimeError)):
        decode.bind_output_host_buffer(other, shared)
    assert logits["dtype"] is np.float32


def test_unsafe_in_place_update_is_refused():
    """A CPU ABS reads its input while it writes its output: one array as
    both is refused (RuntimeError naming the step), another array is fine."""
    model = REPO / "tests" / "data" / "ops" / "abs__2d" / "model.tflite"
    if not model.is_file():
        pytest.skip("op case abs__2d not found")
    interpreter = Interpreter(model_path=str(model), backend="cpu")
    interpreter.allocate_tensors()
    x, y = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    state = np.ones(x["shape"], np.float32) * -2
    interpreter.bind_input_host_buffer(x["index"], state)
    with pytest.raises(RuntimeError, match="ping-pong"):
        interpreter.bind_output_host_buffer(y["index"], state)
    out = np.zeros(y["shape"], np.float32)
    interpreter.bind_output_host_buffer(y["index"], out)
    interpreter.invoke()
    assert np.all(out == 2) and np.all(interpreter.get_tensor(y["index"]) == 2)
    state[...] = -3  # the bound input is read as it is at invoke
    interpreter.invoke()
    assert np.all(out == 3)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"] + sys.argv[1:]))
