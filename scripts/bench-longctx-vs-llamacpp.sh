#!/usr/bin/env bash
# Long-context CPU speed, snapdoc vs llama.cpp on the same GGUF in one run (issue 15 part 3):
# prefill tok/s at each context and decode tok/s at that depth — llama.cpp with flash attention off
# and on (f32 K/V like snapdoc's backend cache, and f16 K/V, llama.cpp's default), snapdoc with the
# full cache and with SnapKV-BUDGET. Rounds alternate the commands (A B C A B C ...), medians reported.
# snapdoc's full-cache decode also reports its share of the bandwidth roofline, measured in the same
# process right after each of 3 decode rounds (snapdoc-bench longctx --decode-rounds).
#
#   scripts/bench-longctx-vs-llamacpp.sh [--model GGUF] [--contexts 8192,32768] [--gen 64] [--budget 1024]
#                                        [--threads 2] [--rounds 3] [--llama off:f32,on:f32,on:f16]
#                                        [--layer-major-only] [--kv-f32]
# --llama: llama.cpp's configurations, flash attention (off|on) : K/V type (f32|f16), each run in
# every round; --layer-major-only skips snapdoc's token-major prefill (its column reads 0); snapdoc
# runs with its default f16 attention cache, or the exact f32 one with --kv-f32.
# Needs snapdoc-bench in BUILD_DIR (default build-core; built here if absent) and llama_timer
# (scripts/build-llama-timer.sh; LLAMA_TIMER overrides). Numbers only: quote them with the load
# averages printed in the header (a busy machine hurts llama.cpp's spinning thread pool most).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-core}"
MODEL="$ROOT/resources/models/snapdoc-demo.gguf"
CONTEXTS=8192,32768
GEN=64
BUDGET=1024
THREADS=2
ROUNDS=3
LLAMA_CONFIGS=off:f32,on:f32,on:f16
TOKEN_MAJOR=()
SNAP_KV=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --model) MODEL="$2"; shift 2 ;;
        --contexts) CONTEXTS="$2"; shift 2 ;;
        --gen) GEN="$2"; shift 2 ;;
        --budget) BUDGET="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --llama) LLAMA_CONFIGS="$2"; shift 2 ;;
        --layer-major-only) TOKEN_MAJOR=(--no-token-major); shift ;;
        --kv-f32) SNAP_KV=(--kv-f32); shift ;;
        *) echo "unknown flag $1" >&2; exit 2 ;;
    esac
done
BENCH="$BUILD_DIR/bench/snapdoc-bench"
if [ ! -x "$BENCH" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPDOC_BUILD_UI=OFF -DSNAPDOC_CUDA=OFF >/dev/null
    cmake --build "$BUILD_DIR" -j2 --target snapdoc-bench >/dev/null
fi
TIMER="${LLAMA_TIMER:-$(bash "$ROOT/scripts/build-llama-timer.sh" | tail -1)}"
RAW=$(mktemp -d)
trap 'rm -rf "$RAW"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(basename "$MODEL"), $THREADS threads, decode $GEN tokens, SnapKV budget $BUDGET"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
IFS=, read -ra CTX <<< "$CONTEXTS"
IFS=, read -ra LLAMA <<< "$LLAMA_CONFIGS"
for ((r = 0; r < ROUNDS; r++)); do
    for c in "${CTX[@]}"; do
        "$BENCH" longctx -m "$MODEL" --contexts "$c" --gen-tokens "$GEN" --budget "$BUDGET" --threads "$THREADS" \
            --decode-rounds 3 "${TOKEN_MAJOR[@]}" "${SNAP_KV[@]}" \
            | awk -v c="$c" '$1 == c { gsub("%", "", $6); print $2, $3, $4, $5, $6 }' >> "$RAW/snapdoc-$c"
        for config in "${LLAMA[@]}"; do
            fa="${config%%:*}" kv="${config##*:}"
            "$TIMER" "$MODEL" --tokens "$c" --gen "$GEN" --fa "$fa" --kv "$kv" --threads "$THREADS" --batch 512 \
                | awk '{ print $4, $8 }' >> "$RAW/llama-$fa-$kv-$c"
        done
    done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
BUDGET="$BUDGET" python3 - "$RAW" "$CONTEXTS" "$LLAMA_CONFIGS" <<'PY'
import statistics, sys, os
raw, contexts, configs = sys.argv[1], sys.argv[2].split(','), sys.argv[3].split(',')
def cols(name):
    with open(os.path.join(raw, name)) as f:
        rows = [list(map(float, line.split())) for line in f if line.strip()]
    return [statistics.median(col) for col in zip(*rows)]
def label(config):
    fa, kv = config.split(':')
    return "fa-%s %s" % (fa, kv)
budget = os.environ.get("BUDGET", "B")
print("%8s | %-36s | %-44s | %s" % ("context", "llama.cpp prefill tok/s", "snapdoc prefill tok/s (token-/layer-major)",
                                    "decode tok/s"))
for c in contexts:
    tm, lm, full, snap, roof = cols("snapdoc-" + c)
    llama = {cfg: cols("llama-%s-%s-%s" % (*cfg.split(':'), c)) for cfg in configs}
    best_prefill = max(v[0] for v in llama.values())
    best_decode = max(v[1] for v in llama.values())
    snap_text = ("SnapKV-%s %.1f (%.2fx)" % (budget, snap, snap / best_decode)) if snap > 0 else \
        "SnapKV-%s: prompt within the budget" % budget
    print("%8s | %s | %.0f / %.0f (%.2fx / %.2fx the best llama.cpp) | llama.cpp %s; snapdoc full %.1f (%.2fx, "
          "%.0f%% of the roofline), %s"
          % (c, ", ".join("%s %.0f" % (label(k), v[0]) for k, v in llama.items()), tm, lm, tm / best_prefill,
             lm / best_prefill, ", ".join("%s %.1f" % (label(k), v[1]) for k, v in llama.items()), full,
             full / best_decode, roof, snap_text))
PY
