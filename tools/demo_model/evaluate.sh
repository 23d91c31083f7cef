#!/bin/sh
# The evaluations whose numbers docs/benchmarks.md and docs/demo_model.md quote (seeded: rerunning gives the
# same tables). Usage: tools/demo_model/evaluate.sh SNAPDOC_CLI MODEL OUT_DIR
#   niah.csv / niah-trials.csv / niah-{full,10pct,b64,b128}.png   needle in a haystack
#   multi.csv                                                      several questions per document
set -eu
CLI=${1:?usage: evaluate.sh SNAPDOC_CLI MODEL OUT_DIR}
MODEL=${2:?usage: evaluate.sh SNAPDOC_CLI MODEL OUT_DIR}
OUT=${3:?usage: evaluate.sh SNAPDOC_CLI MODEL OUT_DIR}
mkdir -p "$OUT"
# 11 depths x 10 trials = 110 documents per length; every budget is asked over the same prefill.
"$CLI" eval-niah -m "$MODEL" --lengths 512,1024,1536,2048,3072 --depths 0,10,20,30,40,50,60,70,80,90,100 \
    --trials 10 --budgets full,10%,64,128 --window 32 --kernel 7 --pool max --gqa kv-head --seed 1 --quiet \
    --csv "$OUT/niah.csv" --trials-csv "$OUT/niah-trials.csv" --png "$OUT/niah.png"
# 4 facts asked per 1K-token document, 50 documents, a 10% budget (about 100 tokens).
"$CLI" eval-multi -m "$MODEL" --length 1024 --questions 4 --docs 50 --budgets 10% --window 32 --kernel 7 \
    --seed 1 --quiet --csv "$OUT/multi.csv"
