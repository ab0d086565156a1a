#!/bin/sh
# Regenerates every reference in tests/data from LiteRT:
#   tools/reference/make_all.sh [--models DIR]
# 1. checks the Convolution2DTransposeBias rewrite against a NumPy transcription
#    of MediaPipe's kernel, 2. model references (tests/data/models/<stem>/),
# 3. op conformance cases (tests/data/ops/<case>/), 4. whole networks
# (tests/data/networks/<name>/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export TF_CPP_MIN_LOG_LEVEL=2
python3 "$here/replace_transpose_conv_bias.py" --self-test
python3 "$here/make_all.py" "$@"
if [ -f "$here/make_op_cases.py" ]; then
  python3 "$here/make_op_cases.py"
fi
python3 "$here/make_networks.py"
echo "tests/data: $(du -sh --apparent-size "$here/../../tests/data" | cut -f1) in $(find "$here/../../tests/data" -type f | wc -l) files"
