#!/usr/bin/env bash
# Installs the Debian 12 packages snapdoc needs to build and test. This is the one install script:
# the README commands and CI (.ci/run -> scripts/test.sh) both call it, so a package added here is
# added everywhere.
#
#   scripts/install-deps.sh          engine, CLI, bench, tests, fuzzing
#   scripts/install-deps.sh --ui     the above plus the Qt 6 desktop app's packages
#   scripts/install-deps.sh --demo-model   also PyTorch (CPU) + SentencePiece for tools/demo_model/
#
# When every package is already installed it does not touch apt at all (no `apt-get update`), so
# running it before every build costs a fraction of a second.
set -euo pipefail

usage() {
    sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# --no-install-recommends keeps the install small, so everything the build really uses must be
# listed, including what Debian only "recommends":
#   libclang-rt-dev       libFuzzer/ASan runtimes for clang (-fsanitize=fuzzer); only a Recommends
#                         of clang, so without it the fuzz targets fail to link.
#   libopenblas0-pthread  the threaded OpenBLAS the CPU backend's GEMMs run on.
#   libcurl4-openssl-dev  the hub client's HTTP(S) (app/hub); libssl-dev its SHA-256 (libcrypto).
#   qemu-user             scripts/ci-cpu-levels.sh runs the kernels as an AVX2-only (Haswell) and an
#                         SSE4.2-only (Nehalem) CPU would.
#   libcpp-httplib-dev    snapdoc-server's HTTP and the local test hub (tests/support/local_hub.*,
#                         snapdoc-local-hub); curl, nodejs, npm: the server's tests drive it with curl
#                         and the official openai npm package (npm installs it on first use).
#   libpoppler-cpp-dev libzip-dev libxml2-dev libgumbo-dev
#                         reading .pdf (Poppler's C++ binding), .docx/.odt/.epub (libzip, libxml2),
#                         .html and EPUB chapters as HTML5 (gumbo) in
#                         app/documents, for the CLI, the server and the app (SNAPDOC_DOCUMENT_FORMATS).
#   libtesseract-dev tesseract-ocr-eng
#                         OCR of scanned PDF pages (Tesseract) and its English data, which the OCR
#                         tests read; other languages are tesseract-ocr-deu, -fra, ... (--ocr-lang).
#   dpkg-dev file lintian the Debian packages (scripts/package-deb.sh, scripts/ci-deb.sh): CPack's
#                         DEB generator needs dpkg-shlibdeps (dpkg-dev) and `file` to compute the
#                         dependencies; lintian checks the result.
packages=(
    build-essential cmake ninja-build pkg-config
    libsentencepiece-dev libpcre2-dev libspdlog-dev nlohmann-json3-dev
    libopenblas-dev libopenblas0-pthread
    libgtest-dev libsqlite3-dev
    libcurl4-openssl-dev libssl-dev libcpp-httplib-dev curl
    libpoppler-cpp-dev libzip-dev libxml2-dev libgumbo-dev libtesseract-dev tesseract-ocr-eng
    clang libclang-rt-dev
    qemu-user
    dpkg-dev file lintian
)
# node + npm for snapdoc-server's openai-client test: Debian's packages, unless an npm is already
# on PATH (NodeSource's nodejs bundles npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
fi
# The desktop app: Qt 6 Widgets/Concurrent/Test (qt6-base-dev; its tests run on the offscreen
# platform, no X server), PDF text via Poppler, and a font so offscreen tests and --screenshot
# render text (fontconfig only recommends one). desktop-file-utils and appstream validate the
# desktop entry and AppStream metadata the package installs (scripts/ci-deb.sh).
ui_packages=(qt6-base-dev libpoppler-qt6-dev fonts-dejavu-core desktop-file-utils appstream)
# Training the demo model (tools/demo_model/, docs/demo_model.md); not needed to build or test.
demo_model_packages=(python3-torch python3-numpy python3-sentencepiece)

for arg in "$@"; do
    case "$arg" in
        --ui) packages+=("${ui_packages[@]}") ;;
        --demo-model) packages+=("${demo_model_packages[@]}") ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-deps.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps.sh: this script needs a Debian/Ubuntu system (dpkg-query, apt-get)." >&2
    echo "Install these packages (or your distribution's equivalents) by hand: ${packages[*]}" >&2
    exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
    # Status is "install ok installed" only for a fully installed package; anything else
    # (absent, removed but configured, half-installed) needs apt.
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    # Multi-Arch: same packages (libcpp-httplib-dev) may only answer with their architecture.
    if [[ "$status" != "install ok installed" ]]; then
        status="$(dpkg-query -W -f='${Status}' "$pkg:$(dpkg --print-architecture)" 2>/dev/null || true)"
    fi
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps.sh: all ${#packages[@]} packages already installed"
    exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
if [[ "$(id -u)" -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps.sh: not root and sudo is not available; run as root: apt-get install ${missing[*]}" >&2
    exit 1
fi

# env (not an export) so the variable survives sudo, which resets the environment.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
