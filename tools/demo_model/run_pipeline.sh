#!/bin/sh
# The exact commands that produce resources/models/snapdoc-demo.gguf (see docs/demo_model.md).
# Usage: tools/demo_model/run_pipeline.sh RUN_DIR [SNAPDOC_CLI]
# CPU: about 1 hour on 2 cores (run under nice; torch uses one thread, which is faster than two on a
# loaded 2-core machine). A CUDA machine runs the same script unchanged (device auto-detected).
set -eu
RUN=${1:?usage: run_pipeline.sh RUN_DIR [SNAPDOC_CLI]}
CLI=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$RUN"

"$PY" "$HERE/train_tokenizer.py" --out "$RUN/tok" --seed 1
"$PY" "$HERE/train.py" --run "$RUN" --tokenizer "$RUN/tok.model" \
    --stages 64:600,128:800,256:800,512:1200,1280:2000 --dense-steps 300 --lr 3e-3 --threads 1 --seed 2
"$PY" "$HERE/export_gguf.py" --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model" \
    --out "$ROOT/resources/models/snapdoc-demo.gguf"
"$PY" "$HERE/make_sample.py" --tokenizer "$RUN/tok.model" --tokens 1200 \
    --out "$ROOT/resources/samples/demo-report.txt"
if [ -n "$CLI" ]; then
    "$PY" "$HERE/check_engine.py" --cli "$CLI" --gguf "$ROOT/resources/models/snapdoc-demo.gguf" \
        --ckpt "$RUN/final.pt" --tokenizer "$RUN/tok.model"
fi
