#!/usr/bin/env bash
# Builds the Debian packages with CPack from the `build` folder ($BUILD_DIR): snapdoc, and
# snapdoc-cuda when the build has the CUDA backend module (a CUDA toolkit was found). Configures and
# builds what the packages hold first (not the tests), unless --no-build says the folder is already
# built (CI: scripts/ci-deb.sh after scripts/test.sh). Prints the paths of the .deb files.
#
#   scripts/package-deb.sh [--no-build]
#
# Environment: BUILD_DIR, SNAPDOC_UI, JOBS as for scripts/test.sh (scripts/common.sh).
set -euo pipefail

# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SNAPDOC_ROOT"

build=1
for arg in "$@"; do
    case "$arg" in
        --no-build) build=0 ;;
        -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

if [[ "$build" == 1 ]]; then
    configure_build
    echo "== build the packaged programs (-j$JOBS)"
    cmake --build "$BUILD_DIR" -j "$JOBS" --target snapdoc_package_contents
elif [[ ! -f "$BUILD_DIR/CPackConfig.cmake" ]]; then
    echo "package-deb.sh: $BUILD_DIR is not a configured build folder (run without --no-build)" >&2
    exit 1
fi

# dpkg-shlibdeps computes the dependencies; it comes with dpkg-dev.
if ! command -v dpkg-shlibdeps >/dev/null 2>&1; then
    echo "package-deb.sh: dpkg-shlibdeps not found (apt-get install dpkg-dev)" >&2
    exit 1
fi

echo "== cpack -G DEB ($BUILD_DIR)"
rm -f "$BUILD_DIR"/snapdoc_*.deb "$BUILD_DIR"/snapdoc-cuda_*.deb
(cd "$BUILD_DIR" && cpack -G DEB)
ls -1 "$BUILD_DIR"/snapdoc_*.deb "$BUILD_DIR"/snapdoc-cuda_*.deb 2>/dev/null || true
