// Builds ExtractedDocument::text block by block. The readers walk their XML and call these in
// reading order; whitespace inside a block is collapsed here once, not in every reader.
#pragma once

#include <string>
#include <vector>

#include "app/documents/extracted_document.h"

namespace snapdoc::documents {

class StructuredText {
public:
    void heading(int level, const std::string& text);  // level 1..6
    void paragraph(const std::string& text);
    void list_item(int depth, const std::string& text);  // depth 0 = top level
    void table_row(const std::vector<std::string>& cells);
    // A note's body, printed after the main text as "[label] text" (footnotes, endnotes).
    void note(const std::string& label, const std::string& text);
    const std::string& first_heading() const { return first_heading_; }
    // The whole text, notes last ("Notes" heading) and one trailing newline.
    std::string finish();
    // The finished document: `title` from the file's metadata, else the first heading.
    ExtractedDocument finish_document(std::string format, std::string title);

private:
    enum class Kind { None, Block, ListItem, TableRow };
    void start_block(Kind kind);
    std::string out_;
    std::vector<std::string> notes_;
    std::string first_heading_;
    Kind last_ = Kind::None;
};

// Whitespace runs (ASCII and no-break spaces) become one space; leading/trailing ones go.
std::string collapse_whitespace(const std::string& text);

}  // namespace snapdoc::documents
