#!/usr/bin/env bash
# CI check of the Debian packages (scripts/test.sh runs it after the test suites; root only, as it
# installs and purges system packages). From the already-built `build` folder ($BUILD_DIR):
#   1. build the .deb files (scripts/package-deb.sh --no-build);
#   2. lint them: lintian (no errors), desktop-file-validate and appstreamcli validate --no-net on
#      the files as packaged;
#   3. apt-get install ./snapdoc_*.deb and run the installed programs from /usr/bin: --version, an
#      answer from the bundled demo model and sample, an offscreen screenshot of the app, and
#      snapdoc-server until /health answers;
#   4. with snapdoc-cuda (when built): the installed module is found and --device auto still answers;
#   5. apt-get purge, then nothing the packages installed may be left.
set -euo pipefail

# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SNAPDOC_ROOT"

if [[ "${SNAPDOC_DEB:-1}" == "0" ]]; then
    echo "== Debian packages: skipped (SNAPDOC_DEB=0)"
    exit 0
fi
# It installs and purges system packages: CI runs as root; elsewhere it says so and skips, so
# scripts/test.sh still runs for a developer (scripts/package-deb.sh builds the packages as anyone).
if [[ "$(id -u)" -ne 0 ]]; then
    echo "== Debian packages: skipped (not root; run scripts/ci-deb.sh as root to check them)"
    exit 0
fi
for tool in lintian desktop-file-validate appstreamcli dpkg-shlibdeps curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "ci-deb.sh: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "ci-deb.sh: FAIL: $*" >&2; exit 1; }

echo "== package"
bash scripts/package-deb.sh --no-build
main_deb="$(ls "$BUILD_DIR"/snapdoc_*.deb)"
cuda_deb="$(ls "$BUILD_DIR"/snapdoc-cuda_*.deb 2>/dev/null || true)"
debs=("$main_deb")
[[ -n "$cuda_deb" ]] && debs+=("$cuda_deb")
dpkg-deb --info "$main_deb" | sed -n '/Package:/,$p'

echo "== lintian"
# Errors fail; warnings are printed (and worth fixing). root is fine here: lintian only reads.
lintian --fail-on error --allow-root --tag-display-limit 0 "${debs[@]}"

echo "== desktop entry and AppStream metadata, as packaged"
dpkg-deb -x "$main_deb" "$tmp/root"
if [[ -d "$tmp/root/usr/share/applications" ]]; then
    desktop-file-validate "$tmp"/root/usr/share/applications/*.desktop
    appstreamcli validate --no-net "$tmp"/root/usr/share/metainfo/*.metainfo.xml
else
    echo "(no desktop app in this build: SNAPDOC_BUILD_UI=OFF)"
fi

echo "== install $(basename "$main_deb")"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "./$main_deb"
dpkg -L snapdoc > "$tmp/files.list"
[[ "$(command -v snapdoc-cli)" == /usr/bin/snapdoc-cli ]] || fail "snapdoc-cli is not /usr/bin/snapdoc-cli"

if command -v systemd-analyze >/dev/null 2>&1; then
    echo "== systemd-analyze verify (the user unit)"
    systemd-analyze verify --man=no /usr/lib/systemd/user/snapdoc-server.service
fi

echo "== snapdoc-cli --version"
/usr/bin/snapdoc-cli --version | tee "$tmp/version"
grep -qx "resources: /usr/share/snapdoc" "$tmp/version" || fail "the installed CLI does not find /usr/share/snapdoc"

echo "== snapdoc-cli ask (the demo model on the sample report, CPU)"
sample=/usr/share/snapdoc/samples/demo-report.txt
question="$(head -n 1 "${sample%.txt}.questions.tsv" | cut -f 1)"
expected="$(head -n 1 "${sample%.txt}.questions.tsv" | cut -f 2)"
/usr/bin/snapdoc-cli ask -m demo --doc "$sample" -q "$question" -n 24 --no-cache --device cpu \
    > "$tmp/answer" 2> "$tmp/ask.log" || { cat "$tmp/ask.log" >&2; fail "snapdoc-cli ask failed"; }
cat "$tmp/answer"
grep -qF "$expected" "$tmp/answer" || fail "the answer to '$question' does not contain '$expected'"

if [[ -x /usr/bin/snapdoc ]]; then
    echo "== snapdoc --screenshot (offscreen)"
    QT_QPA_PLATFORM=offscreen /usr/bin/snapdoc --model demo --doc "$sample" --timeout 120 \
        --screenshot "$tmp/shot.png"
    [[ -s "$tmp/shot.png" ]] || fail "no screenshot written"
    echo "screenshot: $(stat -c %s "$tmp/shot.png") bytes"
fi

echo "== snapdoc-server until /health answers"
# --port 0: any free port; the server prints the address it bound on stdout.
/usr/bin/snapdoc-server -m demo --host 127.0.0.1 --port 0 --no-cache > "$tmp/server.out" 2> "$tmp/server.log" &
server_pid=$!
healthy=0
for _ in $(seq 1 60); do
    url="$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$tmp/server.out" | head -n 1 || true)"
    if [[ -n "$url" ]] && [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/health" || true)" == 200 ]]; then
        healthy=1
        break
    fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
done
[[ "$healthy" == 1 ]] || { cat "$tmp/server.out" "$tmp/server.log" >&2; fail "snapdoc-server did not answer /health"; }
echo "$url/health: 200"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""

if [[ -n "$cuda_deb" ]]; then
    echo "== install $(basename "$cuda_deb")"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "./$cuda_deb"
    dpkg -L snapdoc-cuda >> "$tmp/files.list"
    /usr/bin/snapdoc-cli --version | tee "$tmp/version"
    # Loaded where NVIDIA's libraries are installed; otherwise the line says why (never a crash).
    grep -q "^CUDA backend: " "$tmp/version" || fail "no CUDA backend line in --version"
    if ! grep -qx "CUDA backend: loaded from /usr/lib/snapdoc/libsnapdoc-cuda.so" "$tmp/version"; then
        echo "(the module did not load here; the line above says why)"
    fi
    # auto: the GPU when one is usable, else the CPU; the answer must be the same either way.
    /usr/bin/snapdoc-cli ask -m demo --doc "$sample" -q "$question" -n 24 --no-cache --device auto \
        > "$tmp/answer" 2> "$tmp/ask.log" || { cat "$tmp/ask.log" >&2; fail "ask --device auto failed with snapdoc-cuda"; }
    grep -qF "$expected" "$tmp/answer" || fail "--device auto with snapdoc-cuda: wrong answer"
fi

echo "== purge"
pkgs=(snapdoc)
[[ -n "$cuda_deb" ]] && pkgs=(snapdoc-cuda snapdoc)
DEBIAN_FRONTEND=noninteractive apt-get purge -y "${pkgs[@]}"
left=()
while IFS= read -r path; do
    # Folders such as /usr/bin are shared with other packages; only files and the package's own
    # folders must be gone.
    if [[ -e "$path" && ! -d "$path" ]]; then left+=("$path"); fi
done < "$tmp/files.list"
for dir in /usr/share/snapdoc /usr/lib/snapdoc /usr/share/doc/snapdoc /usr/share/doc/snapdoc-cuda; do
    [[ -e "$dir" ]] && left+=("$dir")
done
if [[ ${#left[@]} -gt 0 ]]; then
    printf '  %s\n' "${left[@]}" >&2
    fail "left behind after purge"
fi
echo "== packages OK"
