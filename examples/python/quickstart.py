import sys

import numpy as np
from gldelegate.interpreter import Interpreter

interpreter = Interpreter(model_path=sys.argv[1])  # backend="auto": the GPU where it can
interpreter.allocate_tensors()
input_details = interpreter.get_input_details()
output_details = interpreter.get_output_details()

image = np.random.default_rng(0).random(input_details[0]["shape"], dtype=np.float32)
interpreter.set_tensor(input_details[0]["index"], image)
interpreter.invoke()
for detail in output_details:
    print(detail["name"], interpreter.get_tensor(detail["index"]).shape)
print(interpreter.placement["placement"])  # where each node ran, and why
