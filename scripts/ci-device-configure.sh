#!/usr/bin/env bash
# CI's guard for the GPU run (scripts/test.sh calls it): fetches the libraries the GPU machine is
# given (scripts/fetch-device-deps.sh) and configures the device build against them alone
# (`NO_CUDA=1 scripts/gpu-check.sh --configure-only`), so a new dependency the GPU machine cannot have
# fails here, in CI, not in a scarce GPU session. Configure only (~15 s plus the download): nothing is
# built. Exits non-zero when the fetch or the configure fails, or a library comes from elsewhere.
#
#   scripts/ci-device-configure.sh [OUTDIR]     default OUTDIR: build-device-configure (its summary.txt)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${1:-$ROOT/build-device-configure}"

echo "== device build configure (the GPU machine's libraries only)"
bash scripts/fetch-device-deps.sh
# Its own build folder: the configure must not touch the main build's cache.
if ! NO_CUDA=1 BUILD_DIR=build-device-configure/cmake bash scripts/gpu-check.sh --configure-only "$OUT"; then
    echo "ci-device-configure: the GPU machine's build does not configure with the carried libraries:" >&2
    cat "$OUT/summary.txt" >&2
    [[ -f "$OUT/build.log" ]] && tail -20 "$OUT/build.log" >&2
    exit 1
fi
echo "ci-device-configure: the device build configures with build-device-deps alone"
