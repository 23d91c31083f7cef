#!/usr/bin/env bash
# CPU speed on the shapes users run (issue 25): random-weight models of Llama-3.2-1B, Qwen2.5-1.5B and
# Llama-3.1-8B shape with their real vocabularies, quantized by llama.cpp's own quantizer, then in one
# run per file:
#   - the read-bandwidth roofline for decode (snapdoc-bench roofline: bandwidth of a plain stream over
#     the file's mapping / bytes per token with f16 K/V); the side-by-side script also gives snapdoc's
#     share of it measured in the same process right after each decode round;
#   - the integer GEMM ceiling (snapdoc-bench qgemm: GOP/s of one layer's matmuls at 512 rows; --no-qgemm
#     skips it);
#   - snapdoc vs llama.cpp at each context (scripts/bench-longctx-vs-llamacpp.sh): prefill tok/s
#     (snapdoc's layer-major document prefill, the app's path) and decode tok/s at that depth, snapdoc
#     with the full cache and with SnapKV-BUDGET, llama.cpp with f16 K/V, flash attention off and on.
#
#   scripts/bench-real-shapes.sh [--work DIR] [--rounds 1] [--threads 2] [--contexts 512,4096,16384]
#                                [--gen 32] [--budget 1024] [--only llama3.2-1b:Q4_K_M,...] [--no-qgemm]
#                                [--kv-f32]   (snapdoc with the f32 attention cache; f16 by default)
#
# Default files: llama3.2-1b Q4_K_M and Q8_0, qwen2.5-1.5b Q4_K_M and Q8_0 at every context;
# llama3.1-8b Q4_K_M at 512 only (decode; a 16K prefill of 8B takes too long on 2 cores). The F16
# originals (2.5 / 3.1 / 16 GB) and the quantized files stay in WORK (default build/real-shapes) and
# are reused. Needs ../shared/fixtures (the vocabularies) and the llama-oracle (set up if absent).
# Numbers only: quote them with the load printed in the header of each section.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${SNAPDOC_SHARED:-$ROOT/../shared}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
WORK="$BUILD_DIR/real-shapes"
ROUNDS=1
THREADS=2
CONTEXTS=512,4096,16384
GEN=32
BUDGET=1024
QGEMM=1
KV_TYPE=()
ONLY="llama3.2-1b:Q4_K_M,llama3.2-1b:Q8_0,qwen2.5-1.5b:Q4_K_M,qwen2.5-1.5b:Q8_0,llama3.1-8b:Q4_K_M"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --work) WORK="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --contexts) CONTEXTS="$2"; shift 2 ;;
        --gen) GEN="$2"; shift 2 ;;
        --budget) BUDGET="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --no-qgemm) QGEMM=0; shift ;;
        --kv-f32) KV_TYPE=(--kv-f32); shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "bench-real-shapes: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$WORK"
BENCH="${SNAPDOC_BENCH:-$BUILD_DIR/bench/snapdoc-bench}"
[[ -x "$BENCH" ]] || { echo "bench-real-shapes: no snapdoc-bench at $BENCH (build the snapdoc-bench target)" >&2; exit 1; }
ORACLE_WORK="${ORACLE_WORK:-$ROOT/../oracle}"
TIMER="${LLAMA_TIMER:-$(bash "$ROOT/scripts/build-llama-timer.sh" "$ORACLE_WORK" | tail -1)}"
ORACLE="$(dirname "$TIMER")/llama_oracle"
export BUILD_DIR LLAMA_TIMER="$TIMER"  # the side-by-side script uses the same snapdoc-bench and llama_timer

tokenizer_of() {  # the fixture whose tokenizer.* keys the shape copies (its vocabulary size matches)
    case "$1" in
        llama3.2-1b|llama3.1-8b) echo "$SHARED/fixtures/modelzoo/llama31-tiny/llama31-tiny-Q8_0.gguf" ;;
        qwen2.5-1.5b) echo "$SHARED/fixtures/modelzoo/qwen3-tiny/qwen3-tiny-F16.gguf" ;;  # Qwen's 151936
        *) echo "bench-real-shapes: no vocabulary for shape $1" >&2; return 1 ;;
    esac
}

model_file() {  # SHAPE TYPE -> path of the quantized file, made if absent
    local shape="$1" type="$2" f16="$WORK/$1-F16.gguf" out="$WORK/$1-$2.gguf"
    if [[ ! -f "$out" && ! -f "$f16" ]]; then
        echo "== write $f16" >&2
        "$BENCH" synthetic --shape "$shape" --dtype f16 --tokenizer "$(tokenizer_of "$shape")" --out "$f16" \
            --write-only >&2
    fi
    if [[ ! -f "$out" ]]; then
        echo "== quantize $out with llama.cpp's quantizer" >&2
        "$ORACLE" quantize "$f16" "$out.part" "$type" "$THREADS" >&2
        mv "$out.part" "$out"
    fi
    echo "$out"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) snapdoc $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo +dirty)"
echo "# $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }'), $(nproc) CPUs;" \
     "flags: $(grep -o -w -E 'avx2|avx512f|avx512bw|avx512vl|avx512_vnni|avx_vnni|avx512_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "# kernel level: ${SNAPDOC_CPU_KERNELS:-best available}; $THREADS threads; SnapKV budget $BUDGET; decode $GEN tokens"
IFS=, read -ra FILES <<< "$ONLY"
for entry in "${FILES[@]}"; do
    shape="${entry%%:*}" type="${entry##*:}"
    file="$(model_file "$shape" "$type")"
    contexts="$CONTEXTS"
    [[ "$shape" == llama3.1-8b ]] && contexts=512
    echo
    echo "## $shape $type ($(du -h "$file" | cut -f1)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    # Roofline at the mean depth of each context's decode steps.
    IFS=, read -ra CTX <<< "$contexts"
    for c in "${CTX[@]}"; do
        "$BENCH" roofline -m "$file" --threads "$THREADS" --context "$((c + GEN / 2))" |
            sed "s/^/roofline at $c: /"
    done
    if [[ "$shape" != llama3.1-8b && $QGEMM == 1 ]]; then
        "$BENCH" qgemm --rows 512 --threads "$THREADS" --trials 2 --types "$([[ $type == Q8_0 ]] && echo Q8_0 || echo Q4_K,Q6_K)"
    fi
    bash "$ROOT/scripts/bench-longctx-vs-llamacpp.sh" --model "$file" --contexts "$contexts" --gen "$GEN" \
        --budget "$BUDGET" --threads "$THREADS" --rounds "$ROUNDS" --llama off:f16,on:f16 --layer-major-only "${KV_TYPE[@]}"
done
