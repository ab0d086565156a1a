"""The model families of make_networks.py beyond the vision CNNs: sequence and
stateful models, transformers, and their inputs. Nothing here is a command.

Each builder returns a `Built`: either a Keras model (`tf.keras`, which is
Keras 3 in TensorFlow 2.21, or `tf_keras`, Keras 2 — the two convert recurrent
layers differently) or a `tf.Module` with one `tf.function` (models with
resource variables or `tf.cond`, which users write as modules), plus how to
make its inputs and which extra invokes the reference records.

Plain layers only, the way a user writes them: the point is what TensorFlow's
converter emits from ordinary code (WHILE loops from Keras 3 recurrent layers,
UNIDIRECTIONAL_SEQUENCE_LSTM from tf_keras' LSTM, VAR_HANDLE / READ_VARIABLE /
ASSIGN_VARIABLE from tf.Variable, IF from tf.cond, BATCH_MATMUL / GELU /
layer norm from attention blocks, GATHER from embeddings).
"""

import numpy as np

import reflib


class Built:
    """What a builder makes.

    model     a Keras model (keras 3 or tf_keras), or None for a module
    module    a tf.Module with a tf.function `serve` (variables, control flow)
    inputs    f(seed) -> list of input arrays (default: splitmix64 floats)
    steps     list of (seed, resize) extra invokes after the first, run on the
              same interpreter in order (state carries over); resize is None
              or a list of input shapes to resize to before that invoke
    """

    def __init__(self, model=None, module=None, inputs=None, steps=None):
        self.model = model
        self.module = module
        self.inputs = inputs
        self.steps = steps or []


def float_inputs(shapes):
    def make(seed):
        return [reflib.uniform_pm1(seed, i, s) for i, s in enumerate(shapes)]
    return make


# ---------------------------------------------------------------- sequences

SEQ = (16, 8)  # time steps, features


def _seq_model(keras, layer, head=4):
    x = keras.Input(SEQ, batch_size=1, name="sequence")
    y = layer(x)
    y = keras.layers.Dense(head)(y)
    return keras.Model(x, y)


def build_lstm_keras3():
    """Keras 3 LSTM: the converter makes a WHILE loop over 3 subgraphs."""
    import tensorflow as tf
    return Built(_seq_model(tf.keras, tf.keras.layers.LSTM(32)), inputs=float_inputs([(1,) + SEQ]))


def build_lstm_fused():
    """tf_keras (Keras 2) LSTM: UNIDIRECTIONAL_SEQUENCE_LSTM."""
    import tf_keras
    # Its states are variable tensors LiteRT keeps across invokes: the steps
    # check that a second invoke continues from the first one's state.
    return Built(_seq_model(tf_keras, tf_keras.layers.LSTM(32)), inputs=float_inputs([(1,) + SEQ]),
                 steps=[(1, None), (2, None)])


def build_bilstm():
    """tf_keras Bidirectional(LSTM, return_sequences): two sequence LSTMs and
    REVERSE_V2, then a per-step Dense."""
    import tf_keras
    L = tf_keras.layers
    layer = L.Bidirectional(L.LSTM(16, return_sequences=True))
    return Built(_seq_model(tf_keras, layer), inputs=float_inputs([(1,) + SEQ]), steps=[(1, None), (2, None)])


def build_conv_lstm():
    """tf_keras: a recurrent layer between convolutions, as speech and
    time-series models stack them: Conv1D, LSTM returning sequences
    (UNIDIRECTIONAL_SEQUENCE_LSTM), Conv1D, then a per-step Dense. On GL the
    whole model is one segment; the LSTM's states stay in it across invokes."""
    import tf_keras
    L = tf_keras.layers
    x = tf_keras.Input(SEQ, batch_size=1, name="sequence")
    y = L.Conv1D(16, 3, padding="same", activation="relu")(x)
    y = L.LSTM(24, return_sequences=True)(y)
    y = L.Conv1D(12, 3, padding="same", activation="relu")(y)
    y = L.Dense(4)(y)
    return Built(tf_keras.Model(x, y), inputs=float_inputs([(1,) + SEQ]), steps=[(1, None), (2, None)])


def build_gru():
    """Keras 3 GRU (reset_after): a WHILE loop."""
    import tensorflow as tf
    return Built(_seq_model(tf.keras, tf.keras.layers.GRU(24)), inputs=float_inputs([(1,) + SEQ]))


def build_simple_rnn():
    """Keras 3 SimpleRNN returning sequences: a WHILE loop."""
    import tensorflow as tf
    return Built(_seq_model(tf.keras, tf.keras.layers.SimpleRNN(24, return_sequences=True)),
                 inputs=float_inputs([(1,) + SEQ]))


FRAME = 20      # features per audio frame
HISTORY = 8     # frames the streaming model remembers


def build_streaming():
    """A streaming model: each invoke takes one frame, keeps the last HISTORY
    frames and a running energy in tf.Variables (VAR_HANDLE, READ_VARIABLE,
    ASSIGN_VARIABLE), and classifies the window. Four invokes are recorded, so
    the state left by each is checked by the next."""
    import tensorflow as tf
    rng = np.random.default_rng(7)

    class Streaming(tf.Module):
        def __init__(self):
            super().__init__()
            self.history = tf.Variable(tf.zeros([1, HISTORY, FRAME]), name="history")
            self.energy = tf.Variable(tf.zeros([1, 1]), name="energy")
            self.w1 = tf.constant(rng.normal(0, 0.2, (HISTORY * FRAME, 32)).astype(np.float32))
            self.b1 = tf.constant(rng.normal(0, 0.1, (32,)).astype(np.float32))
            self.w2 = tf.constant(rng.normal(0, 0.3, (32, 6)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([1, FRAME], tf.float32, name="frame")])
        def serve(self, frame):
            window = tf.concat([self.history[:, 1:, :], frame[:, None, :]], axis=1)
            self.history.assign(window)
            energy = 0.9 * self.energy + 0.1 * tf.reduce_mean(frame * frame, axis=1, keepdims=True)
            self.energy.assign(energy)
            h = tf.nn.relu(tf.matmul(tf.reshape(window, [1, -1]), self.w1) + self.b1)
            logits = tf.matmul(h, self.w2) + energy
            return {"logits": logits, "energy": energy}

    return Built(module=Streaming(), inputs=float_inputs([(1, FRAME)]),
                 steps=[(1, None), (2, None), (3, None)])


def build_cond():
    """tf.cond on a value of the input: IF with two branch subgraphs. The
    first invoke takes one branch; the recorded second invoke (inputs
    negated by their seed's choice) the other."""
    import tensorflow as tf
    rng = np.random.default_rng(11)

    class Cond(tf.Module):
        def __init__(self):
            super().__init__()
            self.w_then = tf.constant(rng.normal(0, 0.3, (12, 12)).astype(np.float32))
            self.w_else = tf.constant(rng.normal(0, 0.3, (12, 12)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([1, 12], tf.float32, name="x")])
        def serve(self, x):
            def then_fn():
                return tf.tanh(tf.matmul(x, self.w_then))

            def else_fn():
                return tf.nn.relu(tf.matmul(x, self.w_else)) * 2.0 - 1.0

            y = tf.cond(tf.reduce_sum(x) > 0.0, then_fn, else_fn)
            return {"y": y}

    def inputs(seed):
        x = reflib.uniform_pm1(seed, 0, (1, 12))
        s = float(np.sum(x))
        want = 1.0 if seed % 2 == 0 else -1.0  # even seeds: then branch; odd: else
        return [x if s * want > 0 else -x]

    return Built(module=Cond(), inputs=inputs, steps=[(1, None), (2, None)])


KWS_FRAMES, KWS_MELS = 49, 40


def build_kws():
    """Keyword spotting in the SVDF style (a rank-2 feature filter per frame,
    a depthwise filter over time, ReLU; twice), then a Dense + softmax over 12
    keywords, on a [1, 49, 40] log-mel input."""
    import tensorflow as tf
    L = tf.keras.layers
    x = tf.keras.Input((KWS_FRAMES, KWS_MELS), batch_size=1, name="mels")
    y = x
    for units, rank, memory in [(32, 2, 8), (32, 2, 8)]:
        y = L.Dense(units * rank, use_bias=False)(y)           # feature filters
        y = L.DepthwiseConv1D(memory, padding="valid")(y)       # time filters
        y = L.Reshape((-1, units, rank))(y)
        y = L.Lambda(lambda t: tf.reduce_sum(t, axis=-1))(y)    # rank sum
        y = L.ReLU()(y)
    y = L.Flatten()(y)
    y = L.Dense(12)(y)
    y = L.Softmax()(y)
    return Built(tf.keras.Model(x, y), inputs=float_inputs([(1, KWS_FRAMES, KWS_MELS)]))


def build_dynamic_batch():
    """A small CNN whose batch dimension is free (shape_signature [-1, 32, 32, 3]).
    LiteRT reports [1, ...]; the recorded second invoke resizes to batch 4."""
    import tensorflow as tf
    L = tf.keras.layers
    x = tf.keras.Input((32, 32, 3), name="image")
    y = L.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)
    y = L.DepthwiseConv2D(3, padding="same", activation="relu")(y)
    y = L.Conv2D(24, 1, activation="relu")(y)
    y = L.MaxPooling2D()(y)
    y = L.GlobalAveragePooling2D()(y)
    y = L.Dense(10)(y)
    return Built(tf.keras.Model(x, y), inputs=float_inputs([(1, 32, 32, 3)]),
                 steps=[(1, [[4, 32, 32, 3]])])


# -------------------------------------------------------------- transformers


def _encoder_block(tf, x, dim, heads, mlp, pre_ln, approximate_gelu, mask=None):
    L = tf.keras.layers
    attention = L.MultiHeadAttention(heads, dim // heads)
    if pre_ln:
        h = L.LayerNormalization(epsilon=1e-6)(x)
        h = attention(h, h, attention_mask=mask)
        x = L.Add()([x, h])
        h = L.LayerNormalization(epsilon=1e-6)(x)
        h = L.Dense(mlp, activation=lambda t: tf.keras.activations.gelu(t, approximate=approximate_gelu))(h)
        h = L.Dense(dim)(h)
        return L.Add()([x, h])
    h = attention(x, x, attention_mask=mask)
    x = L.LayerNormalization(epsilon=1e-12)(L.Add()([x, h]))
    h = L.Dense(mlp, activation=lambda t: tf.keras.activations.gelu(t, approximate=approximate_gelu))(x)
    h = L.Dense(dim)(h)
    return L.LayerNormalization(epsilon=1e-12)(L.Add()([x, h]))


class _Tokens:
    """Learned tokens prepended to a sequence (class, distillation) plus a
    learned position embedding: the ViT / DeiT front end as a Keras layer."""

    @staticmethod
    def layer(tf, tokens, length, dim):
        class Tokens(tf.keras.layers.Layer):
            def build(self, shape):
                self.extra = self.add_weight(shape=(1, tokens, dim), initializer="random_normal") if tokens else None
                self.position = self.add_weight(shape=(1, length + tokens, dim), initializer="random_normal")

            def call(self, x):
                if self.extra is not None:
                    x = tf.concat([tf.tile(self.extra, [tf.shape(x)[0], 1, 1]), x], axis=1)
                return x + self.position
        return Tokens()


def _vit(tokens, blocks, name):
    import tensorflow as tf
    L = tf.keras.layers
    dim, heads, patch, side = 96, 3, 16, 64
    x = tf.keras.Input((side, side, 3), batch_size=1, name="image")
    y = L.Conv2D(dim, patch, strides=patch)(x)                       # patch embedding
    n = (side // patch) ** 2
    y = L.Reshape((n, dim))(y)
    y = _Tokens.layer(tf, tokens, n, dim)(y)
    for b in range(blocks):
        y = _encoder_block(tf, y, dim, heads, 2 * dim, pre_ln=True, approximate_gelu=(b % 2 == 1))
    y = L.LayerNormalization(epsilon=1e-6)(y)
    if tokens:
        heads_in = [y[:, t, :] for t in range(tokens)]
        logits = [L.Dense(10)(h) for h in heads_in]
        out = logits[0] if tokens == 1 else L.Average()(logits)
    else:
        out = L.Dense(10)(L.GlobalAveragePooling1D()(y))
    return Built(tf.keras.Model(x, out, name=name), inputs=float_inputs([(1, side, side, 3)]))


def build_vit_tiny():
    """ViT-tiny style: 16x16 patches of a 64x64 image (16 tokens), dim 96, 3
    heads, 4 pre-LN blocks with GELU MLPs (exact and tanh, alternating), mean
    pooling, Dense(10)."""
    return _vit(tokens=0, blocks=4, name="vit_tiny")


def build_deit_tiny():
    """DeiT style: a class token and a distillation token before the 16
    patches, 2 pre-LN blocks; the two heads' logits averaged."""
    return _vit(tokens=2, blocks=2, name="deit_tiny")


BERT_VOCAB, BERT_SEQ = 500, 32


def build_bert_tiny():
    """BERT-tiny style encoder: int32 token ids and an int32 attention mask
    [1, 32]; word + position + token-type embeddings (GATHER), post-LN, 2
    blocks, dim 64, 2 heads, exact GELU; outputs the sequence and a tanh
    pooled first token."""
    import tensorflow as tf
    L = tf.keras.layers
    dim, heads = 64, 2
    ids = tf.keras.Input((BERT_SEQ,), batch_size=1, dtype="int32", name="input_ids")
    mask = tf.keras.Input((BERT_SEQ,), batch_size=1, dtype="int32", name="attention_mask")
    ops = tf.keras.ops

    class Embeddings(L.Layer):
        """Word + position + token-type embeddings, as BERT implementations
        write them (positions from the sequence length)."""

        def build(self, shape):
            self.words = L.Embedding(BERT_VOCAB, dim)
            self.positions = L.Embedding(BERT_SEQ, dim)
            self.types = L.Embedding(2, dim)

        def call(self, token_ids):
            position_ids = ops.arange(ops.shape(token_ids)[1])[None, :]
            return self.words(token_ids) + self.positions(position_ids) + self.types(ops.zeros_like(token_ids))

    x = L.LayerNormalization(epsilon=1e-12)(Embeddings()(ids))
    attend = ops.cast(ops.expand_dims(mask, 1), "bool")
    for _ in range(2):
        x = _encoder_block(tf, x, dim, heads, 4 * dim, pre_ln=False, approximate_gelu=False, mask=attend)
    pooled = L.Dense(dim, activation="tanh")(x[:, 0, :])
    model = tf.keras.Model([ids, mask], {"sequence": x, "pooled": pooled}, name="bert_tiny")

    def inputs(seed):
        token_ids = reflib.uniform_int(seed, 0, (1, BERT_SEQ), 1, BERT_VOCAB).astype(np.int32)
        length = 20 + seed % 8
        token_ids[0, length:] = 0
        attention = np.zeros((1, BERT_SEQ), np.int32)
        attention[0, :length] = 1
        return [token_ids, attention]

    return Built(model, inputs=inputs, steps=[(1, None)])


def build_whisper_block():
    """Whisper-style audio encoder block: two Conv1D (k=3, the second stride
    2) with GELU over an [1, 64, 40] log-mel input, a sinusoidal position
    table, one pre-LN attention block (4 heads, dim 64), a final layer norm."""
    import tensorflow as tf
    L = tf.keras.layers
    frames, mels, dim = 64, 40, 64
    x = tf.keras.Input((frames, mels), batch_size=1, name="mels")
    y = L.Conv1D(dim, 3, padding="same", activation="gelu")(x)
    y = L.Conv1D(dim, 3, strides=2, padding="same", activation="gelu")(y)
    steps = frames // 2
    position = np.arange(steps)[:, None] / np.power(10000.0, np.arange(0, dim, 2)[None, :] / dim)
    table = np.concatenate([np.sin(position), np.cos(position)], axis=1).astype(np.float32)
    y = y + table[None]
    y = _encoder_block(tf, y, dim, 4, 4 * dim, pre_ln=True, approximate_gelu=False)
    y = L.LayerNormalization(epsilon=1e-5)(y)
    return Built(tf.keras.Model(x, y, name="whisper_block"), inputs=float_inputs([(1, frames, mels)]))


def build_int8_transformer():
    """One pre-LN attention block (dim 64, 4 heads, tanh GELU) over [1, 16, 64]
    for full-integer conversion."""
    import tensorflow as tf
    L = tf.keras.layers
    x = tf.keras.Input((16, 64), batch_size=1, name="tokens")
    y = _encoder_block(tf, x, 64, 4, 128, pre_ln=True, approximate_gelu=True)
    y = L.Dense(10)(L.GlobalAveragePooling1D()(y))
    return Built(tf.keras.Model(x, y, name="transformer_block"), inputs=float_inputs([(1, 16, 64)]))


def build_unet():
    """A small U-Net as Keras users write segmentation models: separable and
    transposed convolutions, skip concatenations, UpSampling2D (Keras 3 writes
    it as RESHAPE/TILE over rank-5 tensors), and a classification head whose
    depthwise convolution (multiplier 2, VALID, stride 2 over 32 pixels)
    leaves the last row and column unread."""
    import tensorflow as tf
    L = tf.keras.layers
    x = tf.keras.Input((32, 32, 3), batch_size=1, name="image")
    c1 = L.Conv2D(8, 3, padding="same", activation="relu")(x)
    c2 = L.SeparableConv2D(16, 3, padding="same", activation="relu", depth_multiplier=2)(L.MaxPooling2D()(c1))
    b = L.Conv2D(32, 3, padding="same", activation="relu")(L.MaxPooling2D()(c2))
    u2 = L.Concatenate()([L.Conv2DTranspose(16, 2, strides=2, padding="same")(b), c2])
    c3 = L.Conv2D(16, 3, padding="same", activation="relu")(u2)
    u1 = L.Concatenate()([L.UpSampling2D()(c3), c1])
    mask = L.Conv2D(2, 1, activation="sigmoid", name="mask")(u1)
    h = L.DepthwiseConv2D(3, strides=2, padding="valid", depth_multiplier=2)(c1)
    label = L.Dense(3, name="label")(L.GlobalAveragePooling2D()(h))
    return Built(tf.keras.Model(x, [mask, label], name="unet"), inputs=float_inputs([(1, 32, 32, 3)]))


# ------------------------------------------- ops plain TensorFlow code emits


def build_var_len_transformer():
    """A Keras attention block over a free time dimension ([1, None, 8]) with
    learned position embeddings looked up at tf.range(sequence length): SHAPE
    -> STRIDED_SLICE -> RANGE -> GATHER. LiteRT plans the free dimension as 1
    (the first invoke); the recorded invokes resize to 11 and 3 time steps."""
    import tensorflow as tf
    L = tf.keras.layers
    x = tf.keras.Input((None, 8), batch_size=1, name="frames")
    pos = L.Lambda(lambda t: tf.range(tf.shape(t)[1]))(x)
    y = x + L.Embedding(32, 8)(pos)
    y = L.MultiHeadAttention(2, 4)(y, y)
    y = L.Dense(3)(y)
    return Built(tf.keras.Model(x, y), inputs=float_inputs([(1, 1, 8)]),
                 steps=[(1, [[1, 11, 8]]), (2, [[1, 3, 8]])])


def build_tf_ops():
    """tf.math ops as users call them on a [1, 6, 10] tensor: top_k (TOPK_V2),
    argmax, cumsum, l2_normalize, unstack / stack, tile, reduce_prod, where
    with three arguments (SELECT_V2), einsum (BATCH_MATMUL), reduce_any /
    reduce_all of comparisons and tf.tensor_scatter_nd_update (SCATTER_ND)."""
    import tensorflow as tf

    class Ops(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 6, 10], tf.float32, name="x")])
        def serve(self, x):
            v, i = tf.math.top_k(x, k=3)
            parts = tf.unstack(x, axis=1)
            row = tf.reduce_mean(x[0], axis=1, keepdims=True)
            return {"topv": v, "topi": i, "argmax": tf.argmax(x, axis=-1), "cumsum": tf.math.cumsum(x, axis=1),
                    "l2": tf.math.l2_normalize(x, axis=-1), "stack": tf.stack(parts[::-1], axis=1),
                    "tile": tf.tile(x[:, :2, :], [1, 2, 1]), "prod": tf.reduce_prod(x, axis=1),
                    "where": tf.where(x > 0, x, tf.zeros_like(x) - 1.0),
                    "einsum": tf.einsum("bij,bkj->bik", x, x),
                    "any": tf.reduce_any(x > 0.8, axis=-1), "all": tf.reduce_all(x > -0.9, axis=-1),
                    "scatter": tf.tensor_scatter_nd_update(x[0], [[1], [4]], tf.concat([row, row], 0)[:2] * tf.ones([2, 10]))}
    return Built(module=Ops(), inputs=float_inputs([(1, 6, 10)]))


def build_tf_dynamic():
    """Outputs whose size depends on the values: tf.where(x > 0.2) with one
    argument (WHERE) and tf.boolean_mask (WHERE -> GATHER_ND), so the
    converter marks them dynamic (shape_signature -1). The recorded invokes
    give other counts of true values."""
    import tensorflow as tf

    class Ops(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([1, 10], tf.float32, name="x")])
        def serve(self, x):
            idx = tf.where(x > 0.2)
            return {"nz": tf.cast(idx, tf.int32), "mask": tf.boolean_mask(x, x > 0.2)}
    return Built(module=Ops(), inputs=float_inputs([(1, 10)]), steps=[(1, None), (2, None)])


FAMILIES = {
    "lstm_keras3": build_lstm_keras3,
    "lstm_fused": build_lstm_fused,
    "bilstm": build_bilstm,
    "conv_lstm": build_conv_lstm,
    "gru": build_gru,
    "simple_rnn": build_simple_rnn,
    "streaming": build_streaming,
    "cond": build_cond,
    "kws": build_kws,
    "dynamic_batch": build_dynamic_batch,
    "vit_tiny": build_vit_tiny,
    "deit_tiny": build_deit_tiny,
    "bert_tiny": build_bert_tiny,
    "whisper_block": build_whisper_block,
    "transformer_block": build_int8_transformer,
    "var_len_transformer": build_var_len_transformer,
    "tf_ops": build_tf_ops,
    "tf_dynamic": build_tf_dynamic,
}
