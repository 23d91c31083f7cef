#!/usr/bin/env bash
# Prepares the libraries the GPU machine lacks, HERE (a Debian 12 amd64 machine with apt): the GPU
# machine has CUDA, CMake, ninja and a C++ compiler but no Debian package registry and no Qt. Each
# package below is fetched with `apt-get download` and unpacked with `dpkg-deb -x` (no install, no
# root needed for the unpack) into build-device-deps/root, which is gitignored (/build*/) and is
# carried to the GPU machine by the device tool (`carry: ["build-device-deps"]`, 64 MiB limit in all).
# scripts/gpu-check.sh points CMake, pkg-config and the loader at it.
#
#   scripts/fetch-device-deps.sh [DEST]     default DEST: build-device-deps
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/build-device-deps}"

# Exactly what the non-UI build (engine, CLI, bench, unit/golden/cuda tests) links or includes:
packages=(
    libsentencepiece0 libsentencepiece-dev    # tokenizer: .so's + headers + sentencepiece.pc
    libspdlog1.10 libspdlog-dev               # logging: .so + headers + spdlogConfig.cmake
    libfmt9 libfmt-dev                        # spdlog's formatter (spdlog is built with external fmt)
    nlohmann-json3-dev                        # header-only JSON + nlohmann_jsonConfig.cmake
    libopenblas0-pthread libopenblas-pthread-dev  # the CPU backend's sgemm (+ cblas.h)
    libgfortran5 libquadmath0                 # OpenBLAS's runtime dependencies
    libgtest-dev                              # GoogleTest static libs + GTestConfig.cmake
    pkgconf-bin libpkgconf3                   # pkg-config (CMake's pkg_check_modules), in case the
                                              # GPU machine has none
)
# Not needed: googletest (sources), catch2 (a Depends of libspdlog-dev used only by spdlog's own
# tests), Qt/SQLite/Poppler (UI only).

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
    echo "fetch-device-deps: apt-get download failed; refreshing package lists (apt-get update) and retrying"
    apt-get update >/dev/null
    apt-get download "${packages[@]}"
fi

rm -rf "$DEST"
mkdir -p "$DEST/root"
for deb in ./*.deb; do
    dpkg-deb -x "$deb" "$DEST/root"
    basename "$deb" >>"$DEST/packages.txt"
done
# Documentation, man pages and lintian data are not needed to build or run; nor are OpenBLAS's
# static archive (58 MB), its LAPACK/BLAS-compatibility libraries and its CMake files (the build
# links libopenblas.so found by find_library).
rm -rf "$DEST/root/usr/share/doc" "$DEST/root/usr/share/man" "$DEST/root/usr/share/lintian"
ob="$DEST/root/usr/lib/x86_64-linux-gnu/openblas-pthread"
rm -rf "$ob"/*.a "$ob"/liblapack.* "$ob"/libblas.* "$ob/cmake"

# The openblas packages expose libopenblas.so / cblas.h through /etc/alternatives symlinks, which
# an unpacked tree does not have: point straight at the pthread variant's files instead.
multiarch="$DEST/root/usr/lib/x86_64-linux-gnu"
ln -sfn openblas-pthread/libopenblas.so.0 "$multiarch/libopenblas.so.0"
ln -sfn openblas-pthread/libopenblas.so "$multiarch/libopenblas.so"
ln -sfn openblas-pthread/cblas.h "$DEST/root/usr/include/x86_64-linux-gnu/cblas.h"

# The shared test fixtures (stories260K, tokenizers, texts: ~5 MB) live outside the checkout, so
# they would not travel with it; gpu-check.sh points SNAPDOC_FIXTURES_DIR here.
fixtures="$ROOT/../shared/fixtures"
if [[ -d "$fixtures" ]]; then
    cp -r "$fixtures" "$DEST/fixtures"
else
    echo "fetch-device-deps: $fixtures not found; the fixture tests will skip on the GPU machine"
fi

# sentencepiece.pc says prefix=/usr; make it relative to the .pc file itself so the tree works
# wherever it is unpacked (pkgconf and pkg-config both define ${pcfiledir}).
# shellcheck disable=SC2016  # ${pcfiledir} is for pkg-config, not the shell
sed -i 's|^prefix=/usr$|prefix=${pcfiledir}/../../..|' "$multiarch/pkgconfig/sentencepiece.pc"

size="$(du -sh "$DEST" | cut -f1)"
echo "fetch-device-deps: $(wc -l <"$DEST/packages.txt") packages unpacked into $DEST ($size)"
