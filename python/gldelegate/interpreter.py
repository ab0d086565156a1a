"""gldelegate.interpreter.Interpreter: LiteRT's Python Interpreter API on gldelegate.

Switching from LiteRT is one import::

    from ai_edge_litert.interpreter import Interpreter   # before
    from gldelegate.interpreter import Interpreter       # after

The model runs on the GPU through OpenGL ES 3.1 compute shaders where it can,
and on gldelegate's CPU kernels elsewhere (``backend="auto"``, the default),
or entirely on one of them (``backend="gl"`` / ``backend="cpu"``).

Differences from LiteRT, each raising a clear error rather than guessing:
- Only the model's inputs and outputs are tensors you can read: ``get_tensor``
  of an intermediate tensor raises ValueError, and ``get_tensor_details``
  lists the inputs and outputs.
- ``tensor(i)()`` of an input is an array that ``invoke`` uploads (LiteRT's
  ``interpreter.tensor(i)()[...] = x`` idiom works); of an output, the last
  invoke's values. Both stay valid across invoke and allocate_tensors (LiteRT
  raises RuntimeError while one is held).
- ``set_tensor`` converts a non-native byte order (``'>f4'``) by value;
  LiteRT copies the raw bytes.
- ``model_path`` holding a NUL byte raises ValueError (LiteRT loads the path
  cut at the NUL).
- ``resize_tensor_input`` + ``allocate_tensors`` re-plan the model for the
  new input shapes as LiteRT does (``strict=True``: only the -1 dimensions of
  ``shape_signature`` may change); the inputs' arrays are then new zero
  arrays of the new shapes (an input array ``tensor(i)()`` handed out before
  is no longer the one ``invoke`` reads). A shape the model cannot take
  raises at ``allocate_tensors`` naming the node, and the interpreter keeps
  its previous shapes.
- ``experimental_delegates`` cannot be used: gldelegate is the GPU delegate.
- Every signature runs: get_signature_runner(key) for a signature other
  than the first runs it in an Interpreter of its own on the same model
  (weights shared; its tensors are its own, as LiteRT's subgraphs').
"""

import json
import os
import threading

import numpy as np

from . import _gldelegate

__all__ = ["Interpreter", "SignatureRunner"]

_DTYPES = {
    "float32": np.float32,
    "float16": np.float16,
    "float64": np.float64,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "bool": np.bool_,
}

_LITERT_TYPE_NAMES = {
    np.float32: "FLOAT32",
    np.float16: "FLOAT16",
    np.float64: "FLOAT64",
    np.int8: "INT8",
    np.uint8: "UINT8",
    np.int16: "INT16",
    np.int32: "INT32",
    np.int64: "INT64",
    np.bool_: "BOOL",
}


def _type_name(dtype):
    return _LITERT_TYPE_NAMES.get(np.dtype(dtype).type, str(np.dtype(dtype)).upper())


def _details(info):
    """LiteRT's tensor details dict from the module's description."""
    dtype = _DTYPES.get(info["dtype"])
    if dtype is None:
        raise ValueError("tensor '%s' has a type Python cannot hold: %s" % (info["name"], info["dtype"]))
    scales = np.array(info["scales"], dtype=np.float32)
    zero_points = np.array(info["zero_points"], dtype=np.int32)
    shape = np.array(info["shape"], dtype=np.int32)
    signature = np.array(info["shape_signature"], dtype=np.int32)
    quantization = (float(scales[0]), int(zero_points[0])) if scales.size == 1 else (0.0, 0)
    return {
        "name": info["name"],
        "index": int(info["index"]),
        "shape": shape,
        "shape_signature": signature,
        "dtype": dtype,
        "quantization": quantization,
        "quantization_parameters": {
            "scales": scales,
            "zero_points": zero_points,
            "quantized_dimension": int(info["quantized_dimension"]),
            "block_size": 0,
        },
        "sparsity_parameters": {},
    }


# gldelegate's options (gldelegate/options.inc): name -> kind, and how a
# keyword's value becomes the type the module takes.
_OPTION_KINDS = {name: kind for name, kind, _ in _gldelegate.option_table}
_TO_OPTION_TYPE = {
    "enum": str,
    "int": int,
    "bool": bool,
    "string": lambda v: os.fspath(v) if isinstance(v, os.PathLike) else str(v),
    "list": lambda v: [str(item) for item in v],
    "pointer": int,
}


def _keyword_options(keywords):
    """The options dict of Interpreter's keywords: None dropped (the default)."""
    options = {}
    for name, value in keywords.items():
        kind = _OPTION_KINDS.get(name)
        if kind is None:
            raise TypeError("Interpreter() got an unexpected keyword argument %r" % (name,))
        if value is not None:
            options[name] = _TO_OPTION_TYPE[kind](value)
    return options


class Interpreter:
    """Runs a .tflite model with gldelegate, with LiteRT's Interpreter API.

    LiteRT's arguments: ``model_path`` or ``model_content`` (exactly one),
    ``num_threads`` (CPU threads; None or -1: all cores), and LiteRT's
    experimental arguments, accepted and ignored (``experimental_delegates``
    must be empty).

    gldelegate's own keywords are the fields of gld::Options, by the same
    names (listed once in gldelegate/options.inc; ``options`` gives them
    back). None stands for an option's default; values are checked when the
    interpreter is created (``allocate_tensors``), except ``num_threads``.
    They are listed below.
    """

    def __init__(
        self,
        model_path=None,
        model_content=None,
        experimental_delegates=None,
        num_threads=None,
        experimental_op_resolver_type=None,
        experimental_preserve_all_tensors=False,
        experimental_disable_delegate_clustering=False,
        experimental_default_delegate_latest_features=False,
        **options,
    ):
        self._options = _keyword_options(options)
        if (model_path is None) == (model_content is None):
            raise ValueError("Exactly one of model_path and model_content must be given")
        if experimental_delegates:
            raise ValueError(
                "experimental_delegates cannot be used with gldelegate, which is itself the GPU delegate: "
                "choose the backend with backend='auto'|'gl'|'cpu'"
            )
        if num_threads is None or num_threads == -1:
            num_threads = os.cpu_count() or 1
        if not isinstance(num_threads, int):
            raise ValueError("num_threads should be an int >= 1 or -1 (all cores), got %r" % (num_threads,))
        _gldelegate.check_option("num_threads", num_threads)
        self._options["num_threads"] = num_threads
        if model_path is not None:
            # str, bytes or os.PathLike, as LiteRT; passed on as bytes so that
            # any file name the OS has opens.
            path = os.fsencode(model_path)
            if b"\0" in path:
                raise ValueError("model_path must not contain a NUL byte: %r" % (model_path,))
            self._model = _gldelegate.load_model_file(path)
        else:
            self._model = _gldelegate.load_model_bytes(bytes(model_content))
        self._take_io(self._model.inputs, self._model.outputs)
        self._exposed_inputs = set()
        # Each output's values since the last invoke, read on first use.
        self._output_values = {}
        # resize_tensor_input's requests until allocate_tensors: position ->
        # (shape, strict).
        self._pending = {}
        self._impl = None
        self._lock = threading.Lock()
        self._signature_key = None  # None: the model's first subgraph
        self._signature_interpreters = {}  # key -> Interpreter of another subgraph
        self._bound = {}  # ("input" | "output", position) -> the array bound (bind_*_host_buffer)

    def _take_io(self, inputs, outputs):
        """Details, positions and zero input values of these inputs and outputs."""
        self._inputs = [_details(i) for i in inputs]
        self._outputs = [_details(o) for o in outputs]
        self._input_position = {d["index"]: k for k, d in enumerate(self._inputs)}
        self._output_position = {d["index"]: k for k, d in enumerate(self._outputs)}
        # Each input's value as the interpreter has it (set_tensor's, or
        # written through tensor(i)()); those tensor() handed out are uploaded
        # again by every invoke.
        self._input_values = [
            np.zeros(tuple(int(d) for d in detail["shape"]), dtype=detail["dtype"]) for detail in self._inputs
        ]
        # Some output's shape_signature has a free dimension: its shape may
        # change with each invoke.
        self._dynamic_outputs = any(-1 in d["shape_signature"] for d in self._outputs)

    def _for_signature(self, key):
        """An Interpreter of signature `key` over another subgraph than this
        one's: the same model (weights shared) and options, allocated."""
        child = object.__new__(Interpreter)
        child.__dict__.update(
            _options=dict(self._options), _model=self._model, _exposed_inputs=set(), _output_values={},
            _pending={}, _lock=threading.Lock(), _signature_key=key, _signature_interpreters={}, _bound={},
        )
        child._impl = _gldelegate.create_interpreter(self._model, child._options, key)
        child._take_io(child._impl.inputs, child._impl.outputs)
        return child

    # ---- LiteRT's API -------------------------------------------------------

    def allocate_tensors(self):
        """Creates the interpreter: the GPU programs are compiled (or read from
        cache_dir) and the buffers made. Needed once before set_tensor/invoke."""
        if self._impl is None:
            self._impl = _gldelegate.create_interpreter(self._model, self._options, self._signature_key)
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        with self._lock:
            try:
                for position, (shape, strict) in sorted(pending.items()):
                    self._impl.resize_input(position, shape, strict)
                self._impl.allocate_tensors()
            except BaseException:
                # Drop what was asked: the interpreter keeps its shapes.
                for position, detail in enumerate(self._impl.inputs):
                    self._impl.resize_input(position, detail["shape"])
                raise
            finally:
                self._describe()

    def _describe(self):
        """Details and input arrays from the interpreter's current shapes;
        the caller holds the lock."""
        self._inputs = [_details(i) for i in self._impl.inputs]
        self._outputs = [_details(o) for o in self._impl.outputs]
        for position, detail in enumerate(self._inputs):
            shape = tuple(int(d) for d in detail["shape"])
            if self._input_values[position].shape != shape:
                self._input_values[position] = np.zeros(shape, dtype=detail["dtype"])
        self._output_values.clear()

    def get_input_details(self):
        return [dict(d) for d in self._inputs]

    def get_output_details(self):
        return [dict(d) for d in self._outputs]

    def get_tensor_details(self):
        """Details of the inputs and outputs (the only tensors gldelegate keeps)."""
        return self.get_input_details() + [d for d in self.get_output_details() if d["index"] not in self._input_position]

    def _require_allocated(self, what):
        if self._impl is None:
            raise ValueError("Cannot %s: Tensor is unallocated. Try calling allocate_tensors() first" % what)

    def set_tensor(self, tensor_index, value):
        self._require_allocated("set tensor")
        position = self._input_position.get(tensor_index)
        if position is None:
            raise ValueError(
                "Cannot set tensor: tensor %r is not an input of the model (inputs: %s)"
                % (tensor_index, sorted(self._input_position))
            )
        detail = self._inputs[position]
        value = np.asarray(value)
        if value.dtype.type is not detail["dtype"]:
            raise ValueError(
                "Cannot set tensor: Got value of type %s but expected type %s for input %d, name: %s "
                % (_type_name(value.dtype), _type_name(detail["dtype"]), tensor_index, detail["name"])
            )
        shape = tuple(int(d) for d in detail["shape"])
        if value.ndim != len(shape):
            raise ValueError(
                "Cannot set tensor: Dimension mismatch. Got %d but expected %d for input %d."
                % (value.ndim, len(shape), tensor_index)
            )
        for axis, (got, want) in enumerate(zip(value.shape, shape)):
            if got != want:
                raise ValueError(
                    "Cannot set tensor: Dimension mismatch. Got %d but expected %d for dimension %d of input %d."
                    % (got, want, axis, tensor_index)
                )
        if not value.dtype.isnative:
            # LiteRT copies the bytes as they are; the values are what counts.
            value = value.astype(value.dtype.newbyteorder("="))
        # No copy of an array already C-contiguous (read-only ones included).
        value = np.ascontiguousarray(value)
        with self._lock:
            self._impl.set_input(position, value)
            np.copyto(self._input_values[position], value)

    def invoke(self):
        """Runs the model (the GIL is released meanwhile). Inputs that
        tensor(i)() handed out are uploaded first, with what was written to
        them."""
        self._require_allocated("invoke")
        with self._lock:
            for position in sorted(self._exposed_inputs):
                self._impl.set_input(position, self._input_values[position])
            self._output_values.clear()
            self._impl.invoke()
            if self._dynamic_outputs:
                # Their shapes are known once the model has run (dynamic tensors).
                self._outputs = [_details(o) for o in self._impl.outputs]

    def _output_array(self, position):
        """The last invoke's values of output `position` (one download per
        invoke); the caller holds the lock."""
        value = self._output_values.get(position)
        if value is None:
            detail = self._outputs[position]
            value = np.empty(tuple(int(d) for d in detail["shape"]), dtype=detail["dtype"])
            self._impl.get_output(position, value)
            self._output_values[position] = value
        return value

    def get_tensor(self, tensor_index, subgraph_index=0):
        self._require_allocated("get tensor")
        if subgraph_index != 0:
            raise ValueError("gldelegate runs one subgraph; subgraph_index must be 0, got %r" % (subgraph_index,))
        with self._lock:
            return self._tensor_array(tensor_index).copy()

    def _tensor_array(self, tensor_index):
        """The array holding input or output `tensor_index`; the caller holds
        the lock."""
        position = self._output_position.get(tensor_index)
        if position is not None:
            bound = self._bound.get(("output", position))
            return bound if bound is not None else self._output_array(position)
        position = self._input_position.get(tensor_index)
        if position is not None:
            bound = self._bound.get(("input", position))
            return bound if bound is not None else self._input_values[position]
        raise ValueError(
            "Tensor %r is not an input or output of the model: gldelegate keeps only those "
            "(inputs %s, outputs %s)" % (tensor_index, sorted(self._input_position), sorted(self._output_position))
        )

    def tensor(self, tensor_index):
        """A function returning the tensor's array, as LiteRT's tensor(): an
        input's is the value the next invoke runs on (writes to it count; it
        is then uploaded by every invoke), an output's the last invoke's
        values. Unlike LiteRT's views, holding one across invoke or
        allocate_tensors is allowed (an output's then keeps its old values)."""

        def array():
            self._require_allocated("get tensor")
            with self._lock:
                value = self._tensor_array(tensor_index)
                position = self._input_position.get(tensor_index)
                if (position is not None and self._output_position.get(tensor_index) is None
                        and ("input", position) not in self._bound):
                    self._exposed_inputs.add(position)
                return value

        return array

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """Input `input_index` takes shape `tensor_size` from the next
        allocate_tensors on (get_input_details shows it at once). With
        `strict`, only its shape_signature's -1 dimensions may change."""
        position = self._input_position.get(input_index)
        if position is None:
            raise ValueError("Cannot resize: tensor %r is not an input of the model" % (input_index,))
        detail = self._inputs[position]
        want = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        if any(d < 0 for d in want):
            raise ValueError("Cannot resize input %d '%s' to %s: negative dimension" % (input_index, detail["name"], want))
        signature = [int(d) for d in detail["shape_signature"]]
        if strict and (len(signature) != len(want) or any(s not in (-1, w) for s, w in zip(signature, want))):
            # RuntimeError, as LiteRT's.
            raise RuntimeError(
                "Cannot resize input %d '%s' to %s: ResizeInputTensorStrict only allows mutating unknown "
                "dimensions identified by -1 (shape_signature %s)" % (input_index, detail["name"], want, signature)
            )
        self._pending[position] = (want, strict)
        self._inputs[position] = dict(detail, shape=np.array(want, dtype=np.int32))

    def get_signature_list(self):
        return {
            s["key"]: {
                "inputs": sorted(name for name, _ in s["inputs"]),
                "outputs": sorted(name for name, _ in s["outputs"]),
            }
            for s in self._model.signatures
        }

    def get_signature_runner(self, signature_key=None):
        signatures = self._model.signatures
        if signature_key is None:
            if len(signatures) != 1:
                raise ValueError(
                    "SignatureDef signature_key is None and model has %d Signatures. None is only allowed when "
                    "the model has 1 SignatureDef" % len(signatures)
                )
            signature = signatures[0]
        else:
            matches = [s for s in signatures if s["key"] == signature_key]
            if not matches:
                raise ValueError(
                    "Invalid signature_key provided: %r (the model's: %s)"
                    % (signature_key, [s["key"] for s in signatures])
                )
            signature = matches[0]
        # A signature over another subgraph runs in an Interpreter of its own
        # (made once, kept: its state, e.g. a KV cache, persists).
        if self._signature_key is None and signature is not signatures[0]:
            key = signature["key"]
            if key not in self._signature_interpreters:
                self._signature_interpreters[key] = self._for_signature(key)
            return SignatureRunner(self._signature_interpreters[key], signature)
        return SignatureRunner(self, signature)

    # ---- gldelegate's own ---------------------------------------------------

    @property
    def placement(self):
        """Where each node runs and why: backend, placement line, per-node rows."""
        self._require_allocated("read the placement")
        return self._impl.report()

    @property
    def options(self):
        """Every option (gldelegate/options.inc) and its value, defaults
        included: as the interpreter was created with, or before
        allocate_tensors as it will be (ValueError for a bad value)."""
        if self._impl is not None:
            return self._impl.options()
        return _gldelegate.resolve_options(self._options)

    @property
    def profile(self):
        """Per-op rows (enable_profiling=True): one per CPU node and per GPU
        dispatch, averaged over the invokes since creation or reset_profile(),
        the first invoke after creation (warming up) not counted."""
        self._require_allocated("read the profile")
        return self._impl.profile()

    def bind_input_host_buffer(self, tensor_index, array):
        """Input `tensor_index` lives in `array`'s memory from now on, as
        LiteRT's TensorBuffer.create_from_host_memory(array) in run_by_name's
        input map: invoke reads the array as it is then (no set_tensor
        needed; set_tensor writes into it). `array` must be a writable,
        C-contiguous numpy array of the tensor's dtype and shape; it is held
        until unbind_input. Bound as an input and (bind_output_host_buffer) an
        output, one array is a state the model updates in place on every
        invoke: a decoder's KV cache, shared by its prefill and decode
        signatures' runners. RuntimeError where updating it in place is
        unsafe (the message names the steps: bind another array and
        alternate)."""
        self._bind_host_buffer("input", tensor_index, array)

    def bind_output_host_buffer(self, tensor_index, array):
        """Output `tensor_index` is written into `array`'s memory by every
        invoke (get_tensor reads it); the rules of bind_input_host_buffer."""
        self._bind_host_buffer("output", tensor_index, array)

    def unbind_input(self, tensor_index):
        """Input `tensor_index` has its own memory again (the array's values
        are not copied into it) and the array is released."""
        self._unbind("input", tensor_index)

    def unbind_output(self, tensor_index):
        """Output `tensor_index` has its own memory again; the array is released."""
        self._unbind("output", tensor_index)

    def _position(self, side, tensor_index, what):
        positions = self._input_position if side == "input" else self._output_position
        position = positions.get(tensor_index)
        if position is None:
            raise ValueError("Cannot %s: tensor %r is not an %s of the model (%ss: %s)"
                             % (what, tensor_index, side, side, sorted(positions)))
        return position

    def _bind_host_buffer(self, side, tensor_index, array):
        what = "bind %s host buffer" % side
        self._require_allocated(what)
        position = self._position(side, tensor_index, what)
        detail = (self._inputs if side == "input" else self._outputs)[position]
        label = "%s %d '%s'" % (side, tensor_index, detail["name"])
        if not isinstance(array, np.ndarray):
            raise TypeError("Cannot %s: %s needs a numpy.ndarray, got %s" % (what, label, type(array).__name__))
        if array.dtype.type is not detail["dtype"] or not array.dtype.isnative:
            raise ValueError("Cannot %s: %s is %s, got an array of %s"
                             % (what, label, _type_name(detail["dtype"]), array.dtype))
        shape = tuple(int(d) for d in detail["shape"])
        if array.shape != shape:
            raise ValueError("Cannot %s: %s has shape %s, got an array of shape %s" % (what, label, shape, array.shape))
        if not array.flags.c_contiguous:
            raise ValueError("Cannot %s: the array for %s must be C-contiguous (its memory is the tensor's; "
                             "np.ascontiguousarray makes a copy to bind)" % (what, label))
        if not array.flags.writeable:
            raise ValueError("Cannot %s: the array for %s is read-only" % (what, label))
        with self._lock:
            self._impl.bind_host_buffer(side == "input", position, array)
            self._bound[(side, position)] = array
            if side == "input":
                self._exposed_inputs.discard(position)
            else:
                self._output_values.pop(position, None)

    def _unbind(self, side, tensor_index):
        what = "unbind %s" % side
        self._require_allocated(what)
        position = self._position(side, tensor_index, what)
        with self._lock:
            self._impl.unbind(side == "input", position)
            self._bound.pop((side, position), None)
            if side == "output":
                self._output_values.pop(position, None)

    def cancel(self):
        """Ends the invoke() running on another thread: it raises
        gldelegate.InvokeCancelledError, a RuntimeError ("invoke cancelled
        (Interpreter::Cancel) ...", naming
        where it stopped) before its next node, GL segment or loop
        iteration, and the interpreter stays usable (the next invoke runs
        normally). A cancel while no invoke runs does nothing, as TFLite's
        Interpreter::Cancel. Takes no lock, so it does not wait for the
        invoke. Call it from another thread: Python runs a signal handler
        only once invoke() has returned."""
        impl = self._impl
        if impl is not None:
            impl.cancel()

    def reset_all_variables(self):
        """Back to a fresh interpreter's state: resource variables lose their
        values (a CALL_ONCE initialises them again on the next invoke) and
        variable tensors get their initial contents. LiteRT 2.3's
        reset_all_variables resets only variable tensors and leaves resource
        variables as they are."""
        self._require_allocated("reset the variables")
        self._impl.reset_variables()

    def reset_profile(self):
        """Clears the profile, and the trace's invoke events (creation's stay)."""
        self._require_allocated("reset the profile")
        self._impl.reset_profile()

    @property
    def trace(self):
        """The timeline (enable_trace=True) as Trace Event Format dicts
        (name, cat, ph, ts, dur, pid, tid, args; times in microseconds):
        creation's program builds, then each invoke's CPU nodes, GPU
        dispatches, uploads, downloads and bytes moved. Empty without
        enable_trace."""
        self._require_allocated("read the trace")
        return self._impl.trace()

    def write_trace(self, path):
        """Writes the trace as a JSON file that ui.perfetto.dev and
        chrome://tracing open (docs/TRACE_AND_PAGE.md)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": self.trace, "displayTimeUnit": "ms"}, f)


Interpreter.__doc__ += "".join(
    "\n    ``%s`` (%s): %s" % (name, kind, help_text) for name, kind, help_text in _gldelegate.option_table
) + "\n"


class SignatureRunner:
    """LiteRT's SignatureRunner: runner(**inputs) -> {output name: array}."""

    def __init__(self, interpreter, signature):
        self._interpreter = interpreter
        self._inputs = dict(signature["inputs"])  # signature name -> tensor index
        self._outputs = dict(signature["outputs"])

    def get_input_details(self):
        by_index = {d["index"]: d for d in self._interpreter.get_input_details()}
        return {name: by_index[index] for name, index in self._inputs.items() if index in by_index}

    def get_output_details(self):
        by_index = {d["index"]: d for d in self._interpreter.get_output_details()}
        return {name: by_index[index] for name, index in self._outputs.items() if index in by_index}

    def _index(self, side, name):
        names = self._inputs if side == "input" else self._outputs
        if name not in names:
            raise ValueError("Invalid %s name (%s) for SignatureDef (%ss: %s)" % (side, name, side, sorted(names)))
        return names[name]

    def bind_input_host_buffer(self, name, array):
        """Input `name` lives in `array`'s memory (Interpreter.bind_input_host_buffer):
        calls then leave it out. A KV cache stays resident when one array is
        bound as input and output `name` of both the prefill and the decode
        runner: each call updates it in place."""
        self._interpreter.allocate_tensors()
        self._interpreter.bind_input_host_buffer(self._index("input", name), array)

    def bind_output_host_buffer(self, name, array):
        """Output `name` is written into `array` by every call, which returns
        that array itself under `name` (no copy)."""
        self._interpreter.allocate_tensors()
        self._interpreter.bind_output_host_buffer(self._index("output", name), array)

    def unbind_input(self, name):
        self._interpreter.unbind_input(self._index("input", name))

    def unbind_output(self, name):
        self._interpreter.unbind_output(self._index("output", name))

    def _bound_array(self, side, index):
        positions = self._interpreter._input_position if side == "input" else self._interpreter._output_position
        return self._interpreter._bound.get((side, positions.get(index)))

    def __call__(self, **kwargs):
        bound = {name for name, index in self._inputs.items() if self._bound_array("input", index) is not None}
        wanted = len(self._inputs) - len(bound)
        if len(kwargs) != wanted:
            raise ValueError(
                "Invalid number of inputs provided for running a SignatureDef, expected %d vs provided %d%s"
                % (wanted, len(kwargs), " (bound to host buffers: %s)" % sorted(bound) if bound else "")
            )
        self._interpreter.allocate_tensors()
        for name, value in kwargs.items():
            if name not in self._inputs or name in bound:
                raise ValueError("Invalid Input name (%s) for SignatureDef (inputs: %s%s)"
                                 % (name, sorted(set(self._inputs) - bound),
                                    "; bound to host buffers: %s" % sorted(bound) if bound else ""))
            self._interpreter.set_tensor(self._inputs[name], value)
        self._interpreter.invoke()
        outputs = {}
        for name, index in self._outputs.items():
            array = self._bound_array("output", index)
            outputs[name] = array if array is not None else self._interpreter.get_tensor(index)
        return outputs
