#!/usr/bin/env python3
"""Whole-network references: small MobileNetV2 and EfficientNet-lite-style
networks with seeded random weights, converted float32 and full-integer.

Usage:
    python3 tools/reference/make_networks.py [--out DIR] [--only NAME ...] [--list]

--out defaults to tests/data/networks in the repo. Each network is a folder
tests/data/networks/<name>/ holding
    model.tflite     the converted model
    input_0.npy      the input when it is integer (always) or at most 64 KiB
    input_0_head.npy the first 256 values of a float input that is not stored
    output_<i>.npy   LiteRT's outputs (resolver BUILTIN_REF: reference kernels)
    manifest.json    as make_reference.py writes it, plus "network", "variant"
                     and the quantization of the input and output

The networks:
    mobilenet_v2   keras.applications.MobileNetV2(alpha=0.35, weights=None) on
                   96x96x3, cut after block 12 (the last 96-channel block) to
                   keep the files small, then global average pooling and a
                   10-way Dense; outputs: the logits and block 12's feature
                   map [1, 6, 6, 32]
    se_swish       EfficientNet-B0 / MobileNetV3-style: swish and hard-swish,
                   squeeze-excite gates, residual ADD (int8 variants only)
    effnet_lite    EfficientNet-lite-style: 3x3 stem, MBConv blocks (1x1
                   expand, 3x3/5x5 depthwise, 1x1 project, residual ADD when
                   the shape allows; ReLU6; no squeeze-excite), 1x1 head,
                   pooling, Dense(10) + softmax, on 96x96x3; outputs: the
                   probabilities and the head's feature map [1, 6, 6, 128]
    the families of keras_networks.py: sequence and stateful models
                   (lstm_keras3, lstm_fused, bilstm, conv_lstm, gru, simple_rnn,
                   streaming, cond, kws, dynamic_batch) and transformers
                   (vit_tiny, deit_tiny, bert_tiny, whisper_block,
                   transformer_block); each builder's docstring says what it is
Weights come from Keras initializers under keras.utils.set_random_seed (both
Keras 3 and tf_keras); every BatchNormalization gets random
gamma/beta/mean/variance from a seeded NumPy generator, so the converter folds
non-trivial statistics into the convolutions.

Variants: `float32` (plain conversion), `int8` (full-integer quantization,
TFLITE_BUILTINS_INT8, int8 input and output; the representative dataset is 16
seeded inputs of the builder's own rule), `uint8` (the same with uint8 input
and output), `int8_float_io` (full-integer inside, float32 input and output),
`int16x8` (16-bit activations, 8-bit weights, float32 I/O), `dynamic_range`
(int8 weights, float activations). The input is the builder's rule at seed 0
(images: the splitmix64_pm1 image of reflib.py, stream 0); for an integer
input that value quantized with the input's scale and zero point (round half
away from zero, clamped), stored as input_<i>.npy.

Beyond make_reference.py's manifest:
    shape_signatures   each input's shape_signature as LiteRT reports it
    outputs_default    quantized variants: output_<i>_default.npy, LiteRT's
                       default kernels (resolver BUILTIN, XNNPACK) on the same
                       inputs, besides the reference kernels' output_<i>.npy
    steps              models with state or a resize: further invokes on the
                       same interpreter, in order — {"seed", "resize" (input
                       shapes set before the invoke, or null), "inputs",
                       "outputs": step<k>_{input,output}_<i>.npy}
Needs TensorFlow and tf_keras (tools/reference/README.md: its own venv).
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_networks  # noqa: E402
import make_reference  # noqa: E402
import reflib  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INPUT_SHAPE = (96, 96, 3)
CLASSES = 10
REPRESENTATIVE_IMAGES = 16
REPRESENTATIVE_SEED = 1000  # seeds 1000.. for the calibration images; 0 is the test input


def randomize_batchnorm(model, seed):
    import tensorflow as tf
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            n = gamma.shape[0]
            layer.set_weights([
                rng.uniform(0.5, 1.5, n).astype(np.float32),
                rng.uniform(-0.3, 0.3, n).astype(np.float32),
                rng.uniform(-0.3, 0.3, n).astype(np.float32),
                rng.uniform(0.5, 2.0, n).astype(np.float32),
            ])


def build_mobilenet_v2():
    import tensorflow as tf
    image = tf.keras.Input(shape=INPUT_SHAPE, batch_size=1, name="image")
    base = tf.keras.applications.MobileNetV2(input_tensor=image, alpha=0.35, include_top=False, weights=None)
    features = base.get_layer("block_12_add").output
    x = tf.keras.layers.GlobalAveragePooling2D()(features)
    x = tf.keras.layers.Dense(CLASSES)(x)
    return tf.keras.Model(image, {"logits": x, "features": features}, name="mobilenet_v2")


# (expand ratio, kernel, stride, output channels, repeats)
EFFNET_LITE_BLOCKS = [
    (1, 3, 1, 8, 1),
    (6, 3, 2, 12, 2),
    (6, 5, 2, 20, 2),
    (6, 3, 2, 36, 2),
    (6, 5, 1, 44, 1),
]


def build_effnet_lite():
    import tensorflow as tf
    L = tf.keras.layers
    inputs = tf.keras.Input(shape=INPUT_SHAPE, batch_size=1, name="image")
    x = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inputs)
    x = L.BatchNormalization()(x)
    x = L.ReLU(6.0)(x)
    channels = 16
    for expand, kernel, stride, out_channels, repeats in EFFNET_LITE_BLOCKS:
        for r in range(repeats):
            s = stride if r == 0 else 1
            shortcut = x
            y = x
            if expand != 1:
                y = L.Conv2D(channels * expand, 1, use_bias=False)(y)
                y = L.BatchNormalization()(y)
                y = L.ReLU(6.0)(y)
            y = L.DepthwiseConv2D(kernel, strides=s, padding="same", use_bias=False)(y)
            y = L.BatchNormalization()(y)
            y = L.ReLU(6.0)(y)
            y = L.Conv2D(out_channels, 1, use_bias=False)(y)
            y = L.BatchNormalization()(y)
            if s == 1 and channels == out_channels:
                y = L.Add()([shortcut, y])
            x = y
            channels = out_channels
    x = L.Conv2D(128, 1, use_bias=False)(x)
    x = L.BatchNormalization()(x)
    features = L.ReLU(6.0)(x)
    x = L.GlobalAveragePooling2D()(features)
    x = L.Dense(CLASSES)(x)
    x = L.Softmax()(x)
    return tf.keras.Model(inputs, {"probabilities": x, "features": features}, name="effnet_lite")


# (expand ratio, kernel, stride, output channels, activation)
SE_SWISH_BLOCKS = [
    (1, 3, 1, 16, "swish"),
    (4, 3, 2, 24, "swish"),
    (4, 5, 2, 24, "hard_swish"),
    (4, 3, 2, 40, "swish"),
]


def build_se_swish():
    """EfficientNet-B0 / MobileNetV3-style blocks: swish (LOGISTIC and a MUL
    of two activations) and hard-swish, squeeze-excite gates (MEAN, 1x1
    convolutions, sigmoid or hard sigmoid, a MUL broadcast over the pixels),
    residual ADD; on 96x96x3. Outputs: the probabilities and the head's
    feature map [1, 6, 6, 64]."""
    import tensorflow as tf
    L = tf.keras.layers
    inputs = tf.keras.Input(shape=INPUT_SHAPE, batch_size=1, name="image")
    x = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inputs)
    x = L.Activation("swish")(L.BatchNormalization()(x))
    channels = 16
    for expand, kernel, stride, out_channels, act in SE_SWISH_BLOCKS:
        gate = "sigmoid" if act == "swish" else "hard_sigmoid"
        y = x
        if expand != 1:
            y = L.Activation(act)(L.BatchNormalization()(L.Conv2D(channels * expand, 1, use_bias=False)(y)))
        y = L.DepthwiseConv2D(kernel, strides=stride, padding="same", use_bias=False)(y)
        y = L.Activation(act)(L.BatchNormalization()(y))
        width = y.shape[-1]
        se = L.GlobalAveragePooling2D(keepdims=True)(y)
        se = L.Conv2D(max(4, width // 4), 1, activation="relu")(se)
        se = L.Conv2D(width, 1, activation=gate)(se)
        y = L.Multiply()([y, se])
        y = L.BatchNormalization()(L.Conv2D(out_channels, 1, use_bias=False)(y))
        if stride == 1 and channels == out_channels:
            y = L.Add()([x, y])
        x = y
        channels = out_channels
    features = L.Activation("swish")(L.BatchNormalization()(L.Conv2D(64, 1, use_bias=False)(x)))
    x = L.Dense(CLASSES)(L.GlobalAveragePooling2D()(features))
    return tf.keras.Model(inputs, {"probabilities": L.Softmax()(x), "features": features}, name="se_swish")


CNN_INTEGER_VARIANTS = ["int8", "int8_float_io"]
NETWORKS = {
    "mobilenet_v2": (build_mobilenet_v2, ["float32"] + CNN_INTEGER_VARIANTS + ["int16x8", "dynamic_range"]),
    "effnet_lite": (build_effnet_lite, ["float32", "uint8"] + CNN_INTEGER_VARIANTS),
    "se_swish": (build_se_swish, CNN_INTEGER_VARIANTS),
    "transformer_block": (keras_networks.build_int8_transformer, ["float32", "int8"]),
    "unet": (keras_networks.build_unet, ["float32"]),  # int8: TILE version 3, which LiteRT 2.3 does not register
}
for _family, _builder in keras_networks.FAMILIES.items():
    NETWORKS.setdefault(_family, (_builder, ["float32"]))


def build(name, seed):
    """The network as a keras_networks.Built (CNNs: the model and the
    splitmix64 image)."""
    import tensorflow as tf
    import tf_keras
    tf.keras.backend.clear_session()  # layer and tensor names restart for every network
    tf_keras.backend.clear_session()
    tf.keras.utils.set_random_seed(seed)
    tf_keras.utils.set_random_seed(seed)
    built = NETWORKS[name][0]()
    if not isinstance(built, keras_networks.Built):
        built = keras_networks.Built(built, inputs=keras_networks.float_inputs([(1,) + INPUT_SHAPE]))
    if built.model is not None:
        randomize_batchnorm(built.model, seed + 1)
    return built


def convert(built, variant):
    import tensorflow as tf
    if built.model is not None:
        conv = tf.lite.TFLiteConverter.from_keras_model(built.model)
    else:
        fn = built.module.serve.get_concrete_function()
        conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], built.module)
        conv.experimental_enable_resource_variables = True
    if variant == "float32":
        return conv.convert()
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    if variant == "dynamic_range":  # int8 weights, float activations
        return conv.convert()

    def representative_dataset():
        for k in range(REPRESENTATIVE_IMAGES):
            yield built.inputs(REPRESENTATIVE_SEED + k)

    conv.representative_dataset = representative_dataset
    if variant == "int16x8":
        conv.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        return conv.convert()
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if variant in ("int8", "uint8"):
        io_type = tf.int8 if variant == "int8" else tf.uint8
        conv.inference_input_type = io_type
        conv.inference_output_type = io_type
    return conv.convert()


def quantize_input(value, detail):
    """A float input as the model's integer input type wants it; other
    inputs as they are."""
    dtype = np.dtype(detail["dtype"])
    if value.dtype != np.float32 or dtype == np.float32:
        return value
    scale, zero_point = detail["quantization"]
    info = np.iinfo(dtype)
    q = value.astype(np.float64) / scale
    q = np.sign(q) * np.floor(np.abs(q) + 0.5) + zero_point  # half away from zero, as TFLite
    return np.clip(q, info.min, info.max).astype(dtype)


def model_inputs(built, interpreter, seed):
    return [quantize_input(v, d) for v, d in zip(built.inputs(seed), interpreter.get_input_details())]


def record_default_outputs(tflite, inputs, out_dir):
    """LiteRT's default kernels (resolver BUILTIN: XNNPACK where it applies)
    on the same inputs, for integer models: output_<i>_default.npy."""
    it = reflib.make_interpreter(model_content=tflite, resolver="BUILTIN")
    files = []
    for i, v in enumerate(reflib.run_litert(it, inputs)):
        files.append(f"output_{i}_default.npy")
        np.save(os.path.join(out_dir, files[-1]), v)
    return files


def record_steps(built, tflite, first_inputs, out_dir):
    """The extra invokes of `built.steps` on one interpreter after the first
    (state carries over): step<k>_input_<i>.npy, step<k>_output_<i>.npy."""
    it = reflib.make_interpreter(model_content=tflite)
    reflib.run_litert(it, first_inputs)
    steps = []
    for k, (seed, resize) in enumerate(built.steps, start=1):
        if resize is not None:
            for d, shape in zip(it.get_input_details(), resize):
                it.resize_tensor_input(d["index"], shape, strict=True)
            it.allocate_tensors()
        details = it.get_input_details()
        inputs = []
        for v, d in zip(built.inputs(seed), details):
            shape = tuple(int(s) for s in d["shape"])
            if v.shape != shape:  # a resized input: the same rule, the new shape
                v = reflib.uniform_pm1(seed, len(inputs), shape) if v.dtype == np.float32 else np.resize(v, shape)
            inputs.append(quantize_input(v, d))
        outputs = reflib.run_litert(it, inputs)
        entry = {"seed": seed, "resize": resize, "inputs": [], "outputs": []}
        for kind, values in (("input", inputs), ("output", outputs)):
            for i, v in enumerate(values):
                name = f"step{k}_{kind}_{i}.npy"
                np.save(os.path.join(out_dir, name), v)
                entry[kind + "s"].append(name)
        steps.append(entry)
    return steps


def make(name, variant, out_root, seed=0):
    built = build(name, seed)
    tflite = convert(built, variant)
    out_dir = os.path.join(out_root, f"{name}_{variant}")
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    model_path = os.path.join(out_dir, "model.tflite")
    with open(model_path, "wb") as f:
        f.write(tflite)
    it = reflib.make_interpreter(model_content=tflite)
    inputs = model_inputs(built, it, seed)
    in_details, out_details = it.get_input_details(), it.get_output_details()
    extra = {"network": name, "variant": variant,
             "input_quantization": [list(d["quantization"]) for d in in_details],
             "output_quantization": [list(d["quantization"]) for d in out_details],
             "shape_signatures": [[int(s) for s in d["shape_signature"]] for d in in_details]}
    # Stored inputs for all but float CNN images (regenerated by the C++ test).
    stored = None if (name in ("mobilenet_v2", "effnet_lite") and inputs[0].dtype == np.float32) else inputs
    manifest = make_reference.generate(model_path, out_dir, seed=seed, model_name="model.tflite",
                                       inputs=stored, extra=extra)
    if variant != "float32":
        manifest["outputs_default"] = record_default_outputs(tflite, inputs, out_dir)
    if built.steps:
        manifest["steps"] = record_steps(built, tflite, inputs, out_dir)
    reflib.write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(REPO, "tests", "data", "networks"))
    p.add_argument("--only", nargs="*", help="network names or <name>_<variant>")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    reflib.quiet_tensorflow_logs()
    todo = [(n, v) for n, (_, variants) in NETWORKS.items() for v in variants]
    if a.only:
        todo = [(n, v) for n, v in todo if n in a.only or f"{n}_{v}" in a.only]
    if a.list:
        for n, v in todo:
            print(f"{n}_{v}")
        return
    os.makedirs(a.out, exist_ok=True)
    for n, v in todo:
        m = make(n, v, a.out)
        outs = ", ".join(f"{o['name']} {o['shape']} {o['dtype']}" for o in m["outputs"])
        print(f"{n}_{v}: {m['model_bytes']} bytes, outputs {outs}")


if __name__ == "__main__":
    main()
