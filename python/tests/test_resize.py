"""Inputs that change shape (issue 29): shape_signature as LiteRT reports it,
resize_tensor_input + allocate_tensors against LiteRT on the CPU and GL
backends, strict mode, and a shape the model cannot take."""
import sys

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter

from conftest import FP32_TOLERANCE, REPO, random_inputs, relative_error, run
from gldelegate.interpreter import Interpreter

sys.path.insert(0, str(REPO / "tools" / "reference"))
from tflite_builder import TfliteBuilder, schema  # noqa: E402

BACKENDS = ["cpu", "gl"]


def flatten_cnn(signatures=True):
    """x[-1, 6, 6, 3] -> CONV_2D (relu) -> RESHAPE to [SHAPE(y)[0], 144]
    (SHAPE, STRIDED_SLICE, PACK: Keras' Flatten as the converter writes it)
    -> FULLY_CONNECTED -> out[-1, 5]."""
    rng = np.random.default_rng(1)
    b = TfliteBuilder()
    x = b.input("x", [1, 6, 6, 3])
    w = b.const("w", rng.uniform(-1, 1, [4, 3, 3, 3]).astype(np.float32))
    bias = b.const("bias", rng.uniform(-1, 1, [4]).astype(np.float32))
    y = b.tensor("y", [1, 6, 6, 4])
    shape = b.tensor("shape", [4], np.int32)
    begin, end, stride = (b.const(n, np.array([v], np.int32)) for n, v in (("begin", 0), ("end", 1), ("stride", 1)))
    batch = b.tensor("batch", [], np.int32)
    flat = b.const("flat", np.array(144, np.int32))
    target = b.tensor("target", [2], np.int32)
    z = b.tensor("z", [1, 144])
    w2 = b.const("w2", rng.uniform(-0.2, 0.2, [5, 144]).astype(np.float32))
    b2 = b.const("b2", rng.uniform(-0.2, 0.2, [5]).astype(np.float32))
    out = b.tensor("out", [1, 5])
    conv = schema.Conv2DOptionsT()
    conv.padding, conv.strideW, conv.strideH = schema.Padding.SAME, 1, 1
    conv.fusedActivationFunction = schema.ActivationFunctionType.RELU
    b.op("CONV_2D", [x, w, bias], [y], options=conv)
    shape_options = schema.ShapeOptionsT()
    shape_options.outType = schema.TensorType.INT32
    b.op("SHAPE", [y], [shape], options=shape_options)
    ss = schema.StridedSliceOptionsT()
    ss.shrinkAxisMask = 1
    b.op("STRIDED_SLICE", [shape, begin, end, stride], [batch], options=ss)
    pack = schema.PackOptionsT()
    pack.valuesCount, pack.axis = 2, 0
    b.op("PACK", [batch, flat], [target], options=pack)
    b.op("RESHAPE", [y, target], [z], options=schema.ReshapeOptionsT())
    b.op("FULLY_CONNECTED", [z, w2, b2], [out], options=schema.FullyConnectedOptionsT())
    b.output(out)
    if signatures:
        for t in (x, y, z, out):
            b.sg.tensors[t].shapeSignature = np.array([-1] + list(b.sg.tensors[t].shape[1:]), np.int32)
    return b.finish()


def details_signatures(interpreter):
    return [
        [list(d["shape_signature"]) for d in interpreter.get_input_details()],
        [list(d["shape_signature"]) for d in interpreter.get_output_details()],
    ]


@pytest.mark.parametrize("signatures", [True, False])
def test_shape_signature_equals_litert(signatures):
    data = flatten_cnn(signatures)
    reference = LiteRTInterpreter(model_content=data)
    ours = Interpreter(model_content=data, backend="cpu")
    assert details_signatures(ours) == details_signatures(reference)
    ours.allocate_tensors()
    reference.allocate_tensors()
    assert details_signatures(ours) == details_signatures(reference)
    for d in ours.get_input_details() + ours.get_output_details():
        assert d["shape_signature"].dtype == np.int32


@pytest.mark.parametrize("backend", BACKENDS)
def test_resize_to_batch_four_matches_litert(backend):
    data = flatten_cnn()
    reference = LiteRTInterpreter(model_content=data)
    ours = Interpreter(model_content=data, backend=backend)
    single = None
    for batch in (1, 4, 2, 1):
        for i in (reference, ours):
            i.resize_tensor_input(i.get_input_details()[0]["index"], [batch, 6, 6, 3], strict=True)
        assert list(ours.get_input_details()[0]["shape"]) == [batch, 6, 6, 3]
        inputs = random_inputs(reference, seed=3)  # the same first row at every batch
        expected = run(reference, inputs)
        got = run(ours, inputs)
        assert got[0].shape == expected[0].shape == (batch, 5)
        assert relative_error(got[0], expected[0]) <= FP32_TOLERANCE, (batch, relative_error(got[0], expected[0]))
        assert list(ours.get_output_details()[0]["shape"]) == [batch, 5]
        assert details_signatures(ours) == details_signatures(reference)
        if single is None:
            single = got[0][0]
        np.testing.assert_allclose(got[0][0], single, rtol=1e-5, atol=1e-6)
    if backend == "gl":
        assert ours.placement["gpu_nodes"] > 0


def test_resize_before_the_first_allocate_and_through_tensor():
    data = flatten_cnn()
    reference = LiteRTInterpreter(model_content=data)
    ours = Interpreter(model_content=data, backend="cpu")
    for i in (reference, ours):
        i.resize_tensor_input(0, [3, 6, 6, 3])
        i.allocate_tensors()
    value = np.random.default_rng(4).uniform(-1, 1, [3, 6, 6, 3]).astype(np.float32)
    for i in (reference, ours):
        i.tensor(0)()[...] = value
        i.invoke()
    out = ours.get_output_details()[0]["index"]
    assert relative_error(ours.get_tensor(out), reference.get_tensor(out)) <= FP32_TOLERANCE


def test_strict_resize_changes_only_free_dimensions():
    ours = Interpreter(model_content=flatten_cnn(), backend="cpu")
    reference = LiteRTInterpreter(model_content=flatten_cnn())
    for i in (reference, ours):
        with pytest.raises(RuntimeError, match="ResizeInputTensorStrict only allows mutating unknown dimensions"):
            i.resize_tensor_input(0, [2, 7, 6, 3], strict=True)
    with pytest.raises(ValueError, match="negative"):
        ours.resize_tensor_input(0, [-2, 6, 6, 3])


def test_a_shape_the_model_cannot_take_raises_and_keeps_the_previous_shapes():
    ours = Interpreter(model_content=flatten_cnn(), backend="cpu")
    ours.resize_tensor_input(0, [2, 6, 6, 3])
    inputs = [np.random.default_rng(5).uniform(-1, 1, [2, 6, 6, 3]).astype(np.float32)]
    before = run(ours, inputs)
    ours.resize_tensor_input(0, [2, 7, 6, 3])
    assert list(ours.get_input_details()[0]["shape"]) == [2, 7, 6, 3]
    with pytest.raises(RuntimeError, match=r"input 0 \('x'\) to \[2, 7, 6, 3\].*RESHAPE"):
        ours.allocate_tensors()
    assert list(ours.get_input_details()[0]["shape"]) == [2, 6, 6, 3]
    assert list(ours.get_output_details()[0]["shape"]) == [2, 5]
    np.testing.assert_array_equal(run(ours, inputs)[0], before[0])


def reshape_by_input():
    """RESHAPE(x[2, 3], shape) + 1, the shape a model input: with
    shape_signature [-1, -1] the output is a dynamic tensor."""
    b = TfliteBuilder()
    x = b.input("x", [2, 3])
    shape = b.input("shape", [2], np.int32)
    y = b.tensor("y", [3, 2])
    one = b.const("one", np.array(1.0, np.float32))
    z = b.tensor("z", [3, 2])
    b.op("RESHAPE", [x, shape], [y], options=schema.ReshapeOptionsT())
    b.op("ADD", [y, one], [z], options=schema.AddOptionsT())
    b.output(z)
    for t in (y, z):
        b.sg.tensors[t].shapeSignature = np.array([-1, -1], np.int32)
    return b.finish()


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_tensor_matches_litert(backend):
    data = reshape_by_input()
    reference = LiteRTInterpreter(model_content=data)
    ours = Interpreter(model_content=data, backend=backend)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for asked in ([1, 6], [-1, 3], [6, 1]):
        inputs = [x, np.array(asked, np.int32)]
        expected = run(reference, inputs)
        got = run(ours, inputs)
        assert got[0].shape == expected[0].shape
        np.testing.assert_array_equal(got[0], expected[0])
        out = ours.get_output_details()[0]
        assert list(out["shape"]) == list(expected[0].shape)
        assert list(out["shape_signature"]) == [-1, -1]
