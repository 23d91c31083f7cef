#!/usr/bin/env bash
# The one script a GPU session runs (NVIDIA machine with CUDA, CMake, ninja, a C++ compiler; no
# Debian registry, no Qt). It configures the non-UI build (-DSNAPDOC_BUILD_UI=OFF) for sm_90 only
# against the libraries prepared by scripts/fetch-device-deps.sh (build-device-deps/deps.tar.gz,
# carried along and unpacked here), builds what the steps need, and runs, most valuable first:
#   cuda             the `cuda` test suite (every kernel and the backend vs the CPU backend)
#   self-check       the GPU self-check (docs/gpu-self-check.md) as a user's first start runs it:
#                    snapdoc-cli --gpu-self-check on a synthetic llama-125m shape in bf16 and q8_0;
#                    each verdict (passed/failed, worst NMSE, the failing step) goes into the summary
#   longctx-mistral  the issue-13 table on the Mistral-7B shape in BF16 at 100K tokens
#   longctx-llama    the same on the Llama-3.1-8B shape in Q4_K_M           (snapdoc-bench cuda-longctx:
#   fit-mistral      the longest prompt that fits, predicted + one real run  random weights made in
#   fit-llama        the same for the Q4_K_M model                           memory, no files)
# and, when asked for in STEPS: unit (unit + golden tests), perf (the CUDA perf mode), bench (the
# synthetic GGUF through snapdoc-bench and the end-to-end perf test).
#
# Everything lands in OUTDIR, at most 8 files (what the device tool brings back): summary.txt
# (each step's result, the table's rows, peak device memory), the benchmark table
# YYYY-MM-DD-cuda-longctx-<gpu>.txt (rows appended as they are measured, so a step cut short
# keeps what it got; copy it to bench/results/), build.log, tests.log, bench.log, env.txt,
# gpu-memory.csv. Exits non-zero when a step failed (the summary is written anyway).
#
#   scripts/gpu-check.sh OUTDIR                   the default steps (well inside one ~10-minute call)
#   STEPS="build cuda" scripts/gpu-check.sh OUT   a subset of: build cuda self-check longctx-mistral
#                                                 longctx-llama fit-mistral fit-llama unit perf bench
#   scripts/gpu-check.sh --configure-only OUT     only configure + check every library comes from
#                                                 build-device-deps (runs on any machine; NO_CUDA=1
#                                                 configures without the toolkit)
#   scripts/gpu-check.sh --dry-run OUT            the whole flow on a machine without a GPU: CUDA OFF,
#                                                 snapdoc-bench on the CPU backend at tiny shapes and
#                                                 a few hundred tokens, no GPU test step
#   scripts/gpu-check.sh --tree-hash              print the source fingerprint the summary shows when the
#                                                 tree came without .git (compare with this checkout)
# Knobs: BUILD_DIR (default build-gpu), CUDA_ARCHS (default 90), JOBS (default nproc), BUILD_LIMIT_S
#        (default 200; a build cut short resumes where it stopped when the same warm machine is
#        called again, since build-gpu/ stays there between calls),
#        LONGCTX_CONTEXT (default 100000), LONGCTX_BUDGET (default 2048),
#        BENCH_SHAPE / BENCH_PROMPT (the `bench` step: llama-1b, 1024),
#        BUDGET_S (default 570: the default steps' limits add up to 590, and every step's limit is also
#        cut to what is left of the budget, so the script ends inside one device call of at most
#        10 minutes; steps that no longer fit are skipped and said so: in practice each step ends well
#        inside its limit, and only a run where all of them time out loses the last, fit-llama).
#
# Device tool call, from this repo's root here:
#   bash scripts/fetch-device-deps.sh      # once, here (apt); prints what the call will carry
#   run(command="bash scripts/gpu-check.sh $OUT", carry=["build-device-deps/deps.tar.gz"], timeout_s=590)
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
dry_run=0
if [[ "${1:-}" == "--configure-only" ]]; then configure_only=1; shift; fi
if [[ "${1:-}" == "--dry-run" ]]; then dry_run=1; shift; fi
OUT="${1:?usage: scripts/gpu-check.sh [--configure-only|--dry-run] OUTDIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
BUILD="${BUILD_DIR:-build-gpu}"
JOBS="${JOBS:-$(nproc)}"
STEPS="${STEPS:-build cuda self-check longctx-mistral longctx-llama fit-mistral fit-llama}"
DEPS_TOP="$ROOT/build-device-deps"
DEPS="$DEPS_TOP/root"
MA="$DEPS/usr/lib/x86_64-linux-gnu"
SUMMARY="$OUT/summary.txt"
BUDGET_S="${BUDGET_S:-570}"
CONTEXT="${LONGCTX_CONTEXT:-100000}"
SNAP_BUDGET="${LONGCTX_BUDGET:-2048}"
status=0

say() { echo "$*" | tee -a "$SUMMARY"; }
step_ok() { [[ " $STEPS " == *" $1 "* ]]; }
# Runs a step with a time limit, its output appended to OUT/<log>; records pass/fail in the summary.
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
    echo "== $name (limit ${limit}s): $*" >>"$OUT/$log"
    timeout "$limit" "$@" >>"$OUT/$log" 2>&1
    rc=$?
    local note=""
    [[ $rc -eq 124 ]] && note="  TIMED OUT at ${limit}s"
    say "$(printf '%-28s rc=%-3s %4ss  (log: %s)%s' "$name" "$rc" "$((SECONDS - t0))" "$log" "$note")"
    [[ $rc -eq 0 ]] || status=1
    return $rc
}

: >"$SUMMARY"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    revision="commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || echo ' (+ uncommitted changes)')"
else
    revision="no .git (copied tree), sources $(tree_hash) (scripts/gpu-check.sh --tree-hash here to compare)"
fi
say "snapdoc gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)  $revision$([[ $dry_run -eq 1 ]] && echo '  DRY RUN (no GPU, CPU backend, tiny shapes)')"

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
    echo "== memory"; free -g 2>&1 || true
} >"$OUT/env.txt" 2>&1
gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'none found')"
gpu_tag="$(echo "${gpu_name:-no-gpu}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')"
RESULTS="$OUT/$(date -u +%Y-%m-%d)-cuda-longctx-${gpu_tag:-gpu}.txt"

# The deps travel packed (scripts/fetch-device-deps.sh): unpack them where the build expects them.
if [[ ! -d "$DEPS/usr" && -f "$DEPS_TOP/deps.tar.gz" ]]; then
    tar -C "$DEPS_TOP" -xzf "$DEPS_TOP/deps.tar.gz" || say "FAIL: could not unpack $DEPS_TOP/deps.tar.gz"
fi
if [[ ! -d "$DEPS/usr" ]]; then
    say "FAIL: $DEPS is missing: run scripts/fetch-device-deps.sh on the build machine and carry build-device-deps/deps.tar.gz"
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
# Only the H200's architecture (sm_90) unless told otherwise, so the kernels compile once each.
cuda_flag=(-DSNAPDOC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}")
if [[ $dry_run -eq 1 || ( $configure_only -eq 1 && -n "${NO_CUDA:-}" ) ]]; then cuda_flag=(-DSNAPDOC_CUDA=OFF); fi
# The emulated suite (tests/cuda_emu) is for machines without the toolkit; a GPU build never needs it.
emu_flag=(-DSNAPDOC_CUDA_EMU=OFF)
# snapdoc-server (cpp-httplib) and the hub client (libcurl, OpenSSL) need libraries this machine has
# not got and nothing here runs them: the build leaves them out (the CLI keeps local models).
# Poppler, libzip, libxml2 and gumbo likewise: that build reads text documents only (SNAPDOC_DOCUMENT_FORMATS).
net_flag=(-DSNAPDOC_BUILD_SERVER=OFF -DSNAPDOC_BUILD_HUB=OFF -DSNAPDOC_DOCUMENT_FORMATS=OFF)

run_step configure 40 build.log cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSNAPDOC_BUILD_UI=OFF "${cuda_flag[@]}" "${emu_flag[@]}" "${net_flag[@]}" \
    -DCMAKE_PREFIX_PATH="$DEPS/usr" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DOPENBLAS_LIB="$MA/openblas-pthread/libopenblas.so" \
    -DCBLAS_INCLUDE_DIR="$DEPS/usr/include/x86_64-linux-gnu/openblas-pthread" \
    -DSENTENCEPIECE_TRAIN_LIB="$MA/libsentencepiece_train.so" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$MA:$MA/openblas-pthread" \
    "${pkg_config_flag[@]}" "${fixtures_flag[@]}" || { say "configure failed: see build.log"; exit 1; }

# Every third-party library must come from build-device-deps, or the check proves nothing.
outside=0
while IFS= read -r line; do
    key="${line%%=*}"
    val="${line#*=}"
    if [[ "$val" != "$DEPS"* ]]; then
        say "  NOT from build-device-deps: $key = $val"
        outside=1
    fi
done < <(grep -E '^(spdlog_DIR|fmt_DIR|nlohmann_json_DIR|GTest_DIR|OPENBLAS_LIB|CBLAS_INCLUDE_DIR|SENTENCEPIECE_TRAIN_LIB|pkgcfg_lib_SENTENCEPIECE_sentencepiece|SENTENCEPIECE_INCLUDEDIR|pkgcfg_lib_PCRE2_pcre2-8|PCRE2_INCLUDEDIR):' \
    "$BUILD/CMakeCache.txt" | sed 's/:[A-Z]*=/=/'
    # ...and any other library or package a find_* call found (a dependency added later, e.g. the
    # server's or the hub's): tools, the compilers, CUDA and paths inside the build are fine.
    grep -E '^[A-Za-z0-9_.+-]+:(FILEPATH|PATH)=/' "$BUILD/CMakeCache.txt" |
        grep -vE '^(CMAKE_|CUDA|CUDAToolkit_|_|SNAPDOC_FIXTURES_DIR|PKG_CONFIG_EXECUTABLE|OpenMP_)|_EXECUTABLE:' |
        grep -vE "=($ROOT|/usr/local/cuda|/usr/bin/|/usr/lib/gcc)" | sed 's/:[A-Z]*=/=/' | sort -u)
if [[ $outside -eq 0 ]]; then
    say "dependencies: every library and config comes from build-device-deps"
else
    status=1
fi
if [[ $configure_only -eq 1 ]]; then exit $status; fi

# --- build: only the targets the chosen steps run -----------------------------------------------
targets=(snapdoc-bench)
[[ $dry_run -eq 0 ]] && { step_ok cuda || step_ok perf || step_ok bench; } && targets+=(snapdoc_cuda_tests)
step_ok unit && targets+=(snapdoc_unit_tests snapdoc_golden_tests snapdoc-cli)
step_ok self-check && targets+=(snapdoc-cli)
if step_ok build; then
    run_step "build (-j$JOBS)" "${BUILD_LIMIT_S:-200}" build.log cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" ||
        { say "build failed: see build.log"; exit 1; }
fi

lines_of() { [[ -f "$OUT/$1" ]] && wc -l <"$OUT/$1" || echo 0; }
count_results() {  # count_results LOG FROM_LINE: ctest's summary line and failures since FROM_LINE, into the summary
    local part
    part="$(tail -n +"$(($2 + 1))" "$OUT/$1")"
    grep -E 'tests passed|tests failed' <<<"$part" | tail -1 | sed 's/^/  /' | tee -a "$SUMMARY"
    grep -E '\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)\)' <<<"$part" | head -20 | sed 's/^/  /' | tee -a "$SUMMARY"
}
if step_ok cuda && [[ $dry_run -eq 0 ]]; then
    from=$(lines_of tests.log)
    run_step "ctest -L cuda" 90 tests.log ctest --test-dir "$BUILD" -L cuda --output-on-failure -j 8 --timeout 60
    count_results tests.log "$from"
    grep -E 'logits NMSE|cuda vs cpu' "$OUT/tests.log" | sort -u | head -12 | sed 's/^/  /' | tee -a "$SUMMARY"
fi

# The GPU self-check as a user's first start runs it (docs/gpu-self-check.md), with its verdict file
# in a folder of its own. A dry run has no CUDA backend: the CLI then says the check did not run,
# which still checks the flag and the step.
if step_ok self-check; then
    sc_dir="$ROOT/$BUILD/self-check"
    mkdir -p "$sc_dir"
    rm -f "$sc_dir/gpu-self-check.json"
    for dt in bf16 q8_0; do
        sc_model="$sc_dir/llama-125m-$dt.gguf"
        run_step "self-check model ($dt)" 20 bench.log "$BUILD/bench/snapdoc-bench" synthetic --shape llama-125m \
            --dtype "$dt" --out "$sc_model" --write-only || continue
        from=$(lines_of tests.log)
        SNAPDOC_GPU_VERDICT_FILE="$sc_dir/gpu-self-check.json" run_step "self-check ($dt)" 20 tests.log \
            "$BUILD/app/snapdoc-cli" eval -m "$sc_model" --ids 1,2,3,4 --logits-out "$sc_dir/logits-$dt.bin" \
            --device auto --gpu-self-check
        verdict="$(tail -n +"$((from + 1))" "$OUT/tests.log" | grep -E '^GPU self-check' | tail -1)"
        say "  ${verdict:-GPU self-check: no verdict printed (see tests.log)}"
        # On a GPU anything but a pass is a finding (a kernel bug, or a tolerance to revisit).
        [[ $dry_run -eq 0 && "$verdict" != "GPU self-check passed"* ]] && status=1
    done
    if [[ -f "$sc_dir/gpu-self-check.json" ]]; then
        say "  verdict file:"
        sed 's/^/    /' "$sc_dir/gpu-self-check.json" | tee -a "$SUMMARY" >/dev/null
    fi
fi

# The benchmark table: one process per step, rows appended to $RESULTS as they are measured (the
# engine's cancel points stop a prefill at --prefill-seconds / --staged-seconds / --fit-seconds, well
# inside the step's limit, so the rows after it still come). Its rows go into the summary after each
# step, also when the step ran out of time. A longctx step runs two passes: prefill, decode and re-snap
# with the document's K/V kept on the GPU (the re-snap TTFT), then the model loaded again with
# keep_full_kv_on_device = false for the staged plan's peak (what a 24 GB card needs). Worst case
# (both cut short): Mistral ~10 s load + 45 s + ~5 s decode/re-snap + ~5 s reload + 15 s = ~80 of 100 s;
# Llama ~10 + 30 + 5 + 5 + 10 = ~60 of 70 s.
BENCH="$BUILD/bench/snapdoc-bench"
longctx() {  # longctx NAME LIMIT SHAPE ARGS...
    local name="$1" limit="$2" shape="$3"
    shift 3
    local before=0
    [[ -f "$RESULTS" ]] && before=$(wc -l <"$RESULTS")
    run_step "$name" "$limit" bench.log "$BENCH" cuda-longctx --shape "$shape" --results "$RESULTS" "$@"
    [[ -f "$RESULTS" ]] && tail -n +"$((before + 1))" "$RESULTS" | grep ' | ' | sed 's/^/  /' | tee -a "$SUMMARY"
}
if [[ $dry_run -eq 1 ]]; then
    # The same steps on the CPU backend at tiny shapes: checks the flow, the flags and the files.
    dry=(--device cpu --context 600 --budget 64 --window 8 --question 16 --gen-tokens 4)
    step_ok longctx-mistral && longctx longctx-mistral 100 tiny-bf16 "${dry[@]}" --measure prefill,decode,resnap,staged
    step_ok longctx-llama && longctx longctx-llama 70 tiny-q4km "${dry[@]}" --measure prefill,decode,resnap,staged
    step_ok fit-mistral && longctx fit-mistral 30 tiny-bf16 "${dry[@]}" --measure fit
else
    step_ok longctx-mistral && longctx longctx-mistral 100 mistral-7b-bf16 --context "$CONTEXT" --budget "$SNAP_BUDGET" \
        --measure prefill,decode,resnap,staged --prefill-seconds 45 --staged-seconds 15 --gen-tokens 32
    step_ok longctx-llama && longctx longctx-llama 70 llama3.1-8b-q4km --context "$CONTEXT" --budget "$SNAP_BUDGET" \
        --measure prefill,decode,resnap,staged --prefill-seconds 30 --staged-seconds 10 --gen-tokens 32
    step_ok fit-mistral && longctx fit-mistral 30 mistral-7b-bf16 --context "$CONTEXT" --budget "$SNAP_BUDGET" \
        --measure fit --fit-seconds 8
    step_ok fit-llama && longctx fit-llama 30 llama3.1-8b-q4km --context "$CONTEXT" --budget "$SNAP_BUDGET" \
        --measure fit --fit-seconds 8
fi

# --- on request (STEPS=...): the CPU suites, the perf mode, the synthetic-GGUF bench -------------
if step_ok unit; then
    from=$(lines_of tests.log)
    run_step "ctest unit+golden" 240 tests.log ctest --test-dir "$BUILD" -L 'unit|golden' --output-on-failure -j "$JOBS"
    count_results tests.log "$from"
fi
if step_ok perf && [[ $dry_run -eq 0 ]]; then
    run_step "cuda perf mode" 150 tests.log "$BUILD/tests/snapdoc_cuda_tests" --gtest_also_run_disabled_tests \
        --gtest_filter='CudaPerf.DISABLED_GemmBf16:CudaPerf.DISABLED_AttentionPrefillAndDecode:CudaPerf.DISABLED_WindowScores:CudaGemvQuantPerf.DISABLED_Llama8BShapes'
    grep -E '^(device|PERF)' "$OUT/tests.log" | sed 's/^/  /' | tee -a "$SUMMARY"
fi
if step_ok bench && [[ $dry_run -eq 0 ]]; then
    shape="${BENCH_SHAPE:-llama-1b}"
    model="$ROOT/$BUILD/bench-$shape-bf16.gguf"
    run_step "snapdoc-bench synthetic cuda" 150 bench.log "$BENCH" synthetic --shape "$shape" \
        --dtype bf16 --out "$model" --prompt-tokens "${BENCH_PROMPT:-1024}" --gen-tokens 64 --device cuda
    # Both backends end to end through the engine API (the perf mode's model test).
    SNAPDOC_BENCH_MODEL="$model" SNAPDOC_BENCH_PROMPT="${BENCH_PROMPT:-1024}" SNAPDOC_BENCH_DEVICES=cuda,cpu \
        run_step "e2e cuda+cpu ($shape)" 150 bench.log "$BUILD/tests/snapdoc_cuda_tests" --gtest_also_run_disabled_tests \
        --gtest_filter='CudaPerf.DISABLED_EndToEndModel'
    grep -E 'PERF|tok/s|tokens/s' "$OUT/bench.log" | grep -v ' | ' | head -20 | sed 's/^/  /' | tee -a "$SUMMARY"
fi
[[ -f "$RESULTS" ]] && say "benchmark table: $(basename "$RESULTS") (copy it to bench/results/)"
say "gpu-check: $([[ $status -eq 0 ]] && echo PASS || echo FAIL)"
exit $status
