"""A greedy decode loop over a decoder's `prefill` and `decode` signatures
(litert-torch's export; tests/data/decoders/ has two small ones), as with
LiteRT's signature runners; prints the tokens and tokens/s of both phases.

    python3 examples/python/decode_loop.py MODEL.tflite [cpu|gl|auto] [N] [PROMPT.npy] [--expect=TOKENS.npy]

The KV caches stay resident: each cache is one numpy array, kept alive here,
bound as the cache input and the cache output of both runners
(bind_input_host_buffer / bind_output_host_buffer, as LiteRT's
TensorBuffer.create_from_host_memory in run_by_name's input and output maps).
Every call updates the arrays in place, so only the token and the position
go in and the logits come out. PROMPT.npy: the prompt's int32 tokens
(default 1..8, the prefill signature's length); with --expect the tokens
must equal TOKENS.npy's (exit status 1 otherwise).
"""
import sys
import time

import numpy as np
from gldelegate.interpreter import Interpreter


def decode_loop(path, backend="cpu", steps=16, prompt=None):
    """(tokens, prompt length, prefill tokens/s, decode tokens/s)."""
    interpreter = Interpreter(model_path=path, backend=backend)
    prefill = interpreter.get_signature_runner("prefill")
    decode = interpreter.get_signature_runner("decode")
    details = prefill.get_input_details()
    length = int(details["tokens"]["shape"][-1])
    # The caches: zeros, one array each, bound once to both signatures.
    caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in details.items() if n not in ("tokens", "input_pos")}
    for runner in (prefill, decode):
        for name, array in caches.items():
            runner.bind_input_host_buffer(name, array)
            runner.bind_output_host_buffer(name, array)
    if prompt is None:
        prompt = np.arange(1, length + 1, dtype=np.int32)
    prompt = np.asarray(prompt, np.int32).reshape(1, length)
    start = time.perf_counter()
    out = prefill(tokens=prompt, input_pos=np.arange(length, dtype=np.int32))
    tokens = [int(np.argmax(out["logits"][0, -1]))]
    middle = time.perf_counter()
    for s in range(steps):
        out = decode(tokens=np.array([[tokens[-1]]], np.int32), input_pos=np.array([length + s], np.int32))
        tokens.append(int(np.argmax(out["logits"][0, -1])))
    end = time.perf_counter()
    return tokens, length, length / (middle - start), (steps / (end - middle) if steps else 0.0)


def main(argv):
    expect = [a.split("=", 1)[1] for a in argv if a.startswith("--expect=")]
    args = [a for a in argv if not a.startswith("--expect=")]
    if not args:
        print("usage: decode_loop.py MODEL.tflite [cpu|gl|auto] [N] [PROMPT.npy] [--expect=TOKENS.npy]", file=sys.stderr)
        return 2
    backend = args[1] if len(args) > 1 else "cpu"
    steps = int(args[2]) if len(args) > 2 else 16
    prompt = np.load(args[3]) if len(args) > 3 else None
    tokens, length, prefill_rate, decode_rate = decode_loop(args[0], backend, steps, prompt)
    print("tokens:", " ".join(str(t) for t in tokens))
    print("prefill: %d tokens, %.1f tokens/s" % (length, prefill_rate))
    print("decode: %d tokens, %.1f tokens/s" % (steps, decode_rate))
    if expect:
        want = [int(t) for t in np.load(expect[0]).reshape(-1)]
        if tokens != want:
            print("the tokens differ from %s: %s" % (expect[0], " ".join(map(str, want))), file=sys.stderr)
            return 1
        print("tokens equal %s" % expect[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
