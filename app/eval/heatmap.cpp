#include "app/eval/heatmap.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "engine/common/error.h"

namespace snapdoc::eval {
namespace {

struct Glyph {
    char c;
    const char* rows[7];  // 5 columns each, '#' = ink
};

// clang-format off
constexpr Glyph kFont[] = {
    {'0', {" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "}},
    {'1', {"  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
    {'2', {" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"}},
    {'3', {"#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "}},
    {'4', {"   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "}},
    {'5', {"#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "}},
    {'6', {"  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "}},
    {'7', {"#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "}},
    {'8', {" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "}},
    {'9', {" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "}},
    {'A', {" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
    {'B', {"#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "}},
    {'C', {" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "}},
    {'D', {"#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "}},
    {'E', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"}},
    {'F', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "}},
    {'G', {" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"}},
    {'H', {"#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
    {'I', {" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
    {'J', {"  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "}},
    {'K', {"#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"}},
    {'L', {"#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"}},
    {'M', {"#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"}},
    {'N', {"#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"}},
    {'O', {" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
    {'P', {"#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "}},
    {'Q', {" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"}},
    {'R', {"#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"}},
    {'S', {" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "}},
    {'T', {"#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "}},
    {'U', {"#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
    {'V', {"#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "}},
    {'W', {"#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "}},
    {'X', {"#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"}},
    {'Y', {"#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "}},
    {'Z', {"#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"}},
    {'%', {"##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"}},
    {'=', {"     ", "     ", "#####", "     ", "#####", "     ", "     "}},
    {'.', {"     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "}},
    {',', {"     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "}},
    {'-', {"     ", "     ", "     ", "#####", "     ", "     ", "     "}},
    {'+', {"     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "}},
    {':', {"     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "}},
    {'/', {"     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     "}},
    {'(', {"   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "}},
    {')', {" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "}},
    {'x', {"     ", "     ", "#   #", " # # ", "  #  ", " # # ", "#   #"}},
};
// clang-format on

const Glyph* glyph(char c) {
    if (c != 'x') c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const Glyph& g : kFont)
        if (g.c == c) return &g;
    return nullptr;
}

constexpr int kAdvance = 6;  // 5 columns + 1 space

}  // namespace

int text_width(std::string_view text, int scale) {
    return text.empty() ? 0 : static_cast<int>(text.size()) * kAdvance * scale - scale;
}

int draw_text(RgbImage& img, int x, int y, std::string_view text, int scale, uint8_t r, uint8_t g, uint8_t b) {
    int cx = x;
    for (char c : text) {
        if (const Glyph* gl = glyph(c)) {
            for (int row = 0; row < 7; ++row)
                for (int col = 0; col < 5; ++col)
                    if (gl->rows[row][col] == '#') img.fill_rect(cx + col * scale, y + row * scale, scale, scale, r, g, b);
        }
        cx += kAdvance * scale;
    }
    return cx - x;
}

void accuracy_color(double v, uint8_t& r, uint8_t& g, uint8_t& b) {
    // red (215,48,39) -> yellow (254,224,139) -> green (26,152,80)
    v = std::clamp(v, 0.0, 1.0);
    auto lerp = [](double a, double c, double t) { return static_cast<uint8_t>(std::lround(a + (c - a) * t)); };
    if (v < 0.5) {
        const double t = v / 0.5;
        r = lerp(215, 254, t);
        g = lerp(48, 224, t);
        b = lerp(39, 139, t);
    } else {
        const double t = (v - 0.5) / 0.5;
        r = lerp(254, 26, t);
        g = lerp(224, 152, t);
        b = lerp(139, 80, t);
    }
}

RgbImage render_heatmap(const HeatmapSpec& s) {
    const int rows = static_cast<int>(s.row_labels.size()), cols = static_cast<int>(s.col_labels.size());
    if (rows < 1 || cols < 1) throw Error("heatmap needs at least one row and one column");
    if (s.values.size() != static_cast<std::size_t>(rows) * cols)
        throw Error("heatmap has " + std::to_string(s.values.size()) + " values for " + std::to_string(rows) + "x" +
                    std::to_string(cols) + " cells");
    constexpr int cell_w = 56, cell_h = 22, pad = 12;
    int label_w = 0;
    for (const auto& l : s.row_labels) label_w = std::max(label_w, text_width(l));
    const int left = pad + 7 + pad + label_w + 6;  // y title (vertical letters), labels
    const int top = pad + 14 + pad;                 // title at scale 2
    const int width = std::max(left + cols * cell_w + pad, text_width(s.title, 2) + 2 * pad);
    const int height = top + rows * cell_h + 6 + 7 + 8 + 7 + pad;
    RgbImage img(width, height, 255);
    draw_text(img, pad, pad, s.title, 2);
    // y title, one letter per line
    for (std::size_t i = 0; i < s.y_title.size(); ++i)
        draw_text(img, pad, top + static_cast<int>(i) * 9, std::string_view(s.y_title).substr(i, 1));
    for (int r = 0; r < rows; ++r) {
        draw_text(img, left - 6 - text_width(s.row_labels[r]), top + r * cell_h + (cell_h - 7) / 2, s.row_labels[r]);
        for (int c = 0; c < cols; ++c) {
            const double v = s.values[static_cast<std::size_t>(r) * cols + c];
            uint8_t cr = 200, cg = 200, cb = 200;
            if (!std::isnan(v)) accuracy_color(v, cr, cg, cb);
            const int x = left + c * cell_w, y = top + r * cell_h;
            img.fill_rect(x, y, cell_w - 1, cell_h - 1, cr, cg, cb);
            if (!std::isnan(v)) {
                const std::string t = std::to_string(static_cast<int>(std::lround(v * 100)));
                draw_text(img, x + (cell_w - 1 - text_width(t)) / 2, y + (cell_h - 1 - 7) / 2, t);
            }
        }
    }
    const int ly = top + rows * cell_h + 6;
    for (int c = 0; c < cols; ++c)
        draw_text(img, left + c * cell_w + (cell_w - 1 - text_width(s.col_labels[c])) / 2, ly, s.col_labels[c]);
    draw_text(img, left + (cols * cell_w - text_width(s.x_title)) / 2, ly + 7 + 8, s.x_title);
    return img;
}

}  // namespace snapdoc::eval
