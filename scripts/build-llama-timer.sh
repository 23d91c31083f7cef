#!/usr/bin/env bash
# Builds bench/llamacpp/llama_timer.c (llama.cpp's prefill/decode speed at a context depth) against
# the prebuilt libllama of a llama-oracle work folder (../shared/tools/llama-oracle/setup.sh WORK),
# setting that folder up first if it is absent. Prints the binary's path.
#   scripts/build-llama-timer.sh [ORACLE_WORK]   (default: ../oracle next to the checkout)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${1:-$ROOT/../oracle}"
if [ ! -x "$WORK/llama_oracle" ]; then
    bash "$ROOT/../shared/tools/llama-oracle/setup.sh" "$WORK" >&2
fi
WORK="$(cd "$WORK" && pwd)"
LIBDIR=$(dirname "$(ls "$WORK"/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libllama*.so | head -1)")
LIB=$( (ls "$LIBDIR"/libllama.v*.so "$LIBDIR"/libllama.so 2>/dev/null || true) | head -1)
GGML=$( (ls "$LIBDIR"/libggml.v*.so "$LIBDIR"/libggml.so 2>/dev/null || true) | head -1)
gcc -O2 -std=c11 -Wall -Wno-deprecated-declarations -I"$WORK/include" "$ROOT/bench/llamacpp/llama_timer.c" \
    -o "$WORK/llama_timer" "$LIB" "$GGML" "$LIBDIR/libggml-base.so" -Wl,-rpath,"$LIBDIR" -ldl
echo "$WORK/llama_timer"
