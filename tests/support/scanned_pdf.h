// Test data: PDFs whose pages are scans (an image of text, no text layer), with or beside pages
// that have a text layer, for the OCR tests. The text is drawn with a built-in 5x7 bitmap font
// scaled up (no installed fonts needed), as a 150 dpi one-bit image filling a Letter page.
#pragma once

#include <string>
#include <vector>

namespace snapdoc::testing {

struct TestPdfPage {
    enum class Kind { Text, Scan, BlankScan, DamagedScan };
    Kind kind = Kind::Scan;
    std::vector<std::string> lines;  // Text: the text layer's lines; Scan: the lines drawn in the image
};

inline TestPdfPage text_page(std::vector<std::string> lines) { return {TestPdfPage::Kind::Text, std::move(lines)}; }
inline TestPdfPage scan_page(std::vector<std::string> lines) { return {TestPdfPage::Kind::Scan, std::move(lines)}; }

// Characters the bitmap font has: A-Z, a-z, 0-9, space, '.', ','; others throw.
std::string build_scanned_pdf(const std::vector<TestPdfPage>& pages);

}  // namespace snapdoc::testing
