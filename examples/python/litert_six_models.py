"""Runs each .tflite model of a folder with LiteRT's Python Interpreter, exactly
as LiteRT's documentation shows, and saves every output to an .npz file.

    python3 litert_six_models.py MODELS_DIR OUT.npz

Switching it to gldelegate is this one line: the import below becomes
    from gldelegate.interpreter import Interpreter
(python/tests/test_litert_script.py runs it both ways and compares.)
"""
import glob
import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def main(models_dir, out_path):
    results = {}
    for model_path in sorted(glob.glob(os.path.join(models_dir, "*.tflite"))):
        interpreter = Interpreter(model_path=model_path)
        interpreter.allocate_tensors()
        input_details = interpreter.get_input_details()
        output_details = interpreter.get_output_details()

        rng = np.random.default_rng(7)
        for detail in input_details:
            input_data = rng.random(detail["shape"], dtype=np.float32)
            interpreter.set_tensor(detail["index"], input_data)
        interpreter.invoke()

        name = os.path.splitext(os.path.basename(model_path))[0]
        for k, detail in enumerate(output_details):
            results["%s/%d" % (name, k)] = interpreter.get_tensor(detail["index"])
    np.savez(out_path, **results)
    print("%d outputs of %d models written to %s" % (len(results), len(glob.glob(os.path.join(models_dir, "*.tflite"))), out_path))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
