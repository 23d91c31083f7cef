// Citations as the chat shows and stores them: the engine's token spans (CitationInfo) resolved to
// document text through the position -> text map, with a short excerpt, and their JSON form in
// the messages table (citations_json, schema 3; exported as is):
//   [{"first_token":120,"last_token":140,"weight":0.61,"begin":400,"end":470,"excerpt":"…"}]
// plus "weak":true on a citation shown because nothing stood out (CitationView::weak), and
// "page":3 (1-based) on a PDF's citations (CitationView::page; rows stored before it have none).
#pragma once

#include <QString>
#include <string>
#include <utility>
#include <vector>

#include "app/common/token_text_map.h"
#include "ui/models/chat_model.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

inline constexpr int kShownCitations = 3;      // the top passages under an answer
inline constexpr int kCitationExcerptChars = 90;

// The strongest `max_count` citations with their text range (widened to whole words), excerpt and
// page. `map` may be null or not match `document` (then begin/end stay -1 and the excerpt is
// empty). `page_offsets`: where each page of `document` starts (UTF-16, the library's
// page_offsets); empty, or not a sensible list for `document`, gives no pages.
std::vector<CitationView> resolve_citations(const std::vector<CitationInfo>& citations,
                                            const TokenTextMap* map, const QString& document,
                                            const std::vector<int>& page_offsets = {},
                                            int max_count = kShownCitations);
// Where `excerpt` (a remote server's citation text, whitespace runs as one space) is in
// `document`: [begin, end) in UTF-16, whitespace-insensitive; {-1, -1} when it is not found.
std::pair<int, int> locate_excerpt(const QString& document, const QString& excerpt);
// Gives a page to each citation that has a text range but no page (answers stored before pages
// were), from `page_offsets` (empty: nothing to do).
void name_missing_pages(std::vector<CitationView>& citations, const std::vector<int>& page_offsets);
// One line of text, at most `max_chars` characters, cut at a word where possible, "…" marking cuts.
QString excerpt_of(const QString& text, int max_chars = kCitationExcerptChars);

// The tooltip of a citation under an answer: what clicking does, and for a weak one what "weak" means.
QString citation_tooltip(const CitationView& c);

std::string citations_json(const std::vector<CitationView>& citations);
std::vector<CitationView> parse_citations_json(const std::string& json);  // [] on anything malformed

}  // namespace snapdoc::ui
