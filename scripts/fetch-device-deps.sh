#!/usr/bin/env bash
# Prepares the libraries the GPU machine lacks, HERE (a Debian 12 amd64 machine with apt): the GPU
# machine has CUDA, CMake, ninja and a C++ compiler but no Debian package registry and no Qt. Each
# package below is fetched with `apt-get download` and unpacked with `dpkg-deb -x` (no install, no
# root needed for the unpack) into build-device-deps/root, which is gitignored (/build*/) and is
# carried to the GPU machine by the device tool as one archive (`carry: ["build-device-deps/deps.tar.gz"]`,
# 64 MiB limit in all, working tree included). scripts/gpu-check.sh unpacks it and points CMake,
# pkg-config and the loader at it.
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
    libpcre2-dev libpcre2-8-0                 # byte-level BPE pre-tokenizer regexes: headers, .so, libpcre2-8.pc
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

# The shared test fixtures live outside the checkout, so they would not travel with it;
# gpu-check.sh points SNAPDOC_FIXTURES_DIR here. Only the small ones (stories260K, the Llama 2
# tokenizer, texts: ~5 MB): the whole folder (modelzoo: 180 MB) is far over the 64 MiB the device
# tool carries, so the modelzoo tests skip there with their message.
# Without them the folder is still made (empty), so the archive below has the same layout.
fixtures="$ROOT/../shared/fixtures"
mkdir -p "$DEST/fixtures"
if [[ -d "$fixtures" ]]; then
    for f in README.md stories260K llama2-tokenizer texts; do
        if [[ -e "$fixtures/$f" ]]; then cp -r "$fixtures/$f" "$DEST/fixtures/"; fi
    done
else
    echo "fetch-device-deps: $fixtures not found; the fixture tests will skip on the GPU machine"
fi

# The .pc files say prefix=/usr; make them relative to the .pc file itself so the tree works
# wherever it is unpacked (pkgconf and pkg-config both define ${pcfiledir}).
# shellcheck disable=SC2016  # ${pcfiledir} is for pkg-config, not the shell
sed -i 's|^prefix=/usr$|prefix=${pcfiledir}/../../..|' "$multiarch"/pkgconfig/*.pc

size="$(du -sh "$DEST" | cut -f1)"
echo "fetch-device-deps: $(wc -l <"$DEST/packages.txt") packages unpacked into $DEST ($size)"

# The same as one archive (OpenBLAS alone is 35 MB unpacked, a third of that packed), which is what
# the device call carries: carry=["build-device-deps/deps.tar.gz"]; gpu-check.sh unpacks it there.
tar -C "$DEST" -czf "$DEST/deps.tar.gz.part" root fixtures packages.txt
mv "$DEST/deps.tar.gz.part" "$DEST/deps.tar.gz"

# What the device tool carries: the archive plus the working tree (tracked and untracked files
# that git does not ignore), 64 MiB in all.
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    tree_bytes="$(cd "$ROOT" && { git ls-files -z; git ls-files -z --others --exclude-standard; } |
        xargs -0 du -cb 2>/dev/null | awk '$2 == "total" { t += $1 } END { print t + 0 }')"
    deps_bytes="$(stat -c %s "$DEST/deps.tar.gz")"
    total_mib=$(((tree_bytes + deps_bytes) / 1048576))
    echo "fetch-device-deps: working tree $((tree_bytes / 1048576)) MiB + deps.tar.gz $((deps_bytes / 1048576)) MiB = $total_mib MiB of the 64 MiB the device tool carries"
    if ((total_mib >= 64)); then
        echo "fetch-device-deps: WARNING: over the 64 MiB limit; the device call would be refused" >&2
    fi
fi
