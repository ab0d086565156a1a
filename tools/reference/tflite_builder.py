"""A small hand builder for .tflite flatbuffers (object API of the schema module
that ships with ai-edge-litert / TensorFlow), for models TensorFlow's converter
cannot emit as-is: custom ops, DENSIFY, a given op version.

    b = TfliteBuilder()
    x = b.input("x", [1, 4, 4, 3])
    w = b.const("w", np.ones([2, 3, 3, 3], np.float32))
    y = b.tensor("y", [1, 4, 4, 2])
    b.op("CONV_2D", [x, w, -1], [y], options=...)   # -1: an absent optional input
    b.output(y)
    data = b.finish()

Several subgraphs (control flow: WHILE, IF, CALL_ONCE name them by index):
tensor/input/output/op write to the current subgraph, which
b.subgraph("body") creates (returning its index) and b.use(index) selects.
"""

import flatbuffers
import numpy as np

try:
    from ai_edge_litert import schema_py_generated as schema
except ImportError:
    from tensorflow.lite.python import schema_py_generated as schema

_TYPES = {
    np.dtype(np.float32): schema.TensorType.FLOAT32,
    np.dtype(np.float16): schema.TensorType.FLOAT16,
    np.dtype(np.int32): schema.TensorType.INT32,
    np.dtype(np.int64): schema.TensorType.INT64,
    np.dtype(np.int8): schema.TensorType.INT8,
    np.dtype(np.uint8): schema.TensorType.UINT8,
    np.dtype(np.int16): schema.TensorType.INT16,
    np.dtype(np.bool_): schema.TensorType.BOOL,
    "resource": schema.TensorType.RESOURCE,
}


class TfliteBuilder:
    def __init__(self, description="gldelegate tools/reference"):
        self.model = schema.ModelT()
        self.model.version = 3
        self.model.description = description
        self.model.buffers = [schema.BufferT()]  # buffer 0: the empty sentinel
        self.model.operatorCodes = []
        self.sg = schema.SubGraphT()
        self.sg.tensors, self.sg.operators = [], []
        self.sg.inputs, self.sg.outputs = [], []
        self.sg.name = "main"
        self.model.subgraphs = [self.sg]

    def subgraph(self, name):
        """Adds an empty subgraph, makes it current and returns its index."""
        sg = schema.SubGraphT()
        sg.tensors, sg.operators, sg.inputs, sg.outputs = [], [], [], []
        sg.name = name
        self.model.subgraphs.append(sg)
        self.sg = sg
        return len(self.model.subgraphs) - 1

    def use(self, index):
        """Makes subgraph `index` current."""
        self.sg = self.model.subgraphs[index]

    def tensor(self, name, shape, dtype=np.float32, data=None, quant=None, sparsity=None):
        t = schema.TensorT()
        t.name = name
        t.shape = np.array(shape, dtype=np.int32)
        t.type = _TYPES[dtype if isinstance(dtype, str) else np.dtype(dtype)]
        t.buffer = 0
        if data is not None:
            buf = schema.BufferT()
            buf.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.model.buffers.append(buf)
            t.buffer = len(self.model.buffers) - 1
        if quant is not None:
            q = schema.QuantizationParametersT()
            q.scale = np.array(quant["scale"], dtype=np.float32)
            q.zeroPoint = np.array(quant["zero_point"], dtype=np.int64)
            q.quantizedDimension = quant.get("axis", 0)
            t.quantization = q
        t.sparsity = sparsity
        self.sg.tensors.append(t)
        return len(self.sg.tensors) - 1

    def const(self, name, array, dtype=None, quant=None):
        array = np.asarray(array, dtype=dtype) if dtype is not None else np.asarray(array)
        return self.tensor(name, list(array.shape), array.dtype, data=array, quant=quant)

    def input(self, name, shape, dtype=np.float32, quant=None):
        i = self.tensor(name, shape, dtype, quant=quant)
        self.sg.inputs.append(i)
        return i

    def variable(self, name, shape, dtype=np.float32):
        """A variable tensor without data (LiteRT zero-fills it; the recurrent
        ops' state inputs, which they update in place)."""
        i = self.tensor(name, shape, dtype)
        self.sg.tensors[i].isVariable = True
        return i

    def output(self, index):
        self.sg.outputs.append(index)

    def _opcode(self, op, version):
        custom = None
        if isinstance(op, bytes):
            code, custom = schema.BuiltinOperator.CUSTOM, op
        else:
            code = getattr(schema.BuiltinOperator, op)
        for i, oc in enumerate(self.model.operatorCodes):
            if oc.builtinCode == code and oc.customCode == custom and oc.version == version:
                return i
        oc = schema.OperatorCodeT()
        oc.builtinCode = code
        oc.deprecatedBuiltinCode = min(code, 127)
        oc.customCode = custom
        oc.version = version
        self.model.operatorCodes.append(oc)
        return len(self.model.operatorCodes) - 1

    def op(self, op, inputs, outputs, options=None, options_type=None, custom_options=None,
           version=1, options2=None):
        """op: builtin name ("CONV_2D") or custom code (bytes). options: a schema
        *OptionsT object; its BuiltinOptions member is taken from the class name
        unless options_type is given. options2: the StableHLO ops' options
        (builtin_options_2), its BuiltinOptions2 member from the class name."""
        o = schema.OperatorT()
        o.opcodeIndex = self._opcode(op, version)
        o.inputs = list(inputs)
        o.outputs = list(outputs)
        if options is not None:
            name = options_type or type(options).__name__[:-1]  # "Conv2DOptionsT" -> "Conv2DOptions"
            o.builtinOptionsType = getattr(schema.BuiltinOptions, name)
            o.builtinOptions = options
        if options2 is not None:
            o.builtinOptions2Type = getattr(schema.BuiltinOptions2, type(options2).__name__[:-1])
            o.builtinOptions2 = options2
        if custom_options is not None:
            o.customOptions = np.frombuffer(bytes(custom_options), dtype=np.uint8)
        self.sg.operators.append(o)

    def finish(self):
        builder = flatbuffers.Builder(1024)
        builder.Finish(self.model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())
