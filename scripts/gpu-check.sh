#!/usr/bin/env bash
# The one script a GPU session runs (NVIDIA machine with CUDA, CMake, ninja, a C++ compiler; no
# Debian registry, no Qt). It configures the non-UI build against the libraries prepared by
# scripts/fetch-device-deps.sh (build-device-deps/, carried along), builds for sm_90, runs the
# `cuda` tests, the unit and golden tests, the CUDA perf mode and snapdoc-bench, and writes logs
# plus summary.txt into OUTDIR. Exits non-zero when a step failed (the summary is written anyway).
#
#   scripts/gpu-check.sh OUTDIR                   everything (aim: well under 8 minutes on an H200)
#   STEPS="build cuda" scripts/gpu-check.sh OUT   a subset of: build cuda unit perf bench
#   scripts/gpu-check.sh --configure-only OUT     only configure + check every library comes from
#                                                 build-device-deps (runs on any machine)
#   scripts/gpu-check.sh --tree-hash              print the source fingerprint the summary shows when the
#                                                 tree came without .git (compare with this checkout)
# Knobs: BUILD_DIR (default build-gpu), CUDA_ARCHS (default 90), JOBS (default nproc),
#        BENCH_SHAPE (default llama-1b), BENCH_PROMPT (default 1024),
#        BUDGET_S (default 530: every step's time limit is cut to what is left of it, so the whole
#        script ends inside one device call of at most ~9 minutes; steps that no longer fit are skipped).
#
# Device tool call, from this repo's root here:
#   bash scripts/fetch-device-deps.sh      # once per machine, here (apt); ~45 MB
#   run(command="bash scripts/gpu-check.sh $OUT", carry=["build-device-deps"], timeout_s=580)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

# Fingerprint of the sources that decide what is built (the device machine gets the tree without .git).
tree_hash() {
    (cd "$ROOT" && find CMakeLists.txt cmake engine kernels tests app bench -type f \( -name '*.cpp' -o -name '*.h' \
        -o -name '*.cu' -o -name '*.cuh' -o -name 'CMakeLists.txt' -o -name '*.cmake' \) -print0 2>/dev/null |
        LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}
if [[ "${1:-}" == "--tree-hash" ]]; then tree_hash; exit 0; fi

configure_only=0
if [[ "${1:-}" == "--configure-only" ]]; then configure_only=1; shift; fi
OUT="${1:?usage: scripts/gpu-check.sh [--configure-only] OUTDIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
BUILD="${BUILD_DIR:-build-gpu}"
JOBS="${JOBS:-$(nproc)}"
STEPS="${STEPS:-build cuda unit perf bench}"
DEPS_TOP="$ROOT/build-device-deps"
DEPS="$DEPS_TOP/root"
MA="$DEPS/usr/lib/x86_64-linux-gnu"
SUMMARY="$OUT/summary.txt"
BUDGET_S="${BUDGET_S:-530}"
status=0

say() { echo "$*" | tee -a "$SUMMARY"; }
step_ok() { [[ " $STEPS " == *" $1 "* ]]; }
# Runs a step with a time limit, its output to OUT/<log>; records pass/fail in the summary.
run_step() {
    local name="$1" limit="$2" log="$3"
    shift 3
    local t0=$SECONDS rc left=$((BUDGET_S - SECONDS - 5))
    if ((left < 15)); then
        say "$(printf '%-28s skipped: %ss of the %ss budget left' "$name" "$((BUDGET_S - SECONDS))" "$BUDGET_S")"
        status=1
        return 124
    fi
    ((limit > left)) && limit=$left
    timeout "$limit" "$@" >>"$OUT/$log" 2>&1
    rc=$?
    say "$(printf '%-28s rc=%-3s %4ss  (log: %s)' "$name" "$rc" "$((SECONDS - t0))" "$log")"
    [[ $rc -eq 0 ]] || status=1
    return $rc
}

: >"$SUMMARY"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    revision="commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || echo ' (+ uncommitted changes)')"
else
    revision="no .git (copied tree), sources $(tree_hash) (scripts/gpu-check.sh --tree-hash here to compare)"
fi
say "snapdoc gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)  $revision"

# Peak device memory: nvidia-smi sampled every second in the background while the steps run;
# reported (and the sampler stopped) when the script exits, whichever way it exits.
MEM_LOG="$OUT/gpu-memory.csv"
sampler=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    (while nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits >>"$MEM_LOG" 2>/dev/null; do
        sleep 1
    done) &
    sampler=$!
fi
# shellcheck disable=SC2317  # called through the EXIT trap
report_memory() {
    [[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null
    if [[ -s "$MEM_LOG" ]]; then
        say "$(awk -F', *' '$1 > peak { peak = $1; total = $2 } END { printf "peak device memory: %d MiB of %d MiB (nvidia-smi, sampled each second over %d samples)", peak, total, NR }' "$MEM_LOG")"
    else
        say "peak device memory: not measured (no nvidia-smi or no GPU)"
    fi
}
trap report_memory EXIT
{
    echo "== uname"; uname -a
    echo "== nvidia-smi"; nvidia-smi 2>&1 || true
    echo "== nvcc"; nvcc --version 2>&1 || /usr/local/cuda/bin/nvcc --version 2>&1 || true
    echo "== cmake"; cmake --version 2>&1 | head -1
    echo "== c++"; c++ --version 2>&1 | head -1
    echo "== ninja"; ninja --version 2>&1
    echo "== nproc"; nproc
} >"$OUT/env.txt" 2>&1
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'none found')"

if [[ ! -d "$DEPS/usr" ]]; then
    say "FAIL: $DEPS is missing: run scripts/fetch-device-deps.sh on the build machine and carry build-device-deps"
    exit 1
fi

# --- where the libraries are ------------------------------------------------------------------
# The .deb files were unpacked, not installed. fetch-device-deps.sh made sentencepiece.pc relative
# to its own folder; the CMake config files of the others are relocatable already.
export PKG_CONFIG_LIBDIR="$MA/pkgconfig"  # only the unpacked .pc files are visible
unset PKG_CONFIG_PATH
export LD_LIBRARY_PATH="$MA:$MA/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
pkg_config_flag=()
if ! command -v pkg-config >/dev/null 2>&1; then
    pkg_config_flag=(-DPKG_CONFIG_EXECUTABLE="$DEPS/usr/bin/pkgconf")
fi
fixtures_flag=()
[[ -d "$DEPS_TOP/fixtures" ]] && fixtures_flag=(-DSNAPDOC_FIXTURES_DIR="$DEPS_TOP/fixtures")
[[ -d "$DEPS_TOP/fixtures" ]] && export SNAPDOC_FIXTURES_DIR="$DEPS_TOP/fixtures"
# nvcc is often not on PATH; the top-level CMakeLists also looks in /usr/local/cuda/bin.
if ! command -v nvcc >/dev/null 2>&1 && [[ -z "${CUDACXX:-}" && ! -x /usr/local/cuda/bin/nvcc ]]; then
    for c in /usr/local/cuda-*/bin/nvcc; do [[ -x "$c" ]] && export CUDACXX="$c"; done
fi
cuda_flag=(-DSNAPDOC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
if [[ $configure_only -eq 1 && -n "${NO_CUDA:-}" ]]; then cuda_flag=(-DSNAPDOC_CUDA=OFF); fi

run_step configure 300 configure.log cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSNAPDOC_BUILD_UI=OFF "${cuda_flag[@]}" \
    -DCMAKE_PREFIX_PATH="$DEPS/usr" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DOPENBLAS_LIB="$MA/openblas-pthread/libopenblas.so" \
    -DCBLAS_INCLUDE_DIR="$DEPS/usr/include/x86_64-linux-gnu/openblas-pthread" \
    -DSENTENCEPIECE_TRAIN_LIB="$MA/libsentencepiece_train.so" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$MA:$MA/openblas-pthread" \
    "${pkg_config_flag[@]}" "${fixtures_flag[@]}" || { say "configure failed"; exit 1; }

# Every third-party library must come from build-device-deps, or the check proves nothing.
outside=0
while IFS= read -r line; do
    key="${line%%=*}"
    val="${line#*=}"
    if [[ "$val" != "$DEPS"* ]]; then
        say "  NOT from build-device-deps: $key = $val"
        outside=1
    fi
done < <(grep -E '^(spdlog_DIR|fmt_DIR|nlohmann_json_DIR|GTest_DIR|OPENBLAS_LIB|CBLAS_INCLUDE_DIR|SENTENCEPIECE_TRAIN_LIB|pkgcfg_lib_SENTENCEPIECE_sentencepiece|SENTENCEPIECE_INCLUDEDIR):' \
    "$BUILD/CMakeCache.txt" | sed 's/:[A-Z]*=/=/')
if [[ $outside -eq 0 ]]; then
    say "dependencies: every library and config comes from build-device-deps"
else
    status=1
fi
if [[ $configure_only -eq 1 ]]; then exit $status; fi

# --- build ------------------------------------------------------------------------------------
if step_ok build; then
    run_step "build (-j$JOBS)" 420 build.log cmake --build "$BUILD" -j "$JOBS" || { say "build failed: see build.log"; exit 1; }
fi

count_results() {  # ctest's summary line and failures, into the summary
    grep -E 'tests passed|tests failed' "$OUT/$1" | tail -1 | sed 's/^/  /' | tee -a "$SUMMARY"
    grep -E '\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)\)' "$OUT/$1" | head -20 | sed 's/^/  /' | tee -a "$SUMMARY"
}
if step_ok cuda; then
    run_step "ctest -L cuda" 240 ctest-cuda.log ctest --test-dir "$BUILD" -L cuda --output-on-failure -j 4
    count_results ctest-cuda.log
    grep -E 'logits NMSE|cuda vs cpu' "$OUT/ctest-cuda.log" | sort -u | head -12 | sed 's/^/  /' | tee -a "$SUMMARY"
fi
if step_ok unit; then
    run_step "ctest unit+golden" 240 ctest-unit.log ctest --test-dir "$BUILD" -L 'unit|golden' --output-on-failure -j "$JOBS"
    count_results ctest-unit.log
fi
if step_ok perf; then
    run_step "cuda perf mode" 150 perf.log "$BUILD/tests/snapdoc_cuda_tests" --gtest_also_run_disabled_tests \
        --gtest_filter='CudaPerf.DISABLED_GemmBf16:CudaPerf.DISABLED_AttentionPrefillAndDecode:CudaPerf.DISABLED_WindowScores:CudaGemvQuantPerf.DISABLED_Llama8BShapes'
    grep -E '^(device|PERF)' "$OUT/perf.log" | sed 's/^/  /' | tee -a "$SUMMARY"
fi
if step_ok bench; then
    shape="${BENCH_SHAPE:-llama-1b}"
    model="$ROOT/$BUILD/bench-$shape-bf16.gguf"
    # snapdoc-bench writes the synthetic model and times the CPU backend on it.
    run_step "snapdoc-bench synthetic cpu" 150 bench.log "$BUILD/bench/snapdoc-bench" synthetic --shape "$shape" \
        --dtype bf16 --out "$model" --prompt-tokens 256 --gen-tokens 16
    if "$BUILD/bench/snapdoc-bench" --help 2>&1 | grep -q -- '--device'; then
        run_step "snapdoc-bench synthetic cuda" 120 bench.log "$BUILD/bench/snapdoc-bench" synthetic --shape "$shape" \
            --dtype bf16 --out "$model" --prompt-tokens "${BENCH_PROMPT:-1024}" --gen-tokens 64 --device cuda
    fi
    # Both backends end to end through the engine API (the perf mode's model test).
    SNAPDOC_BENCH_MODEL="$model" SNAPDOC_BENCH_PROMPT="${BENCH_PROMPT:-1024}" SNAPDOC_BENCH_DEVICES=cuda,cpu \
        run_step "e2e cuda+cpu ($shape)" 150 bench.log "$BUILD/tests/snapdoc_cuda_tests" --gtest_also_run_disabled_tests \
        --gtest_filter='CudaPerf.DISABLED_EndToEndModel'
    grep -E 'PERF|tok/s|tokens/s|prefill|decode' "$OUT/bench.log" | head -30 | sed 's/^/  /' | tee -a "$SUMMARY"
fi
say "gpu-check: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit $status
