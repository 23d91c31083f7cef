#!/bin/bash
# Runs today's issue-23 UI tests against the code issue 23 was filed against (3cbcbe8), to show
# that each fails there (docs/ui-issue23-tests.md has the results). Usage, from a checkout:
#   scripts/ui-issue23-before/run.sh [OLD_WORKTREE]   (default: ../snapdoc-3cbcbe8)
# It adds a detached worktree at 3cbcbe8 (or reuses it), puts this checkout's tests/ui into it
# (without the tests of other issues, whose APIs 3cbcbe8 lacks), adapts them with adapt_tests.py,
# builds the issue-23 test binaries and runs each; logs go to $OLD/build/issue23-before/.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
old=${1:-$here/../snapdoc-3cbcbe8}
[ -d "$old" ] || git -C "$here" worktree add --detach "$old" 3cbcbe8 || exit 1
rm -rf "$old/tests/ui" && cp -r "$here/tests/ui" "$old/tests/ui" || exit 1
# Tests of other issues (22, 24, the hub, the local server): not part of this check.
rm -f "$old"/tests/ui/test_{get_models,local_server,engine_worker_run_context,sqlite_full_disk}.cpp
python3 "$here/scripts/ui-issue23-before/adapt_tests.py" "$old/tests/ui" || exit 1
# name[:function]: load_flow, inspector_panel and compression_controls hold other tests too; only the issue-23
# function of each runs (load_flow's others open "&Settings…", which 3cbcbe8 names "&Generation…").
tests="round3_minor active_conversation window_fit settings_sections document_page_indicator html_boilerplate
       third_party_messages document_layout inspector_axes conversation_export_versions
       load_flow:prefill_moves_per_chunk_with_an_estimate_and_unclipped_text
       inspector_panel:export_selection_writes_what_inspect_writes
       compression_controls:a_refusal_is_said_over_an_earlier_estimate model_description"
cmake -S "$old" -B "$old/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPDOC_BUILD_UI=ON -DSNAPDOC_CUDA=OFF \
      -DSNAPDOC_BUILD_BENCH=OFF >/dev/null || exit 1
cmake --build "$old/build" -j"${JOBS:-2}" --target $(for t in $tests; do echo ui_test_${t%%:*}; done) -- -k 0
logs="$old/build/issue23-before" && mkdir -p "$logs"
for entry in $tests; do
    t=${entry%%:*} && fn=${entry#*:} && [ "$fn" = "$entry" ] && fn=
    home=$(mktemp -d)
    # As ctest runs them (tests/ui/CMakeLists.txt); a missing binary did not compile.
    (cd "$old/build/tests/ui" && env QT_QPA_PLATFORM=offscreen QT_QPA_PLATFORMTHEME= SNAPDOC_LOG_LEVEL=warn \
        HOME="$home" SNAPDOC_DATA_DIR= timeout 900 ./ui_test_$t $fn >"$logs/$t.log" 2>&1)
    echo "== $t: exit $?"
    grep -E "^(FAIL!|PASS|SKIP)|Loc:" "$logs/$t.log"
    rm -rf "$home"
done
