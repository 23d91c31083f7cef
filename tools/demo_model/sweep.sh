#!/bin/bash
# Several demo-model training runs side by side under one time limit: each line of CONFIGS is a name
# and the train.py flags of one run (besides --run/--tokenizer/--threads). Meant for the GPU machine,
# where one run is CPU-bound on data generation (about 10-50 ms a step) and leaves the GPU mostly
# idle, so eight runs cost little more than one; works on a CPU too (slowly).
#
#   tools/demo_model/sweep.sh CONFIGS TOKENIZER_DIR OUT_DIR SECONDS
#
# TOKENIZER_DIR holds the tokenizers named in the configs (--tokenizer-name NAME -> DIR/NAME.model;
# default plain), made here with train_tokenizer.py (the GPU machine may lack the sentencepiece
# package; the training scripts then read tok.model with spm_lite.py). Runs resume from their
# checkpoints, so a second call continues them. OUT_DIR/summary.txt gets each run's last log lines,
# OUT_DIR/NAME/weights.pt the weights for export_gguf.py.
set -u
CONFIGS=${1:?usage: sweep.sh CONFIGS TOKENIZER_DIR OUT_DIR SECONDS}
TOKDIR=${2:?usage: sweep.sh CONFIGS TOKENIZER_DIR OUT_DIR SECONDS}
OUT=${3:?usage: sweep.sh CONFIGS TOKENIZER_DIR OUT_DIR SECONDS}
SECONDS_LIMIT=${4:?usage: sweep.sh CONFIGS TOKENIZER_DIR OUT_DIR SECONDS}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

pids=()
while read -r name flags; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    tok=plain
    if [[ "$flags" =~ --tokenizer-name[[:space:]]+([^[:space:]]+) ]]; then
        tok=${BASH_REMATCH[1]}
        flags=${flags/--tokenizer-name ${tok}/}
    fi
    mkdir -p "$OUT/$name"
    # shellcheck disable=SC2086  # the flags are meant to split
    timeout --signal=TERM "$SECONDS_LIMIT" "$PY" "$HERE/train.py" --run "$OUT/$name" \
        --tokenizer "$TOKDIR/$tok.model" --threads 1 $flags >>"$OUT/$name/stdout.log" 2>&1 &
    pids+=($!)
    echo "started $name: $flags (tokenizer $tok)"
done <"$CONFIGS"
wait "${pids[@]}"

# Weights only (model + config, ~6 MB, what export_gguf.py reads) next to each run; with
# DROP_CHECKPOINTS=1 the ~17 MB resumable checkpoints are removed (e.g. to bring results back from
# the GPU machine).
for d in "$OUT"/*/; do
    [[ -f "$d/checkpoint.pt" ]] || continue
    "$PY" - "$d" <<'PYEOF'
import sys, torch
d = sys.argv[1]
ck = torch.load(d + "/checkpoint.pt", map_location="cpu", weights_only=False)
torch.save(dict(model=ck["model"], config=ck["config"], step=ck["step"]), d + "/weights.pt")
PYEOF
    [[ "${DROP_CHECKPOINTS:-0}" == 1 ]] && rm -f "$d/checkpoint.pt"
done

: >"$OUT/summary.txt"
for d in "$OUT"/*/; do
    [[ -f "$d/train.log" ]] || continue
    {
        echo "== $(basename "$d")"
        grep -E "^eval" "$d/train.log" | tail -n 3
        grep -E "^step" "$d/train.log" | tail -n 1
    } >>"$OUT/summary.txt"
done
cat "$OUT/summary.txt"
