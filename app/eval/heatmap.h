// Needle-in-a-haystack heatmaps (rows: needle depth, columns: context length; cell colour: accuracy
// from red 0 through yellow to green 1) rendered into an RGB image with a built-in 5x7 pixel font.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/eval/png.h"

namespace snapdoc::eval {

struct HeatmapSpec {
    std::string title;
    std::string x_title = "CONTEXT LENGTH (TOKENS)";
    std::string y_title = "DEPTH";
    std::vector<std::string> col_labels;
    std::vector<std::string> row_labels;
    std::vector<double> values;  // rows * cols, row-major, in [0, 1]; NaN = no data
};

RgbImage render_heatmap(const HeatmapSpec& spec);

// Draws `text` (ASCII, drawn in upper case; unknown characters as blanks) with its top-left at (x, y),
// each font pixel a scale x scale square. Returns the width drawn.
int draw_text(RgbImage& img, int x, int y, std::string_view text, int scale = 1, uint8_t r = 0, uint8_t g = 0,
              uint8_t b = 0);
int text_width(std::string_view text, int scale = 1);

// The accuracy colour for v in [0, 1].
void accuracy_color(double v, uint8_t& r, uint8_t& g, uint8_t& b);

}  // namespace snapdoc::eval
