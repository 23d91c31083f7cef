#!/usr/bin/env bash
# The project's test command (README, CI via .ci/run): installs dependencies, builds everything in
# `build` (Release, Ninja), runs every ctest suite, checks the Debian packages, then a short fuzzing
# pass. Exits non-zero on the
# first failure. Works from any directory.
#
# Environment knobs:
#   BUILD_DIR=dir           build directory (default build)
#   SNAPDOC_UI=ON|OFF|auto  build and test the Qt app (default ON; OFF where Qt cannot be installed,
#                           e.g. the GPU machine; auto: only when Qt 6 is already installed)
#   JOBS=N                  build parallelism (default: all cores)
#   CTEST_JOBS=N            test parallelism (default 2: several suites load models and use threads)
#   FUZZ_SECONDS=N          per-target fuzzing time for scripts/fuzz.sh (default 20; 0 skips fuzzing)
#   SNAPDOC_DEB=0           skip the Debian package check (scripts/ci-deb.sh; it runs only as root)
set -euo pipefail

# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SNAPDOC_ROOT"

CTEST_JOBS="${CTEST_JOBS:-2}"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"

echo "== install dependencies"
install_deps

configure_build
echo "== build (-j$JOBS)"
cmake --build "$BUILD_DIR" -j "$JOBS"

ctest_args=(--test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$CTEST_JOBS")
# Tests labelled cuda run everywhere: without a usable GPU each one skips with the reason, which
# also proves the CUDA build loads and fails cleanly on a machine with no driver.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "== test (GPU found: the cuda tests run)"
else
    echo "== test (no GPU: the cuda tests skip; the cuda-emu tests run the same checks emulated)"
fi
ctest "${ctest_args[@]}"

# The CUDA kernels and backend on the CPU (tests/cuda_emu, label cuda-emu). A build with the real
# toolkit builds the real suite instead, so there the emulated suite gets a CUDA-less build of its
# own (engine + that suite only), and CI checks every kernel even where no GPU is lent.
if [[ "$(ctest --test-dir "$BUILD_DIR" -N -L cuda-emu | sed -n 's/^Total Tests: //p')" == "0" ]]; then
    emu_dir="$BUILD_DIR-cuda-emu"
    echo "== CUDA emulation suite ($emu_dir: the main build has the real toolkit)"
    cmake -S "$SNAPDOC_ROOT" -B "$emu_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPDOC_CUDA=OFF \
        -DSNAPDOC_BUILD_UI=OFF -DSNAPDOC_BUILD_BENCH=OFF >/dev/null
    cmake --build "$emu_dir" -j "$JOBS" --target snapdoc_cuda_emu_tests
    ctest --test-dir "$emu_dir" --output-on-failure --no-tests=error -j "$CTEST_JOBS" -L cuda-emu
fi

# The kernels on CPUs this machine is not (qemu-user: Haswell = AVX2 only, Nehalem = SSE4.2 only).
echo "== CPU levels under qemu"
bash scripts/ci-cpu-levels.sh "$BUILD_DIR"
bash scripts/ci-device-configure.sh  # the GPU machine's build still configures with the libraries it is given
bash scripts/ci-deb.sh  # the .deb packages: lint, install, run from /usr, purge (SNAPDOC_DEB=0 skips)

if [[ "$FUZZ_SECONDS" == "0" ]]; then
    echo "== fuzz: skipped (FUZZ_SECONDS=0)"
elif [[ ! -f scripts/fuzz.sh ]]; then
    echo "== fuzz: skipped (no scripts/fuzz.sh)"
elif ! command -v clang++ >/dev/null 2>&1; then
    echo "== fuzz: skipped (clang++ not found)"
else
    echo "== fuzz (${FUZZ_SECONDS}s per target)"
    # fuzz.sh takes the per-target seconds as its first argument and builds in its own directory.
    JOBS="$JOBS" bash scripts/fuzz.sh "$FUZZ_SECONDS"
fi

echo "== all checks passed"
