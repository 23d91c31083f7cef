#!/bin/sh
# The exact commands that produce resources/models/snapdoc-demo.gguf (see docs/demo_model.md).
# Usage: tools/demo_model/run_pipeline.sh RUN_DIR [SNAPDOC_CLI]
# Seconds on any machine: the long-context model is wired, not trained (wire_answer.py: every part of
# the answer is a wired head or rule, so nothing is learned from short documents that could fail on
# long ones). The trained recipe of the previous models is in git history (train.py is kept).
# MODEL_OUT writes the model elsewhere (to compare before replacing it). The short sample
# resources/samples/demo-report.txt is the first model's (make_sample.py with the 20 x 24 entity lists,
# git history); its entities and values are all pieces of the widened tokenizer, so it stays as it is,
# and this run writes a new one into RUN_DIR only.
set -eu
RUN=${1:?usage: run_pipeline.sh RUN_DIR [SNAPDOC_CLI]}
CLI=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
MODEL_OUT=${MODEL_OUT:-$ROOT/resources/models/snapdoc-demo.gguf}
SAMPLE_OUT=${SAMPLE_OUT:-$RUN/demo-report.txt}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$RUN"

# Entities ("▁north▁gate", 1920 of them) and "is + value" ("▁is▁7391", 2000) are single pieces: the
# lookup is then a one-token induction, which wire_init.py writes into the first two layers.
"$PY" "$HERE/train_tokenizer.py" --out "$RUN/tok" --seed 1 --value-pieces with-verb --vocab-size 6144
# Long context: RoPE base 1e12 (16 rotary pairs that barely turn over 128K tokens), a 32-dim match, and
# (--wire-answer) the question echo, the start and the stop wired too, and every other head given a
# role for the inspector (wire_roles.py); all other outputs are zero.
"$PY" "$HERE/wire_init.py" --tokenizer "$RUN/tok.model" --out "$RUN/model.pt" --seed 1 \
    --match-gain 10 --flag-gain 20 --copy-gain 8 --match-pairs 16 --rope-theta 1e12 --wire-answer
"$PY" "$HERE/export_gguf.py" --ckpt "$RUN/model.pt" --tokenizer "$RUN/tok.model" --context 131072 \
    --out "$MODEL_OUT"
"$PY" "$HERE/make_sample.py" --tokenizer "$RUN/tok.model" --tokens 1900 --out "$SAMPLE_OUT"
if [ -n "$CLI" ]; then
    "$PY" "$HERE/check_engine.py" --cli "$CLI" --gguf "$MODEL_OUT" \
        --ckpt "$RUN/model.pt" --tokenizer "$RUN/tok.model"
fi
