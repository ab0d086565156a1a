"""Shared helpers for the reference scripts in tools/reference/.

Nothing here is a command; see make_reference.py, replace_transpose_conv_bias.py,
make_all.sh and make_op_cases.py.

Deterministic inputs ("splitmix64_pm1")
---------------------------------------
Large model inputs are not stored in tests/data; they are regenerated bit-exactly
by the C++ tests (tests/models/reference_inputs.h) from this rule:

    GOLDEN = 0x9E3779B97F4A7C15, STREAM = 0xD1B54A32D192ED03   (all math mod 2^64)
    base   = (seed * 65536 + stream) * STREAM
    z      = base + (j + 1) * GOLDEN                  for element j (row-major)
    z      = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z      = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z      =  z ^ (z >> 31)                            (the splitmix64 mixer)
    value  = float32((int(z >> 40) - 2^23) / 2^23)     in [-1, 1), exact in fp32

`stream` is the input's index in the model's input list.
"""

import json
import os
import sys

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
STREAM = np.uint64(0xD1B54A32D192ED03)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)

GENERATOR_NAME = "splitmix64_pm1"


def splitmix64_bits(seed, stream, count):
    """uint64 array: the mixed splitmix64 words for elements 0..count-1."""
    with np.errstate(over="ignore"):
        base = (np.uint64(seed) * np.uint64(65536) + np.uint64(stream)) * STREAM
        j = np.arange(1, count + 1, dtype=np.uint64)
        z = base + j * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * MIX1
        z = (z ^ (z >> np.uint64(27))) * MIX2
        z = z ^ (z >> np.uint64(31))
    return z


def uniform_pm1(seed, stream, shape):
    """float32 array of `shape`, values in [-1, 1), per the rule above."""
    count = int(np.prod(shape, dtype=np.int64))
    z = splitmix64_bits(seed, stream, count)
    top = (z >> np.uint64(40)).astype(np.int64) - (1 << 23)
    return (top.astype(np.float64) / float(1 << 23)).astype(np.float32).reshape(shape)


def uniform_int(seed, stream, shape, low, high):
    """int64 array of `shape`, values in [low, high), from the same words."""
    count = int(np.prod(shape, dtype=np.int64))
    z = splitmix64_bits(seed, stream, count)
    span = np.uint64(high - low)
    return ((z >> np.uint64(11)) % span).astype(np.int64).reshape(shape) + low


def litert_version():
    try:
        import ai_edge_litert
        return getattr(ai_edge_litert, "__version__", "unknown")
    except ImportError:
        return "missing"


def quiet_tensorflow_logs():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def make_interpreter(model_path=None, model_content=None, resolver="BUILTIN_REF"):
    """A LiteRT interpreter with the named op resolver (BUILTIN_REF by default:
    the reference kernels, so XNNPACK's own rounding does not enter)."""
    quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    kind = getattr(OpResolverType, resolver)
    it = Interpreter(model_path=model_path, model_content=model_content,
                     experimental_op_resolver_type=kind, num_threads=1)
    it.allocate_tensors()
    return it


def run_litert(interpreter, inputs):
    """Sets `inputs` (list of arrays, in input order), invokes, returns the outputs."""
    for detail, value in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [np.array(interpreter.get_tensor(d["index"]))
            for d in interpreter.get_output_details()]


def write_json(path, obj):
    """Pretty enough for diffs: one line per top-level key and per list entry."""
    lines = ["{"]
    items = list(obj.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f" {json.dumps(key)}: [")
            for e, entry in enumerate(value):
                lines.append("  " + json.dumps(entry) + ("," if e + 1 < len(value) else ""))
            lines.append(" ]" + comma)
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def die(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)
