#!/usr/bin/env bash
# CI: the CPU kernels on CPUs the CI machine is not, through Debian's qemu-user (scripts/test.sh
# runs this after the test suite; the per-level runs on this CPU are the ctest label cpu-levels).
#   qemu-x86_64 -cpu Haswell   AVX2 + FMA + F16C, no AVX-512: what most desktops have
#   qemu-x86_64 -cpu Nehalem   SSE4.2 only: the x86-64-v2 baseline the default build targets
# On each: the kernel tests (a filter small enough for qemu's emulation speed), `snapdoc-cli info`
# must show that automatic dispatch picked the level the CPU has, and `snapdoc-cli generate` on
# the bundled demo model must give the token ids of a native run forced to that same level. The
# native run at the machine's own best level is printed beside it for the record.
#
#   scripts/ci-cpu-levels.sh [BUILD_DIR]        default BUILD_DIR: build
# Knobs: QEMU_TEST_FILTER (gtest filter of the emulated kernel tests), GEN_TOKENS (default 24).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-$ROOT/build}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
UNIT="$BUILD_DIR/tests/snapdoc_unit_tests"
CLI="$BUILD_DIR/app/snapdoc-cli"
MODEL="$ROOT/resources/models/snapdoc-demo.gguf"
GEN_TOKENS="${GEN_TOKENS:-24}"
PROMPT="The batch number for the copper office is"
QEMU_TEST_FILTER="${QEMU_TEST_FILTER:-*QuantDot*:*QuantActivation*:QuantGemm.*:*QuantGemm.EveryLevelComputesTheDecodeDotsIntegers*:DotRow.*:CpuAttention.DecodeRows*:CpuAttention.F16Cache*:CpuAttention.GqaGroups*:F16Rows.*:DType.*}"

for f in "$UNIT" "$CLI" "$MODEL"; do
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
emulate() {
    local cpu="$1"
    shift
    qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2)
}

generate_ids() {
    "$@" generate -m "$MODEL" -p "$PROMPT" -n "$GEN_TOKENS" --temp 0 --threads 2 --print-ids 2>/dev/null
}

native_best="$(generate_ids "$CLI")"
echo "native ($("$CLI" info -m "$MODEL" | sed -n 's/^cpu kernels: *//p')): $native_best"
status=0
for pair in Haswell:avx2 Nehalem:portable; do
    cpu="${pair%%:*}" level="${pair##*:}"
    echo "== qemu -cpu $cpu: kernel tests"
    start=$SECONDS
    emulate "$cpu" "$UNIT" "--gtest_filter=$QEMU_TEST_FILTER" --gtest_brief=1 || status=1
    echo "   ($((SECONDS - start)) s)"
    picked="$(emulate "$cpu" "$CLI" info -m "$MODEL" | sed -n 's/^cpu kernels: *//p')"
    echo "== qemu -cpu $cpu: automatic dispatch picked: $picked"
    if [[ "$picked" != "$level "* ]]; then
        echo "ci-cpu-levels: FAIL: on $cpu the dispatch should pick $level" >&2
        status=1
    fi
    emulated="$(emulate "$cpu" "$CLI" generate -m "$MODEL" -p "$PROMPT" -n "$GEN_TOKENS" --temp 0 --threads 2 \
        --print-ids 2>/dev/null)" || { echo "ci-cpu-levels: FAIL: generate under $cpu exited $?" >&2; status=1; }
    native_same="$(SNAPDOC_CPU_KERNELS="$level" generate_ids "$CLI")"
    echo "   $cpu:        $emulated"
    echo "   native $level: $native_same"
    if [[ -z "$emulated" || "$emulated" != "$native_same" ]]; then
        echo "ci-cpu-levels: FAIL: the tokens under $cpu differ from the native run at $level" >&2
        status=1
    fi
    [[ "$emulated" == "$native_best" ]] && echo "   (the same tokens as the native best level)" ||
        echo "   (differs from the native best level's tokens: another level's rounding)"
done
[[ $status -eq 0 ]] && echo "== ci-cpu-levels: passed"
exit $status
