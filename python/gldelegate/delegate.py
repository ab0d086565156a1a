"""gldelegate as a delegate of LiteRT's own Interpreter.

    from ai_edge_litert.interpreter import Interpreter
    import gldelegate

    interpreter = Interpreter(model_path="model.tflite",
                              experimental_delegates=[gldelegate.load_delegate(backend="gl")])

The extension module of this package is also a TFLite external delegate
library: it exports tflite_plugin_create_delegate and
tflite_plugin_destroy_delegate, so LiteRT's load_delegate takes its path
(delegate_library_path()) with the options as strings. The nodes gldelegate
runs go to one or more delegate kernels; LiteRT runs the rest.
"""

from . import _gldelegate


def delegate_library_path():
    """The file to give LiteRT's load_delegate (or benchmark_model's
    --external_delegate_path) for gldelegate."""
    return _gldelegate.__file__


def _option_string(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _litert_load_delegate():
    try:
        from ai_edge_litert.interpreter import load_delegate
    except ImportError:  # the older packages of the same interpreter
        try:
            from tflite_runtime.interpreter import load_delegate
        except ImportError:
            from tensorflow.lite.python.interpreter import load_delegate
    return load_delegate


def load_delegate(**options):
    """What LiteRT's load_delegate(delegate_library_path(), options) returns:
    a delegate for Interpreter(..., experimental_delegates=[...]).

    Keywords are gldelegate's options (backend="gl", precision="fp16",
    cache_dir=..., num_threads=..., gpu_deny_ops=[...], log_level=...) and
    the TFLite GPU delegate's serialization_dir (= cache_dir), model_token,
    is_precision_loss_allowed (True: fp16) and inference_preference
    (ignored). A bad key or value raises ValueError with gldelegate's
    message."""
    load = _litert_load_delegate()
    return load(delegate_library_path(), {k: _option_string(v) for k, v in options.items()})
