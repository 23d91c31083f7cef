#!/usr/bin/env bash
# snapdoc vs llama.cpp on the CPU: the same GGUF file, the same thread count, timed by the same
# method in one run, next to the machine's read-bandwidth roofline measured in that run.
#
#   scripts/bench-vs-llamacpp.sh [--types "Q4_K_M Q8_0 F16"] [--threads 2] [--rounds 5] [--work DIR]
#                                [--shape llama-125m|llama3.2-1b]  (llama3.2-1b: Llama 3's 128256-token
#                                                          BPE vocabulary, from the modelzoo fixture)
#                                [--wait-quiet SECONDS]   (first wait up to SECONDS for a 1-minute
#                                                          load average below 0.5)
#                                [--stat median|min]      (min: on a busy machine, the least
#                                                          disturbed run of each command)
#
# What it does:
#  1. builds snapdoc-bench in BUILD_DIR (default build; configured without the UI if it is new);
#  2. finds llama.cpp's command line (llama_oracle; $LLAMA_ORACLE, else WORK/llama-oracle, set up
#     there from ../shared/tools/llama-oracle with npm if absent);
#  3. makes the model if absent: a 125M-shaped Llama (12 layers, dim 768, 12/4 heads, FFN 2048,
#     Llama 2's 32000-piece SentencePiece vocab, random weights) written as F16 by snapdoc-bench, then
#     quantized by llama.cpp's own quantizer to each TYPE (F16 is used as written);
#  4. times whole processes, both engines doing the same work (prefill the ids with the last
#     position's logits, then greedy decoding one token per step): decode tok/s from
#     `-n 288` minus `-n 32` after a 32-token prompt (256 decode steps), prefill tok/s from a
#     512-token minus a 64-token prompt (448 tokens), so loading and setup cancel. One warm-up
#     round, then ROUNDS rounds; each round runs every command once (A B A B ...), medians are used;
#  5. prints tok/s for each side, the ratio, and % of the roofline: read bandwidth (GB/s, measured
#     by snapdoc-bench roofline before and after the timings; the higher is used) over the bytes a
#     decoded token streams (every tensor except the embedding table, plus f32 K/V at the mean
#     context of the timed decode steps).
# Both engines use an f32 KV cache (llama_oracle's default), flash attention off in llama.cpp.
# Knobs: BUILD_DIR (default build), JOBS, SNAPDOC_BENCH (use this snapdoc-bench, no build),
# LLAMA_ORACLE (llama_oracle binary), SNAPDOC_SHARED (default ../shared). WORK defaults to
# BUILD_DIR/bench-vs-llamacpp. Raw timings go to WORK/raw-TYPE.txt. Numbers only, never
# pass/fail; on a shared machine quote the medians with the load averages printed in the header.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
SHARED="${SNAPDOC_SHARED:-$ROOT/../shared}"
TYPES="Q4_K_M"
SHAPE=llama-125m
THREADS=2
ROUNDS=5
WORK=""
WAIT_QUIET=0
STAT=median
while [[ $# -gt 0 ]]; do
    case "$1" in
        --types) TYPES="$2"; shift 2 ;;
        --shape) SHAPE="$2"; shift 2 ;;
        --threads) THREADS="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --wait-quiet) WAIT_QUIET="$2"; shift 2 ;;
        --stat) STAT="$2"; shift 2 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        *) echo "bench-vs-llamacpp: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
WORK="${WORK:-$BUILD_DIR/bench-vs-llamacpp}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"

say() { echo "$*" >&2; }
die() { echo "bench-vs-llamacpp: $*" >&2; exit 1; }

# ---- 1. snapdoc-bench ($SNAPDOC_BENCH: a binary built elsewhere, used as it is) ----
BENCH="${SNAPDOC_BENCH:-}"
if [[ -z "$BENCH" ]]; then
    if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
        say "== configure $BUILD_DIR (Release, Ninja, no UI)"
        cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPDOC_BUILD_UI=OFF >/dev/null
    fi
    say "== build snapdoc-bench"
    ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}" snapdoc-bench >/dev/null || die "building snapdoc-bench failed"
    BENCH="$BUILD_DIR/bench/snapdoc-bench"
fi
[[ -x "$BENCH" ]] || die "no snapdoc-bench at $BENCH"

# ---- 2. llama.cpp (llama_oracle) ----
ORACLE="${LLAMA_ORACLE:-$WORK/llama-oracle/llama_oracle}"
if [[ ! -x "$ORACLE" ]]; then
    [[ -f "$SHARED/tools/llama-oracle/setup.sh" ]] || die "no llama_oracle: set LLAMA_ORACLE or SNAPDOC_SHARED"
    say "== set up llama_oracle in $WORK/llama-oracle (npm, about a minute)"
    ORACLE="$(bash "$SHARED/tools/llama-oracle/setup.sh" "$WORK/llama-oracle" | tail -1)"
fi
[[ -x "$ORACLE" ]] || die "llama_oracle not found at $ORACLE"

# ---- 3. the model files ----
case "$SHAPE" in
    llama-125m) TOKENIZER="$SHARED/fixtures/llama2-tokenizer/tokenizer.model" ;;  # Llama 2's SentencePiece model
    llama3.2-1b) TOKENIZER="$SHARED/fixtures/modelzoo/llama31-tiny/llama31-tiny-Q8_0.gguf" ;;  # its tokenizer.* keys
    *) die "--shape must be llama-125m or llama3.2-1b" ;;
esac
[[ -f "$TOKENIZER" ]] || die "missing $TOKENIZER (set SNAPDOC_SHARED)"
F16="$WORK/$SHAPE-F16.gguf"
if [[ ! -f "$F16" ]]; then
    say "== write $F16"
    "$BENCH" synthetic --shape "$SHAPE" --dtype f16 --tokenizer "$TOKENIZER" --out "$F16" --write-only >&2
fi
model_file() {
    local type="$1" file="$WORK/$SHAPE-$1.gguf"
    if [[ "$type" != F16 && ! -f "$file" ]]; then
        say "== quantize to $type with llama.cpp's quantizer"
        "$ORACLE" quantize "$F16" "$file" "$type" "$THREADS" >&2
    fi
    echo "$file"
}

# Deterministic prompt ids: BOS then pseudo-random ids in [3, 32000).
prompt_file() {
    local n="$1" file="$WORK/prompt-$1.txt"
    [[ -f "$file" ]] || awk -v n="$n" 'BEGIN { s = 12345; printf "1";
        for (i = 1; i < n; i++) { s = (s * 1103515245 + 12345) % 2147483648; printf " %d", 3 + int(s / 65536) % 31997 }
        print "" }' > "$file"
    echo "$file"
}
P32="$(prompt_file 32)"; P64="$(prompt_file 64)"; P512="$(prompt_file 512)"
DEC_SHORT=32; DEC_LONG=288; PF_SHORT=64; PF_LONG=512
DEC_STEPS=$((DEC_LONG - DEC_SHORT)); PF_TOKENS=$((PF_LONG - PF_SHORT))
# Mean context of the timed decode steps (positions 32+32 .. 32+288).
DEC_CONTEXT=$((32 + (DEC_SHORT + DEC_LONG) / 2))

now_ns() { date +%s%N; }
[[ "$STAT" == median || "$STAT" == min ]] || die "--stat must be median or min"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
roofline_value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }
# CPU seconds used so far by the whole machine (/proc/stat) and by this script's children (bash's
# `times`): their difference over the timed rounds is what other processes took — the load figure
# that says whether the numbers are quiet (the load average counts the benchmark itself).
children_cpu() {  # sets CHILD_CPU: CPU seconds (user + sys) of every finished child so far
    times > "$WORK/times.txt"
    CHILD_CPU="$(tail -1 "$WORK/times.txt" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } print t }')"
}
cpu_marks() {  # sets MARK; runs in this shell (not a $(...) subshell), so `times` sees our children
    local hz machine children
    hz="$(getconf CLK_TCK)"
    machine="$(awk -v hz="$hz" '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8 + $9) / hz; exit }' /proc/stat)"
    times > "$WORK/times.txt"
    children="$(tail -1 "$WORK/times.txt" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } print t }')"
    MARK="$machine $children $(date +%s.%N)"
}
other_load() {  # "X% of one core" used by other processes between two cpu_marks
    awk -v a="$1" -v b="$2" 'BEGIN { split(a, p, " "); split(b, q, " ");
        o = (q[1] - p[1]) - (q[2] - p[2]); w = q[3] - p[3]; if (o < 0) o = 0; printf "%.0f%% of a core", 100 * o / w }'
}
MACHINE="$(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2; exit }'), $(nproc) CPUs"
LLAMA_VARIANT="$(LLAMA_ORACLE_VERBOSE=1 "$ORACLE" meta "$F16" 2>&1 | sed -n 's/.*loaded CPU backend from .*libggml-cpu-\(.*\)\.so/\1/p' | head -1)"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo +dirty)"
[[ -n "${SNAPDOC_BENCH:-}" ]] && COMMIT="$SNAPDOC_BENCH (built elsewhere; this tree is $COMMIT)"

if [[ "$WAIT_QUIET" -gt 0 ]]; then
    deadline=$(( $(date +%s) + WAIT_QUIET ))
    while awk '{ exit !($1 >= 0.5) }' /proc/loadavg && [[ $(date +%s) -lt $deadline ]]; do sleep 10; done
    say "== load average now $(load_avg)"
fi

declare -a RESULTS=()
for TYPE in $TYPES; do
    FILE="$(model_file "$TYPE")"
    RAW="$WORK/raw-$TYPE.txt"
    : > "$RAW"
    say "== $TYPE: roofline"
    "$BENCH" roofline -m "$FILE" --threads "$THREADS" --context "$DEC_CONTEXT" > "$WORK/roofline-$TYPE-before.txt"

    declare -A CMD=(
        [snap_dec_long]="$BENCH greedy -m $FILE --ids-file $P32 -n $DEC_LONG --threads $THREADS"
        [snap_dec_short]="$BENCH greedy -m $FILE --ids-file $P32 -n $DEC_SHORT --threads $THREADS"
        [snap_pf_long]="$BENCH greedy -m $FILE --ids-file $P512 -n 1 --threads $THREADS"
        [snap_pf_short]="$BENCH greedy -m $FILE --ids-file $P64 -n 1 --threads $THREADS"
        [llama_dec_long]="$ORACLE greedy $FILE --ids-file $P32 -n $DEC_LONG --threads $THREADS --ctx 1024"
        [llama_dec_short]="$ORACLE greedy $FILE --ids-file $P32 -n $DEC_SHORT --threads $THREADS --ctx 1024"
        [llama_pf_long]="$ORACLE greedy $FILE --ids-file $P512 -n 1 --threads $THREADS --ctx 1024"
        [llama_pf_short]="$ORACLE greedy $FILE --ids-file $P64 -n 1 --threads $THREADS --ctx 1024"
    )
    ORDER=(snap_dec_long llama_dec_long snap_dec_short llama_dec_short snap_pf_long llama_pf_long snap_pf_short llama_pf_short)

    # snapdoc may refuse the file (a tensor type it does not support yet): then only llama.cpp runs.
    SNAP_OK=1
    if ! ${CMD[snap_dec_short]} > "$WORK/snap-$TYPE.gen" 2> "$WORK/snap-$TYPE.err"; then
        SNAP_OK=0
        say "   snapdoc refuses $TYPE: $(tail -1 "$WORK/snap-$TYPE.err")"
    fi
    ${CMD[llama_dec_short]} > "$WORK/llama-$TYPE.gen" 2>/dev/null || die "llama.cpp failed on $FILE"
    AGREE="-"
    if [[ $SNAP_OK == 1 ]]; then
        # How many leading greedy tokens the two engines agree on (llama.cpp rounds activations,
        # so quantized files may part after a few steps: informational).
        AGREE="$(paste <(tr ' ' '\n' < "$WORK/snap-$TYPE.gen") <(tr ' ' '\n' < "$WORK/llama-$TYPE.gen") |
                 awk 'NR > 1 { if ($1 != $2) exit; n++ } END { print n + 0 }')/$DEC_SHORT"
    fi

    say "== $TYPE: 1 warm-up + $ROUNDS rounds of ${#ORDER[@]} runs (load $(load_avg))"
    LOAD_BEFORE="$(load_avg)"
    cpu_marks; MARK_BEFORE="$MARK"
    for ((r = 0; r <= ROUNDS; ++r)); do
        for k in "${ORDER[@]}"; do
            [[ $SNAP_OK == 0 && $k == snap_* ]] && continue
            children_cpu; c0=$CHILD_CPU
            t0=$(now_ns)
            if [[ $k == snap_* ]]; then
                ${CMD[$k]} > /dev/null 2> "$WORK/last.err" || die "$k failed: $(tail -1 "$WORK/last.err")"
                [[ $r -gt 0 ]] && sed "s/^/inproc $k /" "$WORK/last.err" >> "$RAW"
            else
                ${CMD[$k]} > /dev/null 2>&1 || die "$k failed"
            fi
            t1=$(now_ns)
            children_cpu
            [[ $r -gt 0 ]] && echo "wall $k $(( (t1 - t0) / 1000 ))" >> "$RAW" &&
                echo "cpu $k $(awk -v a="$c0" -v b="$CHILD_CPU" 'BEGIN { printf "%.0f", (b - a) * 1e6 }')" >> "$RAW"
        done
    done
    LOAD_AFTER="$(load_avg)"
    cpu_marks; OTHER_LOAD="$(other_load "$MARK_BEFORE" "$MARK")"
    "$BENCH" roofline -m "$FILE" --threads "$THREADS" --context "$DEC_CONTEXT" > "$WORK/roofline-$TYPE-after.txt"

    med() { awk -v k="$1" '$1 == "wall" && $2 == k { print $3 / 1e6 }' "$RAW" | if [[ $STAT == min ]]; then sort -g | head -1; else median; fi; }
    medcpu() { awk -v k="$1" '$1 == "cpu" && $2 == k { print $3 / 1e6 }' "$RAW" | if [[ $STAT == min ]]; then sort -g | head -1; else median; fi; }
    inproc() { awk -v k="$1" -v f="$2" '$1 == "inproc" && $2 == k && $3 == f { print $4 }' "$RAW" | median; }
    BW_BEFORE="$(roofline_value "$WORK/roofline-$TYPE-before.txt" read_bandwidth_gbs)"
    BW_AFTER="$(roofline_value "$WORK/roofline-$TYPE-after.txt" read_bandwidth_gbs)"
    BW="$(awk -v a="$BW_BEFORE" -v b="$BW_AFTER" 'BEGIN { print (a > b ? a : b) }')"
    BPT="$(roofline_value "$WORK/roofline-$TYPE-before.txt" bytes_per_token)"
    rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (a == "nan" || b == "nan" || d <= 0) print "nan"; else printf "%.1f", n / d }'; }
    LL_DEC="$(rate $DEC_STEPS "$(med llama_dec_long)" "$(med llama_dec_short)")"
    LL_PF="$(rate $PF_TOKENS "$(med llama_pf_long)" "$(med llama_pf_short)")"
    # The same differences over CPU seconds (user + sys): with one thread, the figure that a busy
    # machine disturbs least; with more, spinning threads count too.
    LL_DEC_CPU="$(rate $DEC_STEPS "$(medcpu llama_dec_long)" "$(medcpu llama_dec_short)")"
    LL_PF_CPU="$(rate $PF_TOKENS "$(medcpu llama_pf_long)" "$(medcpu llama_pf_short)")"
    SN_DEC=nan; SN_PF=nan; SN_DEC_IN=nan; SN_PF_IN=nan; SN_DEC_CPU=nan; SN_PF_CPU=nan
    if [[ $SNAP_OK == 1 ]]; then
        SN_DEC="$(rate $DEC_STEPS "$(med snap_dec_long)" "$(med snap_dec_short)")"
        SN_PF="$(rate $PF_TOKENS "$(med snap_pf_long)" "$(med snap_pf_short)")"
        SN_DEC_CPU="$(rate $DEC_STEPS "$(medcpu snap_dec_long)" "$(medcpu snap_dec_short)")"
        SN_PF_CPU="$(rate $PF_TOKENS "$(medcpu snap_pf_long)" "$(medcpu snap_pf_short)")"
        SN_DEC_IN="$(awk -v s="$(inproc snap_dec_long decode_s)" -v n=$((DEC_LONG - 1)) 'BEGIN { printf "%.1f", n / s }')"
        SN_PF_IN="$(awk -v s="$(inproc snap_pf_long prefill_s)" -v n=$PF_LONG 'BEGIN { printf "%.1f", n / s }')"
    fi
    ROOF="$(awk -v bw="$BW" -v b="$BPT" 'BEGIN { printf "%.1f", bw * 1e9 / b }')"
    pct() { awk -v t="$1" -v r="$ROOF" 'BEGIN { if (t == "nan") print "-"; else printf "%.0f%%", 100 * t / r }'; }
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan") print "-"; else printf "%.2fx", a / b }'; }
    RESULTS+=("$(printf '| %s | decode | %s | %s | %s | %s | %s | %s | %s / %s (%s) |' "$TYPE" "$SN_DEC" "$LL_DEC" \
        "$(ratio "$SN_DEC" "$LL_DEC")" "$(pct "$SN_DEC")" "$(pct "$LL_DEC")" "$SN_DEC_IN" "$SN_DEC_CPU" "$LL_DEC_CPU" \
        "$(ratio "$SN_DEC_CPU" "$LL_DEC_CPU")")")
    RESULTS+=("$(printf '| %s | prefill | %s | %s | %s | | | %s | %s / %s (%s) |' "$TYPE" "$SN_PF" "$LL_PF" "$(ratio "$SN_PF" "$LL_PF")" \
        "$SN_PF_IN" "$SN_PF_CPU" "$LL_PF_CPU" "$(ratio "$SN_PF_CPU" "$LL_PF_CPU")")")
    RESULTS+=("$(printf '|   | roofline: %s GB/s (before %s, after %s) / %.1f MB per token = %s tok/s; greedy agree %s; load avg %s -> %s; other processes: %s |' \
        "$BW" "$BW_BEFORE" "$BW_AFTER" "$(awk -v b="$BPT" 'BEGIN { print b / 1e6 }')" "$ROOF" "$AGREE" "$LOAD_BEFORE" "$LOAD_AFTER" \
        "$OTHER_LOAD")")
    unset CMD
done

echo
echo "snapdoc $COMMIT vs llama.cpp ($("$ORACLE" meta "$F16" 2>/dev/null | awk '$1 == "llama_version" { print $2 }'), CPU variant ${LLAMA_VARIANT:-?})"
echo "machine: $MACHINE; $THREADS threads; $ROUNDS rounds, ${STAT}s of whole-process wall times"
echo "decode: $DEC_STEPS steps (-n $DEC_LONG minus -n $DEC_SHORT after 32 prompt tokens); prefill: $PF_TOKENS tokens ($PF_LONG minus $PF_SHORT)"
echo
echo "| file | phase | snapdoc tok/s | llama.cpp tok/s | ratio | snapdoc % roofline | llama.cpp % roofline | snapdoc in-process tok/s | tok per CPU-s snapdoc / llama.cpp (ratio) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${RESULTS[@]}"
