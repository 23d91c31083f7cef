#!/bin/sh
# The exact commands that produce resources/models/snapdoc-demo.gguf (see docs/demo_model.md).
# Usage: tools/demo_model/run_pipeline.sh RUN_DIR [SNAPDOC_CLI]
# CPU: about 25 minutes on the 2-core build machine (run under nice; torch uses one thread, which is
# faster than two on a loaded 2-core machine). A CUDA machine runs the same script unchanged.
set -eu
RUN=${1:?usage: run_pipeline.sh RUN_DIR [SNAPDOC_CLI]}
CLI=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$RUN"

# Entities ("▁north▁gate") and "is + value" ("▁is▁7391") are single pieces: the lookup is then a
# one-token induction, which wire_init.py writes into the first two layers.
"$PY" "$HERE/train_tokenizer.py" --out "$RUN/tok" --seed 1 --value-pieces with-verb
"$PY" "$HERE/wire_init.py" --tokenizer "$RUN/tok.model" --out "$RUN/init.pt" --seed 1 \
    --match-gain 10 --flag-gain 10 --copy-gain 8
"$PY" "$HERE/train.py" --run "$RUN" --tokenizer "$RUN/tok.model" --init "$RUN/init.pt" \
    --stages 128:400,512:300,1024:300,2048:300 --dense-steps 400 --dense-per 10:14 \
    --doc-dropout 0.5 --doc-dropout-from 700 --lr 1e-3 --weight-decay 0.01 --threads 1 --seed 11 \
    --eval-every 100 --log-every 20
"$PY" "$HERE/export_gguf.py" --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model" --context 4096 \
    --out "$ROOT/resources/models/snapdoc-demo.gguf"
"$PY" "$HERE/make_sample.py" --tokenizer "$RUN/tok.model" --tokens 1900 \
    --out "$ROOT/resources/samples/demo-report.txt"
if [ -n "$CLI" ]; then
    "$PY" "$HERE/check_engine.py" --cli "$CLI" --gguf "$ROOT/resources/models/snapdoc-demo.gguf" \
        --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model"
fi
