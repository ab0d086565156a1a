"""A greedy decode loop over a decoder's `prefill` and `decode` signatures
(litert-torch's export; tests/data/decoders/ has two small ones), as with
LiteRT's signature runners; prints the tokens and tokens/s of both phases.

    python3 examples/python/decode_loop.py MODEL.tflite [cpu|gl|auto] [N]
"""
import sys
import time

import numpy as np
from gldelegate.interpreter import Interpreter


def main(path, backend="cpu", steps=16):
    interpreter = Interpreter(model_path=path, backend=backend)
    prefill = interpreter.get_signature_runner("prefill")
    decode = interpreter.get_signature_runner("decode")
    details = prefill.get_input_details()
    length = int(details["tokens"]["shape"][-1])
    caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in details.items() if n not in ("tokens", "input_pos")}
    prompt = np.arange(1, length + 1, dtype=np.int32).reshape(1, length)
    start = time.perf_counter()
    out = prefill(tokens=prompt, input_pos=np.arange(length, dtype=np.int32), **caches)
    tokens = [int(np.argmax(out["logits"][0, -1]))]
    middle = time.perf_counter()
    for s in range(steps):
        caches = {n: out[n] for n in caches}  # the caches the step before returned
        out = decode(tokens=np.array([[tokens[-1]]], np.int32), input_pos=np.array([length + s], np.int32), **caches)
        tokens.append(int(np.argmax(out["logits"][0, -1])))
    end = time.perf_counter()
    print("tokens:", " ".join(str(t) for t in tokens))
    print("prefill: %d tokens, %.1f tokens/s" % (length, length / (middle - start)))
    print("decode: %d tokens, %.1f tokens/s" % (steps, steps / (end - middle) if steps else 0.0))


if __name__ == "__main__":
    main(sys.argv[1], *(sys.argv[2:3]), *([int(sys.argv[3])] if len(sys.argv) > 3 else []))
