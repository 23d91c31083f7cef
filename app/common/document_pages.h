// Page numbers for citations (issue 41): which page of a paged document (a PDF) a passage lies
// on, for every place a citation is shown (snapdoc-cli ask, snapdoc-server's "citations", the
// app's chips and its exports). A document without pages gives page 0, which callers show as no
// page at all (JSON leaves "page" out rather than writing 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "app/common/token_text_map.h"
#include "engine/session/citations.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {

// Page starts are only used when they make sense: the first at 0, each after the one before, the
// last inside a text of `text_size` units. Anything else (a stored list from a damaged library, a
// reader's bug) is treated as a document without pages rather than giving wrong page numbers.
bool usable_page_starts(std::span<const int> starts, int64_t text_size);

// The 1-based page that holds text offset `offset`, given where each page starts (in the same
// units as the offset); 0 with no starts or a negative offset. An offset past the last start is on
// the last page.
int page_at(std::span<const int> starts, int64_t offset);

// The UTF-16 offsets (TokenTextMap's and the app's units) of UTF-8 byte offsets into `text`
// (ExtractedDocument::page_starts), each moved back over the blank lines that separate a page from
// the one before, so a passage that begins in that gap counts on the page whose text follows. Empty
// when `byte_starts` is not usable (usable_page_starts on the byte offsets).
std::vector<int> page_starts_utf16(std::string_view text, std::span<const std::size_t> byte_starts);

// Names the page of each citation of an answer about one document: where the text of its first
// document token lies (TokenTextMap over the document part's token pieces). Built once per
// document; without pages it builds nothing and every page is 0.
class CitationPages {
public:
    CitationPages() = default;
    // `document_part`: the token ids the document was loaded as (DocumentChat::document_ids);
    // `text`: the UTF-8 text the part was built from; `byte_starts`: where its pages start.
    CitationPages(const Tokenizer& tokenizer, std::span<const int32_t> document_part, std::string_view text,
                  std::span<const std::size_t> byte_starts);

    bool has_pages() const { return !starts_.empty(); }
    // 1-based page of the citation's first document token; 0 without pages or without text for it.
    int page_of(const Citation& citation) const;

private:
    TokenTextMap map_;
    std::vector<int> starts_;  // UTF-16
};

}  // namespace snapdoc
