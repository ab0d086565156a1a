#!/usr/bin/env python3
"""A sweep over models that TensorFlow's converter makes from ordinary Keras
and tf.function code, the way a new user's models arrive: does each one load,
where does it run, and does it match LiteRT.

Not a test and not in CI (it needs TensorFlow and minutes of conversion); a
tool for finding what unseen converter models need. Two steps:

    # 1. convert (TensorFlow 2.21 + tf_keras venv, see README.md), seeded
    ~/venv-tf/bin/python tools/reference/converter_sweep.py make --out /tmp/sweep [--only NAME ...]
    # 2. check each model with the built tools (a venv with ai-edge-litert)
    python3 tools/reference/converter_sweep.py check --out /tmp/sweep [--markdown] [--time]

Besides the float models, `make` writes full-int8 conversions (seeded
representative dataset of 8 uniform [-1, 1) inputs): `<name>_int8` (int8
input and output) for a few of the models above, and for the `q_*` models
(MobileNetV3 Small/Large, EfficientNetB0, ResNet50, a DenseNet-style
network, a BERT-like encoder, a Conv1D text model, a tf_keras LSTM) also
`<name>_int8_float_io` (int8 inside, float32 input and output).

`check` runs `gld_inspect --backend=gl --summary` (placement: nodes on the GPU
and segments) and `tools/compare_litert.py --backends=cpu,gl --num_runs=2`
(the largest output difference of each backend from LiteRT, relative to the
output's largest magnitude; for integer outputs the share of the CPU
backend's values equal to LiteRT's default kernels' and the largest
difference in steps) and prints one row per model; a model that fails to
load shows the error. `--time` adds the CPU backend's median over LiteRT's
(`compare_litert.py --backends=cpu --threads=1 --num_runs=50 --rounds=2`). Keras applications are built with weights=None
(seeded random weights, nothing downloaded) at small input sizes.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# ------------------------------------------------------------------ models
# Each maker returns a Keras model or a tf.Module with a tf.function `serve`.

def _sequential(keras):
    """seq(input shape, *layers): a batch-1 model of the layers in a row."""
    def seq(shape, *layers):
        x = keras.Input(shape, batch_size=1)
        y = x
        for layer in layers:
            y = layer(y)
        return keras.Model(x, y)
    return seq


def _layers_models(tf):
    keras = tf.keras
    L = keras.layers

    seq = _sequential(keras)

    def text_cnn():
        x = keras.Input((24,), batch_size=1, dtype="int32")
        y = L.Conv1D(32, 3, activation="relu")(L.Embedding(300, 16)(x))
        return keras.Model(x, L.Dense(3, activation="softmax")(L.GlobalMaxPooling1D()(y)))

    def text_avg():
        x = keras.Input((24,), batch_size=1, dtype="int32")
        y = L.Dense(8, activation="relu")(L.GlobalAveragePooling1D()(L.Embedding(300, 16)(x)))
        return keras.Model(x, L.Dense(1, activation="sigmoid")(y))

    def resblock():
        x = keras.Input((24, 24, 8), batch_size=1)
        y = L.ReLU()(L.BatchNormalization()(L.Conv2D(8, 3, padding="same")(x)))
        y = L.BatchNormalization()(L.Conv2D(8, 3, padding="same")(y))
        y = L.Activation("relu")(L.Add()([x, y]))
        return keras.Model(x, L.Dense(5)(L.GlobalAveragePooling2D()(y)))

    def multi_io():
        a = keras.Input((10,), batch_size=1, name="a")
        b = keras.Input((6, 6, 2), batch_size=1, name="b")
        h = L.Concatenate()([L.Dense(8)(a), L.Flatten()(L.Conv2D(2, 3)(b))])
        return keras.Model([a, b], [L.Dense(2, name="o1")(h), L.Dense(3, activation="softmax", name="o2")(h)])

    def keras_mha():
        x = keras.Input((12, 16), batch_size=1)
        y = L.LayerNormalization()(x + L.MultiHeadAttention(num_heads=2, key_dim=8)(x, x))
        y = L.LayerNormalization()(L.Dense(16)(L.Dense(32, activation="gelu")(y)))
        return keras.Model(x, y)

    def dot_attention():
        q = keras.Input((8, 16), batch_size=1)
        k = keras.Input((10, 16), batch_size=1)
        return keras.Model([q, k], L.Attention()([q, k]))

    def masked_lstm():
        x = keras.Input((12,), batch_size=1, dtype="int32")
        y = L.LSTM(6)(L.Embedding(50, 8, mask_zero=True)(x))
        return keras.Model(x, L.Dense(2)(y))

    def var_len_transformer():
        x = keras.Input((None, 8), batch_size=1)
        pos = L.Lambda(lambda t: tf.range(tf.shape(t)[1]))(x)
        y = x + L.Embedding(64, 8)(pos)
        return keras.Model(x, L.Dense(3)(L.MultiHeadAttention(2, 4)(y, y)))

    def var_len_gru():
        x = keras.Input((None, 8), batch_size=1)
        return keras.Model(x, L.GRU(6)(x))

    def groupnorm():
        x = keras.Input((8, 8, 8), batch_size=1)
        return keras.Model(x, L.GroupNormalization(groups=4)(L.Conv2D(8, 3, padding="same")(x)))

    def stft():
        class Stft(L.Layer):
            def call(self, t):
                return tf.math.log(tf.abs(tf.signal.stft(t, frame_length=64, frame_step=32)) + 1e-6)
        x = keras.Input((256,), batch_size=1)
        return keras.Model(x, Stft()(x))

    return {
        "text_cnn": text_cnn,
        "text_avg": text_avg,
        "resblock": resblock,
        "sepconv": lambda: seq((20, 20, 8), L.SeparableConv2D(16, 3, padding="same", activation="relu"),
                               L.DepthwiseConv2D(3, depth_multiplier=2, strides=2), L.LeakyReLU(0.1),
                               L.Flatten(), L.Dense(4)),
        "decoder": lambda: seq((64,), L.Dense(128, activation="elu"), L.Reshape((4, 4, 8)),
                               L.Conv2DTranspose(4, 3, strides=2, padding="same", activation="swish"),
                               L.Conv2D(1, 3, padding="same", activation="hard_sigmoid")),
        "bigru": lambda: seq((10, 6), L.TimeDistributed(L.Dense(12, activation="softplus")),
                             L.Bidirectional(L.GRU(8, return_sequences=True)), L.GlobalAveragePooling1D(),
                             L.Dense(2)),
        "wavenet": lambda: seq((40, 4), L.Conv1D(8, 3, padding="causal", dilation_rate=2, activation="tanh"),
                               L.Conv1D(8, 3, padding="causal", dilation_rate=4), L.PReLU(), L.Conv1D(1, 1)),
        "prepro": lambda: seq((16, 16, 3), L.Rescaling(1 / 127.5, offset=-1), L.ZeroPadding2D(2), L.Conv2D(4, 3),
                              L.Cropping2D(1), L.Permute((2, 1, 3)), L.AveragePooling2D(3, strides=2),
                              L.Flatten(), L.Dense(3)),
        "repeat_lstm": lambda: seq((8,), L.RepeatVector(5), L.LSTM(6, return_sequences=True), L.Dense(3)),
        "multi_io": multi_io,
        "keras_mha": keras_mha,
        "dot_attention": dot_attention,
        "mnist": lambda: seq((28, 28, 1), L.Conv2D(8, 3, activation="relu"), L.MaxPooling2D(), L.Dropout(0.2),
                             L.Conv2D(16, 3, activation="relu"), L.GlobalMaxPooling2D(),
                             L.Dense(10, activation="softmax")),
        "conv3d": lambda: seq((6, 6, 6, 2), L.Conv3D(4, 3, activation="relu"), L.GlobalAveragePooling3D(),
                              L.Dense(2)),
        "tabular": lambda: seq((16,), L.Dense(32), L.BatchNormalization(), L.Activation("selu"),
                               L.Dense(8, activation="mish"), L.Dense(1)),
        "var_len_gru": var_len_gru,
        "masked_lstm": masked_lstm,
        "var_len_transformer": var_len_transformer,
        "convlstm": lambda: seq((4, 10, 10, 2), L.ConvLSTM2D(4, 3, padding="same")),
        "groupnorm": groupnorm,
        "conv1d_transpose": lambda: seq((10, 4), L.UpSampling1D(2), L.Conv1DTranspose(3, 3, strides=2)),
        "stft": stft,
        "discretize": lambda: seq((5,), L.Discretization(bin_boundaries=[-0.5, 0.0, 0.5])),
        "resize_crop": lambda: seq((20, 20, 3), L.Resizing(24, 24), L.CenterCrop(12, 12)),
    }


def _function_models(tf):
    class TfOps(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 6, 10], tf.float32)])
        def serve(self, x):
            v, i = tf.math.top_k(x, k=3)
            parts = tf.unstack(x, axis=1)
            return {"argmax": tf.argmax(x, axis=-1), "topv": v, "topi": i, "cumsum": tf.math.cumsum(x, axis=1),
                    "l2": tf.math.l2_normalize(x, axis=-1), "stack": tf.stack(parts[::-1], axis=1),
                    "tile": tf.tile(x[:, :2, :], [1, 2, 1]), "prod": tf.reduce_prod(x, axis=1),
                    "where": tf.where(x > 0, x, tf.zeros_like(x) - 1.0), "einsum": tf.einsum("bij,bkj->bik", x, x)}

    class ImageOps(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 4], tf.float32)])
        def serve(self, x):
            return {"d2s": tf.nn.depth_to_space(x, 2), "bilinear": tf.image.resize(x, [12, 12], method="bilinear"),
                    "nearest": tf.image.resize(x, [16, 16], method="nearest"), "s2d": tf.nn.space_to_depth(x, 2),
                    "max": tf.reduce_max(x, axis=[1, 2]), "min": tf.reduce_min(x, axis=3, keepdims=True),
                    "gather": tf.gather(x, [3, 1], axis=3),
                    "onehot": tf.one_hot(tf.cast(tf.argmax(x, -1), tf.int32), 4),
                    "sum": tf.squeeze(tf.reduce_sum(x, axis=[1, 2], keepdims=True), [1, 2])}

    class Dynamic(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 10], tf.float32)])
        def serve(self, x):
            return {"nz": tf.cast(tf.where(x > 0.2), tf.int32), "mask": tf.boolean_mask(x, x > 0.2)}

    class Nms(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([10, 4], tf.float32), tf.TensorSpec([10], tf.float32)])
        def serve(self, b, s):
            return {"sel": tf.gather(b, tf.image.non_max_suppression(b, s, 5, 0.5, 0.1))}

    class Scatter(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 8, 4], tf.float32), tf.TensorSpec([1, 1, 4], tf.float32),
                                      tf.TensorSpec([], tf.int32)])
        def serve(self, cache, x, i):
            c = tf.tensor_scatter_nd_update(cache, [[0, i]], x[0])
            return {"c": c, "any": tf.reduce_any(c > 0.5, axis=-1), "all": tf.reduce_all(c > -0.9, axis=-1)}

    return {"tf_ops": TfOps, "image_ops": ImageOps, "tf_dynamic": Dynamic, "nms": Nms, "scatter": Scatter}


def _applications(tf):
    A = tf.keras.applications
    return {
        "app_mobilenet_v3_small": lambda: A.MobileNetV3Small(input_shape=(96, 96, 3), weights=None, classes=10),
        "app_mobilenet_v3_large": lambda: A.MobileNetV3Large(input_shape=(96, 96, 3), weights=None, classes=10,
                                                             minimalistic=True),
        "app_efficientnet_b0": lambda: A.EfficientNetB0(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_efficientnet_v2_b0": lambda: A.EfficientNetV2B0(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_resnet50": lambda: A.ResNet50(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_densenet121": lambda: A.DenseNet121(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_convnext_tiny": lambda: A.ConvNeXtTiny(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_nasnet_mobile": lambda: A.NASNetMobile(input_shape=(64, 64, 3), weights=None, classes=10),
        "app_xception": lambda: A.Xception(input_shape=(71, 71, 3), weights=None, classes=10),
        "app_inception_v3": lambda: A.InceptionV3(input_shape=(75, 75, 3), weights=None, classes=10),
    }


def _int8_models(tf):
    """Models made only as full-int8 conversions: the op mixes that int8
    models of ordinary Keras code bring (hard-swish and squeeze-excite MUL,
    swish/logistic, residual ADD and MAX_POOL, CONCATENATION, attention,
    Conv1D, recurrent layers)."""
    keras = tf.keras
    L = keras.layers
    A = keras.applications

    def densenet_mini():
        # DenseNet-style: each layer's output concatenated onto its input.
        x = keras.Input((64, 64, 3), batch_size=1)
        y = L.MaxPooling2D(3, strides=2, padding="same")(L.ReLU()(L.Conv2D(16, 3, strides=2, padding="same")(x)))
        for block in range(2):
            for _ in range(3):
                h = L.ReLU()(L.BatchNormalization()(y))
                h = L.Conv2D(8, 3, padding="same")(L.ReLU()(L.Conv2D(16, 1)(h)))
                y = L.Concatenate()([y, h])
            if block == 0:
                y = L.AveragePooling2D(2)(L.Conv2D(24, 1)(y))
        return keras.Model(x, L.Dense(10, activation="softmax")(L.GlobalAveragePooling2D()(y)))

    def bert_encoder():
        # Two post-norm encoder layers over a 16-token, 32-wide sequence.
        x = keras.Input((16, 32), batch_size=1)
        y = x
        for _ in range(2):
            y = L.LayerNormalization()(y + L.MultiHeadAttention(num_heads=4, key_dim=8)(y, y))
            y = L.LayerNormalization()(y + L.Dense(32)(L.Dense(64, activation="gelu")(y)))
        return keras.Model(x, L.Dense(4)(L.GlobalAveragePooling1D()(y)))

    seq = _sequential(keras)

    def lstm():
        import tf_keras
        tf_keras.utils.set_random_seed(1)
        x = tf_keras.Input((12, 8), batch_size=1)
        y = tf_keras.layers.LSTM(8)(tf_keras.layers.LSTM(16, return_sequences=True)(x))
        return tf_keras.Model(x, tf_keras.layers.Dense(3)(y))

    return {
        "q_mobilenet_v3_small": lambda: A.MobileNetV3Small(input_shape=(96, 96, 3), weights=None, classes=10),
        "q_mobilenet_v3_large": lambda: A.MobileNetV3Large(input_shape=(96, 96, 3), weights=None, classes=10),
        "q_efficientnet_b0": lambda: A.EfficientNetB0(input_shape=(96, 96, 3), weights=None, classes=10),
        "q_resnet50": lambda: A.ResNet50(input_shape=(64, 64, 3), weights=None, classes=10),
        "q_densenet_mini": densenet_mini,
        "q_bert_encoder": bert_encoder,
        "q_conv1d_text": lambda: seq((64, 16), L.Conv1D(32, 5, padding="same", activation="relu"),
                                     L.MaxPooling1D(2), L.Conv1D(32, 3, dilation_rate=2, activation="relu"),
                                     L.GlobalAveragePooling1D(), L.Dense(6, activation="softmax")),
        # tf_keras: its LSTM converts to UNIDIRECTIONAL_SEQUENCE_LSTM. Keras 3's
        # LSTM (a WHILE loop) and both Keras' GRU crash TensorFlow 2.21's
        # int8 converter (a segmentation fault), so they are not here.
        "q_lstm": lstm,
    }


# Models converted a second time to full int8 (int8 input and output; with
# "float_io" also int8 inside with float32 input and output).
INT8 = ("resblock", "sepconv", "decoder", "mnist", "prepro", "keras_mha")
INT8_VARIANTS = (("_int8", "int8"), ("_int8_float_io", "float_io"))


def convert(tf, obj, int8):
    if hasattr(obj, "serve"):  # a tf.Module with a tf.function
        conv = tf.lite.TFLiteConverter.from_concrete_functions([obj.serve.get_concrete_function()], obj)
    else:
        conv = tf.lite.TFLiteConverter.from_keras_model(obj)
    if int8:
        import numpy as np
        shapes = [[d or 1 for d in i.shape] for i in obj.inputs]

        def representative():
            rng = np.random.default_rng(0)
            for _ in range(8):
                yield [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = representative
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if int8 == "int8":
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
    return conv.convert()


def make(args):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    makers = {}
    makers.update(_layers_models(tf))
    makers.update({k: (lambda c=c: c()) for k, c in _function_models(tf).items()})
    makers.update(_applications(tf))
    int8_only = _int8_models(tf)
    makers.update(int8_only)
    os.makedirs(args.out, exist_ok=True)
    for name, maker in makers.items():
        if args.only and name not in args.only:
            continue
        variants = [("", False)] if name not in int8_only else []
        variants += INT8_VARIANTS[:1] if name in INT8 else INT8_VARIANTS if name in int8_only else []
        for suffix, int8 in variants:
            label = name + suffix
            try:
                tf.keras.backend.clear_session()
                tf.keras.utils.set_random_seed(1)
                data = convert(tf, maker(), int8)
                with open(os.path.join(args.out, label + ".tflite"), "wb") as f:
                    f.write(data)
                print("made", label, len(data), "bytes", flush=True)
            except Exception as e:  # a model the converter refuses is a finding too
                print("converter failed", label, str(e).splitlines()[0][:200], flush=True)


# ------------------------------------------------------------------- check

def newest_tool(name):
    found = [os.path.join(REPO, d, "tools", name) for d in sorted(os.listdir(REPO)) if d.startswith("build")]
    found = [p for p in found if os.access(p, os.X_OK)]
    return max(found, key=os.path.getmtime) if found else None


def compare_runs(args, bench, path, options):
    """compare_litert.py's runs (its --json) for one model, [] when it wrote none."""
    with tempfile.TemporaryDirectory() as work:
        js = os.path.join(work, "r.json")
        subprocess.run([sys.executable, os.path.join(REPO, "tools", "compare_litert.py"), "--graph=" + path,
                        "--gld_benchmark=" + bench, "--json=" + js] + options,
                       capture_output=True, text=True, timeout=args.timeout)
        if not os.path.exists(js):
            return []
        with open(js) as f:
            return json.load(f)[0]["runs"]


def check(args):
    inspect = args.gld_inspect or newest_tool("gld_inspect")
    bench = args.gld_benchmark or newest_tool("gld_benchmark")
    if not inspect or not bench:
        sys.exit("build gld_inspect and gld_benchmark first (or pass --gld_inspect / --gld_benchmark)")
    models = sorted(f for f in os.listdir(args.out) if f.endswith(".tflite"))
    if args.only:
        models = [m for m in models if m[:-len(".tflite")] in args.only]
    rows = []
    for m in models:
        path = os.path.join(args.out, m)
        p = subprocess.run([inspect, "--graph=" + path, "--backend=gl", "--summary"], capture_output=True, text=True,
                           timeout=args.timeout)
        text = p.stdout + p.stderr
        placement = next((line.split("placement: ", 1)[1] for line in text.splitlines() if "placement: " in line),
                         None)
        if placement is None:
            error = next((line for line in text.splitlines() if "error" in line), text.strip()[-200:])
            rows.append((m[:-7], "does not load: " + error.split("error: ", 1)[-1][:160], "-", "-", "-") +
                        (("-",) if args.time else ()))
            continue
        diffs = {"cpu": "-", "gl": "-"}
        integers, ratio = "-", "-"
        for run in compare_runs(args, bench, path, ["--backends=cpu,gl", "--num_runs=2"]):
            for b in ("cpu", "gl"):
                if run["runtime"] == "gld " + b:
                    d = run.get("max_rel_diff")
                    diffs[b] = run.get("error", "failed")[:80] if d is None else "%.1e" % d
            if run["runtime"] == "gld cpu" and "int_equal" in run:
                integers = "%.2f%% / %d" % (100.0 * run["int_equal"], run["int_max_step"])
        if args.time:
            timed = {r["runtime"]: r.get("inference_median_us") for r in compare_runs(
                args, bench, path, ["--backends=cpu", "--threads=1", "--num_runs=50", "--rounds=2"])}
            if timed.get("LiteRT") and timed.get("gld cpu"):
                ratio = "%.2fx (%.3f / %.3f ms)" % (timed["gld cpu"] / timed["LiteRT"], timed["gld cpu"] / 1000.0,
                                                    timed["LiteRT"] / 1000.0)
        rows.append((m[:-7], placement, diffs["cpu"], diffs["gl"], integers) + ((ratio,) if args.time else ()))
    header = ("model", "GL placement (gld_inspect)", "CPU vs LiteRT", "GL fp32 vs LiteRT",
              "CPU integers equal / max step") + (("CPU median / LiteRT (1 thread)",) if args.time else ())
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|---|---|" + "---:|" * (len(header) - 2))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in [header] + rows:
            print("  ".join(str(c) for c in r))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("make", "check"):
        s = sub.add_parser(name)
        s.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "gld_converter_sweep"))
        s.add_argument("--only", nargs="*", help="model names (without .tflite)")
        if name == "check":
            s.add_argument("--gld_inspect")
            s.add_argument("--gld_benchmark")
            s.add_argument("--timeout", type=int, default=900)
            s.add_argument("--markdown", action="store_true")
            s.add_argument("--time", action="store_true",
                           help="also time the CPU backend against LiteRT (1 thread, 50 runs, 2 rounds)")
    args = p.parse_args()
    make(args) if args.cmd == "make" else check(args)


if __name__ == "__main__":
    main()
