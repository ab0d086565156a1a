"""enable_trace=True records a timeline: `interpreter.trace` lists Trace Event
Format events (one complete event per CPU step of each run here: a step is a
node, with the nodes fused into it), and write_trace() writes the JSON that
Perfetto and chrome://tracing open."""
import json

import numpy as np

from conftest import model_path
from gldelegate.interpreter import Interpreter


def _run(interpreter, runs):
    interpreter.allocate_tensors()
    detail = interpreter.get_input_details()[0]
    interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], np.float32))
    for _ in range(runs):
        interpreter.invoke()


def _steps(events):
    return [e for e in events if e["ph"] == "X" and e["name"].startswith("node ")]


def test_trace_has_an_event_per_step_of_each_run(tmp_path):
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu", enable_trace=True)
    _run(interpreter, 1)
    one = len(_steps(interpreter.trace))
    assert one > 0
    interpreter.invoke()
    events = interpreter.trace
    steps = _steps(events)
    assert len(steps) == 2 * one
    assert all(e["dur"] >= 0 and {"name", "cat", "ts", "pid", "tid"} <= set(e) for e in steps)
    # Each run has each step once.
    named = {e["name"].split(" (")[0] for e in steps}
    assert len(named) == one
    path = tmp_path / "trace.json"
    interpreter.write_trace(str(path))
    written = json.loads(path.read_text())
    assert len(written["traceEvents"]) == len(events)


def test_no_trace_unless_asked():
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu")
    _run(interpreter, 1)
    assert not [e for e in interpreter.trace if e["ph"] == "X"]


def test_trace_max_invokes_bounds_the_trace():
    """The option trace_max_invokes (a row of the options table) keeps the
    last N invokes' events; a trace_dropped event counts the rest, and a
    value below 1 is refused naming the option."""
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu",
                              enable_trace=True, trace_max_invokes=2)
    _run(interpreter, 5)
    assert len([e for e in interpreter.trace if e["name"] == "Invoke"]) == 2
    dropped = [e for e in interpreter.trace if e["name"] == "trace_dropped"]
    assert len(dropped) == 1 and dropped[0]["args"]["dropped_invokes"] == 3
    assert interpreter.options["trace_max_invokes"] == 2
    bad = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu", trace_max_invokes=0)
    try:
        bad.allocate_tensors()
    except ValueError as e:
        assert "trace_max_invokes must be >= 1, got 0" in str(e)
    else:
        raise AssertionError("trace_max_invokes=0 was accepted")
