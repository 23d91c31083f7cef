#!/bin/sh
# The long-context evaluation whose numbers docs/demo_model.md, docs/RESULTS.md and docs/benchmarks.md quote:
# SnapKV at fixed budgets (1024 and 2048 entries per head) vs full KV at 4K-128K tokens, one prefill
# per document (every budget re-selects over the stored full KV). Seeded: reruns give the same tables.
# Usage: tools/demo_model/evaluate_longctx.sh SNAPDOC_CLI MODEL OUT_DIR
# Sized for a 2-core machine shared with other work (~35 minutes there): few documents per cell at
# 64K and 128K, where one prefill takes minutes. Progress per document goes to stderr.
set -eu
CLI=${1:?usage: evaluate_longctx.sh SNAPDOC_CLI MODEL OUT_DIR}
MODEL=${2:?usage: evaluate_longctx.sh SNAPDOC_CLI MODEL OUT_DIR}
OUT=${3:?usage: evaluate_longctx.sh SNAPDOC_CLI MODEL OUT_DIR}
mkdir -p "$OUT"
FLAGS="--budgets full,1024,2048 --window 32 --kernel 7 --pool max --gqa kv-head --seed 1"
# 4K: 5 depths x 2 documents.
"$CLI" eval-niah -m "$MODEL" --lengths 4096 --depths 0,25,50,75,100 --trials 2 $FLAGS \
    --csv "$OUT/niah-4k.csv" --trials-csv "$OUT/niah-4k-trials.csv"
# 16K and 32K: 5 depths x 1 document; heatmaps niah-16k-32k-{full,b1024,b2048}.png.
"$CLI" eval-niah -m "$MODEL" --lengths 16384,32768 --depths 10,30,50,70,90 --trials 1 $FLAGS \
    --csv "$OUT/niah-16k-32k.csv" --trials-csv "$OUT/niah-16k-32k-trials.csv" --png "$OUT/niah-16k-32k.png"
# 64K and 128K: 3 depths x 1 document (a 128K prefill is minutes here).
"$CLI" eval-niah -m "$MODEL" --lengths 65536,131072 --depths 10,50,90 --trials 1 $FLAGS \
    --csv "$OUT/niah-64k-128k.csv" --trials-csv "$OUT/niah-64k-128k-trials.csv" --png "$OUT/niah-64k-128k.png"
