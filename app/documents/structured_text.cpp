#include "app/documents/structured_text.h"

#include <utility>

namespace snapdoc::documents {

ExtractedDocument StructuredText::finish_document(std::string format, std::string title) {
    ExtractedDocument d;
    d.format = std::move(format);
    d.title = title.empty() ? first_heading_ : std::move(title);
    d.text = finish();
    return d;
}

std::string collapse_whitespace(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool space = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const bool nbsp = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xa0;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || nbsp) {
            space = true;
            if (nbsp) ++i;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += static_cast<char>(c);
    }
    return out;
}

void StructuredText::start_block(Kind kind) {
    // Consecutive list items and table rows stay together; every other block gets a blank line.
    if (!out_.empty()) out_ += (kind != Kind::Block && kind == last_) ? "\n" : "\n\n";
    last_ = kind;
}

void StructuredText::heading(int level, const std::string& text) {
    const std::string t = collapse_whitespace(text);
    if (t.empty()) return;
    if (first_heading_.empty()) first_heading_ = t;
    start_block(Kind::Block);
    out_ += std::string(static_cast<std::size_t>(level < 1 ? 1 : level > 6 ? 6 : level), '#') + " " + t;
}

void StructuredText::paragraph(const std::string& text) {
    const std::string t = collapse_whitespace(text);
    if (t.empty()) return;
    start_block(Kind::Block);
    out_ += t;
}

void StructuredText::list_item(int depth, const std::string& text) {
    const std::string t = collapse_whitespace(text);
    if (t.empty()) return;
    start_block(Kind::ListItem);
    out_ += std::string(static_cast<std::size_t>(depth < 0 ? 0 : depth) * 2, ' ') + "- " + t;
}

void StructuredText::table_row(const std::vector<std::string>& cells) {
    std::string row = "|";
    bool any = false;
    for (const auto& c : cells) {
        const std::string t = collapse_whitespace(c);
        any = any || !t.empty();
        row += " " + t + " |";
    }
    if (!any) return;
    start_block(Kind::TableRow);
    out_ += row;
}

void StructuredText::note(const std::string& label, const std::string& text) {
    const std::string t = collapse_whitespace(text);
    if (!t.empty()) notes_.push_back("[" + label + "] " + t);
}

std::string StructuredText::finish() {
    if (!notes_.empty()) {
        heading(2, "Notes");
        for (const auto& n : notes_) {
            start_block(Kind::ListItem);
            out_ += n;
        }
    }
    if (!out_.empty()) out_ += "\n";
    return std::move(out_);
}

}  // namespace snapdoc::documents
