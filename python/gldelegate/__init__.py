"""gldelegate: TensorFlow Lite models on the GPU through OpenGL ES 3.1 compute
shaders, with CPU kernels for what the GPU cannot run.

    from gldelegate.interpreter import Interpreter   # LiteRT's API
"""

from . import _gldelegate
from .interpreter import Interpreter, SignatureRunner

__version__ = _gldelegate.__version__

__all__ = ["Interpreter", "SignatureRunner", "__version__"]
