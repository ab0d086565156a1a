"""Multi-signature models through get_signature_runner, as with LiteRT: the
decoders of tests/data/decoders (prefill and decode over two subgraphs, the
KV cache as inputs and outputs) give LiteRT's stored tokens and logits."""
import os

import numpy as np
import pytest

from gldelegate.interpreter import Interpreter

DECODERS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "decoders")
NAMES = sorted(d for d in os.listdir(DECODERS) if os.path.isfile(os.path.join(DECODERS, d, "model.tflite"))) \
    if os.path.isdir(DECODERS) else []


@pytest.mark.parametrize("name", NAMES)
def test_decoder_matches_litert(name):
    folder = os.path.join(DECODERS, name)
    want_tokens = np.load(os.path.join(folder, "tokens.npy"))
    want_decode = np.load(os.path.join(folder, "logits_decode.npy"))
    prompt = np.load(os.path.join(folder, "prompt.npy"))
    interpreter = Interpreter(model_path=os.path.join(folder, "model.tflite"), backend="cpu")
    assert set(interpreter.get_signature_list()) == {"prefill", "decode"}
    prefill = interpreter.get_signature_runner("prefill")
    decode = interpreter.get_signature_runner("decode")
    details = prefill.get_input_details()
    caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in details.items() if n not in ("tokens", "input_pos")}
    out = prefill(tokens=prompt.reshape(1, -1), input_pos=np.arange(prompt.size, dtype=np.int32), **caches)
    tokens = [int(np.argmax(out["logits"][0, -1]))]
    for s in range(want_decode.shape[0]):
        out = decode(tokens=np.array([[tokens[-1]]], np.int32), input_pos=np.array([prompt.size + s], np.int32),
                     **{n: out[n] for n in caches})
        logits = out["logits"][0, -1]
        scale = max(float(np.max(np.abs(want_decode[s]))), 1e-30)
        assert float(np.max(np.abs(logits - want_decode[s]))) / scale <= 1e-4, s
        tokens.append(int(np.argmax(logits)))
    assert tokens == list(want_tokens)


def test_unknown_signature_names_the_keys():
    if not NAMES:
        pytest.skip("no decoders")
    interpreter = Interpreter(model_path=os.path.join(DECODERS, NAMES[0], "model.tflite"), backend="cpu")
    with pytest.raises(ValueError, match="prefill"):
        interpreter.get_signature_runner("nope")
