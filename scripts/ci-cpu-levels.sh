#!/usr/bin/env bash
# CI: the CPU kernels on CPUs the CI machine is not, through Debian's qemu-user (scripts/test.sh
# runs this after the test suite; the per-level runs on this CPU are the ctest label cpu-levels).
#   qemu-x86_64 -cpu Haswell   AVX2 + FMA + F16C, no AVX-512: what most desktops have
#   qemu-x86_64 -cpu Nehalem   SSE4.2 only: the x86-64-v2 baseline the default build targets
# On each: the kernel tests (a filter small enough for qemu's emulation speed), `snapdoc-cli info`
# must show that automatic dispatch picked the level the CPU has, and `snapdoc-cli generate` on two
# quantized modelzoo fixtures (Q4_0: the 32-value dots; Q4_K_M: the K-quant dots) must give the
# token ids of a native run forced to that same level. The native run at the machine's own best
# level is printed beside it for the record. Without ../shared/fixtures the generate check is
# skipped with a message (the kernel tests still run).
#
#   scripts/ci-cpu-levels.sh [BUILD_DIR]        default BUILD_DIR: build
# Knobs: QEMU_TEST_FILTER (gtest filter of the emulated kernel tests), GEN_TOKENS (default 24).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
UNIT="$BUILD_DIR/tests/snapdoc_unit_tests"
CLI="$BUILD_DIR/app/snapdoc-cli"
ZOO="${SNAPDOC_FIXTURES:-$ROOT/../shared/fixtures}/modelzoo"
MODELS=("$ZOO/spm-llama-tiny/spm-llama-tiny-Q4_0.gguf" "$ZOO/llama31-tiny/llama31-tiny-Q4_K_M.gguf")
GEN_TOKENS="${GEN_TOKENS:-24}"
PROMPT="Once upon a time, in a small village,"
QEMU_TEST_FILTER="${QEMU_TEST_FILTER:-*QuantDot*:*QuantActivation*:QuantGemm.*:*QuantGemm.EveryLevelComputesTheDecodeDotsIntegers*:DotRow.*:CpuAttention.DecodeRows*:CpuAttention.F16Cache*:CpuAttention.GqaGroups*:F16Rows.*:DType.*}"

for f in "$UNIT" "$CLI"; do
    [[ -x "$f" || -f "$f" ]] || { echo "ci-cpu-levels: $f is missing (build first)" >&2; exit 1; }
done
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
    echo "ci-cpu-levels: qemu-x86_64 not found (Debian package qemu-user; scripts/install-deps.sh installs it)" >&2
    exit 1
fi
if [[ "$(uname -m)" != "x86_64" ]]; then
    echo "ci-cpu-levels: skipped (not an x86-64 machine)"
    exit 0
fi

# qemu warns once per CPU feature its TCG does not model (pcid, x2apic, ...): noise, not failures.
# OPENBLAS_CORETYPE is unset for the emulated runs: a machine that pins OpenBLAS to its Haswell
# kernels (this project's CI image does) would otherwise run them on the emulated Nehalem, which a
# real Nehalem user, without the variable, never does.
emulate() {
    local cpu="$1"
    shift
    env -u OPENBLAS_CORETYPE qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2)
}

# The greedy token ids of the prompt's continuation (generate prints them on stderr).
generate_ids() {
    local model="$1"
    shift
    "$@" generate -m "$model" -p "$PROMPT" -n "$GEN_TOKENS" --temp 0 --threads 2 --ignore-eos --print-ids 2>&1 >/dev/null |
        sed -n 's/^generated ids: *//p'
}

have_models=1
for m in "${MODELS[@]}"; do
    [[ -f "$m" ]] || { have_models=0; echo "ci-cpu-levels: $m is absent: the generate check is skipped"; }
done
status=0
for pair in Haswell:avx2 Nehalem:portable; do
    cpu="${pair%%:*}" level="${pair##*:}"
    echo "== qemu -cpu $cpu: kernel tests"
    start=$SECONDS
    emulate "$cpu" "$UNIT" "--gtest_filter=$QEMU_TEST_FILTER" --gtest_brief=1 || status=1
    echo "   ($((SECONDS - start)) s)"
    picked="$(emulate "$cpu" "$CLI" info -m "$ROOT/resources/models/snapdoc-demo.gguf" | sed -n 's/^cpu kernels: *//p')"
    echo "== qemu -cpu $cpu: automatic dispatch picked: $picked"
    if [[ "$picked" != "$level "* ]]; then
        echo "ci-cpu-levels: FAIL: on $cpu the dispatch should pick $level" >&2
        status=1
    fi
    [[ $have_models == 1 ]] || continue
    for m in "${MODELS[@]}"; do
        emulated="$(generate_ids "$m" emulate "$cpu" "$CLI")"
        native_same="$(SNAPDOC_CPU_KERNELS="$level" generate_ids "$m" "$CLI")"
        native_best="$(generate_ids "$m" "$CLI")"
        echo "   $(basename "$m") under $cpu: $emulated"
        echo "   $(basename "$m") native $level: $native_same"
        if [[ -z "$emulated" || "$emulated" != "$native_same" ]]; then
            echo "ci-cpu-levels: FAIL: the tokens under $cpu differ from the native run at $level" >&2
            status=1
        fi
        if [[ "$emulated" == "$native_best" ]]; then
            echo "   (the same tokens as the native best level)"
        else
            echo "   (not the native best level's tokens: another level's rounding): $native_best"
        fi
    done
done
[[ $status -eq 0 ]] && echo "== ci-cpu-levels: passed"
exit $status
