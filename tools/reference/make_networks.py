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
    effnet_lite    EfficientNet-lite-style: 3x3 stem, MBConv blocks (1x1
                   expand, 3x3/5x5 depthwise, 1x1 project, residual ADD when
                   the shape allows; ReLU6; no squeeze-excite), 1x1 head,
                   pooling, Dense(10) + softmax, on 96x96x3; outputs: the
                   probabilities and the head's feature map [1, 6, 6, 128]
Weights come from Keras initializers under keras.utils.set_random_seed; every
BatchNormalization gets random gamma/beta/mean/variance from a seeded NumPy
generator, so the converter folds non-trivial statistics into the convolutions.

Variants: `float32` (plain conversion), `int8` (full-integer quantization,
TFLITE_BUILTINS_INT8, int8 input and output; the representative dataset is 16
seeded splitmix64 images), `uint8` (the same with uint8 input and output,
effnet_lite only). The input is the splitmix64_pm1 image of reflib.py (seed 0,
stream 0); for an integer model that image quantized with the input's scale and
zero point (round half away from zero, clamped), stored as input_0.npy.
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


NETWORKS = {
    "mobilenet_v2": (build_mobilenet_v2, ["float32", "int8"]),
    "effnet_lite": (build_effnet_lite, ["float32", "int8", "uint8"]),
}


def build(name, seed):
    import tensorflow as tf
    tf.keras.backend.clear_session()  # layer and tensor names restart for every network
    tf.keras.utils.set_random_seed(seed)
    model = NETWORKS[name][0]()
    randomize_batchnorm(model, seed + 1)
    return model


def representative_dataset():
    for k in range(REPRESENTATIVE_IMAGES):
        yield [reflib.uniform_pm1(REPRESENTATIVE_SEED + k, 0, (1,) + INPUT_SHAPE)]


def convert(model, variant):
    import tensorflow as tf
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    if variant != "float32":
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = representative_dataset
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        io_type = tf.int8 if variant == "int8" else tf.uint8
        conv.inference_input_type = io_type
        conv.inference_output_type = io_type
    return conv.convert()


def quantize_input(image, detail):
    scale, zero_point = detail["quantization"]
    dtype = np.dtype(detail["dtype"])
    info = np.iinfo(dtype)
    q = image.astype(np.float64) / scale
    q = np.sign(q) * np.floor(np.abs(q) + 0.5) + zero_point  # half away from zero, as TFLite
    return np.clip(q, info.min, info.max).astype(dtype)


def make(name, variant, out_root, seed=0):
    model = build(name, seed)
    tflite = convert(model, variant)
    out_dir = os.path.join(out_root, f"{name}_{variant}")
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    model_path = os.path.join(out_dir, "model.tflite")
    with open(model_path, "wb") as f:
        f.write(tflite)
    it = reflib.make_interpreter(model_content=tflite)
    detail = it.get_input_details()[0]
    image = reflib.uniform_pm1(seed, 0, tuple(int(s) for s in detail["shape"]))
    inputs = None if variant == "float32" else [quantize_input(image, detail)]
    out_details = it.get_output_details()
    manifest = make_reference.generate(model_path, out_dir, seed=seed, model_name="model.tflite",
                                       inputs=inputs,
                                       extra={"network": name, "variant": variant,
                                              "input_quantization": list(detail["quantization"]),
                                              "output_quantization": [list(d["quantization"])
                                                                      for d in out_details]})
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
