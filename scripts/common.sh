# shellcheck shell=bash
# Shared by scripts/test.sh and scripts/run-app.sh (sourced, not run): where the repository is and
# how the `build` directory is configured, so both scripts build the same tree with the same flags
# and never make each other reconfigure.

SNAPDOC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build}"
# ON (default), OFF or auto. ON installs the Qt 6 packages (install-deps.sh --ui) and builds and
# tests the desktop app (ctest label `ui`); OFF builds everything else, for machines without Qt and
# without a package mirror (the GPU machine); auto turns the app on only when Qt 6 is installed.
SNAPDOC_UI="${SNAPDOC_UI:-ON}"
JOBS="${JOBS:-$(nproc)}"

have_qt6() {
    compgen -G "/usr/lib/*/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake" >/dev/null ||
        [[ -f /usr/lib/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake ]]
}

install_deps() {
    if [[ "$SNAPDOC_UI" == "ON" ]] || { [[ "$SNAPDOC_UI" == "auto" ]] && have_qt6; }; then
        bash "$SNAPDOC_ROOT/scripts/install-deps.sh" --ui
    else
        bash "$SNAPDOC_ROOT/scripts/install-deps.sh"
    fi
}

# Prints ON/OFF for -DSNAPDOC_BUILD_UI.
ui_flag() {
    case "$SNAPDOC_UI" in
        ON|OFF) echo "$SNAPDOC_UI" ;;
        auto) if have_qt6; then echo ON; else echo OFF; fi ;;
        *) echo "SNAPDOC_UI must be ON, OFF or auto (got '$SNAPDOC_UI')" >&2; return 1 ;;
    esac
}

configure_build() {
    local ui
    ui="$(ui_flag)"
    # A build dir made earlier with another generator (e.g. Makefiles by hand) makes cmake refuse
    # to configure; only the cache is dropped, not the built objects of other generators' trees.
    local cache="$BUILD_DIR/CMakeCache.txt"
    if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
        echo "== $BUILD_DIR was configured with another generator; resetting its CMake cache"
        rm -rf "$cache" "$BUILD_DIR/CMakeFiles"
    fi
    echo "== configure $BUILD_DIR (Release, Ninja, SNAPDOC_BUILD_UI=$ui)"
    cmake -S "$SNAPDOC_ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSNAPDOC_BUILD_UI="$ui"
}
