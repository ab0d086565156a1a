#!/usr/bin/env python3
"""Per-op conformance cases: tiny hand-built .tflite models + LiteRT references.

Usage:
    python3 tools/reference/make_op_cases.py [--out DIR] [--only SUBSTRING ...] [--list]

--out defaults to tests/data/ops in the repo; the folder is emptied first
(unless --only is given, which regenerates just the matching cases).

Each case is a folder tests/data/ops/<op>__<variant>/ with
    model.tflite       the model (usually one op; constants for its parameters)
    input_<i>.npy      every model input, stored
    output_<i>.npy     LiteRT's outputs
    manifest.json      case, op, variant, seed, LiteRT version, op resolver,
                       the ops in the model, input/output names/shapes/dtypes
The C++ side is tests/conformance/op_conformance_test.cc.

How a case is made: most models are built with tflite_builder.py (object API of
the flatbuffer schema module shipped with ai-edge-litert), every op a TFLite
builtin with the options a converter would write. Tensor shapes are first
placeholders; LiteRT (resolver BUILTIN_REF: reference kernels, no XNNPACK) runs
the model once, the real shapes of every tensor are written back, and the
rebuilt model is run again, which must give the same outputs. Inputs come from
the splitmix64 words of reflib.py (seed = CRC-32 of the case name, stream =
input index) mapped into the range each case asks for, and are stored.
The Convolution2DTransposeBias cases store the MediaPipe custom op; their
reference is LiteRT on the copy rewritten by replace_transpose_conv_bias.py.
The <op>__tf_<variant> cases are converted by TensorFlow instead (tf.function ->
TFLiteConverter.from_concrete_functions, TFLITE_BUILTINS only), see TfCase.
"""

import argparse
import os
import re
import shutil
import struct
import sys
import traceback
import zlib

import flatbuffers
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reflib  # noqa: E402
import replace_transpose_conv_bias as rtcb  # noqa: E402
from tflite_builder import TfliteBuilder, schema  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RESOLVER = "BUILTIN_REF"
FALLBACK_RESOLVER = "BUILTIN_WITHOUT_DEFAULT_DELEGATES"
F32, F16, I32, I64, I8, U8, BOOL = (np.float32, np.float16, np.int32, np.int64, np.int8,
                                    np.uint8, np.bool_)
ACT = schema.ActivationFunctionType
PAD = schema.Padding


# --- input generators: (seed, stream, shape, dtype) -> array -----------------

def F(lo=-1.0, hi=1.0):
    """Uniform floats in [lo, hi)."""
    def gen(seed, stream, shape, dtype):
        u = reflib.uniform_pm1(seed, stream, shape).astype(np.float64)
        return (lo + (u + 1.0) * 0.5 * (hi - lo)).astype(dtype)
    return gen


def NZ(lo=0.25, hi=2.0):
    """Floats with magnitude in [lo, hi) and a random sign (divisors)."""
    def gen(seed, stream, shape, dtype):
        u = reflib.uniform_pm1(seed, stream, shape).astype(np.float64)
        mag = lo + np.abs(u) * (hi - lo)
        return (np.where(u < 0, -mag, mag)).astype(dtype)
    return gen


def PICK(values):
    """Elements drawn from `values` (ties and exact equalities on purpose)."""
    def gen(seed, stream, shape, dtype):
        idx = reflib.uniform_int(seed, stream, shape, 0, len(values))
        return np.asarray(values, dtype=np.float64)[idx].astype(dtype)
    return gen


def INT(lo, hi):
    """Integers in [lo, hi)."""
    def gen(seed, stream, shape, dtype):
        return reflib.uniform_int(seed, stream, shape, lo, hi).astype(dtype)
    return gen


def BOOLS():
    def gen(seed, stream, shape, dtype):
        return reflib.uniform_int(seed, stream, shape, 0, 2).astype(np.bool_)
    return gen


def VALUES(values):
    """Exactly these values (row-major), for inputs where chance could hide the point."""
    def gen(seed, stream, shape, dtype):
        return np.asarray(values).astype(dtype).reshape(shape)
    return gen


def const_f(seed, stream, shape, lo=-1.0, hi=1.0):
    """A float32 constant (weights, biases) from the same generator."""
    return F(lo, hi)(seed, 1000 + stream, tuple(shape), F32)


# --- case builder -------------------------------------------------------------

class CaseBuilder(TfliteBuilder):
    min_versions = {}

    def op(self, op, inputs, outputs, version=1, **kw):
        if isinstance(op, str):
            version = max(version, self.min_versions.get(op, 1))
        super().op(op, inputs, outputs, version=version, **kw)

    def __init__(self, name):
        super().__init__(description=f"gldelegate conformance case {name}")
        self.seed = zlib.crc32(name.encode()) & 0xFFFFFFFF
        self.gens = []
        self.nconst = 0
        self.ntmp = 0

    def inp(self, shape, gen=None, dtype=F32, quant=None):
        i = self.input(f"input_{len(self.gens)}", list(shape), dtype, quant=quant)
        self.gens.append((gen or F(), tuple(shape), dtype))
        return i

    def c(self, array, dtype=None, quant=None):
        self.nconst += 1
        return self.const(f"const_{self.nconst}", array, dtype=dtype, quant=quant)

    def w(self, shape, lo=-1.0, hi=1.0):
        """A float32 weight constant."""
        self.nconst += 1
        return self.const(f"const_{self.nconst}", const_f(self.seed, self.nconst, shape, lo, hi))

    def tmp(self, dtype=F32, quant=None):
        self.ntmp += 1
        return self.tensor(f"tensor_{self.ntmp}", [1], dtype, quant=quant)

    def out(self, dtype=F32, quant=None, shape=None):
        t = self.tensor(f"output_{len(self.sg.outputs)}", shape or [1], dtype, quant=quant)
        self.output(t)
        return t

    def make_inputs(self):
        return [gen(self.seed, k, shape, dtype) for k, (gen, shape, dtype) in enumerate(self.gens)]


CASES = {}
# Stateful cases (recurrent ops' variable tensors, resource variables) record
# further invokes on the same LiteRT interpreter, new inputs each: the
# manifest's "steps" (record_steps), which the conformance test runs on one
# Interpreter as well, comparing every invoke, so the state a run leaves is
# checked against LiteRT's.
STATEFUL_STEPS = {}  # case name -> further invokes


def stateful(name, steps=2):
    STATEFUL_STEPS[name] = steps


def case(op, variant, note=None, steps=0):
    """Registers build(b) as case <op>__<variant>; op is the op under test.
    steps > 0: a stateful case with that many further invokes (stateful)."""
    def register(build):
        name = f"{op.lower()}__{variant}"
        if name in CASES:
            raise SystemExit(f"duplicate case {name}")
        CASES[name] = (op, variant, build, note)
        if steps:
            stateful(name, steps)
        return build
    return register


def simple(op, variant, inputs, options=None, out_dtype=F32, n_out=1, version=1, out_quant=None,
           out_shape=None):
    """A one-op case. inputs: list of ("in", shape, gen, dtype) / ("c", array) /
    ("w", shape) / None (absent optional input). out_shape: the placeholder
    output shape, for ops whose kernel checks the output rank before resizing."""
    @case(op, variant)
    def build(b):
        ins = []
        for spec in inputs:
            if spec is None:
                ins.append(-1)
            elif spec[0] == "in":
                _, shape, gen, dtype = (list(spec) + [None, F32])[:4]
                ins.append(b.inp(shape, gen, dtype or F32))
            elif spec[0] == "c":
                ins.append(b.c(spec[1]))
            elif spec[0] == "w":
                ins.append(b.w(spec[1]))
        outs = [b.out(out_dtype, out_quant, out_shape) for _ in range(n_out)]
        b.op(op, ins, outs, options=options, version=version)


def opts(cls, **fields):
    o = getattr(schema, cls + "T")()
    for k, v in fields.items():
        setattr(o, k, v)
    return o


def In(shape, gen=None, dtype=F32):
    return ("in", shape, gen or F(), dtype)


def C(array, dtype=None):
    return ("c", np.asarray(array, dtype=dtype) if dtype else np.asarray(array))


def W(shape):
    return ("w", shape)


def i32(*v):
    return np.array(v, dtype=np.int32)


# --- unary elementwise --------------------------------------------------------

UNARY = {  # op: (range generator, options class or None)
    "ABS": (F(-3, 3), None), "COS": (F(-6, 6), None), "EXP": (F(-4, 4), None),
    "FLOOR": (F(-5, 5), None), "LOG": (F(0.05, 4), None), "NEG": (F(-3, 3), None),
    "RSQRT": (F(0.05, 4), None), "SIN": (F(-6, 6), None), "SQRT": (F(0, 4), None),
    "SQUARE": (F(-3, 3), "SquareOptions"), "TANH": (F(-5, 5), None),
    "LOGISTIC": (F(-8, 8), None), "ELU": (F(-4, 3), None), "HARD_SWISH": (F(-5, 5), None),
    "RELU": (F(-3, 3), None), "RELU6": (F(-3, 9), None), "RELU_N1_TO_1": (F(-2, 2), None),
    "RELU_0_TO_1": (F(-1, 2), None), "SIGN": (PICK([-2.5, -1, -0.25, 0, 0.5, 3]), None),
    "ZEROS_LIKE": (F(-3, 3), "ZerosLikeOptions"),
    "CEIL": (F(-5, 5), None), "ROUND": (F(-5, 5), None),
}
for _op, (_gen, _opt) in UNARY.items():
    _o = opts(_opt) if _opt else None
    simple(_op, "4d_c5", [In([1, 3, 4, 5], _gen)], _o)
    simple(_op, "2d", [In([2, 7], _gen)], _o)
    if _op in ("ABS", "RELU", "TANH", "LOGISTIC", "HARD_SWISH", "EXP"):
        simple(_op, "1d_size1", [In([1], _gen)], _o)
simple("ABS", "int32", [In([2, 5], INT(-9, 9), I32)], out_dtype=I32)
simple("NEG", "int32", [In([2, 5], INT(-9, 9), I32)], out_dtype=I32)
simple("ZEROS_LIKE", "int32", [In([3, 2], INT(-9, 9), I32)], opts("ZerosLikeOptions"), out_dtype=I32)
simple("SIGN", "3d", [In([2, 1, 6], F(-2, 2))])
simple("ROUND", "halves", [In([2, 8], PICK([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.49, 0.51, 2.4999]))])
simple("CEIL", "integers", [In([3, 4], PICK([-3, -2.0001, -1, -0.25, 0, 0.25, 1, 2.5]))])
simple("GELU", "exact", [In([1, 2, 3, 5], F(-4, 4))], opts("GeluOptions", approximate=False))
simple("GELU", "approximate", [In([2, 9], F(-4, 4))], opts("GeluOptions", approximate=True))
simple("LEAKY_RELU", "alpha_0_2", [In([1, 3, 4, 5], F(-3, 3))], opts("LeakyReluOptions", alpha=0.2))
simple("LEAKY_RELU", "alpha_1_5", [In([2, 7], F(-3, 3))], opts("LeakyReluOptions", alpha=1.5))

# --- binary elementwise -------------------------------------------------------

ARITH = {  # op: (options class, lhs gen, rhs gen)
    "ADD": ("AddOptions", F(), F()), "SUB": ("SubOptions", F(), F()),
    "MUL": ("MulOptions", F(-2, 2), F(-2, 2)), "DIV": ("DivOptions", F(-2, 2), NZ()),
    "MAXIMUM": ("MaximumMinimumOptions", PICK([-1, -0.5, 0, 0.5, 1, 2]), PICK([-1, 0, 0.5, 1.5])),
    "MINIMUM": ("MaximumMinimumOptions", PICK([-1, -0.5, 0, 0.5, 1, 2]), PICK([-1, 0, 0.5, 1.5])),
    "POW": ("PowOptions", F(0.1, 3), F(-2, 2)),
    "SQUARED_DIFFERENCE": ("SquaredDifferenceOptions", F(-2, 2), F(-2, 2)),
    "FLOOR_DIV": ("FloorDivOptions", F(-5, 5), NZ(0.5, 3)),
    "FLOOR_MOD": ("FloorModOptions", F(-5, 5), NZ(0.5, 3)),
}
for _op, (_opt, _ga, _gb) in ARITH.items():
    simple(_op, "same_shape", [In([1, 2, 3, 5], _ga), In([1, 2, 3, 5], _gb)], opts(_opt))
    simple(_op, "broadcast_channel", [In([1, 3, 4, 5], _ga), In([5], _gb)], opts(_opt))
    simple(_op, "broadcast_both", [In([2, 1, 3, 1], _ga), In([1, 4, 1, 3], _gb)], opts(_opt))
simple("ADD", "const_rhs_relu6", [In([1, 3, 3, 6], F(-8, 8)), W([1, 1, 1, 6])],
       opts("AddOptions", fusedActivationFunction=ACT.RELU6))
simple("ADD", "scalar_const", [In([2, 3], F()), C(np.array(0.75, dtype=F32))], opts("AddOptions"))
simple("ADD", "rank5_broadcast", [In([2, 1, 3, 1, 2]), In([1, 2, 1, 4, 1])], opts("AddOptions"))
simple("ADD", "int32", [In([2, 3], INT(-50, 50), I32), In([3], INT(-50, 50), I32)],
       opts("AddOptions"), out_dtype=I32)
simple("SUB", "const_lhs_relu_n1_to_1", [W([1, 1, 5]), In([2, 3, 5], F(-2, 2))],
       opts("SubOptions", fusedActivationFunction=ACT.RELU_N1_TO_1))
simple("SUB", "int32", [In([4], INT(-50, 50), I32), In([4], INT(-50, 50), I32)],
       opts("SubOptions"), out_dtype=I32)
simple("MUL", "const_rhs_relu", [In([1, 2, 2, 7], F(-2, 2)), W([7])],
       opts("MulOptions", fusedActivationFunction=ACT.RELU))
simple("MUL", "scalar_const", [In([1, 2, 2, 3]), C(np.array(-1.5, dtype=F32))], opts("MulOptions"))
simple("MUL", "int32", [In([2, 3], INT(-20, 20), I32), In([2, 3], INT(-20, 20), I32)],
       opts("MulOptions"), out_dtype=I32)
simple("DIV", "relu", [In([3, 4], F(-2, 2)), In([3, 4], NZ())],
       opts("DivOptions", fusedActivationFunction=ACT.RELU))
simple("DIV", "int32", [In([2, 4], INT(-50, 50), I32), In([2, 4], PICK([-7, -3, -1, 2, 5]), I32)],
       opts("DivOptions"), out_dtype=I32)
simple("FLOOR_DIV", "int32", [In([2, 5], INT(-20, 20), I32), In([2, 5], PICK([-7, -3, -1, 2, 5]), I32)],
       opts("FloorDivOptions"), out_dtype=I32)
simple("FLOOR_MOD", "int32", [In([2, 5], INT(-20, 20), I32), In([5], PICK([-7, -3, 2, 5, 6]), I32)],
       opts("FloorModOptions"), out_dtype=I32)
simple("MAXIMUM", "int32", [In([2, 3], INT(-9, 9), I32), In([1, 3], INT(-9, 9), I32)],
       opts("MaximumMinimumOptions"), out_dtype=I32)
simple("MINIMUM", "const_scalar", [In([1, 2, 2, 5], F(-2, 2)), C(np.array(0.25, dtype=F32))],
       opts("MaximumMinimumOptions"))
simple("POW", "int32", [In([2, 4], INT(-4, 5), I32), In([2, 4], INT(0, 4), I32)],
       opts("PowOptions"), out_dtype=I32)

# ATAN2 has no options table; its operands are (y, x).
simple("ATAN2", "same_shape", [In([1, 2, 3, 5], F(-2, 2)), In([1, 2, 3, 5], F(-2, 2))])
simple("ATAN2", "2d", [In([3, 7], F(-3, 3)), In([3, 7], F(-1, 1))])  # LiteRT does not broadcast ATAN2
simple("ATAN2", "axes", [In([3, 4], PICK([-1, 0, 1])), In([3, 4], PICK([-2, 0, 2]))])

CMP = {"EQUAL": "EqualOptions", "NOT_EQUAL": "NotEqualOptions", "GREATER": "GreaterOptions",
       "GREATER_EQUAL": "GreaterEqualOptions", "LESS": "LessOptions", "LESS_EQUAL": "LessEqualOptions"}
_grid = PICK([-1, -0.5, 0, 0.5, 1])
for _op, _opt in CMP.items():
    simple(_op, "same_shape", [In([1, 2, 3, 5], _grid), In([1, 2, 3, 5], _grid)], opts(_opt),
           out_dtype=BOOL)
    simple(_op, "broadcast", [In([2, 3, 1], _grid), In([1, 4], _grid)], opts(_opt), out_dtype=BOOL)
    simple(_op, "int32", [In([2, 5], INT(-1, 2), I32), In([5], INT(-1, 2), I32)], opts(_opt),
           out_dtype=BOOL)

for _op, _opt in (("LOGICAL_AND", "LogicalAndOptions"), ("LOGICAL_OR", "LogicalOrOptions")):
    simple(_op, "same_shape", [In([2, 3, 4], BOOLS(), BOOL), In([2, 3, 4], BOOLS(), BOOL)],
           opts(_opt), out_dtype=BOOL)
    simple(_op, "broadcast", [In([2, 1, 4], BOOLS(), BOOL), In([3, 1], BOOLS(), BOOL)],
           opts(_opt), out_dtype=BOOL)
simple("LOGICAL_NOT", "3d", [In([2, 3, 4], BOOLS(), BOOL)], opts("LogicalNotOptions"), out_dtype=BOOL)
simple("LOGICAL_NOT", "1d", [In([5], BOOLS(), BOOL)], opts("LogicalNotOptions"), out_dtype=BOOL)

simple("SELECT", "same_shape", [In([2, 3, 4], BOOLS(), BOOL), In([2, 3, 4]), In([2, 3, 4])],
       opts("SelectOptions"))
simple("SELECT", "rank1_condition", [In([3], BOOLS(), BOOL), In([3, 2, 2]), In([3, 2, 2])],
       opts("SelectOptions"))
simple("SELECT_V2", "broadcast_condition", [In([1, 1, 5], BOOLS(), BOOL), In([2, 3, 5]), In([2, 3, 5])],
       opts("SelectV2Options"))
simple("SELECT_V2", "broadcast_all", [In([2, 3, 1], VALUES([True, False, False, True, True, False]), BOOL),
                                      In([1, 3, 4]), C(np.array(0.5, F32))],
       opts("SelectV2Options"))

simple("ADD_N", "three", [In([1, 2, 3, 5]), In([1, 2, 3, 5]), In([1, 2, 3, 5])], opts("AddNOptions"))
simple("ADD_N", "two_2d", [In([4, 3]), In([4, 3])], opts("AddNOptions"))

simple("PRELU", "per_channel_alpha", [In([1, 3, 4, 5], F(-2, 2)), W([1, 1, 5])])
simple("PRELU", "full_alpha", [In([1, 2, 2, 3], F(-2, 2)), W([1, 2, 2, 3])])
simple("PRELU", "scalar_alpha_3d", [In([2, 3, 6], F(-2, 2)), C(np.array([0.25], F32))])

# --- reductions, arg ops, cumsum -----------------------------------------------

for _op, _gen in (("MEAN", F()), ("SUM", F()), ("REDUCE_MAX", F()), ("REDUCE_MIN", F()),
                  ("REDUCE_PROD", F(0.6, 1.5))):
    simple(_op, "hw_keepdims", [In([1, 4, 5, 3], _gen), C(i32(1, 2))],
           opts("ReducerOptions", keepDims=True))
    simple(_op, "last_axis_negative", [In([2, 3, 6], _gen), C(i32(-1))],
           opts("ReducerOptions", keepDims=False))
    simple(_op, "axes_0_2", [In([2, 3, 4], _gen), C(i32(0, 2))], opts("ReducerOptions", keepDims=False))
simple("MEAN", "all_axes_keepdims", [In([1, 2, 3, 5]), C(i32(0, 1, 2, 3))],
       opts("ReducerOptions", keepDims=True))
simple("SUM", "channel_keepdims", [In([1, 2, 3, 6]), C(i32(3))], opts("ReducerOptions", keepDims=True))
# GroupNorm as PyTorch exports it: MEAN over (2, 3) of a [1, G, C/G, H*W] view,
# channels not a multiple of 4, the axes either way round (issue 46).
simple("MEAN", "groupnorm_rows_keepdims", [In([1, 1, 6, 49]), C(i32(2, 3))], opts("ReducerOptions", keepDims=True))
simple("MEAN", "groupnorm_rows_axes_3_2", [In([1, 1, 5, 36]), C(i32(3, 2))], opts("ReducerOptions", keepDims=True))
simple("MEAN", "groupnorm_rows_2_groups", [In([1, 2, 7, 20]), C(i32(2, 3))], opts("ReducerOptions", keepDims=True))
simple("MEAN", "groupnorm_rows_drop", [In([1, 1, 12, 64], F(0, 2)), C(i32(2, 3))], opts("ReducerOptions", keepDims=False))
# More values than llvmpipe lets one shader invocation loop over (65535).
simple("MEAN", "groupnorm_rows_large", [In([1, 1, 17, 3900]), C(i32(2, 3))], opts("ReducerOptions", keepDims=True))


def _groupnorm(b, shape, groups):
    """NHWC x -> TRANSPOSE to NCHW -> RESHAPE [1, G, C/G * H * W] as
    [1, G, C/G, H*W] -> mean, var by MEAN over (2, 3) -> normalised ->
    RESHAPE back -> TRANSPOSE to NHWC (PoolFormer's GroupNorm)."""
    n, h, w, c = shape
    x = b.inp(shape)
    nchw = b.tmp()
    b.op("TRANSPOSE", [x, b.c(i32(0, 3, 1, 2))], [nchw], options=opts("TransposeOptions"))
    rows = b.tmp()
    b.op("RESHAPE", [nchw, b.c(i32(n, groups, c // groups, h * w))], [rows], options=opts("ReshapeOptions"))
    axes = b.c(i32(2, 3))
    mean, centred, sq, var, var_eps, r, normed = (b.tmp() for _ in range(7))
    b.op("MEAN", [rows, axes], [mean], options=opts("ReducerOptions", keepDims=True))
    b.op("SUB", [rows, mean], [centred], options=opts("SubOptions"))
    b.op("MUL", [centred, centred], [sq], options=opts("MulOptions"))
    b.op("MEAN", [sq, axes], [var], options=opts("ReducerOptions", keepDims=True))
    b.op("ADD", [var, b.c(np.array([1e-5], F32))], [var_eps], options=opts("AddOptions"))
    b.op("RSQRT", [var_eps], [r])
    b.op("MUL", [centred, r], [normed], options=opts("MulOptions"))
    back = b.tmp()
    b.op("RESHAPE", [normed, b.c(i32(n, c, h, w))], [back], options=opts("ReshapeOptions"))
    y = b.out()
    b.op("TRANSPOSE", [back, b.c(i32(0, 2, 3, 1))], [y], options=opts("TransposeOptions"))


@case("MEAN", "groupnorm_transposed")
def _mean_groupnorm(b):
    _groupnorm(b, [1, 5, 6, 10], 1)


@case("MEAN", "groupnorm_transposed_2_groups")
def _mean_groupnorm_2(b):
    _groupnorm(b, [1, 4, 4, 6], 2)

for _op, _opt in (("ARG_MAX", "ArgMaxOptions"), ("ARG_MIN", "ArgMinOptions")):
    simple(_op, "last_axis_int32", [In([2, 3, 5]), C(i32(-1))],
           opts(_opt, outputType=schema.TensorType.INT32), out_dtype=I32)
    simple(_op, "axis1_int64", [In([1, 4, 3, 2]), C(i32(1))],
           opts(_opt, outputType=schema.TensorType.INT64), out_dtype=I64)
    simple(_op, "axis0_1d", [In([7]), C(i32(0))], opts(_opt, outputType=schema.TensorType.INT32),
           out_dtype=I32)

simple("CUMSUM", "axis1", [In([2, 4, 3]), C(i32(1))], opts("CumsumOptions"))
simple("CUMSUM", "exclusive", [In([2, 5]), C(i32(1))], opts("CumsumOptions", exclusive=True))
simple("CUMSUM", "reverse_negative_axis", [In([3, 4]), C(i32(-2))], opts("CumsumOptions", reverse=True))
simple("CUMSUM", "exclusive_reverse", [In([1, 2, 6]), C(i32(2))],
       opts("CumsumOptions", exclusive=True, reverse=True))

simple("SOFTMAX", "beta1_2d", [In([2, 5], F(-3, 3))], opts("SoftmaxOptions", beta=1.0))
simple("SOFTMAX", "beta0_5_4d", [In([1, 2, 3, 6], F(-3, 3))], opts("SoftmaxOptions", beta=0.5))
simple("SOFTMAX", "beta2_1d", [In([7], F(-3, 3))], opts("SoftmaxOptions", beta=2.0))
simple("LOG_SOFTMAX", "2d", [In([2, 5], F(-3, 3))], opts("LogSoftmaxOptions"))
simple("LOG_SOFTMAX", "4d", [In([1, 1, 3, 7], F(-3, 3))], opts("LogSoftmaxOptions"))
simple("L2_NORMALIZATION", "4d_c5", [In([1, 2, 3, 5])], opts("L2NormOptions"))
simple("L2_NORMALIZATION", "2d", [In([2, 7])], opts("L2NormOptions"))
simple("LOCAL_RESPONSE_NORMALIZATION", "radius2", [In([1, 3, 3, 6])],
       opts("LocalResponseNormalizationOptions", radius=2, bias=1.0, alpha=0.5, beta=0.75))
simple("LOCAL_RESPONSE_NORMALIZATION", "radius1", [In([1, 2, 2, 5], F(-2, 2))],
       opts("LocalResponseNormalizationOptions", radius=1, bias=2.0, alpha=0.1, beta=0.5))

# --- convolution, pooling, matmul ---------------------------------------------


def conv_opts(padding, sw, sh, act=ACT.NONE, dw=1, dh=1):
    return opts("Conv2DOptions", padding=padding, strideW=sw, strideH=sh, fusedActivationFunction=act,
                dilationWFactor=dw, dilationHFactor=dh)


simple("CONV_2D", "3x3_same_bias", [In([1, 5, 5, 3]), W([4, 3, 3, 3]), W([4])], conv_opts(PAD.SAME, 1, 1))
simple("CONV_2D", "3x3_valid_stride2", [In([1, 7, 6, 6]), W([5, 3, 3, 6]), W([5])],
       conv_opts(PAD.VALID, 2, 2))
simple("CONV_2D", "same_stride2_even", [In([1, 6, 6, 3]), W([2, 3, 3, 3]), W([2])],
       conv_opts(PAD.SAME, 2, 2))
simple("CONV_2D", "dilation2_same", [In([1, 7, 7, 2]), W([3, 3, 3, 2]), W([3])],
       conv_opts(PAD.SAME, 1, 1, dw=2, dh=2))
simple("CONV_2D", "dilation_2x3_valid", [In([1, 8, 9, 3]), W([4, 2, 3, 3]), W([4])],
       conv_opts(PAD.VALID, 1, 1, dw=3, dh=2))
simple("CONV_2D", "1x1_relu6", [In([1, 3, 4, 6], F(-3, 3)), W([5, 1, 1, 6]), W([5])],
       conv_opts(PAD.VALID, 1, 1, ACT.RELU6))
simple("CONV_2D", "batch2_2x2_same", [In([2, 4, 4, 3]), W([4, 2, 2, 3]), W([4])], conv_opts(PAD.SAME, 1, 1))
simple("CONV_2D", "rect_kernel_stride_2x1_relu", [In([1, 6, 5, 4]), W([3, 1, 3, 4]), W([3])],
       conv_opts(PAD.SAME, 1, 2, ACT.RELU))
# Grouped (groups = input channels / weights' input channels): PyTorch's
# Conv2d(groups=G) as litert-torch writes it; 8 channels per group (RegNet's),
# and 2 -> 3 per group (channels straddle GPU slices).
simple("CONV_2D", "grouped_8_per_group_relu", [In([1, 6, 5, 16]), W([16, 3, 3, 8]), W([16])],
       conv_opts(PAD.SAME, 1, 1, ACT.RELU))
simple("CONV_2D", "grouped_3_groups_stride2", [In([1, 7, 6, 6]), W([9, 3, 3, 2]), W([9])],
       conv_opts(PAD.VALID, 2, 2))


def dw_opts(padding, sw, sh, mult, act=ACT.NONE, dw=1, dh=1):
    return opts("DepthwiseConv2DOptions", padding=padding, strideW=sw, strideH=sh, depthMultiplier=mult,
                fusedActivationFunction=act, dilationWFactor=dw, dilationHFactor=dh)


simple("DEPTHWISE_CONV_2D", "3x3_same_c5", [In([1, 5, 5, 5]), W([1, 3, 3, 5]), W([5])],
       dw_opts(PAD.SAME, 1, 1, 1))
simple("DEPTHWISE_CONV_2D", "multiplier2_valid_stride2", [In([1, 6, 7, 3]), W([1, 3, 3, 6]), W([6])],
       dw_opts(PAD.VALID, 2, 2, 2))
simple("DEPTHWISE_CONV_2D", "multiplier3_same_relu", [In([1, 4, 4, 2]), W([1, 3, 3, 6]), W([6])],
       dw_opts(PAD.SAME, 1, 1, 3, ACT.RELU))
simple("DEPTHWISE_CONV_2D", "dilation2", [In([1, 7, 7, 4]), W([1, 3, 3, 4]), W([4])],
       dw_opts(PAD.SAME, 1, 1, 1, dw=2, dh=2))
simple("DEPTHWISE_CONV_2D", "same_stride2_relu6", [In([1, 6, 6, 8], F(-3, 3)), W([1, 5, 5, 8]), W([8])],
       dw_opts(PAD.SAME, 2, 2, 1, ACT.RELU6))
simple("DEPTHWISE_CONV_2D", "multiplier2_from_c1", [In([1, 5, 4, 1]), W([1, 2, 2, 2]), W([2])],
       dw_opts(PAD.VALID, 1, 1, 2))


def pool_opts(padding, sw, sh, fw, fh, act=ACT.NONE):
    return opts("Pool2DOptions", padding=padding, strideW=sw, strideH=sh, filterWidth=fw,
                filterHeight=fh, fusedActivationFunction=act)


for _op, _gen in (("AVERAGE_POOL_2D", F(-8, 16)), ("MAX_POOL_2D", F(-10, 6.5))):
    simple(_op, "2x2_valid_stride2", [In([1, 4, 6, 3])], pool_opts(PAD.VALID, 2, 2, 2, 2))
    simple(_op, "3x3_same_stride1_c5", [In([1, 5, 5, 5])], pool_opts(PAD.SAME, 1, 1, 3, 3))
    simple(_op, "3x3_same_stride2_odd", [In([1, 5, 7, 2])], pool_opts(PAD.SAME, 2, 2, 3, 3))
    simple(_op, "global_relu6", [In([2, 3, 4, 6], _gen)], pool_opts(PAD.VALID, 1, 1, 4, 3, ACT.RELU6))


def fc_opts(act=ACT.NONE, keep=False):
    return opts("FullyConnectedOptions", fusedActivationFunction=act, keepNumDims=keep)


simple("FULLY_CONNECTED", "bias_2d", [In([2, 6]), W([5, 6]), W([5])], fc_opts())
simple("FULLY_CONNECTED", "no_bias_relu", [In([3, 7]), W([4, 7]), None], fc_opts(ACT.RELU))
simple("FULLY_CONNECTED", "keep_num_dims", [In([1, 2, 3, 6]), W([5, 6]), W([5])], fc_opts(keep=True))
simple("FULLY_CONNECTED", "flatten_4d", [In([1, 2, 3, 6]), W([5, 6]), W([5])], fc_opts(keep=False))
simple("FULLY_CONNECTED", "batch1_wide", [In([1, 1, 1, 13]), W([9, 13]), W([9])], fc_opts(keep=False))

simple("BATCH_MATMUL", "3d", [In([2, 3, 4]), In([2, 4, 5])], opts("BatchMatMulOptions"))
simple("BATCH_MATMUL", "adj_x", [In([2, 4, 3]), In([2, 4, 5])], opts("BatchMatMulOptions", adjX=True))
simple("BATCH_MATMUL", "adj_y_const_rhs", [In([1, 3, 4]), W([1, 5, 4])], opts("BatchMatMulOptions", adjY=True))
simple("BATCH_MATMUL", "broadcast_batch", [In([2, 1, 3, 4]), In([3, 4, 2])], opts("BatchMatMulOptions"))
simple("BATCH_MATMUL", "2d", [In([3, 6]), In([6, 2])], opts("BatchMatMulOptions"))
# Attention's shapes (both operands activations) and the remaining forms;
# these also run on the GL backend (tests/conformance, kGlCheckedOps).
simple("BATCH_MATMUL", "attention_adj_y", [In([1, 3, 7, 8]), In([1, 3, 7, 8])],
       opts("BatchMatMulOptions", adjY=True))
simple("BATCH_MATMUL", "attention_values", [In([1, 3, 7, 7]), In([1, 3, 7, 9])], opts("BatchMatMulOptions"))
simple("BATCH_MATMUL", "adj_x_adj_y", [In([2, 5, 3]), In([2, 6, 5])], opts("BatchMatMulOptions", adjX=True, adjY=True))
simple("BATCH_MATMUL", "broadcast_lhs_2d", [In([5, 6]), In([2, 3, 6, 7])], opts("BatchMatMulOptions"))
simple("BATCH_MATMUL", "broadcast_both", [In([2, 1, 4, 5]), In([1, 3, 5, 2])], opts("BatchMatMulOptions", adjX=False))
simple("BATCH_MATMUL", "const_rhs_4d_adj_x", [In([1, 2, 6, 3]), W([1, 2, 6, 5])], opts("BatchMatMulOptions", adjX=True))


def tconv_opts(padding, sw, sh, act=ACT.NONE):
    return opts("TransposeConvOptions", padding=padding, strideW=sw, strideH=sh,
                fusedActivationFunction=act)


simple("TRANSPOSE_CONV", "bias_3x3_same_stride2", [C(i32(1, 8, 6, 5)), W([5, 3, 3, 3]), In([1, 4, 3, 3]), W([5])],
       tconv_opts(PAD.SAME, 2, 2), version=3)
simple("TRANSPOSE_CONV", "bias_2x2_valid_stride2", [C(i32(1, 6, 8, 2)), W([2, 2, 2, 6]), In([1, 3, 4, 6]), W([2])],
       tconv_opts(PAD.VALID, 2, 2), version=3)
simple("TRANSPOSE_CONV", "no_bias_same_stride1", [C(i32(1, 4, 5, 3)), W([3, 3, 3, 2]), In([1, 4, 5, 2])],
       tconv_opts(PAD.SAME, 1, 1))
simple("TRANSPOSE_CONV", "bias_odd_output_same_stride2", [C(i32(1, 7, 5, 1)), W([1, 3, 3, 4]), In([1, 4, 3, 4]), W([1])],
       tconv_opts(PAD.SAME, 2, 2), version=3)


@case("Convolution2DTransposeBias", "same_stride2",
      note="MediaPipe custom op; reference: LiteRT on the replace_transpose_conv_bias.py rewrite")
def _mp_tconv(b):
    x = b.inp([1, 4, 3, 5])
    w = b.w([3, 2, 2, 5])
    bias = b.w([3])
    y = b.out()
    b.op(b"Convolution2DTransposeBias", [x, w, bias], [y],
         custom_options=struct.pack("<iii", rtcb.TFLITE_PADDING_SAME, 2, 2))


@case("Convolution2DTransposeBias", "same_3x3_stride2_odd",
      note="MediaPipe custom op; reference: LiteRT on the replace_transpose_conv_bias.py rewrite")
def _mp_tconv2(b):
    x = b.inp([1, 5, 4, 3])
    w = b.w([2, 3, 3, 3])
    bias = b.w([2])
    y = b.out()
    b.op(b"Convolution2DTransposeBias", [x, w, bias], [y],
         custom_options=struct.pack("<iii", rtcb.TFLITE_PADDING_SAME, 2, 2))


# --- shape / data movement ----------------------------------------------------

simple("BROADCAST_TO", "3d", [In([3, 1]), C(i32(2, 3, 4))], opts("BroadcastToOptions"))
simple("BROADCAST_TO", "2d", [In([1, 5]), C(i32(4, 5))], opts("BroadcastToOptions"))
simple("BROADCAST_TO", "4d_int32", [In([1, 2, 1, 1], INT(-5, 5), I32), C(i32(2, 2, 3, 2))],
       opts("BroadcastToOptions"), out_dtype=I32)

simple("CAST", "float_to_int32", [In([2, 5], F(-5, 5))],
       opts("CastOptions", inDataType=schema.TensorType.FLOAT32, outDataType=schema.TensorType.INT32),
       out_dtype=I32)
simple("CAST", "int32_to_float", [In([2, 5], INT(-100, 100), I32)],
       opts("CastOptions", inDataType=schema.TensorType.INT32, outDataType=schema.TensorType.FLOAT32))
simple("CAST", "bool_to_float", [In([3, 4], BOOLS(), BOOL)],
       opts("CastOptions", inDataType=schema.TensorType.BOOL, outDataType=schema.TensorType.FLOAT32))
simple("CAST", "float_to_bool", [In([6], PICK([-1, 0, 0.5, 0]))],
       opts("CastOptions", inDataType=schema.TensorType.FLOAT32, outDataType=schema.TensorType.BOOL),
       out_dtype=BOOL)
simple("CAST", "int64_to_int32", [In([4], INT(-100, 100), I64)],
       opts("CastOptions", inDataType=schema.TensorType.INT64, outDataType=schema.TensorType.INT32),
       out_dtype=I32)

simple("CONCATENATION", "channels_3_5", [In([1, 2, 3, 3]), In([1, 2, 3, 5])], opts("ConcatenationOptions", axis=3))
simple("CONCATENATION", "negative_axis_three", [In([1, 1, 2, 2]), In([1, 3, 2, 2]), In([1, 2, 2, 2])],
       opts("ConcatenationOptions", axis=-3))
simple("CONCATENATION", "axis0_const_2d", [In([2, 3]), W([1, 3])], opts("ConcatenationOptions", axis=0))
simple("CONCATENATION", "int32_axis1", [In([2, 1], INT(-9, 9), I32), In([2, 3], INT(-9, 9), I32)],
       opts("ConcatenationOptions", axis=1), out_dtype=I32)

simple("DEPTH_TO_SPACE", "block2", [In([1, 2, 3, 8])], opts("DepthToSpaceOptions", blockSize=2))
simple("DEPTH_TO_SPACE", "block3", [In([1, 1, 2, 9])], opts("DepthToSpaceOptions", blockSize=3))
simple("DEPTH_TO_SPACE", "block2_c12", [In([1, 2, 2, 12])], opts("DepthToSpaceOptions", blockSize=2))
simple("SPACE_TO_DEPTH", "block2", [In([1, 4, 6, 3])], opts("SpaceToDepthOptions", blockSize=2))
simple("SPACE_TO_DEPTH", "block3", [In([1, 3, 3, 2])], opts("SpaceToDepthOptions", blockSize=3))

simple("EXPAND_DIMS", "axis0", [In([3, 4]), C(i32(0))], opts("ExpandDimsOptions"))
simple("EXPAND_DIMS", "negative_axis", [In([2, 3]), C(i32(-1))], opts("ExpandDimsOptions"))
simple("EXPAND_DIMS", "middle_int64_axis", [In([2, 3, 2]), C(np.array([2], np.int64))], opts("ExpandDimsOptions"))

simple("FILL", "float_value_input", [C(i32(2, 3)), In([], F(-2, 2))], opts("FillOptions"))
simple("FILL", "int32_4d", [C(i32(1, 2, 3, 5)), In([], INT(-9, 9), I32)], opts("FillOptions"), out_dtype=I32)

simple("GATHER", "axis0_input_indices", [In([5, 3]), In([4], INT(0, 5), I32)], opts("GatherOptions", axis=0))
simple("GATHER", "axis1_2d_indices", [In([2, 4, 3]), C(i32([0, 3], [2, 2]))], opts("GatherOptions", axis=1))
simple("GATHER", "negative_axis_int64", [In([2, 3, 5]), C(np.array([4, 0, 1], np.int64))],
       opts("GatherOptions", axis=-1))
simple("GATHER", "batch_dims1", [In([2, 4, 3]), C(i32([1, 0], [3, 3]))], opts("GatherOptions", axis=1, batchDims=1))
simple("GATHER", "int32_params", [In([6], INT(-50, 50), I32), In([3], INT(0, 6), I32)],
       opts("GatherOptions", axis=0), out_dtype=I32)

simple("GATHER_ND", "slices", [In([3, 4, 2]), C(i32([0, 1], [2, 3]))], opts("GatherNdOptions"))
simple("GATHER_ND", "rows", [In([3, 4, 2]), In([2, 1], INT(0, 3), I32)], opts("GatherNdOptions"))
simple("GATHER_ND", "elements", [In([3, 4, 2]), C(i32([0, 1, 1], [2, 3, 0]))], opts("GatherNdOptions"))

simple("MIRROR_PAD", "reflect", [In([1, 3, 4, 2]), C(i32([0, 0], [1, 2], [2, 1], [0, 0]))],
       opts("MirrorPadOptions", mode=schema.MirrorPadMode.REFLECT))
simple("MIRROR_PAD", "symmetric", [In([1, 3, 4, 2]), C(i32([0, 0], [3, 1], [0, 4], [0, 0]))],
       opts("MirrorPadOptions", mode=schema.MirrorPadMode.SYMMETRIC))
simple("MIRROR_PAD", "reflect_2d", [In([3, 3]), C(i32([2, 2], [1, 0]))],
       opts("MirrorPadOptions", mode=schema.MirrorPadMode.REFLECT))

simple("ONE_HOT", "last_axis", [In([4], PICK([0, 2, 4, 1, -1]), I32), C(np.array(5, np.int32)),
                                C(np.array(1.0, F32)), C(np.array(0.0, F32))], opts("OneHotOptions", axis=-1))
simple("ONE_HOT", "axis0_values", [In([2, 3], PICK([0, 1, 2, 3, 7]), I32), C(np.array(4, np.int32)),
                                   C(np.array(2.5, F32)), C(np.array(-1.0, F32))], opts("OneHotOptions", axis=0))
simple("ONE_HOT", "int32_values", [In([3], INT(0, 3), I32), C(np.array(3, np.int32)),
                                   C(np.array(7, np.int32)), C(np.array(-2, np.int32))],
       opts("OneHotOptions", axis=-1), out_dtype=I32)

simple("PACK", "axis0", [In([2, 3]), In([2, 3]), In([2, 3])], opts("PackOptions", valuesCount=3, axis=0))
simple("PACK", "negative_axis", [In([2, 3]), In([2, 3])], opts("PackOptions", valuesCount=2, axis=-1))
simple("PACK", "axis1_int32", [In([4], INT(-9, 9), I32), In([4], INT(-9, 9), I32)],
       opts("PackOptions", valuesCount=2, axis=1), out_dtype=I32)
simple("UNPACK", "axis0", [In([3, 2, 4])], opts("UnpackOptions", num=3, axis=0), n_out=3)
simple("UNPACK", "negative_axis", [In([2, 3, 4])], opts("UnpackOptions", num=4, axis=-1), n_out=4)
simple("UNPACK", "axis1", [In([2, 2, 3])], opts("UnpackOptions", num=2, axis=1), n_out=2)

simple("PAD", "spatial", [In([1, 3, 3, 2]), C(i32([0, 0], [1, 1], [2, 0], [0, 0]))], opts("PadOptions"))
simple("PAD", "channels", [In([1, 2, 2, 3]), C(i32([0, 0], [0, 0], [0, 0], [1, 2]))], opts("PadOptions"))
simple("PAD", "2d", [In([2, 3]), C(i32([1, 0], [0, 2]))], opts("PadOptions"))
simple("PADV2", "value_0_5", [In([1, 3, 3, 2]), C(i32([0, 0], [1, 2], [0, 1], [0, 0])), C(np.array([0.5], F32))],
       opts("PadV2Options"))
simple("PADV2", "negative_value_3d", [In([2, 2, 3]), C(i32([0, 1], [1, 0], [1, 1])), C(np.array(-1.0, F32))],
       opts("PadV2Options"))

simple("RESHAPE", "shape_tensor_minus1", [In([1, 2, 3, 4]), C(i32(2, -1))], opts("ReshapeOptions", newShape=[2, 12]))
simple("RESHAPE", "options_only", [In([2, 6])], opts("ReshapeOptions", newShape=[1, 3, 4]))
simple("RESHAPE", "to_4d", [In([24]), C(i32(1, 2, 4, 3))], opts("ReshapeOptions", newShape=[1, 2, 4, 3]))
simple("RESHAPE", "int32_data", [In([2, 3], INT(-9, 9), I32), C(i32(3, 2))], opts("ReshapeOptions", newShape=[3, 2]),
       out_dtype=I32)

for _op, _opt in (("RESIZE_BILINEAR", "ResizeBilinearOptions"),
                  ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions")):
    simple(_op, "up2x", [In([1, 3, 4, 2]), C(i32(6, 8))], opts(_opt))
    simple(_op, "align_corners", [In([1, 3, 4, 3]), C(i32(5, 7))], opts(_opt, alignCorners=True))
    simple(_op, "half_pixel_centers", [In([1, 3, 4, 5]), C(i32(7, 6))], opts(_opt, halfPixelCenters=True))
    simple(_op, "downscale", [In([2, 5, 5, 3]), C(i32(3, 2))], opts(_opt))

simple("REVERSE_V2", "axis1", [In([2, 3, 4]), C(i32(1))], opts("ReverseV2Options"))
simple("REVERSE_V2", "negative_axis", [In([1, 2, 3, 5]), C(i32(-1))], opts("ReverseV2Options"))
simple("REVERSE_V2", "two_axes", [In([2, 3, 4]), C(i32(0, 1))], opts("ReverseV2Options"))

simple("SHAPE", "int32", [In([2, 3, 4])], opts("ShapeOptions", outType=schema.TensorType.INT32), out_dtype=I32)
simple("SHAPE", "int64", [In([1, 5])], opts("ShapeOptions", outType=schema.TensorType.INT64), out_dtype=I64)

simple("SLICE", "4d", [In([1, 3, 4, 5]), C(i32(0, 1, 1, 2)), C(i32(1, 2, -1, 2))], opts("SliceOptions"),
       out_shape=[1, 2, 3, 2])
simple("SLICE", "2d", [In([4, 3]), C(i32(1, 0)), C(i32(2, 3))], opts("SliceOptions"), out_shape=[2, 3])
simple("SLICE", "int64_params", [In([2, 3, 4]), C(np.array([1, 0, 1], np.int64)), C(np.array([1, 2, 3], np.int64))],
       opts("SliceOptions"), out_shape=[1, 2, 3])

simple("SPACE_TO_BATCH_ND", "block2", [In([1, 4, 4, 2]), C(i32(2, 2)), C(i32([0, 0], [0, 0]))],
       opts("SpaceToBatchNDOptions"))
simple("SPACE_TO_BATCH_ND", "block2_padded", [In([1, 3, 5, 1]), C(i32(2, 2)), C(i32([1, 0], [0, 1]))],
       opts("SpaceToBatchNDOptions"))
simple("BATCH_TO_SPACE_ND", "block2", [In([4, 2, 2, 1]), C(i32(2, 2)), C(i32([0, 0], [0, 0]))],
       opts("BatchToSpaceNDOptions"))
simple("BATCH_TO_SPACE_ND", "block2_crops", [In([4, 2, 3, 3]), C(i32(2, 2)), C(i32([1, 0], [0, 1]))],
       opts("BatchToSpaceNDOptions"))

simple("SPLIT", "channels_2", [C(np.array(3, np.int32)), In([1, 2, 3, 6])], opts("SplitOptions", numSplits=2), n_out=2)
simple("SPLIT", "negative_axis_3", [C(np.array(-2, np.int32)), In([2, 6, 2])], opts("SplitOptions", numSplits=3),
       n_out=3)
simple("SPLIT_V", "sizes_minus1", [In([1, 2, 2, 7]), C(i32(1, 2, -1)), C(np.array(3, np.int32))],
       opts("SplitVOptions", numSplits=3), n_out=3)
simple("SPLIT_V", "axis0", [In([5, 2]), C(i32(3, 2)), C(np.array(0, np.int32))],
       opts("SplitVOptions", numSplits=2), n_out=2)

simple("SQUEEZE", "all_ones", [In([1, 3, 1, 2])], opts("SqueezeOptions", squeezeDims=[]))
simple("SQUEEZE", "negative_dim", [In([1, 2, 1, 1])], opts("SqueezeOptions", squeezeDims=[-2]))
simple("SQUEEZE", "dims_0_2", [In([1, 4, 1, 3])], opts("SqueezeOptions", squeezeDims=[0, 2]))


def ss_opts(begin=0, end=0, ellipsis=0, new_axis=0, shrink=0, offset=False):
    return opts("StridedSliceOptions", beginMask=begin, endMask=end, ellipsisMask=ellipsis,
                newAxisMask=new_axis, shrinkAxisMask=shrink, offset=offset)


simple("STRIDED_SLICE", "basic_4d", [In([1, 4, 5, 6]), C(i32(0, 1, 0, 1)), C(i32(1, 3, 5, 5)), C(i32(1, 1, 2, 1))],
       ss_opts())
simple("STRIDED_SLICE", "negative_stride", [In([3, 6]), C(i32(2, -1)), C(i32(0, 0)), C(i32(-1, -2))],
       ss_opts(begin=0, end=0b10))
simple("STRIDED_SLICE", "begin_end_masks", [In([2, 5, 4]), C(i32(1, 1, 0)), C(i32(0, 4, 3)), C(i32(1, 2, 1))],
       ss_opts(begin=0b101, end=0b001))
simple("STRIDED_SLICE", "shrink_axis", [In([3, 4, 2]), C(i32(1, 0, 0)), C(i32(2, 4, 2)), C(i32(1, 1, 1))],
       ss_opts(shrink=0b001))
simple("STRIDED_SLICE", "offset", [In([2, 6, 3]), C(i32(0, 1, 1)), C(i32(2, 4, 2)), C(i32(1, 1, 1))],
       ss_opts(offset=True))
simple("STRIDED_SLICE", "ellipsis_new_axis", [In([2, 3, 4]), C(i32(0, 0, 1)), C(i32(0, 0, 3)), C(i32(1, 1, 1))],
       ss_opts(ellipsis=0b001, new_axis=0b010))
simple("STRIDED_SLICE", "negative_indices", [In([1, 6, 5]), C(i32(0, -4, -1)), C(i32(1, -1, -6)), C(i32(1, 1, -2))],
       ss_opts())

simple("TILE", "2d", [In([2, 3]), C(i32(2, 1))], opts("TileOptions"))
simple("TILE", "3d", [In([1, 2, 3]), C(i32(2, 1, 2))], opts("TileOptions"))
simple("TILE", "int32_4d", [In([1, 1, 2, 1], INT(-9, 9), I32), C(i32(1, 2, 1, 3))], opts("TileOptions"),
       out_dtype=I32)

simple("TRANSPOSE", "nhwc_to_nchw", [In([1, 2, 3, 5]), C(i32(0, 3, 1, 2))], opts("TransposeOptions"))
simple("TRANSPOSE", "2d", [In([3, 4]), C(i32(1, 0))], opts("TransposeOptions"))
simple("TRANSPOSE", "3d_rotate", [In([2, 3, 4]), C(i32(2, 0, 1))], opts("TransposeOptions"))
simple("TRANSPOSE", "5d", [In([1, 2, 3, 2, 2]), C(i32(0, 4, 2, 1, 3))], opts("TransposeOptions"))

# --- int8 ops (the CPU's integer kernels) ---------------------------------------
# Full-integer models' ops with int8 activations, one scale and zero point per
# tensor; constants stored as int8. Their manifests also hold LiteRT's default
# kernels' outputs (outputs_default: resolver BUILTIN, XNNPACK where its
# delegate takes the node), which the CPU's integer kernels are held to.

def q8(scale, zero_point):
    return {"scale": [scale], "zero_point": [zero_point]}


def int8_case(op, variant, inputs, options, out_q, lo=-128, hi=128):
    """A one-op int8 case. inputs: list of (shape, quant) for an int8 input
    (values in [lo, hi)), ("c", int8 array, quant) for a constant, or
    ("i32", int32 array) for an int32 constant (axes, sizes)."""
    @case(op, variant)
    def build(b):
        ins = []
        for spec in inputs:
            if spec[0] == "c":
                ins.append(b.c(np.asarray(spec[1], dtype=I8), quant=spec[2]))
            elif spec[0] == "i32":
                ins.append(b.c(np.asarray(spec[1], dtype=np.int32)))
            else:
                ins.append(b.inp(spec[0], INT(lo, hi), I8, quant=spec[1]))
        b.op(op, ins, [b.out(I8, out_q)], options=options)


def int8_values(name, shape, lo=-127, hi=128):
    return reflib.uniform_int(zlib.crc32(name.encode()) & 0xFFFFFFFF, 77, tuple(shape), lo, hi).astype(I8)


int8_case("SQUARED_DIFFERENCE", "int8_broadcast", [([1, 4, 8], q8(0.02, 3)), ([1, 4, 1], q8(0.015, -5))],
          opts("SquaredDifferenceOptions"), q8(0.005, -128))
int8_case("SQUARED_DIFFERENCE", "int8_same_shape", [([2, 3, 5], q8(0.05, 0)), ([2, 3, 5], q8(0.05, 0))],
          opts("SquaredDifferenceOptions"), q8(0.1, -128))
int8_case("RSQRT", "int8", [([2, 3, 8], q8(0.01, -128))], None, q8(0.05, -128))
int8_case("RSQRT", "int8_zero_point", [([4, 16], q8(0.004, -20))], None, q8(0.1, -100), lo=-20)
int8_case("GELU", "int8_exact", [([2, 4, 16], q8(0.03, 5))], opts("GeluOptions", approximate=False),
          q8(0.02, -110))
int8_case("GELU", "int8_approximate", [([2, 4, 16], q8(0.03, 5))], opts("GeluOptions", approximate=True),
          q8(0.02, -110))
int8_case("SOFTMAX", "int8_beta1", [([2, 3, 16], q8(0.1, 3))], opts("SoftmaxOptions", beta=1.0),
          q8(1.0 / 256, -128))
int8_case("SOFTMAX", "int8_beta0_5_long_rows", [([2, 300], q8(0.05, -10))], opts("SoftmaxOptions", beta=0.5),
          q8(1.0 / 256, -128))
int8_case("BATCH_MATMUL", "int8_attention_adj_y", [([1, 2, 5, 8], q8(0.03, 4)), ([1, 2, 7, 8], q8(0.02, -3))],
          opts("BatchMatMulOptions", adjY=True), q8(0.15, -3))
# Power-of-two scales: many sums land half way between two steps, where
# the rounding rules of LiteRT's kernels (fixed point: half away from zero;
# XNNPACK: half to even) tell them apart.
int8_case("BATCH_MATMUL", "int8_pow2_scales_ties", [([1, 2, 8, 16], q8(0.5, 3)), ([1, 2, 16, 8], q8(0.25, -2))],
          opts("BatchMatMulOptions"), q8(16.0, 1))
int8_case("BATCH_MATMUL", "int8_attention_16x16", [([1, 4, 16, 16], q8(0.0295, 8)), ([1, 4, 16, 16], q8(0.0296, 4))],
          opts("BatchMatMulOptions", adjY=True), q8(0.1446, -3))
int8_case("MUL", "int8_const_pow2_scales_ties",
          [([1, 8, 32], q8(0.5, 3)), ("c", int8_values("mul__int8_const_pow2_scales_ties", [32]), q8(0.25, 0))],
          opts("MulOptions"), q8(4.0, -1))
int8_case("MUL", "int8_pow2_small_product_ties", [([4, 32], q8(2.0 ** -10, 2)), ([4, 32], q8(2.0 ** -10, -1))],
          opts("MulOptions"), q8(2.0 ** -3, 0))
int8_case("ADD", "int8_far_scales_pow2_ties", [([4, 32], q8(1.0, 3)), ([4, 32], q8(2.0 ** -12, -7))],
          opts("AddOptions"), q8(2.0, 1))
# The second operand's zero point 0: XNNPACK's delegate takes the node (float
# requantization, half to even); the others run TFLite's fixed point.
int8_case("BATCH_MATMUL", "int8_rhs_zero_point_0", [([1, 3, 18, 32], q8(0.0304, -3)), ([1, 3, 32, 18], q8(0.0335, 0))],
          opts("BatchMatMulOptions"), q8(0.1776, -3))
int8_case("BATCH_MATMUL", "int8_rhs_zero_point_0_pow2_ties", [([1, 2, 8, 16], q8(0.5, 3)), ([1, 2, 16, 8], q8(0.25, 0))],
          opts("BatchMatMulOptions"), q8(2.0, 1), lo=-8, hi=8)
int8_case("BATCH_MATMUL", "int8_rhs_zero_point_0_adj_y", [([1, 2, 24, 40], q8(0.02, 5)), ([1, 2, 24, 40], q8(0.025, 0))],
          opts("BatchMatMulOptions", adjY=True), q8(0.1, 0))
int8_case("BATCH_MATMUL", "int8_broadcast_batch", [([2, 1, 3, 6], q8(0.02, 0)), ([3, 6, 4], q8(0.025, 7))],
          opts("BatchMatMulOptions"), q8(0.05, 2))
int8_case("MEAN", "int8_last_axis_keepdims", [([1, 16, 64], q8(0.02, -3)), ("i32", [2])],
          opts("ReducerOptions", keepDims=True), q8(0.004, -20))
int8_case("MEAN", "int8_axis1_pow2_ties", [([1, 16, 64], q8(0.5, -5)), ("i32", [1])],
          opts("ReducerOptions", keepDims=False), q8(0.25, -13))
int8_case("MEAN", "int8_axis1", [([1, 16, 64], q8(0.03, -5)), ("i32", [1])],
          opts("ReducerOptions", keepDims=False), q8(0.012, -13))
int8_case("MEAN", "int8_axes_1_3", [([2, 3, 4, 5], q8(0.02, 6)), ("i32", [1, 3])],
          opts("ReducerOptions", keepDims=False), q8(0.01, 1))
# A global max pooling (the output keeps the input's quantization).
int8_case("REDUCE_MAX", "int8_spatial", [([1, 5, 6, 8], q8(0.05, -3)), ("i32", [1, 2])],
          opts("ReducerOptions", keepDims=False), q8(0.05, -3))
int8_case("REDUCE_MIN", "int8_last_axis_keepdims", [([2, 3, 16], q8(0.02, 7)), ("i32", [2])],
          opts("ReducerOptions", keepDims=True), q8(0.02, 7))
int8_case("AVERAGE_POOL_2D", "int8_3x3_same_stride2", [([1, 6, 7, 8], q8(0.05, -3))],
          pool_opts(PAD.SAME, 2, 2, 3, 3), q8(0.05, -3))
int8_case("AVERAGE_POOL_2D", "int8_2x2_valid_pow2_ties", [([1, 4, 6, 16], q8(0.5, 1))],
          pool_opts(PAD.VALID, 2, 2, 2, 2), q8(0.5, 1))
int8_case("AVERAGE_POOL_2D", "int8_global_relu6_rescaled", [([1, 5, 5, 12], q8(0.06, 7))],
          pool_opts(PAD.VALID, 1, 1, 5, 5, ACT.RELU6), q8(0.03, -128))
int8_case("HARD_SWISH", "int8", [([2, 4, 32], q8(0.04, -3))], None, q8(0.03, -50))
int8_case("HARD_SWISH", "int8_wide_input", [([1, 8, 32], q8(0.1, 20))], None, q8(0.06, -90))
for _op, _opt in (("RESIZE_BILINEAR", "ResizeBilinearOptions"),
                  ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions")):
    int8_case(_op, "int8_up2x", [([1, 3, 4, 8], q8(0.05, -3)), ("i32", [6, 8])], opts(_opt), q8(0.05, -3))
    int8_case(_op, "int8_half_pixel_centers", [([1, 3, 4, 8], q8(0.05, -3)), ("i32", [7, 6])],
              opts(_opt, halfPixelCenters=True), q8(0.05, -3))
    int8_case(_op, "int8_align_corners", [([1, 3, 4, 8], q8(0.05, -3)), ("i32", [5, 7])],
              opts(_opt, alignCorners=True), q8(0.05, -3))


# Ops that move int8 values, reading an int8 constant (a class token, an
# embedding table, an attention mask's fill value): the integer view gives
# them its stored integers.
@case("CONCATENATION", "int8_const_class_token")
def _concat_int8_const(b):
    q = q8(0.05, -3)
    token = b.c(int8_values("concatenation__int8_const_class_token", [1, 2, 16]), quant=q)
    x = b.inp([1, 9, 16], INT(-128, 128), I8, quant=q)
    b.op("CONCATENATION", [token, x], [b.out(I8, q)], options=opts("ConcatenationOptions", axis=1))


@case("GATHER", "int8_const_table")
def _gather_int8_table(b):
    q = q8(0.02, 4)
    table = b.c(int8_values("gather__int8_const_table", [40, 16]), quant=q)
    ids = b.inp([1, 12], INT(0, 40), I32)
    b.op("GATHER", [table, ids], [b.out(I8, q)], options=opts("GatherOptions", axis=0))


@case("SELECT_V2", "int8_const_fill")
def _select_int8_fill(b):
    q = q8(0.1, -5)
    cond = b.inp([1, 1, 8], BOOLS(), BOOL)
    x = b.inp([1, 3, 8], INT(-128, 128), I8, quant=q)
    fill = b.c(np.array(-128, dtype=I8), quant=q)
    b.op("SELECT_V2", [cond, x, fill], [b.out(I8, q)], options=opts("SelectV2Options"))


@case("TRANSPOSE_CONV", "int8_per_channel_same_stride2")
def _tconv_int8(b):
    oc, ic = 6, 5
    w_scales = [0.01, 0.02, 0.015, 0.03, 0.008, 0.012]
    w = reflib.uniform_int(b.seed, 60, (oc, 3, 3, ic), -127, 128).astype(I8)
    wq = b.c(w, quant={"scale": w_scales, "zero_point": [0] * oc, "axis": 0})
    x = b.inp([1, 4, 3, ic], INT(-128, 128), I8, quant=q8(0.04, 2))
    bias = b.c(reflib.uniform_int(b.seed, 61, (oc,), -2000, 2000).astype(np.int32),
               quant={"scale": [0.04 * s for s in w_scales], "zero_point": [0] * oc, "axis": 0})
    shape = b.c(i32(1, 8, 6, oc))
    b.op("TRANSPOSE_CONV", [shape, wq, x, bias], [b.out(I8, q8(0.08, -4))],
         options=opts("TransposeConvOptions", padding=PAD.SAME, strideW=2, strideH=2), version=3)


@case("TRANSPOSE_CONV", "int8_per_channel_valid_no_bias")
def _tconv_int8_nobias(b):
    oc, ic = 3, 4
    w_scales = [0.02, 0.01, 0.025]
    w = reflib.uniform_int(b.seed, 60, (oc, 2, 2, ic), -127, 128).astype(I8)
    wq = b.c(w, quant={"scale": w_scales, "zero_point": [0] * oc, "axis": 0})
    x = b.inp([1, 3, 4, ic], INT(-128, 128), I8, quant=q8(0.05, -6))
    shape = b.c(i32(1, 6, 8, oc))
    b.op("TRANSPOSE_CONV", [shape, wq, x], [b.out(I8, q8(0.1, 3))],
         options=opts("TransposeConvOptions", padding=PAD.VALID, strideW=2, strideH=2), version=3)


int8_case("MUL", "int8_const_row", [([1, 4, 8], q8(0.008, -128)),
                                     ("c", int8_values("mul__int8_const_row", [1, 1, 8]), q8(0.004, -128))],
          opts("MulOptions"), q8(0.008, -128))
int8_case("MUL", "int8_scalar_const", [([1, 2, 4, 4], q8(0.14, -3)), ("c", np.array(25, dtype=I8), q8(0.001, -128))],
          opts("MulOptions"), q8(0.036, -3))
# Two activations in XNNPACK's range (its delegate takes them): a swish's
# x * sigmoid(x) with ties, a squeeze-excite gate broadcast over pixels.
int8_case("MUL", "int8_activations_pow2_ties", [([4, 64], q8(0.5, 3)), ([4, 64], q8(0.25, -2))],
          opts("MulOptions"), q8(2.0, 1))
int8_case("MUL", "int8_squeeze_excite", [([1, 6, 6, 40], q8(0.05, -4)), ([1, 1, 1, 40], q8(1.0 / 256, -128))],
          opts("MulOptions"), q8(0.04, -2))
# A swish: MUL(x, LOGISTIC(x)) runs as one table of x (integer_ops.cc
# SwishTable), every input byte.
@case("MUL", "int8_swish")
def _int8_swish(b):
    x = b.inp([2, 4, 32], INT(-128, 128), I8, quant=q8(0.06, 3))
    gate = b.tmp(I8, quant=q8(1.0 / 256, -128))
    b.op("LOGISTIC", [x], [gate])
    b.op("MUL", [x, gate], [b.out(I8, q8(0.03, -100))], options=opts("MulOptions"))


# XNNPACK's table operators on TFLite's fixed output grids, every input byte.
int8_case("LOGISTIC", "int8", [([2, 4, 32], q8(0.06, 3))], None, q8(1.0 / 256, -128))
int8_case("TANH", "int8", [([2, 4, 32], q8(0.05, -3))], None, q8(1.0 / 128, 0))
int8_case("MUL", "int8_small_product_scale", [([2, 8], q8(0.001, 2)), ([2, 8], q8(0.001, -1))],
          opts("MulOptions"), q8(1.0, 0))
int8_case("ADD", "int8_tiny_const", [([1, 4, 1], q8(0.0016, -128)), ("c", np.array(-43, dtype=I8), q8(5.9e-9, -43))],
          opts("AddOptions"), q8(0.0016, -128))
int8_case("ADD", "int8_const_row", [([1, 4, 8], q8(0.017, 8)),
                                     ("c", int8_values("add__int8_const_row", [1, 1, 8]), q8(0.012, -5))],
          opts("AddOptions"), q8(0.024, 1))
int8_case("ADD", "int8_const_pow2_scales_ties", [([4, 32], q8(0.25, 3)),
                                                  ("c", int8_values("add__int8_const_pow2_scales_ties", [32]), q8(0.5, 0))],
          opts("AddOptions"), q8(1.0, -1))
int8_case("SUB", "int8_const_row", [([1, 4, 8], q8(0.017, 8)),
                                     ("c", int8_values("sub__int8_const_row", [1, 1, 8]), q8(0.012, -5))],
          opts("SubOptions"), q8(0.024, 1))
int8_case("SUB", "int8_const_first_pow2_ties", [("c", int8_values("sub__int8_const_first_pow2_ties", [32]), q8(0.5, 2)),
                                                 ([4, 32], q8(0.25, 3))],
          opts("SubOptions"), q8(1.0, -1))
int8_case("ADD", "int8_far_scales", [([2, 6], q8(0.5, 3)), ([2, 6], q8(0.0001, -7))], opts("AddOptions"),
          q8(0.5, 1))
int8_case("SUB", "int8_far_scales", [([2, 6], q8(0.5, 3)), ([1, 6], q8(0.0001, -7))], opts("SubOptions"),
          q8(0.5, 1))


# --- quantization and sparsity ------------------------------------------------

simple("QUANTIZE", "int8", [In([2, 3, 4], F(-3, 3))], opts("QuantizeOptions"), out_dtype=I8,
       out_quant={"scale": [0.02], "zero_point": [5]})
simple("QUANTIZE", "uint8", [In([1, 2, 2, 5], F(-7, 7))], opts("QuantizeOptions"), out_dtype=U8,
       out_quant={"scale": [0.05], "zero_point": [128]})


@case("DEQUANTIZE", "int8_input")
def _deq_int8(b):
    x = b.inp([2, 3, 4], INT(-128, 128), I8, quant={"scale": [0.05], "zero_point": [-3]})
    b.op("DEQUANTIZE", [x], [b.out()], options=opts("DequantizeOptions"), version=2)


@case("DEQUANTIZE", "uint8_input")
def _deq_uint8(b):
    x = b.inp([1, 2, 2, 5], INT(0, 256), U8, quant={"scale": [0.1], "zero_point": [128]})
    b.op("DEQUANTIZE", [x], [b.out()], options=opts("DequantizeOptions"))


@case("DEQUANTIZE", "fp16_weights_into_add")
def _deq_fp16(b):
    """As in the MediaPipe models: float16 constant -> DEQUANTIZE -> consumer."""
    w16 = b.c(const_f(b.seed, 1, [1, 2, 3, 5], -4, 4).astype(F16))
    w32 = b.tmp()
    b.op("DEQUANTIZE", [w16], [w32], options=opts("DequantizeOptions"), version=3)
    x = b.inp([1, 2, 3, 5])
    b.op("ADD", [x, w32], [b.out()], options=opts("AddOptions"))


@case("DEQUANTIZE", "int8_per_channel_weights_into_mul")
def _deq_perchannel(b):
    q = reflib.uniform_int(b.seed, 50, (4, 3), -127, 128).astype(I8)
    wq = b.c(q, quant={"scale": [0.01, 0.02, 0.5, 0.003], "zero_point": [0, 0, 0, 0], "axis": 0})
    w32 = b.tmp()
    b.op("DEQUANTIZE", [wq], [w32], options=opts("DequantizeOptions"), version=4)
    x = b.inp([4, 3])
    b.op("MUL", [x, w32], [b.out()], options=opts("MulOptions"))


def csr(dense, block=None):
    """Sparsity parameters + packed values for `dense`, CSR on the last
    (or block) dimension, every other dimension dense, as the converter writes."""
    def segs_indices(rows):
        segments, indices, values = [0], [], []
        for row in rows:
            nz = np.nonzero(np.any(row.reshape(row.shape[0], -1) != 0, axis=1))[0]
            for j in nz:
                indices.append(int(j))
                values.append(row[j])
            segments.append(len(indices))
        return segments, indices, values

    sp = schema.SparsityParametersT()
    if block is None:
        shape = dense.shape
        rows = dense.reshape(-1, shape[-1])
        segments, indices, values = segs_indices(rows)
        sp.traversalOrder = list(range(len(shape)))
        dims = list(shape)
        dense_dims = dims[:-1]
        values = np.array(values, dtype=dense.dtype)
    else:
        r, c = dense.shape
        br, bc = block
        blocks = dense.reshape(r // br, br, c // bc, bc).transpose(0, 2, 1, 3)  # [R, C, br, bc]
        segments, indices, values = segs_indices(blocks)
        sp.traversalOrder = [0, 1, 2, 3]
        sp.blockMap = [0, 1]
        dense_dims = [r // br]
        values = np.array(values, dtype=dense.dtype).reshape(-1)
    metas = []
    for d in dense_dims:
        m = schema.DimensionMetadataT()
        m.format = schema.DimensionType.DENSE
        m.denseSize = int(d)
        metas.append(m)
    m = schema.DimensionMetadataT()
    m.format = schema.DimensionType.SPARSE_CSR
    seg_vec, idx_vec = schema.Uint8VectorT(), schema.Uint8VectorT()
    seg_vec.values = np.array(segments, dtype=np.uint8)
    idx_vec.values = np.array(indices, dtype=np.uint8)
    m.arraySegmentsType = schema.SparseIndexVector.Uint8Vector
    m.arraySegments = seg_vec
    m.arrayIndicesType = schema.SparseIndexVector.Uint8Vector
    m.arrayIndices = idx_vec
    metas.append(m)
    if block is not None:
        for d in block:
            bm = schema.DimensionMetadataT()
            bm.format = schema.DimensionType.DENSE
            bm.denseSize = int(d)
            metas.append(bm)
    sp.dimMetadata = metas
    return sp, values


def sparse_weights(seed, shape, keep=0.4, block=None, dtype=F32):
    dense = const_f(seed, 7, shape, -2, 2)
    if block is None:
        mask = F(0, 1)(seed, 1007, tuple(shape), np.float64) < keep
    else:
        r, c = shape
        bmask = F(0, 1)(seed, 1008, (r // block[0], c // block[1]), np.float64) < keep
        mask = np.kron(bmask, np.ones(block, dtype=bool))
    return np.where(mask, dense, 0).astype(dtype)


def densify_case(variant, shape, block=None, dtype=F32, version=1):
    @case("DENSIFY", variant)
    def build(b):
        dense = sparse_weights(b.seed, shape, block=block, dtype=dtype)
        sp, values = csr(dense, block)
        b.nconst += 1
        s = b.tensor(f"const_{b.nconst}", list(shape), dtype, data=values, sparsity=sp)
        d = b.tmp(dtype)
        b.op("DENSIFY", [s], [d], options=opts("DensifyOptions"), version=version)
        if dtype == F16:
            d32 = b.tmp()
            b.op("DEQUANTIZE", [d], [d32], options=opts("DequantizeOptions"), version=3)
            d = d32
        x = b.inp(list(shape))
        b.op("ADD", [x, d], [b.out()], options=opts("AddOptions"))


densify_case("csr_4d_weights", [6, 1, 1, 10])
densify_case("csr_fp16_then_dequantize", [5, 1, 1, 9], dtype=F16)
densify_case("block_2x4_2d", [4, 8], block=(2, 4))


# --- recurrent ops and the embedding lookup -------------------------------------
# TFLite's input numbering; the states are variable tensors (zero at the
# start of the run; stateful() records further invokes). Weights in
# [-0.5, 0.5) keep the gates off saturation.


def record_steps(name, model_bytes, resolver, seed, gens, d, manifest):
    """Invokes 0..steps on one interpreter; writes step<k>_input/output files."""
    reflib.quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=model_bytes, num_threads=1,
                     experimental_op_resolver_type=getattr(OpResolverType, resolver))
    it.allocate_tensors()
    first = [np.load(os.path.join(d, f"input_{i}.npy")) for i in range(len(gens))]
    outs = reflib.run_litert(it, first)
    for i, v in enumerate(outs):
        ref = np.load(os.path.join(d, f"output_{i}.npy"))
        if not np.array_equal(ref, v, equal_nan=True):
            reflib.die(f"{name}: the first invoke differs from the stored reference")
    manifest["steps"] = []
    for k in range(1, STATEFUL_STEPS[name] + 1):
        inputs = [gen(seed, 100 * k + i, shape, dtype) for i, (gen, shape, dtype) in enumerate(gens)]
        outs = reflib.run_litert(it, inputs)
        entry = {"inputs": [], "outputs": []}
        for i, v in enumerate(inputs):
            np.save(os.path.join(d, f"step{k}_input_{i}.npy"), v)
            entry["inputs"].append(f"step{k}_input_{i}.npy")
        for i, v in enumerate(outs):
            np.save(os.path.join(d, f"step{k}_output_{i}.npy"), v)
            entry["outputs"].append(f"step{k}_output_{i}.npy")
        manifest["steps"].append(entry)


def lstm_cell_inputs(b, n_in, n_cell, n_out=None, cifg=False, peephole=False, projection=False,
                     proj_bias=False):
    """The 17 weights of one LSTM cell (LSTM's inputs 1..17); -1 where absent."""
    n_out = n_out or n_cell
    w = lambda *shape: b.w(list(shape), -0.5, 0.5)  # noqa: E731
    i2x = [-1 if cifg else w(n_cell, n_in), w(n_cell, n_in), w(n_cell, n_in), w(n_cell, n_in)]
    r2x = [-1 if cifg else w(n_cell, n_out), w(n_cell, n_out), w(n_cell, n_out), w(n_cell, n_out)]
    peep = ([-1 if cifg else w(n_cell), w(n_cell), w(n_cell)] if peephole else [-1, -1, -1])
    bias = [-1 if cifg else w(n_cell), w(n_cell), w(n_cell), w(n_cell)]
    proj = [w(n_out, n_cell) if projection else -1, w(n_out) if projection and proj_bias else -1]
    return i2x + r2x + peep + bias + proj


def lstm_case(op, variant, batch, time, n_in, n_cell, n_out=None, time_major=False, layer_norm=False,
              n_inputs=24, act=ACT.TANH, cell_clip=0.0, proj_clip=0.0, **cell):
    n_out = n_out or n_cell

    @case(op, variant)
    def build(b):
        shape = [batch, n_in] if op == "LSTM" else ([time, batch, n_in] if time_major else [batch, time, n_in])
        x = b.inp(shape)
        ins = [x] + lstm_cell_inputs(b, n_in, n_cell, n_out, **cell)
        ins += [b.variable("activation_state", [batch, n_out]), b.variable("cell_state", [batch, n_cell])]
        if n_inputs == 24:
            cifg = cell.get("cifg", False)
            ins += ([-1 if cifg else b.w([n_cell], 0.5, 1.5)] + [b.w([n_cell], 0.5, 1.5) for _ in range(3)]
                    if layer_norm else [-1] * 4)
        if op == "LSTM":
            o = opts("LSTMOptions", fusedActivationFunction=act, cellClip=cell_clip, projClip=proj_clip)
        else:
            o = opts("UnidirectionalSequenceLSTMOptions", fusedActivationFunction=act, cellClip=cell_clip,
                     projClip=proj_clip, timeMajor=time_major)
        b.op(op, ins, [b.out()], options=o)


USL = "UNIDIRECTIONAL_SEQUENCE_LSTM"
lstm_case(USL, "basic", 2, 3, 4, 5)
lstm_case(USL, "time_major", 2, 4, 3, 6, time_major=True)
lstm_case(USL, "20_inputs", 1, 5, 4, 4, n_inputs=20)
lstm_case(USL, "peephole_projection_clip", 2, 4, 3, 6, n_out=4, peephole=True, projection=True,
          proj_bias=True, cell_clip=0.4, proj_clip=0.5)
lstm_case(USL, "cifg_peephole", 2, 3, 5, 4, cifg=True, peephole=True)
lstm_case(USL, "layer_norm", 2, 3, 4, 5, layer_norm=True)
lstm_case(USL, "cifg_layer_norm_projection", 1, 4, 3, 6, n_out=3, cifg=True, layer_norm=True,
          projection=True, time_major=True)
lstm_case(USL, "relu_long", 1, 12, 8, 16, act=ACT.RELU, cell_clip=2.0)
for _name in ("unidirectional_sequence_lstm__basic", "unidirectional_sequence_lstm__peephole_projection_clip",
              "unidirectional_sequence_lstm__cifg_layer_norm_projection"):
    stateful(_name)
lstm_case("LSTM", "basic", 2, 1, 4, 5)
lstm_case("LSTM", "peephole_projection_clip", 3, 1, 4, 6, n_out=3, peephole=True, projection=True,
          proj_bias=True, cell_clip=0.5, proj_clip=0.4)
lstm_case("LSTM", "cifg_layer_norm", 2, 1, 3, 4, cifg=True, layer_norm=True)


@case("LSTM", "basic_kernel")
def _lstm_basic_kernel(b):
    n_in, n_out, batch = 3, 4, 2
    x = b.inp([batch, n_in])
    prev_act = b.inp([batch, n_out])
    prev_state = b.inp([batch, n_out])
    ins = [x, prev_act, b.w([4 * n_out, n_in + n_out], -0.5, 0.5), b.w([4 * n_out], -0.5, 0.5), prev_state]
    outs = [b.out() for _ in range(4)]
    b.op("LSTM", ins, outs, options=opts("LSTMOptions", fusedActivationFunction=ACT.TANH,
                                            kernelType=schema.LSTMKernelType.BASIC))


def bidi_lstm_case(variant, batch, time, n_in, n_cell, n_out=None, merge=False, time_major=True, **cell):
    n_out = n_out or n_cell

    @case("BIDIRECTIONAL_SEQUENCE_LSTM", variant)
    def build(b):
        x = b.inp([time, batch, n_in] if time_major else [batch, time, n_in])
        ins = [x] + lstm_cell_inputs(b, n_in, n_cell, n_out, **cell)
        ins += lstm_cell_inputs(b, n_in, n_cell, n_out, **cell)
        for d in ("fw", "bw"):
            ins += [b.variable(f"{d}_activation_state", [batch, n_out]),
                    b.variable(f"{d}_cell_state", [batch, n_cell])]
        ins += [-1] * 9  # no auxiliary input
        o = opts("BidirectionalSequenceLSTMOptions", fusedActivationFunction=ACT.TANH, mergeOutputs=merge,
                 timeMajor=time_major)
        b.op("BIDIRECTIONAL_SEQUENCE_LSTM", ins, [b.out() for _ in range(1 if merge else 2)], options=o)


bidi_lstm_case("merged_time_major", 2, 3, 4, 5, merge=True)
stateful("bidirectional_sequence_lstm__merged_time_major")
stateful("lstm__peephole_projection_clip", 3)
bidi_lstm_case("separate_batch_major", 2, 4, 3, 4, time_major=False)
bidi_lstm_case("peephole_projection", 1, 3, 3, 5, n_out=3, peephole=True, projection=True, proj_bias=True,
               merge=True, time_major=False)


def rnn_cell_inputs(b, n_in, units):
    return [b.w([units, n_in], -0.5, 0.5), b.w([units, units], -0.5, 0.5), b.w([units], -0.5, 0.5)]


def rnn_case(op, variant, batch, time, n_in, units, act=ACT.TANH, time_major=False):
    @case(op, variant)
    def build(b):
        shape = [batch, n_in] if op == "RNN" else ([time, batch, n_in] if time_major else [batch, time, n_in])
        ins = [b.inp(shape)] + rnn_cell_inputs(b, n_in, units) + [b.variable("hidden_state", [batch, units])]
        if op == "RNN":
            o = opts("RNNOptions", fusedActivationFunction=act)
        else:
            o = opts("SequenceRNNOptions", fusedActivationFunction=act, timeMajor=time_major)
        b.op(op, ins, [b.out()], options=o)


rnn_case("RNN", "tanh", 2, 1, 4, 5)
rnn_case("RNN", "relu", 3, 1, 6, 4, act=ACT.RELU)
rnn_case("UNIDIRECTIONAL_SEQUENCE_RNN", "tanh", 2, 4, 3, 5)
rnn_case("UNIDIRECTIONAL_SEQUENCE_RNN", "relu_time_major", 2, 5, 4, 3, act=ACT.RELU, time_major=True)
stateful("rnn__tanh", 3)
stateful("unidirectional_sequence_rnn__tanh")


def bidi_rnn_case(variant, batch, time, n_in, units, merge=False, time_major=False, act=ACT.TANH):
    @case("BIDIRECTIONAL_SEQUENCE_RNN", variant)
    def build(b):
        x = b.inp([time, batch, n_in] if time_major else [batch, time, n_in])
        ins = [x] + rnn_cell_inputs(b, n_in, units) + [b.variable("fw_hidden_state", [batch, units])]
        ins += rnn_cell_inputs(b, n_in, units) + [b.variable("bw_hidden_state", [batch, units])]
        ins += [-1, -1, -1]  # no auxiliary input
        o = opts("BidirectionalSequenceRNNOptions", fusedActivationFunction=act, mergeOutputs=merge,
                 timeMajor=time_major)
        b.op("BIDIRECTIONAL_SEQUENCE_RNN", ins, [b.out() for _ in range(1 if merge else 2)], options=o)


bidi_rnn_case("separate", 2, 3, 4, 5)
stateful("bidirectional_sequence_rnn__separate")
bidi_rnn_case("merged_time_major_relu", 1, 4, 3, 4, merge=True, time_major=True, act=ACT.RELU)


def svdf_case(variant, batch, n_in, units, rank, memory, bias=True, act=ACT.NONE):
    @case("SVDF", variant)
    def build(b):
        filters = units * rank
        ins = [b.inp([batch, n_in]), b.w([filters, n_in]), b.w([filters, memory]),
               b.w([units]) if bias else -1, b.variable("state", [batch, filters * memory])]
        b.op("SVDF", ins, [b.out()], options=opts("SVDFOptions", rank=rank, fusedActivationFunction=act))


svdf_case("rank1", 2, 4, 3, 1, 5)
svdf_case("rank2_relu_no_bias", 1, 6, 4, 2, 3, bias=False, act=ACT.RELU)
stateful("svdf__rank1", 6)  # more invokes than the memory holds
stateful("svdf__rank2_relu_no_bias", 4)


@case("EMBEDDING_LOOKUP", "2d")
def _embedding_2d(b):
    ids = b.inp([5], INT(0, 7), I32)
    b.op("EMBEDDING_LOOKUP", [ids, b.w([7, 4])], [b.out()])


@case("EMBEDDING_LOOKUP", "3d_repeated_ids")
def _embedding_3d(b):
    ids = b.inp([6], PICK([0, 2, 2, 4]), I32)
    b.op("EMBEDDING_LOOKUP", [ids, b.w([5, 2, 3])], [b.out()])

# --- cache writes of generative decoders (litert-torch) --------------------------

@case("DYNAMIC_UPDATE_SLICE", "cache_row")
def _(b):
    """A [1, 8, 4] cache, one row written at position 3."""
    cache = b.inp([1, 8, 4], F(-1, 1))
    row = b.inp([1, 1, 4], F(2, 3))
    b.op("DYNAMIC_UPDATE_SLICE", [cache, row, b.c(np.array([0, 3, 0], I32))], [b.out(shape=[1, 8, 4])])


@case("DYNAMIC_UPDATE_SLICE", "clamped_int64_starts")
def _(b):
    """Starts past the end (an int64 input) are clamped so the update fits."""
    x = b.inp([2, 5], F(-1, 1))
    upd = b.inp([2, 2], F(2, 3))
    starts = b.inp([2], VALUES([0, 4]), np.int64)
    b.op("DYNAMIC_UPDATE_SLICE", [x, upd, starts], [b.out(shape=[2, 5])])


def _scatter_update(b):
    """The update computation subgraph: (old, new) -> new."""
    idx = b.subgraph("update")
    b.input("old", [], F32)
    b.output(b.input("new", [], F32))
    b.use(0)
    return idx


@case("STABLEHLO_SCATTER", "index_copy")
def _(b):
    """Tensor.index_copy(1, pos, rows) on a [1, 8, 2, 4] cache, as
    litert-torch lowers it: one index per row, an empty update computation."""
    cache = b.inp([1, 8, 2, 4], F(-1, 1))
    rows = b.inp([1, 2, 2, 4], F(2, 3))
    pos = b.c(np.array([[5], [2]], I32))
    out = b.out(shape=[1, 8, 2, 4])
    o = opts("StablehloScatterOptions", updateWindowDims=[0, 2, 3], insertedWindowDims=[1],
             scatterDimsToOperandDims=[1], indexVectorDim=1, updateComputationSubgraphIndex=1)
    b.op("STABLEHLO_SCATTER", [cache, pos, rows], [out], options2=o)
    _scatter_update(b)


@case("STABLEHLO_SCATTER", "index_put")
def _(b):
    """index_put((i, j), v) on [4, 3]: full index vectors (int64)."""
    x = b.inp([4, 3], F(-1, 1))
    v = b.inp([3], F(2, 3))
    idx = b.c(np.array([[1, 2], [3, 0], [0, 1]], np.int64))
    o = opts("StablehloScatterOptions", updateWindowDims=[], insertedWindowDims=[0, 1],
             scatterDimsToOperandDims=[0, 1], indexVectorDim=1, updateComputationSubgraphIndex=1)
    b.op("STABLEHLO_SCATTER", [x, idx, v], [b.out(shape=[4, 3])], options2=o)
    _scatter_update(b)


def _composite_opts(name, decomposition, version):
    """StableHLOCompositeOptions with no attributes (an empty flexbuffer map,
    which LiteRT requires)."""
    from flatbuffers import flexbuffers
    attrs = np.frombuffer(bytes(flexbuffers.Dumps({})), dtype=np.uint8)
    return opts("StableHLOCompositeOptions", name=name, decompositionSubgraphIndex=decomposition,
                compositeAttributes=attrs, compositeAttributesFormat=0, version=version)


@case("STABLEHLO_COMPOSITE", "rms_norm")
def _(b):
    """odml.rms_norm as litert-torch emits it: the composite's decomposition
    subgraph computes x * rsqrt(mean(x^2) + eps) * w."""
    x = b.inp([1, 3, 8], F(-2, 2))
    w = b.w([8])
    y = b.out(shape=[1, 3, 8])
    o = _composite_opts("odml.rms_norm", 1, 0)
    b.op("STABLEHLO_COMPOSITE", [x, w], [y], options2=o)
    b.subgraph("odml.rms_norm.impl")
    xi, wi = b.input("x", [1, 3, 8]), b.input("w", [8])
    sq, mean, eps_sum, inv, normed, out = (b.tensor(n, s) for n, s in (
        ("sq", [1, 3, 8]), ("mean", [1, 3, 1]), ("eps_sum", [1, 3, 1]), ("inv", [1, 3, 1]),
        ("normed", [1, 3, 8]), ("out", [1, 3, 8])))
    b.op("MUL", [xi, xi], [sq], options=opts("MulOptions"))
    b.op("MEAN", [sq, b.const("axis", np.array([2], I32))], [mean], options=opts("ReducerOptions", keepDims=True))
    b.op("ADD", [mean, b.const("eps", np.array(1e-6, F32))], [eps_sum], options=opts("AddOptions"))
    b.op("RSQRT", [eps_sum], [inv])
    b.op("MUL", [xi, inv], [normed], options=opts("MulOptions"))
    b.op("MUL", [normed, wi], [out], options=opts("MulOptions"))
    b.output(out)
    b.use(0)


@case("STABLEHLO_COMPOSITE", "two_outputs_pass_through")
def _(b):
    """A decomposition with two outputs, one of them its input unchanged."""
    x = b.inp([2, 3], F(-2, 2))
    t = b.tensor("t", [2, 3])
    y = b.out(shape=[2, 3])
    o = _composite_opts("test.tanh_and_identity", 1, 1)
    b.op("STABLEHLO_COMPOSITE", [x], [y, t], options2=o)
    z = b.out(shape=[2, 3])
    b.op("ADD", [t, b.c(np.array(1.0, F32))], [z], options=opts("AddOptions"))
    b.subgraph("decomposition")
    xi = b.input("x", [2, 3])
    th = b.tensor("tanh", [2, 3])
    b.op("TANH", [xi], [th])
    b.output(th)
    b.output(xi)
    b.use(0)


# --- control flow and resource variables ---------------------------------------
# Models of several subgraphs (b.subgraph): WHILE, IF and CALL_ONCE name their
# callees by index. Shapes are exact (no placeholders: LiteRT reports only the
# entry subgraph's). Cases with steps=N keep state across N further invokes.

def _while_opts(cond, body):
    return opts("WhileOptions", condSubgraphIndex=cond, bodySubgraphIndex=body)


def _less_cond(b, types_shapes, counter, limit):
    """Subgraph "cond": inputs as types_shapes; input `counter` < `limit`
    (an int32 constant, or the index of an input when a tuple ("input", k))."""
    idx = b.subgraph("cond")
    ins = [b.input(f"arg_{k}", shape, dtype) for k, (dtype, shape) in enumerate(types_shapes)]
    lim = ins[limit[1]] if isinstance(limit, tuple) else b.const("limit", np.array(limit, I32))
    c = b.tensor("less", [], BOOL)
    b.op("LESS", [ins[counter], lim], [c], options=opts("LessOptions"))
    b.output(c)
    return idx


@case("WHILE", "counter_tanh")
def _(b):
    """Three iterations of x = tanh(x + w), a counter as loop variable."""
    x = b.inp([2, 3], F(-1, 1))
    i0 = b.c(np.array(0, I32))
    i_out = b.tensor("i_out", [], I32)
    y = b.out(shape=[2, 3])
    b.op("WHILE", [i0, x], [i_out, y], options=_while_opts(1, 2))
    _less_cond(b, [(I32, []), (F32, [2, 3])], 0, 3)
    b.subgraph("body")
    i, v = b.input("i", [], I32), b.input("x", [2, 3])
    i_next, t, v_next = b.tensor("i_next", [], I32), b.tensor("t", [2, 3]), b.tensor("x_next", [2, 3])
    b.op("ADD", [i, b.const("one", np.array(1, I32))], [i_next], options=opts("AddOptions"))
    b.op("ADD", [v, b.const("w", const_f(b.seed, 1, [3]))], [t], options=opts("AddOptions"))
    b.op("TANH", [t], [v_next])
    b.output(i_next)
    b.output(v_next)
    b.use(0)


@case("WHILE", "fc_input_count")
def _(b):
    """As many iterations as input 0 says (4) of a FULLY_CONNECTED and TANH;
    the count passes through the body unchanged (output = input tensor)."""
    n = b.inp([], VALUES([4]), I32)
    x = b.inp([1, 4], F(-1, 1))
    i0 = b.c(np.array(0, I32))
    n_out, i_out = b.tensor("n_out", [], I32), b.tensor("i_out", [], I32)
    y = b.out(shape=[1, 4])
    b.op("WHILE", [n, i0, x], [n_out, i_out, y], options=_while_opts(1, 2))
    _less_cond(b, [(I32, []), (I32, []), (F32, [1, 4])], 1, ("input", 0))
    b.subgraph("body")
    bn, i, v = b.input("n", [], I32), b.input("i", [], I32), b.input("x", [1, 4])
    i_next, fc, v_next = b.tensor("i_next", [], I32), b.tensor("fc", [1, 4]), b.tensor("x_next", [1, 4])
    b.op("ADD", [i, b.const("one", np.array(1, I32))], [i_next], options=opts("AddOptions"))
    b.op("FULLY_CONNECTED", [v, b.const("w", const_f(b.seed, 2, [4, 4])), b.const("bias", const_f(b.seed, 3, [4]))],
         [fc], options=opts("FullyConnectedOptions"))
    b.op("TANH", [fc], [v_next])
    b.output(bn)
    b.output(i_next)
    b.output(v_next)
    b.use(0)


@case("WHILE", "if_in_body")
def _(b):
    """Control flow inside a callee: the body's IF halves x while its sum is
    above 1, else adds 1 (five iterations)."""
    x = b.inp([3], F(0, 4))
    i0 = b.c(np.array(0, I32))
    i_out = b.tensor("i_out", [], I32)
    y = b.out(shape=[3])
    b.op("WHILE", [i0, x], [i_out, y], options=_while_opts(1, 2))
    _less_cond(b, [(I32, []), (F32, [3])], 0, 5)
    b.subgraph("body")
    i, v = b.input("i", [], I32), b.input("x", [3])
    i_next, total, big, v_next = (b.tensor("i_next", [], I32), b.tensor("sum", [1]), b.tensor("big", [1], BOOL),
                                  b.tensor("x_next", [3]))
    b.op("ADD", [i, b.const("one", np.array(1, I32))], [i_next], options=opts("AddOptions"))
    b.op("SUM", [v, b.const("axis", i32(0))], [total], options=opts("ReducerOptions", keepDims=True))
    b.op("GREATER", [total, b.const("threshold", np.array([1.0], F32))], [big], options=opts("GreaterOptions"))
    b.op("IF", [big, v], [v_next], options=opts("IfOptions", thenSubgraphIndex=3, elseSubgraphIndex=4))
    b.output(i_next)
    b.output(v_next)
    b.subgraph("halve")
    v, t = b.input("x", [3]), b.tensor("half", [3])
    b.op("MUL", [v, b.const("half", np.array(0.5, F32))], [t], options=opts("MulOptions"))
    b.output(t)
    b.subgraph("add_one")
    v, t = b.input("x", [3]), b.tensor("plus_one", [3])
    b.op("ADD", [v, b.const("one_f", np.array(1.0, F32))], [t], options=opts("AddOptions"))
    b.output(t)
    b.use(0)


@case("WHILE", "slice_by_counter")
def _(b):
    """A body whose shapes depend on the loop counter, as converters write a
    TensorArray: row i of the state is replaced by tanh(2 x[i]) through
    SLICEs of sizes i and 3 - i and a CONCATENATION (the body runs node by
    node; LiteRT calls such tensors dynamic)."""
    x = b.inp([4, 1, 3], F(-1, 1))
    i0 = b.c(np.array(0, I32))
    arr0 = b.c(np.zeros([4, 1, 3], F32))
    i_out, x_out = b.tensor("i_out", [], I32), b.tensor("x_out", [4, 1, 3])
    y = b.out(shape=[4, 1, 3])
    b.op("WHILE", [i0, arr0, x], [i_out, y, x_out], options=_while_opts(1, 2))
    _less_cond(b, [(I32, []), (F32, [4, 1, 3]), (F32, [4, 1, 3])], 0, 4)
    b.subgraph("body")
    i, arr, v = b.input("i", [], I32), b.input("arr", [4, 1, 3]), b.input("x", [4, 1, 3])
    t = {k: b.tensor(k, shape, dt) for k, shape, dt in (
        ("i_next", [], I32), ("row", [1, 3], F32), ("row2", [1, 3], F32), ("row_t", [1, 3], F32),
        ("row3", [1, 1, 3], F32), ("i1", [1], I32), ("head_size", [3], I32), ("head", [1, 1, 3], F32),
        ("n1", [1], I32), ("tail_begin", [3], I32), ("tail", [1, 1, 3], F32), ("arr_next", [4, 1, 3], F32))}
    for k in ("head", "tail"):  # as a converter marks them: the first dimension unknown
        b.sg.tensors[t[k]].shapeSignature = np.array([-1, 1, 3], dtype=np.int32)
    b.op("ADD", [i, b.const("one", np.array(1, I32))], [t["i_next"]], options=opts("AddOptions"))
    b.op("GATHER", [v, i], [t["row"]], options=opts("GatherOptions", axis=0))
    b.op("MUL", [t["row"], b.const("two", np.array(2.0, F32))], [t["row2"]], options=opts("MulOptions"))
    b.op("TANH", [t["row2"]], [t["row_t"]])
    b.op("RESHAPE", [t["row_t"], b.const("row_shape", i32(1, 1, 3))], [t["row3"]])
    b.op("RESHAPE", [i, b.const("one_shape", i32(1))], [t["i1"]])
    b.op("CONCATENATION", [t["i1"], b.const("rest", i32(-1, -1))], [t["head_size"]],
         options=opts("ConcatenationOptions", axis=0))
    b.op("SLICE", [arr, b.const("zeros3", i32(0, 0, 0)), t["head_size"]], [t["head"]])
    b.op("RESHAPE", [t["i_next"], b.const("one_shape2", i32(1))], [t["n1"]])
    b.op("CONCATENATION", [t["n1"], b.const("zeros2", i32(0, 0))], [t["tail_begin"]],
         options=opts("ConcatenationOptions", axis=0))
    b.op("SLICE", [arr, t["tail_begin"], b.const("all", i32(-1, -1, -1))], [t["tail"]])
    b.op("CONCATENATION", [t["head"], t["row3"], t["tail"]], [t["arr_next"]],
         options=opts("ConcatenationOptions", axis=0))
    b.output(t["i_next"])
    b.output(t["arr_next"])
    b.output(v)
    b.use(0)


def _if_case(take_then):
    @case("IF", "then_branch" if take_then else "else_branch")
    def _(b):
        c = b.inp([1], VALUES([take_then]), BOOL)
        x = b.inp([2, 4], F(-2, 2))
        y = b.out(shape=[2, 4])
        b.op("IF", [c, x], [y], options=opts("IfOptions", thenSubgraphIndex=1, elseSubgraphIndex=2))
        b.subgraph("then")
        v, t = b.input("x", [2, 4]), b.tensor("sum", [2, 4])
        b.op("ADD", [v, b.const("w", const_f(b.seed, 1, [4]))], [t], options=opts("AddOptions"))
        b.output(t)
        b.subgraph("else")
        v, t = b.input("x", [2, 4]), b.tensor("square", [2, 4])
        b.op("MUL", [v, v], [t], options=opts("MulOptions"))
        b.output(t)
        b.use(0)


_if_case(True)
_if_case(False)


def _var(b, name, dtype=None):
    """A VAR_HANDLE of variable `name` in the current subgraph."""
    h = b.tensor(f"handle_{name}", [], "resource")
    b.op("VAR_HANDLE", [], [h], options=opts("VarHandleOptions", container="", sharedName=name))
    return h


def _init_subgraph(b, values):
    """Subgraph "init" assigning each {name: array} (a CALL_ONCE's callee)."""
    idx = b.subgraph("init")
    for name, array in values.items():
        b.op("ASSIGN_VARIABLE", [_var(b, name), b.const(f"init_{name}", array)], [])
    return idx


def _accumulate(b, name, x, shape):
    """y = read(name) + x; assign(name, y); returns y's tensor (an output)."""
    h = _var(b, name)
    v = b.tensor(f"{name}_value", shape)
    b.op("READ_VARIABLE", [h], [v])
    y = b.out(shape=shape)
    b.op("ADD", [v, x], [y], options=opts("AddOptions"))
    b.op("ASSIGN_VARIABLE", [h, y], [])
    return y


@case("CALL_ONCE", "init_accumulator", steps=2)
def _(b):
    """An accumulator initialised once (CALL_ONCE) to w; each run adds its input."""
    x = b.inp([2, 3], F(-1, 1))
    b.op("CALL_ONCE", [], [], options=opts("CallOnceOptions", initSubgraphIndex=1))
    _accumulate(b, "acc", x, [2, 3])
    _init_subgraph(b, {"acc": const_f(b.seed, 1, [2, 3])})
    b.use(0)


@case("CALL_ONCE", "two_variables", steps=1)
def _(b):
    """Two variables from one init: y = a * x + c, then a and c both move."""
    x = b.inp([4], F(-1, 1))
    b.op("CALL_ONCE", [], [], options=opts("CallOnceOptions", initSubgraphIndex=1))
    ha, hc = _var(b, "a"), _var(b, "c")
    a, c, ax = b.tensor("a", [4]), b.tensor("c", [4]), b.tensor("ax", [4])
    b.op("READ_VARIABLE", [ha], [a])
    b.op("READ_VARIABLE", [hc], [c])
    b.op("MUL", [a, x], [ax], options=opts("MulOptions"))
    y = b.out(shape=[4])
    b.op("ADD", [ax, c], [y], options=opts("AddOptions"))
    b.op("ASSIGN_VARIABLE", [ha, y], [])
    b.op("ASSIGN_VARIABLE", [hc, ax], [])
    _init_subgraph(b, {"a": const_f(b.seed, 1, [4]), "c": const_f(b.seed, 2, [4])})
    b.use(0)


@case("VAR_HANDLE", "two_names")
def _(b):
    """Two variables, assigned x and -x, read back in the other order."""
    x = b.inp([3], F(-1, 1))
    ha, hb = _var(b, "a"), _var(b, "b")
    nx = b.tensor("neg", [3])
    b.op("NEG", [x], [nx])
    b.op("ASSIGN_VARIABLE", [ha, x], [])
    b.op("ASSIGN_VARIABLE", [hb, nx], [])
    ra, rb = b.out(shape=[3]), b.out(shape=[3])
    b.op("READ_VARIABLE", [hb], [ra])
    b.op("READ_VARIABLE", [ha], [rb])


@case("VAR_HANDLE", "same_name_shared")
def _(b):
    """Two VAR_HANDLE nodes of one name are one variable."""
    x = b.inp([2, 2], F(-1, 1))
    h1, h2 = _var(b, "v"), _var(b, "v")
    b.op("ASSIGN_VARIABLE", [h1, x], [])
    r = b.tensor("read", [2, 2])
    b.op("READ_VARIABLE", [h2], [r])
    y = b.out(shape=[2, 2])
    b.op("MUL", [r, b.c(np.array(3.0, F32))], [y], options=opts("MulOptions"))


@case("READ_VARIABLE", "previous_state", steps=2)
def _(b):
    """The value before this run's assignment: zeros, then the sum of the inputs so far."""
    x = b.inp([1, 5], F(-1, 1))
    b.op("CALL_ONCE", [], [], options=opts("CallOnceOptions", initSubgraphIndex=1))
    h = _var(b, "state")
    prev = b.out(shape=[1, 5])
    b.op("READ_VARIABLE", [h], [prev])
    nxt = b.tensor("next", [1, 5])
    b.op("ADD", [prev, x], [nxt], options=opts("AddOptions"))
    b.op("ASSIGN_VARIABLE", [h, nxt], [])
    _init_subgraph(b, {"state": np.zeros([1, 5], F32)})
    b.use(0)


@case("READ_VARIABLE", "after_assign")
def _(b):
    x = b.inp([2, 3], F(-2, 2))
    h = _var(b, "v")
    b.op("ASSIGN_VARIABLE", [h, x], [])
    y = b.out(shape=[2, 3])
    b.op("READ_VARIABLE", [h], [y])


@case("ASSIGN_VARIABLE", "overwrite")
def _(b):
    """The second assignment wins."""
    x = b.inp([4, 2], F(-1, 1))
    h = _var(b, "v")
    sq = b.tensor("square", [4, 2])
    b.op("MUL", [x, x], [sq], options=opts("MulOptions"))
    b.op("ASSIGN_VARIABLE", [h, x], [])
    b.op("ASSIGN_VARIABLE", [h, sq], [])
    y = b.out(shape=[4, 2])
    b.op("READ_VARIABLE", [h], [y])


@case("ASSIGN_VARIABLE", "int32_counter", steps=3)
def _(b):
    """An int32 counter stepped by input 0 each run."""
    step = b.inp([1], INT(1, 5), I32)
    b.op("CALL_ONCE", [], [], options=opts("CallOnceOptions", initSubgraphIndex=1))
    h = _var(b, "count")
    v = b.tensor("count", [1], I32)
    b.op("READ_VARIABLE", [h], [v])
    y = b.out(I32, shape=[1])
    b.op("ADD", [v, step], [y], options=opts("AddOptions"))
    b.op("ASSIGN_VARIABLE", [h, y], [])
    _init_subgraph(b, {"count": np.array([10], I32)})
    b.use(0)


# --- sorting, selection, ranges, scatter, 3-D convolution ------------------------
# (TOPK_V2, UNIQUE, WHERE, BUCKETIZE, the non-max suppressions, RANGE,
# SCATTER_ND, REDUCE_ANY / REDUCE_ALL, CONV_3D.) The builder's cases get the
# shapes LiteRT computed written back, so WHERE's and UNIQUE's outputs are
# fixed there; their tf_ cases keep the converter's -1 (dynamic tensors).

for _op in ("REDUCE_ANY", "REDUCE_ALL"):
    simple(_op, "last_axis", [In([3, 5], BOOLS(), BOOL), C(i32(-1))], opts("ReducerOptions"), out_dtype=BOOL)
    simple(_op, "axes_0_2_keepdims", [In([2, 3, 4], BOOLS(), BOOL), C(i32(0, 2))],
           opts("ReducerOptions", keepDims=True), out_dtype=BOOL)


def _topk(shape, k, gen, dtype=F32):
    def build(b):
        x = b.inp(shape, gen, dtype)
        b.op("TOPK_V2", [x, b.c(np.array(k, np.int32))], [b.out(dtype), b.out(I32)])
    return build


case("TOPK_V2", "rows_ties")(_topk([3, 7], 3, PICK([0.5, -1.0, 2.0, 0.25, 2.0, -3.0])))
case("TOPK_V2", "last_axis_4d")(_topk([1, 2, 3, 6], 4, F()))
case("TOPK_V2", "int32_k_all")(_topk([2, 5], 5, INT(-50, 50), I32))


def _unique(n, gen, dtype, idx_type):
    def build(b):
        x = b.inp([n], gen, dtype)
        b.op("UNIQUE", [x], [b.out(dtype), b.out(idx_type)],
             options=opts("UniqueOptions", idxOutType=schema.TensorType.INT64 if idx_type == I64
                          else schema.TensorType.INT32))
    return build


case("UNIQUE", "float_int32_index")(_unique(9, PICK([1.5, -2.0, 0.0, 1.5, 7.0]), F32, I32))
case("UNIQUE", "int32_int64_index")(_unique(7, INT(0, 4), I32, I64))


def _where(shape, gen, dtype):
    def build(b):
        b.op("WHERE", [b.inp(shape, gen, dtype)], [b.out(I64)])
    return build


case("WHERE", "bool_2d")(_where([3, 4], BOOLS(), BOOL))
case("WHERE", "float_3d")(_where([2, 2, 3], PICK([0.0, 1.5, -2.0]), F32))

simple("BUCKETIZE", "float", [In([2, 6], F(-2, 2))],
       opts("BucketizeOptions", boundaries=[-1.0, 0.0, 0.5, 1.0]), out_dtype=I32)
simple("BUCKETIZE", "int32_on_boundaries", [In([7], PICK([-3, 0, 1, 2, 5, 9]), I32)],
       opts("BucketizeOptions", boundaries=[0.0, 2.0, 5.0]), out_dtype=I32)


def _boxes(seed, stream, shape, dtype):
    """[n, 4] boxes: corners in [0, 1), every other box given y2 < y1 (TFLite takes either order)."""
    u = (reflib.uniform_pm1(seed, stream, shape).astype(np.float64) + 1.0) * 0.5
    b = np.stack([u[:, 0], u[:, 1], u[:, 0] + 0.2 + 0.4 * u[:, 2], u[:, 1] + 0.2 + 0.4 * u[:, 3]], axis=1)
    b[1::2] = b[1::2][:, [2, 1, 0, 3]]
    return b.astype(dtype)


def _nms(n, max_out, iou, score, sigma=None):
    def build(b):
        boxes = b.inp([n, 4], _boxes)
        scores = b.inp([n], F(0.0, 1.0))
        ins = [boxes, scores, b.c(np.array(max_out, np.int32)), b.c(np.array(iou, F32)),
               b.c(np.array(score, F32))]
        if sigma is None:
            b.op("NON_MAX_SUPPRESSION_V4", ins, [b.out(I32), b.out(I32)])
        else:
            b.op("NON_MAX_SUPPRESSION_V5", ins + [b.c(np.array(sigma, F32))], [b.out(I32), b.out(F32), b.out(I32)])
    return build


case("NON_MAX_SUPPRESSION_V4", "padded")(_nms(10, 8, 0.3, 0.2))
case("NON_MAX_SUPPRESSION_V4", "all_boxes")(_nms(6, 6, 0.6, -1.0))
case("NON_MAX_SUPPRESSION_V5", "soft")(_nms(10, 6, 0.7, 0.1, sigma=0.5))
case("NON_MAX_SUPPRESSION_V5", "hard")(_nms(8, 5, 0.4, 0.0, sigma=0.0))


@case("RANGE", "int32_limit_input")
def _(b):
    limit = b.inp([], VALUES([11]), I32)
    b.op("RANGE", [b.c(np.array(2, np.int32)), limit, b.c(np.array(3, np.int32))], [b.out(I32)])


@case("RANGE", "float_negative_delta")
def _(b):
    start = b.inp([], VALUES([1.5]), F32)
    b.op("RANGE", [start, b.c(np.array(-2.0, F32)), b.c(np.array(-0.5, F32))], [b.out(F32)])


@case("SCATTER_ND", "rows")
def _(b):
    b.op("SCATTER_ND", [b.c(np.array([[1], [3]], np.int32)), b.inp([2, 4]), b.c(i32(5, 4))], [b.out()])


@case("SCATTER_ND", "elements_duplicates")
def _(b):
    idx = b.inp([4, 2], VALUES([0, 1, 2, 2, 0, 1, 1, 0]), I32)
    b.op("SCATTER_ND", [idx, b.inp([4]), b.c(i32(3, 3))], [b.out()])


def conv3d_opts(padding, sd, sh, sw, act=ACT.NONE, dd=1, dh=1, dw=1):
    return opts("Conv3DOptions", padding=padding, strideD=sd, strideH=sh, strideW=sw,
                fusedActivationFunction=act, dilationDFactor=dd, dilationHFactor=dh, dilationWFactor=dw)


simple("CONV_3D", "same_strided_bias_relu", [In([1, 4, 5, 5, 2]), W([2, 3, 3, 2, 3]), W([3])],
       conv3d_opts(PAD.SAME, 1, 2, 2, ACT.RELU))
simple("CONV_3D", "valid_dilated_no_bias", [In([2, 5, 6, 4, 3]), W([2, 2, 2, 3, 4])],
       conv3d_opts(PAD.VALID, 1, 1, 1, dd=2, dh=2))


# --- converter-made cases -----------------------------------------------------
# A few models as TensorFlow's converter writes them (tf.function ->
# TFLiteConverter.from_concrete_functions, TFLITE_BUILTINS only, no Flex):
# converter op versions, signature defs, metadata buffers, patterns the
# converter fuses into one builtin (GELU, HARD_SWISH, L2_NORMALIZATION), and
# float16 weights behind DEQUANTIZE as in the MediaPipe models.

class TfCase:
    def __init__(self, fn, inputs, fp16=False):
        self.fn, self.inputs, self.fp16 = fn, inputs, fp16  # inputs: [(generator, shape)]

    def convert(self):
        reflib.quiet_tensorflow_logs()
        import tensorflow as tf
        specs = [tf.TensorSpec(shape, tf.float32) for _, shape in self.inputs]
        func = tf.function(self.fn).get_concrete_function(*specs)
        conv = tf.lite.TFLiteConverter.from_concrete_functions([func])
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        if self.fp16:
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
            conv.target_spec.supported_types = [tf.float16]
        return bytes(conv.convert())


def tf_case(op, variant, fn, inputs, fp16=False):
    name = f"{op.lower()}__tf_{variant}"
    CASES[name] = (op, "tf_" + variant, TfCase(fn, inputs, fp16),
                   "converted by TensorFlow's TFLiteConverter from a tf.function")


def _tf_weights(seed_name, shape):
    return const_f(zlib.crc32(seed_name.encode()), 0, shape)


def _tf():
    import tensorflow as tf
    return tf


tf_case("GELU", "exact", lambda x: _tf().nn.gelu(x, approximate=False), [(F(-4, 4), (1, 2, 3, 5))])
tf_case("GELU", "approximate", lambda x: _tf().nn.gelu(x, approximate=True), [(F(-4, 4), (2, 9))])
tf_case("HARD_SWISH", "pattern", lambda x: x * _tf().nn.relu6(x + 3.0) / 6.0, [(F(-5, 5), (1, 3, 4, 5))])
tf_case("L2_NORMALIZATION", "last_axis", lambda x: _tf().math.l2_normalize(x, axis=-1), [(F(), (1, 2, 3, 5))])
tf_case("LOG_SOFTMAX", "rows", lambda x: _tf().nn.log_softmax(x), [(F(-3, 3), (3, 6))])
tf_case("LOCAL_RESPONSE_NORMALIZATION", "defaults", lambda x: _tf().nn.local_response_normalization(x),
        [(F(), (1, 3, 3, 6))])
tf_case("STRIDED_SLICE", "python_slice", lambda x: x[:, 1:3, ::2], [(F(), (1, 4, 5, 3))])
tf_case("WHERE", "dynamic", lambda x: _tf().where(x > 0.25), [(F(), (3, 5))])
tf_case("UNIQUE", "dynamic", lambda x: _tf().unique(_tf().reshape(_tf().cast(x * 2.0, _tf().int32), [-1])),
        [(F(-2, 2), (2, 6))])
tf_case("RESIZE_BILINEAR", "image_resize", lambda x: _tf().image.resize(x, (6, 8)), [(F(), (1, 3, 4, 2))])
tf_case("MEAN", "reduce_mean_hw", lambda x: _tf().reduce_mean(x, axis=[1, 2], keepdims=True), [(F(), (1, 4, 4, 6))])
tf_case("CONV_2D", "bias_relu_fp16_weights",
        lambda x: _tf().nn.relu(_tf().nn.conv2d(x, _tf_weights("conv_2d__tf", (3, 3, 3, 5)), 1, "SAME")
                                + _tf_weights("conv_2d__tf_b", (5,))),
        [(F(), (1, 5, 5, 3))], fp16=True)
tf_case("DEPTHWISE_CONV_2D", "stride2",
        lambda x: _tf().nn.depthwise_conv2d(x, _tf_weights("dw__tf", (3, 3, 4, 1)), (1, 2, 2, 1), "SAME"),
        [(F(), (1, 6, 6, 4))])
# Keras' LayerNormalization as the converter writes it (tf.nn.moments and
# tf.nn.batch_normalization over the last axis): the chain the fuse_layer_norm
# pass makes one GLD_LAYER_NORM node of; with and without the offset (NEG).
tf_case("MEAN", "layer_norm",
        lambda x: _tf().nn.batch_normalization(x, *_tf().nn.moments(x, axes=[-1], keepdims=True),
                                                offset=_tf_weights("ln__tf_b", (20,)),
                                                scale=_tf_weights("ln__tf_g", (20,)), variance_epsilon=1e-3),
        [(F(-2, 3), (1, 7, 20))])
tf_case("MEAN", "layer_norm_no_offset",
        lambda x: _tf().nn.batch_normalization(x, *_tf().nn.moments(x, axes=[-1], keepdims=True),
                                                offset=None, scale=_tf_weights("ln__tf_g2", (6,)),
                                                variance_epsilon=1e-6),
        [(F(), (2, 3, 6))])
tf_case("FULLY_CONNECTED", "matmul_bias",
        lambda x: _tf().matmul(x, _tf_weights("fc__tf", (6, 4))) + _tf_weights("fc__tf_b", (4,)),
        [(F(), (2, 6))])


# --- generation ---------------------------------------------------------------

def model_ops(model_bytes):
    m = schema.ModelT.InitFromPackedBuf(model_bytes, 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    out = []
    for op in m.subgraphs[0].operators:
        oc = m.operatorCodes[op.opcodeIndex]
        code = max(oc.builtinCode, oc.deprecatedBuiltinCode)
        out.append(bytes(oc.customCode).decode() if oc.customCode else names[code])
    return out


def run_reference(model_bytes, inputs, resolver):
    """LiteRT outputs + every tensor's shape; a custom op is run through the
    rewrite."""
    run_bytes = model_bytes
    if rtcb.CUSTOM_CODE.decode() in model_ops(model_bytes):
        m = schema.ModelT.InitFromPackedBuf(model_bytes, 0)
        rtcb.rewrite(m, check_output_shape=False)
        fb = flatbuffers.Builder(1024)
        fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
        run_bytes = bytes(fb.Output())
    reflib.quiet_tensorflow_logs()
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=run_bytes, num_threads=1,
                     experimental_op_resolver_type=getattr(OpResolverType, resolver),
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    outputs = reflib.run_litert(it, inputs)
    shapes = {}
    for d in it.get_tensor_details():
        try:
            shapes[d["index"]] = list(it.get_tensor(d["index"]).shape)
        except ValueError:
            pass
    return outputs, shapes


def record_default_outputs(model_bytes, inputs, d):
    """LiteRT's default kernels (resolver BUILTIN: XNNPACK where its delegate
    takes the node) on the same inputs, for cases with 8-bit integer outputs:
    output_<i>_default.npy."""
    it = reflib.make_interpreter(model_content=model_bytes, resolver="BUILTIN")
    files = []
    for i, v in enumerate(reflib.run_litert(it, inputs)):
        files.append(f"output_{i}_default.npy")
        np.save(os.path.join(d, files[-1]), v)
    return files


# Ops whose BUILTIN_REF kernel departs from TFLite's definition: their cases run
# on the builtin kernels without default delegates (still no XNNPACK).
# LOCAL_RESPONSE_NORMALIZATION: the reference kernel sums channels [c-r, c+r),
# leaving out c+r; TensorFlow and LiteRT's builtin kernel sum [c-r, c+r].
REF_KERNEL_DIFFERS = {"LOCAL_RESPONSE_NORMALIZATION"}


def resolvers_for(op):
    return (FALLBACK_RESOLVER,) if op in REF_KERNEL_DIFFERS else (RESOLVER, FALLBACK_RESOLVER)


MIN_VERSION_RE = re.compile(r"Didn't find op for builtin opcode '(\w+)' version '(\d+)'")


def build_and_run(name, build):
    """Builds the case, raising an op's version until LiteRT registers it. An op
    the reference resolver lacks at every version (ELU) runs on the builtin
    kernels without default delegates (no XNNPACK) instead."""
    for resolver in resolvers_for(CASES[name][0]):
        versions = {}
        for _ in range(8):
            b = CaseBuilder(name)
            b.min_versions = versions
            build(b)
            inputs = b.make_inputs()
            first = b.finish()
            try:
                outputs, shapes = run_reference(first, inputs, resolver)
                return b, inputs, outputs, shapes, resolver
            except ValueError as e:
                m = MIN_VERSION_RE.search(str(e))
                if not m:
                    raise
                versions[m.group(1)] = int(m.group(2)) + 1
    raise ValueError(f"{name}: no op version LiteRT accepts ({versions})")


def generate_case(name, out_root):
    op, variant, build, note = CASES[name]
    if isinstance(build, TfCase):
        model_bytes = build.convert()
        seed = zlib.crc32(name.encode()) & 0xFFFFFFFF
        inputs = [gen(seed, k, shape, np.float32) for k, (gen, shape) in enumerate(build.inputs)]
        resolver = resolvers_for(op)[0]
        again, _ = run_reference(model_bytes, inputs, resolver)
    else:
        b, inputs, outputs, shapes, resolver = build_and_run(name, build)
        seed = b.seed
        b.use(0)  # the entry subgraph's shapes are the ones LiteRT reports
        for i, t in enumerate(b.sg.tensors):  # write the real shapes back
            if i in shapes and (t.buffer == 0 or i in b.sg.outputs):
                t.shape = np.array(shapes[i], dtype=np.int32)
        model_bytes = b.finish()
        again, _ = run_reference(model_bytes, inputs, resolver)
        for a, c in zip(outputs, again):
            if a.shape != c.shape or not np.array_equal(a, c, equal_nan=a.dtype.kind == "f"):
                reflib.die(f"{name}: outputs changed after writing the shapes back")
    ops = model_ops(model_bytes)
    if op not in ops:
        reflib.die(f"{name}: op {op} not in the model ({ops})")

    d = os.path.join(out_root, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "model.tflite"), "wb") as f:
        f.write(model_bytes)
    manifest = {
        "case": name, "op": op, "variant": variant, "seed": seed,
        "generator": "make_op_cases.py (splitmix64 words of reflib.py, per-case ranges)",
        "litert_version": reflib.litert_version(), "resolver": resolver, "model_ops": ops,
        "inputs": [], "outputs": [],
    }
    if note:
        manifest["note"] = note
    for i, v in enumerate(inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), v)
        manifest["inputs"].append({"index": i, "shape": list(v.shape), "dtype": str(v.dtype),
                                   "file": f"input_{i}.npy"})
    for i, v in enumerate(again):
        np.save(os.path.join(d, f"output_{i}.npy"), v)
        e = {"index": i, "shape": list(v.shape), "dtype": str(v.dtype), "file": f"output_{i}.npy"}
        if v.dtype.kind == "f" and v.size:
            e["max_abs"] = float(np.max(np.abs(v)))
        manifest["outputs"].append(e)
    if any(v.dtype in (np.int8, np.uint8) for v in again):
        manifest["outputs_default"] = record_default_outputs(model_bytes, inputs, d)
    if name in STATEFUL_STEPS:
        record_steps(name, model_bytes, resolver, seed, b.gens, d, manifest)
    reflib.write_json(os.path.join(d, "manifest.json"), manifest)
    return manifest


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "ops"))
    p.add_argument("--only", nargs="*", help="regenerate only cases whose name contains one of these")
    p.add_argument("--list", action="store_true", help="list the case names and exit")
    a = p.parse_args()
    names = sorted(CASES)
    if a.list:
        print("\n".join(names))
        return
    if a.only:
        names = [n for n in names if any(s.lower() in n for s in a.only)]
    elif os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out, exist_ok=True)
    ops, failed = set(), []
    for n in names:
        try:
            m = generate_case(n, a.out)
            ops.add(m["op"])
        except Exception as e:  # report every broken case, then fail
            traceback.print_exc()
            failed.append(f"{n}: {e}".splitlines()[0])
    print(f"{len(names) - len(failed)} cases for {len(ops)} ops in {a.out}")
    if failed:
        reflib.die(f"{len(failed)} case(s) failed:\n  " + "\n  ".join(failed))


if __name__ == "__main__":
    main()
