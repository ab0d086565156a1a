"""gldelegate as a delegate of LiteRT's own Interpreter (issue 32): the
external-delegate library (gldelegate.load_delegate, i.e. LiteRT's
load_delegate on gldelegate.delegate_library_path()) and the C entry
GldTfLiteDelegateCreate, on the GL backend (llvmpipe here), against LiteRT
without delegates."""
import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, load_delegate

import gldelegate
from conftest import FP32_TOLERANCE, REPO, SHARED_MODELS, model_path, random_inputs, relative_error, run

sys.path.insert(0, str(REPO / "tools" / "reference"))
from tflite_builder import TfliteBuilder, schema  # noqa: E402


def assert_close(got, expected, what):
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g.dtype == e.dtype and g.shape == e.shape, (what, k, g.dtype, g.shape, e.dtype, e.shape)
        assert relative_error(g, e) <= FP32_TOLERANCE, (what, k, relative_error(g, e))


def delegate_nodes(interpreter):
    """The execution plan's delegate kernels (one per partition)."""
    return [op for op in interpreter._get_ops_details() if op["op_name"] == "DELEGATE"]


class CapturedStderr:
    """fd 2 while the block runs (the library logs there, spdlog and LiteRT alike)."""

    def __init__(self, tmp_path):
        self.path = tmp_path / "stderr.txt"

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file = open(self.path, "w+b")
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.close()
        self.text = self.path.read_text(errors="replace")


@pytest.mark.parametrize("name", SHARED_MODELS)
def test_shared_model_fully_delegated_matches_litert(name, tmp_path):
    path = model_path(name)
    reference = Interpreter(model_path=path)
    inputs = random_inputs(reference, seed=5)
    expected = run(reference, inputs)
    with CapturedStderr(tmp_path) as err:
        delegate = gldelegate.load_delegate(backend="gl", precision="fp32", log_level="info")
        interpreter = Interpreter(model_path=path, experimental_delegates=[delegate])
        got = run(interpreter, inputs)
    total = sum(op["op_name"] != "DELEGATE" for op in reference._get_ops_details())  # less LiteRT's XNNPACK node
    # Every node went to the delegate, in one partition.
    assert "gldelegate: taking %d of %d nodes" % (total, total) in err.text, err.text[-2000:]
    assert err.text.count("gldelegate: partition of %d TFLite nodes" % total) == 1, err.text[-2000:]
    assert len(delegate_nodes(interpreter)) == 1
    assert_close(got, expected, name)


def model_with_cumsum():
    """x -> ADD -> CUMSUM (no GL kernel) -> MUL -> y."""
    b = TfliteBuilder()
    x = b.input("x", [1, 2, 8])
    c = b.const("c", np.linspace(-1, 1, 8, dtype=np.float32).reshape([1, 1, 8]))
    axis = b.const("axis", np.array(2, np.int32))
    a = b.tensor("a", [1, 2, 8])
    s = b.tensor("s", [1, 2, 8])
    y = b.tensor("y", [1, 2, 8])
    b.op("ADD", [x, c], [a], options=schema.AddOptionsT())
    b.op("CUMSUM", [a, axis], [s], options=schema.CumsumOptionsT())
    b.op("MUL", [s, c], [y], options=schema.MulOptionsT())
    b.output(y)
    return b.finish()


def test_op_without_gl_kernel_stays_with_litert(tmp_path):
    data = model_with_cumsum()
    reference = Interpreter(model_content=data)
    inputs = random_inputs(reference, seed=1)
    expected = run(reference, inputs)
    with CapturedStderr(tmp_path) as err:
        interpreter = Interpreter(model_content=data,
                                  experimental_delegates=[gldelegate.load_delegate(backend="gl", log_level="info")])
        got = run(interpreter, inputs)
    assert "gldelegate: taking 2 of 3 nodes" in err.text, err.text[-2000:]
    plan = [op["op_name"] for op in interpreter._get_ops_details()]
    assert plan.count("DELEGATE") == 2  # ADD and MUL, either side of LiteRT's CUMSUM
    assert_close(got, expected, "cumsum model")


def model_with_mediapipe_transforms():
    """face_landmark_with_attention's custom ops, all of version 2:
    landmarks -> Landmarks2TransformMatrix -> M; TransformTensorBilinear(image,
    M) -> crop; TransformLandmarks(points, M) -> moved (no options)."""
    from flatbuffers import flexbuffers

    b = TfliteBuilder()
    lm = b.input("landmarks", [1, 8, 3])
    image = b.input("image", [1, 16, 16, 4])
    points = b.input("points", [1, 5, 3])
    m = b.tensor("matrix", [1, 4, 4])
    crop = b.tensor("crop", [1, 6, 6, 4])
    moved = b.tensor("moved", [1, 5, 3])
    b.op(b"Landmarks2TransformMatrix", [lm], [m], version=2, custom_options=flexbuffers.Dumps({
        "subset_idxs": [0, 2, 4, 7], "target_rotation_radians": 0.3, "output_height": 6, "output_width": 6,
        "scale_x": 1.2, "scale_y": 1.4, "left_rotation_idx": 1, "right_rotation_idx": 5}))
    b.op(b"TransformTensorBilinear", [image, m], [crop], version=2,
         custom_options=flexbuffers.Dumps({"output_height": 6, "output_width": 6}))
    b.op(b"TransformLandmarks", [points, m], [moved], version=2)
    b.output(crop)
    b.output(moved)
    return b.finish()


def test_mediapipe_custom_ops_keep_their_options(tmp_path):
    """LiteRT has no kernels for MediaPipe's ops and hands the delegate a
    stand-in registration of version 1; the delegate reads the version from
    the options, takes every node, and matches gldelegate's own Interpreter."""
    data = model_with_mediapipe_transforms()
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(4, 12, [1, 8, 3]).astype(np.float32), rng.uniform(-1, 1, [1, 16, 16, 4]).astype(np.float32),
              rng.uniform(0, 16, [1, 5, 3]).astype(np.float32)]
    expected = run(gldelegate.Interpreter(model_content=data, backend="gl", precision="fp32"), inputs)
    with CapturedStderr(tmp_path) as err:
        interpreter = Interpreter(model_content=data, experimental_delegates=[
            gldelegate.load_delegate(backend="gl", precision="fp32", log_level="info")])
        got = run(interpreter, inputs)
    assert "gldelegate: taking 3 of 3 nodes" in err.text, err.text[-2000:]
    assert "custom option" not in err.text and "flexbuffer" not in err.text, err.text[-2000:]
    assert len(delegate_nodes(interpreter)) == 1
    assert_close(got, expected, "mediapipe transforms")


def test_bad_option_fails_clearly():
    with pytest.raises(ValueError, match="unknown option 'no_such_option'.*backend, precision"):
        gldelegate.load_delegate(no_such_option=1)
    with pytest.raises(ValueError, match="num_threads must be -1"):
        gldelegate.load_delegate(num_threads=0)
    with pytest.raises(ValueError, match="unknown backend 'vulkan'|vulkan"):
        load_delegate(gldelegate.delegate_library_path(), {"backend": "vulkan"})


def test_gpu_delegate_spellings(tmp_path):
    path = model_path("face_detection_short_range.tflite")
    reference = Interpreter(model_path=path)
    inputs = random_inputs(reference, seed=2)
    expected = run(reference, inputs)
    with CapturedStderr(tmp_path) as err:
        delegate = load_delegate(gldelegate.delegate_library_path(),
                                 {"backend": "gl", "is_precision_loss_allowed": "0",
                                  "inference_preference": "1", "serialization_dir": str(tmp_path)})
        got = run(Interpreter(model_path=path, experimental_delegates=[delegate]), inputs)
    assert "inference_preference=1 is accepted and ignored" in err.text
    assert_close(got, expected, "GPU delegate spellings")


def dynamic_batch_model():
    """x[-1, 6, 6, 3] -> CONV_2D 3x3 SAME (relu) -> ADD const -> y."""
    rng = np.random.default_rng(0)
    b = TfliteBuilder()
    x = b.input("x", [1, 6, 6, 3])
    w = b.const("w", rng.uniform(-1, 1, [4, 3, 3, 3]).astype(np.float32))
    bias = b.const("bias", rng.uniform(-1, 1, [4]).astype(np.float32))
    c = b.const("c", rng.uniform(-1, 1, [4]).astype(np.float32))
    h = b.tensor("h", [1, 6, 6, 4])
    y = b.tensor("y", [1, 6, 6, 4])
    conv = schema.Conv2DOptionsT()
    conv.padding, conv.strideW, conv.strideH = schema.Padding.SAME, 1, 1
    conv.fusedActivationFunction = schema.ActivationFunctionType.RELU
    b.op("CONV_2D", [x, w, bias], [h], options=conv)
    b.op("ADD", [h, c], [y], options=schema.AddOptionsT())
    b.output(y)
    for t in (x, h, y):
        b.sg.tensors[t].shapeSignature = np.array([-1] + list(b.sg.tensors[t].shape[1:]), np.int32)
    return b.finish()


def test_resize_dynamic_batch_through_delegate():
    data = dynamic_batch_model()
    reference = Interpreter(model_content=data)
    interpreter = Interpreter(model_content=data, experimental_delegates=[gldelegate.load_delegate(backend="gl")])
    assert len(delegate_nodes(interpreter)) == 1
    for batch in (1, 3, 2):
        for i in (reference, interpreter):
            i.resize_tensor_input(i.get_input_details()[0]["index"], [batch, 6, 6, 3])
        inputs = random_inputs(reference, seed=batch)
        expected = run(reference, inputs)
        got = run(interpreter, inputs)
        assert got[0].shape == (batch, 6, 6, 4)
        assert_close(got, expected, "batch %d" % batch)


class CDelegate:
    """A TfLiteDelegate* from the C entry, in the shape LiteRT's Interpreter takes."""

    def __init__(self, lib, pointer):
        self.lib, self.pointer = lib, pointer

    def _get_native_delegate_pointer(self):
        return self.pointer


def test_c_entry_through_ctypes():
    lib = ctypes.CDLL(gldelegate.delegate_library_path())
    lib.GldOptionsCreate.restype = ctypes.c_void_p
    lib.GldOptionsSetBackend.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.GldOptionsDelete.argtypes = [ctypes.c_void_p]
    lib.GldTfLiteDelegateCreate.argtypes = [ctypes.c_void_p]
    lib.GldTfLiteDelegateCreate.restype = ctypes.c_void_p
    lib.GldTfLiteDelegateDelete.argtypes = [ctypes.c_void_p]
    options = lib.GldOptionsCreate()
    assert lib.GldOptionsSetBackend(options, 1) == 0  # GLD_BACKEND_GL
    pointer = lib.GldTfLiteDelegateCreate(options)
    lib.GldOptionsDelete(options)
    assert pointer
    path = model_path("palm_detection_lite.tflite")
    reference = Interpreter(model_path=path)
    inputs = random_inputs(reference, seed=4)
    interpreter = Interpreter(model_path=path, experimental_delegates=[CDelegate(lib, pointer)])
    assert len(delegate_nodes(interpreter)) == 1
    assert_close(run(interpreter, inputs), run(reference, inputs), "C entry")
    del interpreter
    lib.GldTfLiteDelegateDelete(pointer)


def test_program_cache_serves_a_second_process(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    script = textwrap.dedent("""
        import sys, gldelegate
        from ai_edge_litert.interpreter import Interpreter
        d = gldelegate.load_delegate(backend="gl", cache_dir=sys.argv[1], log_level="info")
        i = Interpreter(model_path=sys.argv[2], experimental_delegates=[d])
        i.allocate_tensors()
        i.invoke()
    """)
    path = model_path("selfie_segmentation.tflite")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    logs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", script, str(cache), path], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        logs.append([line for line in r.stderr.splitlines() if "gldelegate: partition of" in line])
    assert len(logs[0]) == 1 and "0 hits" in logs[0][0] and " 0 misses" not in logs[0][0], logs[0]
    assert len(logs[1]) == 1 and " 0 misses" in logs[1][0] and "program cache: 0 hits" not in logs[1][0], logs[1]
