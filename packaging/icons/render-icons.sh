#!/usr/bin/env bash
# Renders the app icon's PNG sizes from the SVG (rsvg-convert, Debian package librsvg2-bin). The PNGs
# are committed, so building and packaging need no SVG renderer; rerun this after editing the SVG.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for size in 48 64 128 256; do
    rsvg-convert -w "$size" -h "$size" io.github.snapdoc.snapdoc.svg -o "io.github.snapdoc.snapdoc-$size.png"
done
