#!/bin/sh
# The three tokenizer variants the training experiments use, into OUT_DIR (plain.model,
# with-verb.model, entity-verb.model): made here, where the sentencepiece package is installed,
# and carried to a machine that may lack it (see sweep.sh).
set -eu
OUT=${1:?usage: make_tokenizers.sh OUT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$OUT"
for v in plain with-verb entity-verb; do
    "$PY" "$HERE/train_tokenizer.py" --out "$OUT/$v" --seed 1 --value-pieces "$v"
done
