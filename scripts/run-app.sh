#!/usr/bin/env bash
# The README's "run it" command. PLACEHOLDER until the Qt desktop app exists: for now it installs
# dependencies, builds the CLI and generates text with the tiny stories260K model from the shared
# fixtures, which proves the whole engine path (GGUF load, tokenizer, forward pass, sampling) works
# on this machine. When the GUI lands this should build with SNAPDOC_UI=ON and exec build/ui/snapdoc.
#
# Extra arguments are passed to `snapdoc-cli generate` (they override the defaults below).
set -euo pipefail

# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SNAPDOC_ROOT"

install_deps
configure_build
echo "== build snapdoc-cli (-j$JOBS)"
cmake --build "$BUILD_DIR" -j "$JOBS" --target snapdoc-cli

cli="$BUILD_DIR/app/snapdoc-cli"
fixtures="$SNAPDOC_ROOT/../shared/fixtures"
model="$fixtures/stories260K/stories260K.gguf"
if [[ ! -f "$model" ]]; then
    echo "run-app.sh: no demo model at $model (the shared fixtures are absent);" >&2
    echo "run it yourself: $cli generate --model <file.gguf> --prompt '...'" >&2
    exit 1
fi

# Flags as defined in app/cli (cmd_generate.cpp, model_setup.cpp); keep them in step if renamed.
echo "== $cli generate (stories260K)"
exec "$cli" generate --model "$model" --prompt "Once upon a time" --n-predict 200 "$@"
