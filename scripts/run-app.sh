#!/usr/bin/env bash
# The README's "run it" command: installs dependencies (with Qt), builds the desktop app and opens
# it with a model and a sample document.
#
# The model is, in order: $SNAPDOC_MODEL; the demo model resources/models/snapdoc-demo.gguf (wired
# by tools/demo_model/), opened with its generated report resources/samples/demo-report.txt, whose
# questions the app shows as suggestions (demo-report.questions.tsv); the tiny stories260K fixture
# from ../shared/fixtures with resources/samples/the-lighthouse-keeper.md (it only proves the
# pipeline: its answers are nonsense, and the document is longer than its 2,048-token context, so it
# runs with --ignore-context).
#
# Without a display (no $DISPLAY / $WAYLAND_DISPLAY) it runs offscreen instead, asks one question
# and saves a screenshot to $BUILD_DIR/snapdoc-screenshot.png.
#
# --long-sample (first argument) opens the demo model with a 100K-token report instead: it is
# generated at first run by `snapdoc-cli make-sample` into $BUILD_DIR/samples/ (not committed: ~500 KB),
# with its suggested questions beside it, and opened at a 2% SnapKV budget (2,000 entries per head).
# The first question needs a ~100K-token prefill (minutes on a small CPU; the app shows the estimate).
#
# Extra arguments go to `snapdoc` (see `snapdoc --help`), e.g. --doc FILE, --ask QUESTION.
set -euo pipefail

long_sample=0
if [[ "${1:-}" == "--long-sample" ]]; then
    long_sample=1
    shift
fi

# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SNAPDOC_ROOT"

if [[ "$SNAPDOC_UI" == "OFF" ]]; then
    echo "run-app.sh: the desktop app needs Qt; unset SNAPDOC_UI (or set it to ON)" >&2
    exit 2
fi
SNAPDOC_UI=ON
install_deps
configure_build
echo "== build snapdoc (-j$JOBS)"
cmake --build "$BUILD_DIR" -j "$JOBS" --target snapdoc

app="$BUILD_DIR/ui/snapdoc"
doc="$SNAPDOC_ROOT/resources/samples/the-lighthouse-keeper.md"
question="Who rang the bell?"
args=()

model="${SNAPDOC_MODEL:-}"
demo="$SNAPDOC_ROOT/resources/models/snapdoc-demo.gguf"
if [[ -z "$model" && -f "$demo" ]]; then
    model="$demo"
    doc="$SNAPDOC_ROOT/resources/samples/demo-report.txt"
    question="$(head -n 1 "${doc%.txt}.questions.tsv" | cut -f 1)"
    # About 10% of the 1.8K-token report, so the demo shows real compression (this run only; the
    # slider changes it and the saved setting stays).
    args+=(--budget 180)
    if [[ "$long_sample" == 1 ]]; then
        doc="$BUILD_DIR/samples/demo-report-100k.txt"
        if [[ ! -f "$doc" || ! -f "${doc%.txt}.questions.tsv" ]]; then
            echo "== generating the 100K-token sample $doc"
            cmake --build "$BUILD_DIR" -j "$JOBS" --target snapdoc-cli
            "$BUILD_DIR/app/snapdoc-cli" make-sample -m "$model" --tokens 100000 --questions 5 \
                --facts-per-1k 2 --seed 7 --out "$doc"
        fi
        question="$(head -n 1 "${doc%.txt}.questions.tsv" | cut -f 1)"
        args=(--budget 2000)
    fi
elif [[ "$long_sample" == 1 ]]; then
    echo "run-app.sh: --long-sample needs the demo model resources/models/snapdoc-demo.gguf" >&2
    exit 2
fi
if [[ -z "$model" ]]; then
    fixture="$SNAPDOC_ROOT/../shared/fixtures/stories260K/stories260K.gguf"
    if [[ -f "$fixture" ]]; then
        model="$fixture"
        args+=(--ignore-context)
        echo "== no demo model in resources/models/: using the stories260K test fixture (answers are nonsense)"
    fi
fi
args+=(--doc "$doc")
if [[ -n "$model" ]]; then
    args+=(--model "$model")
else
    echo "== no model found: the app opens without one (File > Open Model)"
fi

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
    shot="$BUILD_DIR/snapdoc-screenshot.png"
    echo "== no display: running offscreen, saving $shot"
    QT_QPA_PLATFORM=offscreen exec "$app" "${args[@]}" --ask "$question" --screenshot "$shot" "$@"
fi
echo "== $app ${args[*]} $*"
exec "$app" "${args[@]}" "$@"
