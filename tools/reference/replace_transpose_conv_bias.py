#!/usr/bin/env python3
"""Rewrites MediaPipe's Convolution2DTransposeBias custom op into a builtin
TRANSPOSE_CONV, so that stock LiteRT can run the model.

Usage:
    python3 tools/reference/replace_transpose_conv_bias.py --model IN.tflite --out OUT.tflite
    python3 tools/reference/replace_transpose_conv_bias.py --self-test

--self-test builds small models holding the custom op (several kernels,
strides, paddings, odd sizes), rewrites them, runs LiteRT on the rewrite and
compares with a direct NumPy transcription of MediaPipe's loop.

The output is a rewritten copy for making references only; it is never
committed (make_all.py writes it to a temporary directory).

What the custom op is (read from the model bytes and MediaPipe's kernel,
mediapipe/util/tflite/operations/transpose_conv_bias.cc):
  inputs   0: input  [N, H, W, I] float32
           1: weights [O, KH, KW, I] float32 (OHWI, the layout TRANSPOSE_CONV uses)
           2: bias   [O] float32
  output   0: [N, OH, OW, O]
  custom_options: the raw C struct TfLiteTransposeConvParams, 12 bytes, little
           endian: int32 padding (TfLitePadding: 0 unknown, 1 SAME, 2 VALID; NOT
           the schema's Padding enum, where SAME = 0), int32 stride_width,
           int32 stride_height. selfie_segmentation.tflite has 01 00 00 00
           02 00 00 00 02 00 00 00: SAME, stride 2 x 2.
  shape:   SAME: total_pad = max(0, K - (in - 1) % stride - 1), VALID: 0;
           out = stride * (in - 1) + K - total_pad; the leading pad is
           total_pad / 2 (floor). Output starts at the bias and accumulates
           input * weight like TFLite's reference TransposeConv.

The replacement: TRANSPOSE_CONV (version 3) with inputs
  [output_shape (new int32[4] constant), weights, input, bias]
and TransposeConvOptions{padding, stride_w, stride_h, activation NONE}. The
schema padding is chosen so that TFLite's own padding rule for TRANSPOSE_CONV
(ComputePadding on the explicit output size) gives MediaPipe's leading pad; the
script refuses when no schema padding does.
"""

import argparse
import os
import struct
import sys

import flatbuffers
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reflib  # noqa: E402

try:
    from ai_edge_litert import schema_py_generated as schema
except ImportError:  # the same generated module, shipped with TensorFlow
    from tensorflow.lite.python import schema_py_generated as schema

CUSTOM_CODE = b"Convolution2DTransposeBias"
TFLITE_PADDING_SAME = 1   # TfLitePadding in the custom options
TFLITE_PADDING_VALID = 2


def mediapipe_geometry(padding, stride, in_size, kernel):
    """(output size, leading pad) of the custom op along one axis."""
    total = 0
    if padding == TFLITE_PADDING_SAME:
        total = max(0, kernel - (in_size - 1) % stride - 1)
    out = stride * (in_size - 1) + kernel - total
    return out, total // 2


def tflite_transpose_conv_pad(schema_padding, stride, out_size, kernel):
    """Leading pad TFLite's TRANSPOSE_CONV uses for an explicit output size."""
    if schema_padding == schema.Padding.SAME:
        computed = (out_size + stride - 1) // stride
    else:
        computed = (out_size + stride - kernel) // stride
    return max(0, ((computed - 1) * stride + kernel - out_size) // 2)


def parse_custom_options(op, where):
    raw = bytes(op.customOptions) if op.customOptions is not None else b""
    if len(raw) < 12:
        reflib.die(f"{where}: custom_options has {len(raw)} bytes, expected >= 12")
    padding, stride_w, stride_h = struct.unpack("<iii", raw[:12])
    if padding not in (TFLITE_PADDING_SAME, TFLITE_PADDING_VALID):
        reflib.die(f"{where}: padding {padding} is neither SAME (1) nor VALID (2)")
    if stride_w <= 0 or stride_h <= 0:
        reflib.die(f"{where}: bad strides {stride_w}x{stride_h}")
    return padding, stride_w, stride_h


def opcode_index(model, builtin, version):
    for i, oc in enumerate(model.operatorCodes):
        code = max(oc.builtinCode, oc.deprecatedBuiltinCode)
        if code == builtin and oc.customCode is None:
            oc.version = max(oc.version, version)
            return i
    oc = schema.OperatorCodeT()
    oc.builtinCode = builtin
    oc.deprecatedBuiltinCode = min(builtin, 127)
    oc.version = version
    model.operatorCodes.append(oc)
    return len(model.operatorCodes) - 1


def rewrite(model, check_output_shape=True):
    """Rewrites every Convolution2DTransposeBias in place; returns how many.
    check_output_shape=False accepts a placeholder output shape (LiteRT sets it)."""
    custom = {i for i, oc in enumerate(model.operatorCodes)
              if oc.customCode is not None and bytes(oc.customCode) == CUSTOM_CODE}
    if not custom:
        return 0
    tconv = opcode_index(model, schema.BuiltinOperator.TRANSPOSE_CONV, 3)
    count = 0
    for s, sg in enumerate(model.subgraphs):
        for k, op in enumerate(sg.operators):
            if op.opcodeIndex not in custom:
                continue
            where = f"subgraph {s} node {k} (Convolution2DTransposeBias)"
            if len(op.inputs) != 3 or len(op.outputs) != 1:
                reflib.die(f"{where}: expected 3 inputs and 1 output")
            padding, stride_w, stride_h = parse_custom_options(op, where)
            x, w, b = (sg.tensors[int(t)] for t in op.inputs)
            y = sg.tensors[int(op.outputs[0])]
            if len(x.shape) != 4 or len(w.shape) != 4 or len(b.shape) != 1:
                reflib.die(f"{where}: expected input/weights rank 4 and bias rank 1")
            n, in_h, in_w, in_c = (int(v) for v in x.shape)
            out_c, k_h, k_w, w_c = (int(v) for v in w.shape)
            if w_c != in_c or int(b.shape[0]) != out_c:
                reflib.die(f"{where}: weights {list(w.shape)} / bias {list(b.shape)} do not "
                           f"match input channels {in_c}")
            out_h, pad_top = mediapipe_geometry(padding, stride_h, in_h, k_h)
            out_w, pad_left = mediapipe_geometry(padding, stride_w, in_w, k_w)
            out_shape = [n, out_h, out_w, out_c]
            if (check_output_shape and y.shape is not None and len(y.shape) and
                    [int(v) for v in y.shape] != out_shape):
                reflib.die(f"{where}: output tensor has shape {list(y.shape)}, "
                           f"the op computes {out_shape}")
            chosen = None
            for cand in (schema.Padding.SAME, schema.Padding.VALID):
                if (tflite_transpose_conv_pad(cand, stride_h, out_h, k_h) == pad_top and
                        tflite_transpose_conv_pad(cand, stride_w, out_w, k_w) == pad_left):
                    chosen = cand
                    break
            if chosen is None:
                reflib.die(f"{where}: no TRANSPOSE_CONV padding gives the leading pad "
                           f"{pad_top}x{pad_left}")

            buf = schema.BufferT()
            buf.data = np.array(out_shape, dtype="<i4").view(np.uint8)
            model.buffers.append(buf)
            shape_t = schema.TensorT()
            shape_t.shape = np.array([4], dtype=np.int32)
            shape_t.type = schema.TensorType.INT32
            shape_t.buffer = len(model.buffers) - 1
            shape_t.name = (y.name or b"tconv") + b"/output_shape"
            sg.tensors.append(shape_t)

            opts = schema.TransposeConvOptionsT()
            opts.padding = chosen
            opts.strideW = stride_w
            opts.strideH = stride_h
            opts.fusedActivationFunction = schema.ActivationFunctionType.NONE
            op.opcodeIndex = tconv
            op.inputs = [len(sg.tensors) - 1, int(op.inputs[1]), int(op.inputs[0]),
                         int(op.inputs[2])]
            op.builtinOptionsType = schema.BuiltinOptions.TransposeConvOptions
            op.builtinOptions = opts
            op.customOptions = None
            op.customOptionsFormat = 0
            count += 1
            print(f"{where}: -> TRANSPOSE_CONV padding "
                  f"{'SAME' if chosen == schema.Padding.SAME else 'VALID'} stride "
                  f"{stride_w}x{stride_h} output {out_shape}", file=sys.stderr)
    return count


def rewrite_file(in_path, out_path):
    with open(in_path, "rb") as f:
        model = schema.ModelT.InitFromPackedBuf(f.read(), 0)
    count = rewrite(model)
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with open(out_path, "wb") as f:
        f.write(builder.Output())
    return count


def mediapipe_reference(x, w, b, padding, stride_w, stride_h):
    """MediaPipe's Convolution2DTransposeBias, written out in NumPy (float64)."""
    n, in_h, in_w, _ = x.shape
    out_c, k_h, k_w, _ = w.shape
    out_h, pad_top = mediapipe_geometry(padding, stride_h, in_h, k_h)
    out_w, pad_left = mediapipe_geometry(padding, stride_w, in_w, k_w)
    y = np.zeros((n, out_h, out_w, out_c)) + b.astype(np.float64)
    for iy in range(in_h):
        for ix in range(in_w):
            for fy in range(k_h):
                for fx in range(k_w):
                    oy, ox = iy * stride_h - pad_top + fy, ix * stride_w - pad_left + fx
                    if 0 <= oy < out_h and 0 <= ox < out_w:
                        y[:, oy, ox, :] += x[:, iy, ix, :].astype(np.float64) @ \
                            w[:, fy, fx, :].astype(np.float64).T
    return y


def custom_op_model(x_shape, w, b, padding, stride_w, stride_h):
    """A one-node model: input -> Convolution2DTransposeBias(weights, bias)."""
    from tflite_builder import TfliteBuilder
    n, in_h, in_w, _ = x_shape
    out_h, _ = mediapipe_geometry(padding, stride_h, in_h, w.shape[1])
    out_w, _ = mediapipe_geometry(padding, stride_w, in_w, w.shape[2])
    tb = TfliteBuilder()
    x = tb.input("input", x_shape)
    wt = tb.const("weights", w)
    bt = tb.const("bias", b)
    y = tb.tensor("output", [n, out_h, out_w, w.shape[0]])
    tb.op(CUSTOM_CODE, [x, wt, bt], [y],
          custom_options=struct.pack("<iii", padding, stride_w, stride_h))
    tb.output(y)
    return tb.finish()


def self_test():
    cases = [  # (input NHWC, out channels, kernel h, w, padding, stride w, h)
        ((1, 4, 4, 3), 2, 2, 2, TFLITE_PADDING_SAME, 2, 2),
        ((1, 5, 4, 3), 5, 3, 3, TFLITE_PADDING_SAME, 2, 2),
        ((1, 4, 5, 6), 1, 3, 2, TFLITE_PADDING_SAME, 1, 2),
        ((2, 3, 3, 4), 3, 3, 3, TFLITE_PADDING_VALID, 2, 2),
        ((1, 3, 4, 2), 4, 4, 4, TFLITE_PADDING_SAME, 3, 3),
    ]
    worst = 0.0
    for c, (shape, oc, kh, kw, pad, sw, sh) in enumerate(cases):
        w = reflib.uniform_pm1(1, 2 * c, (oc, kh, kw, shape[3]))
        b = reflib.uniform_pm1(1, 2 * c + 1, (oc,))
        x = reflib.uniform_pm1(2, c, shape)
        model = schema.ModelT.InitFromPackedBuf(custom_op_model(shape, w, b, pad, sw, sh), 0)
        if rewrite(model) != 1:
            reflib.die(f"self-test case {c}: the op was not rewritten")
        fb = flatbuffers.Builder(1024)
        fb.Finish(model.Pack(fb), file_identifier=b"TFL3")
        it = reflib.make_interpreter(model_content=bytes(fb.Output()))
        got = reflib.run_litert(it, [x])[0]
        want = mediapipe_reference(x, w, b, pad, sw, sh)
        if got.shape != want.shape:
            reflib.die(f"self-test case {c}: shape {got.shape} != {want.shape}")
        err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
        worst = max(worst, err)
        print(f"self-test case {c} {shape} k{kh}x{kw} s{sw}x{sh} pad {pad}: rel err {err:.2e}")
        if err > 1e-6:
            reflib.die(f"self-test case {c}: relative error {err} > 1e-6")
    print(f"self-test passed ({len(cases)} cases, worst {worst:.2e})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model")
    p.add_argument("--out")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        self_test()
        return
    if not a.model or not a.out:
        p.error("--model and --out are required (or --self-test)")
    count = rewrite_file(a.model, a.out)
    if count == 0:
        reflib.die(f"{a.model}: no Convolution2DTransposeBias op found")
    print(f"rewrote {count} op(s) into {a.out}")


if __name__ == "__main__":
    main()
