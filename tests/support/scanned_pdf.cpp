#include "tests/support/scanned_pdf.h"

#include <array>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "tests/support/pdf_assembly.h"

namespace snapdoc::testing {

namespace {

// 5 columns by 9 rows ('#' ink): rows 0-6 above the baseline, 7-8 descenders.
using Glyph = std::array<const char*, 9>;
#define G(a, b, c, d, e, f, g, h, i) Glyph{a, b, c, d, e, f, g, h, i}
constexpr const char* _ = ".....";

const std::map<char, Glyph>& font() {
    static const std::map<char, Glyph> glyphs{
        {'A', G(".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", _, _)},
        {'B', G("####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.", _, _)},
        {'C', G(".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.", _, _)},
        {'D', G("####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####.", _, _)},
        {'E', G("#####", "#....", "#....", "####.", "#....", "#....", "#####", _, _)},
        {'F', G("#####", "#....", "#....", "####.", "#....", "#....", "#....", _, _)},
        {'G', G(".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####", _, _)},
        {'H', G("#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", _, _)},
        {'I', G(".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.", _, _)},
        {'J', G("..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..", _, _)},
        {'K', G("#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#", _, _)},
        {'L', G("#....", "#....", "#....", "#....", "#....", "#....", "#####", _, _)},
        {'M', G("#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#", _, _)},
        {'N', G("#...#", "##..#", "##..#", "#.#.#", "#..##", "#..##", "#...#", _, _)},
        {'O', G(".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.", _, _)},
        {'P', G("####.", "#...#", "#...#", "####.", "#....", "#....", "#....", _, _)},
        {'Q', G(".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#", _, _)},
        {'R', G("####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#", _, _)},
        {'S', G(".####", "#....", "#....", ".###.", "....#", "....#", "####.", _, _)},
        {'T', G("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", _, _)},
        {'U', G("#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.", _, _)},
        {'V', G("#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..", _, _)},
        {'W', G("#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.", _, _)},
        {'X', G("#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#", _, _)},
        {'Y', G("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..", _, _)},
        {'Z', G("#####", "....#", "...#.", "..#..", ".#...", "#....", "#####", _, _)},
        {'a', G(_, _, ".###.", "....#", ".####", "#...#", ".####", _, _)},
        {'b', G("#....", "#....", "####.", "#...#", "#...#", "#...#", "####.", _, _)},
        {'c', G(_, _, ".###.", "#....", "#....", "#...#", ".###.", _, _)},
        {'d', G("....#", "....#", ".####", "#...#", "#...#", "#...#", ".####", _, _)},
        {'e', G(_, _, ".###.", "#...#", "#####", "#....", ".###.", _, _)},
        {'f', G("..##.", ".#...", ".#...", "###..", ".#...", ".#...", ".#...", _, _)},
        {'g', G(_, _, ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###.")},
        {'h', G("#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#", _, _)},
        {'i', G("..#..", _, ".##..", "..#..", "..#..", "..#..", ".###.", _, _)},
        {'j', G("...#.", _, "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..")},
        {'k', G("#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#.", _, _)},
        {'l', G(".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.", _, _)},
        {'m', G(_, _, "##.#.", "#.#.#", "#.#.#", "#.#.#", "#.#.#", _, _)},
        {'n', G(_, _, "#.##.", "##..#", "#...#", "#...#", "#...#", _, _)},
        {'o', G(_, _, ".###.", "#...#", "#...#", "#...#", ".###.", _, _)},
        {'p', G(_, _, "####.", "#...#", "#...#", "#...#", "####.", "#....", "#....")},
        {'q', G(_, _, ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#")},
        {'r', G(_, _, "#.##.", "##..#", "#....", "#....", "#....", _, _)},
        {'s', G(_, _, ".####", "#....", ".###.", "....#", "####.", _, _)},
        {'t', G(".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##.", _, _)},
        {'u', G(_, _, "#...#", "#...#", "#...#", "#..##", ".##.#", _, _)},
        {'v', G(_, _, "#...#", "#...#", "#...#", ".#.#.", "..#..", _, _)},
        {'w', G(_, _, "#...#", "#...#", "#.#.#", "#.#.#", ".#.#.", _, _)},
        {'x', G(_, _, "#...#", ".#.#.", "..#..", ".#.#.", "#...#", _, _)},
        {'y', G(_, _, "#...#", "#...#", "#...#", "#...#", ".####", "....#", ".###.")},
        {'z', G(_, _, "#####", "...#.", "..#..", ".#...", "#####", _, _)},
        {'0', G(".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.", _, _)},
        {'1', G("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.", _, _)},
        {'2', G(".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####", _, _)},
        {'3', G("#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###.", _, _)},
        {'4', G("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.", _, _)},
        {'5', G("#####", "#....", "####.", "....#", "....#", "#...#", ".###.", _, _)},
        {'6', G("..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.", _, _)},
        {'7', G("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...", _, _)},
        {'8', G(".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.", _, _)},
        {'9', G(".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..", _, _)},
        {'.', G(_, _, _, _, _, ".##..", ".##..", _, _)},
        {',', G(_, _, _, _, _, ".##..", ".##..", "..#..", ".#...")},
        {' ', G(_, _, _, _, _, _, _, _, _)},
    };
    return glyphs;
}
#undef G

// A Letter page at 150 dpi, one bit per pixel (PDF DeviceGray: 1 is white), rows padded to bytes.
constexpr int kWidth = 1275, kHeight = 1650, kScale = 3, kMargin = 120;
constexpr int kAdvance = 6 * kScale, kLineHeight = 12 * kScale;
constexpr int kRowBytes = (kWidth + 7) / 8;

std::string draw_scan(const std::vector<std::string>& lines) {
    std::string bits(static_cast<std::size_t>(kRowBytes) * kHeight, '\xff');
    auto ink = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= kWidth || y >= kHeight) throw std::runtime_error("scanned_pdf: text off the page");
        bits[static_cast<std::size_t>(y) * kRowBytes + x / 8] &= static_cast<char>(~(0x80 >> (x % 8)));
    };
    for (std::size_t l = 0; l < lines.size(); ++l) {
        const int top = kMargin + static_cast<int>(l) * kLineHeight;
        for (std::size_t c = 0; c < lines[l].size(); ++c) {
            const auto it = font().find(lines[l][c]);
            if (it == font().end()) throw std::runtime_error(std::string("scanned_pdf: no glyph for '") + lines[l][c] + "'");
            const int left = kMargin + static_cast<int>(c) * kAdvance;
            for (int row = 0; row < 9; ++row)
                for (int col = 0; col < 5; ++col)
                    if (it->second[row][col] == '#')
                        for (int dy = 0; dy < kScale; ++dy)
                            for (int dx = 0; dx < kScale; ++dx) ink(left + col * kScale + dx, top + row * kScale + dy);
        }
    }
    return bits;
}

std::string escape_pdf_string(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '(' || c == ')' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

}  // namespace

std::string build_scanned_pdf(const std::vector<TestPdfPage>& pages) {
    // Objects: 1 catalog, 2 pages, 3 font, then per page: page, content, image.
    std::vector<std::string> objects;
    std::string kids;
    const int n = static_cast<int>(pages.size());
    for (int p = 0; p < n; ++p) kids += std::to_string(4 + 3 * p) + " 0 R ";
    objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
    objects.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(n) + " >>");
    objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    for (int p = 0; p < n; ++p) {
        const TestPdfPage& page = pages[p];
        const std::string image_ref = std::to_string(6 + 3 * p) + " 0 R";
        std::string content;
        std::string image;
        if (page.kind == TestPdfPage::Kind::Text) {
            content = "BT /F1 12 Tf 72 720 Td 16 TL\n";
            for (const auto& line : page.lines) content += "(" + escape_pdf_string(line) + ") Tj T*\n";
            content += "ET";
            image = draw_scan({});  // unused, keeps the object numbering regular
        } else {
            content = "q 612 0 0 792 0 0 cm /Im0 Do Q";
            image = draw_scan(page.kind == TestPdfPage::Kind::Scan ? page.lines : std::vector<std::string>{});
            // A scan whose image data stops a tenth of the way in (a damaged file).
            if (page.kind == TestPdfPage::Kind::DamagedScan) image.resize(image.size() / 10);
        }
        objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> "
                          "/XObject << /Im0 " + image_ref + " >> >> /Contents " + std::to_string(5 + 3 * p) + " 0 R >>");
        objects.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
        objects.push_back("<< /Type /XObject /Subtype /Image /Width " + std::to_string(kWidth) + " /Height " +
                          std::to_string(kHeight) + " /ColorSpace /DeviceGray /BitsPerComponent 1 /Length " +
                          std::to_string(image.size()) + " >>\nstream\n" + image + "\nendstream");
    }
    return assemble_pdf(objects);
}

}  // namespace snapdoc::testing
