#!/bin/sh
# The exact commands that produce resources/models/snapdoc-demo.gguf (see docs/demo_model.md).
# Usage: tools/demo_model/run_pipeline.sh RUN_DIR [SNAPDOC_CLI]
# CPU: about 30-40 minutes on the 2-core build machine (run under nice; torch uses one thread, which is
# faster than two on a loaded 2-core machine). A CUDA machine runs the same script unchanged.
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
# Long context: RoPE base 1e12 (16 rotary pairs that barely turn over 128K tokens) and a 32-dim match.
"$PY" "$HERE/wire_init.py" --tokenizer "$RUN/tok.model" --out "$RUN/init.pt" --seed 1 \
    --match-gain 10 --flag-gain 20 --copy-gain 8 --match-pairs 16 --rope-theta 1e12
"$PY" "$HERE/train.py" --run "$RUN" --tokenizer "$RUN/tok.model" --init "$RUN/init.pt" --rope-theta 1e12 \
    --stages 128:160,512:80,1024:80,2048:80 --dense-steps 160 --dense-per 10:14 \
    --doc-dropout 0.5 --doc-dropout-from 240 --lr 1e-3 --weight-decay 0.01 --threads 1 --seed 11 \
    --eval-every 350 --log-every 20
"$PY" "$HERE/export_gguf.py" --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model" --context 131072 \
    --out "$MODEL_OUT"
"$PY" "$HERE/make_sample.py" --tokenizer "$RUN/tok.model" --tokens 1900 --out "$SAMPLE_OUT"
if [ -n "$CLI" ]; then
    "$PY" "$HERE/check_engine.py" --cli "$CLI" --gguf "$MODEL_OUT" \
        --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model"
fi
