#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, whole build instrumented with ASan + UBSan) in a separate
# build directory, seeds their corpora with small valid files, and runs each target for a bounded
# time. Exits non-zero if any target finds a crash, a sanitizer error, a leak, a timeout or an
# out-of-memory (giant allocation); the reproducer is left in the artifacts directory.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   defaults: 30 seconds; all of fuzz_gguf fuzz_safetensors_header fuzz_hf_config fuzz_gguf_quant
#   fuzz_tokenizer_bpe fuzz_chat_template fuzz_tokenizer_json fuzz_kv_cache_file, and fuzz_document_ingest where Qt 6 and
#   poppler-qt6 are installed (the app's document import; the build then configures the app's services)
# Environment: SNAPDOC_FUZZ_BUILD (build dir, default build-fuzz), SNAPDOC_FUZZ_CORPUS (default
#   fuzz-corpus), JOBS (build parallelism, default 2), FUZZ_RSS_MB (memory limit, default 1024).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SNAPDOC_FUZZ_BUILD:-$root/build-fuzz}
corpus=${SNAPDOC_FUZZ_CORPUS:-$root/fuzz-corpus}
jobs=${JOBS:-2}
rss_mb=${FUZZ_RSS_MB:-1024}
seconds=${1:-30}
shift || true
targets=("$@")
default_targets=0
if [ ${#targets[@]} -eq 0 ]; then
  default_targets=1
  targets=(fuzz_gguf fuzz_safetensors_header fuzz_hf_config fuzz_gguf_quant fuzz_tokenizer_bpe fuzz_chat_template
    fuzz_tokenizer_json fuzz_kv_cache_file)
fi
# The document-import target needs the app's services (Qt + Poppler); configure them where present.
ui=OFF
if pkg-config --exists Qt6Widgets poppler-qt6 2>/dev/null; then
  ui=ON
  [ "$default_targets" = 1 ] && targets+=(fuzz_document_ingest)
fi

CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSNAPDOC_FUZZ=ON -DSNAPDOC_BUILD_TESTS=OFF \
  -DSNAPDOC_BUILD_BENCH=OFF -DSNAPDOC_BUILD_UI=$ui -DSNAPDOC_CUDA=OFF >/dev/null
ninja -C "$build" -j"$jobs" "${targets[@]}" snapdoc_fuzz_seeds

seeds="$corpus/seeds"
"$build/tests/snapdoc_fuzz_seeds" "$seeds"
fixtures="$root/../shared/fixtures/stories260K"
for f in hf-f32 hf-bf16; do
  [ -f "$fixtures/$f/config.json" ] && cp "$fixtures/$f/config.json" "$seeds/hf_config/fixture-$f.json"
done

# Documents to import: the first byte picks the suffix (0 txt, 1 md, 2 html, 3 pdf).
mkdir -p "$seeds/documents"
printf '\0A plain text document.\nSecond line.\n' > "$seeds/documents/text.txt"
printf '\1# A title\n\nSome *Markdown* with a [link](x) and a list:\n\n- one\n- two\n' > "$seeds/documents/notes.md"
printf '\2<html><head><meta charset="utf-8"><title>Page</title></head><body><h1>Head</h1><p>Text <b>bold</b><ul><li>a</li></ul></p><table><tr><td>1</td></tr></table></body></html>' \
  > "$seeds/documents/page.html"

artifacts="$corpus/artifacts"
mkdir -p "$artifacts"
status=0
for target in "${targets[@]}"; do
  case "$target" in
    fuzz_gguf) seed_dir="$seeds/gguf" ;;
    fuzz_safetensors_header) seed_dir="$seeds/safetensors" ;;
    fuzz_hf_config) seed_dir="$seeds/hf_config" ;;
    fuzz_gguf_quant) seed_dir="$seeds/gguf_quant" ;;
    fuzz_tokenizer_bpe) seed_dir="$seeds/tokenizer_text" ;;
    fuzz_chat_template) seed_dir="$seeds/chat_template" ;;
    fuzz_tokenizer_json) seed_dir="$seeds/tokenizer_json" ;;
    fuzz_kv_cache_file) seed_dir="$seeds/kv_cache" ;;
    fuzz_document_ingest) seed_dir="$seeds/documents" ;;
    *) seed_dir="" ;;
  esac
  mkdir -p "$corpus/$target"
  echo "== $target: ${seconds}s"
  # UBSan already aborts (-fno-sanitize-recover); ASan's leak check is on by default.
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
      "$build/tests/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb="$rss_mb" \
      -malloc_limit_mb="$rss_mb" -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
      "$corpus/$target" $seed_dir 2>&1 | tail -n 40; then
    echo "!! $target failed; reproducers in $artifacts" >&2
    status=1
  fi
done
exit $status
