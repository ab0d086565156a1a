"""Every option of gldelegate/options.inc given as a keyword comes back as
set, before and after the interpreter is created, and the report names what
was asked for (gldelegate/report.inc)."""
import pytest

from conftest import model_path
from gldelegate import _gldelegate
from gldelegate.interpreter import Interpreter

OPTIONS = {name: kind for name, kind, _ in _gldelegate.option_table}
# A value other than the default for each enum option (its names are the
# C++ ones); other kinds take the samples below.
ENUM_SAMPLES = {"backend": "cpu", "precision": "fp16_mediump", "context": "current_if_any", "gl_limits": "minimum"}
KIND_SAMPLES = {
    "int": 3,
    "bool": True,
    "list": ["ADD", "MUL"],
    "pointer": 0x1234,
}


def sample(name, kind, tmp_path):
    if kind == "enum":
        return ENUM_SAMPLES[name]
    if kind == "string":
        return str(tmp_path / name) if name == "cache_dir" else "value of " + name
    return KIND_SAMPLES[kind]


def keywords_for(name, value):
    """The keywords that set `name`: the share context goes as a pair, and
    backend cpu keeps creation off the GPU."""
    keywords = {name: value}
    if OPTIONS[name] == "pointer":
        keywords = {other: value for other, kind in OPTIONS.items() if kind == "pointer"}
    keywords.setdefault("backend", "cpu")
    if name == "log_level":
        keywords[name] = "error"
    return keywords


def test_the_table_is_whole():
    assert set(ENUM_SAMPLES) == {name for name, kind in OPTIONS.items() if kind == "enum"}
    assert set(OPTIONS.values()) <= set(KIND_SAMPLES) | {"enum", "string"}
    defaults = Interpreter(model_path=model_path("hand_landmark_lite.tflite")).options
    assert set(defaults) == set(OPTIONS)
    assert defaults["backend"] == "auto" and defaults["gpu_deny_ops"] == [] and defaults["share_egl_context"] == 0


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_option_comes_back(name, tmp_path):
    value = sample(name, OPTIONS[name], tmp_path)
    keywords = keywords_for(name, value)
    if name == "num_threads":
        interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), num_threads=value, backend="cpu")
    else:
        interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), **keywords)
    defaults = _gldelegate.resolve_options({})
    assert keywords[name] != defaults[name]
    assert interpreter.options[name] == keywords[name]
    interpreter.allocate_tensors()
    assert interpreter.options[name] == keywords[name]


@pytest.mark.parametrize("name", sorted(n for n, kind in OPTIONS.items() if kind == "int"))
def test_int_ranges_are_the_c_apis(name):
    with pytest.raises(ValueError, match=name + " must be .*, got -5"):
        Interpreter(model_path=model_path("hand_landmark_lite.tflite"), **{name: -5}).allocate_tensors()


def test_unknown_keyword_and_half_a_share_context():
    with pytest.raises(TypeError, match="no_such_option"):
        Interpreter(model_path=model_path("hand_landmark_lite.tflite"), no_such_option=1)
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), share_egl_display=0x1234)
    with pytest.raises(ValueError, match="both"):
        interpreter.options


@pytest.mark.parametrize("precision", ["fp32", "fp16", "fp16_mediump"])
def test_report_names_the_precision_asked_for(precision):
    interpreter = Interpreter(model_path=model_path("hand_landmark_lite.tflite"), backend="cpu", precision=precision)
    interpreter.allocate_tensors()
    report = interpreter.placement
    assert report["precision"] == precision
    assert report["backend"] == "cpu"
    assert report["placement"].startswith("placement: ")
    assert report["original_nodes"] > 0 and report["total_nodes"] > 0
    assert report["gl_renderer"] == "" and report["gl_context"] == "" and report["cache_file"] == ""
    assert report["cpu_bytes_planned"] > 0
