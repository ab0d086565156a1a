"""gldelegate: TensorFlow Lite models on the GPU through OpenGL ES 3.1 compute
shaders, with CPU kernels for what the GPU cannot run.

    from gldelegate.interpreter import Interpreter   # LiteRT's API

or as a delegate of LiteRT's own Interpreter:

    Interpreter(model_path=..., experimental_delegates=[gldelegate.load_delegate(backend="gl")])
"""

from . import _gldelegate
from ._gldelegate import InvokeCancelledError
from .delegate import delegate_library_path, load_delegate
from .interpreter import Interpreter, SignatureRunner

__version__ = _gldelegate.__version__

__all__ = ["Interpreter", "InvokeCancelledError", "SignatureRunner", "delegate_library_path", "load_delegate", "__version__"]
