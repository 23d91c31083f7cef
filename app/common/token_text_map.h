// Where each prompt token of a document lies in the document's text, so the app can show the text
// under a heatmap pixel and shade the document by what the heads kept, and a citation's page can
// be named (document_pages.h: the CLI and the server too, hence Qt-free in app/common).
//
// The engine's prompt starts with the template's opening tokens (BOS, "[INST]", a system prompt...),
// then the document (trimmed), then "\n\n". map_tokens_to_text aligns the concatenated token
// pieces with the document from the end backwards, so it finds where the document starts without
// knowing the template, and it tolerates what a tokenizer's normalizer changes (the dummy-prefix
// space, collapsed whitespace). If the pieces do not match the text at all (an exotic normalizer),
// it falls back to spreading the tokens proportionally over the text and says so (`exact`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snapdoc {

struct TokenTextMap {
    // Per prompt position in [0, size()): the token's text as UTF-16 offsets [begin, end) into the
    // document (QString units), or -1/-1 for template tokens that are not document text.
    std::vector<int32_t> begin, end;
    int first_text = -1;  // first and last positions with text (-1 if none)
    int last_text = -1;
    bool exact = true;  // false: proportional fallback

    int size() const { return static_cast<int>(begin.size()); }
    // The text range of positions [p0, p1) (clamped to the document tokens), or {-1, -1}.
    std::pair<int, int> text_range(int p0, int p1) const;
    // The position whose text contains (or follows) UTF-16 offset `offset`; -1 when there is none.
    int position_at(int offset) const;
};

// `pieces[i]` is the text of prompt token i as it reads mid-stream (Tokenizer::piece: "▁" as a
// space, a byte token as its single byte, control tokens ""). `document` is the untrimmed UTF-8
// text the prompt was built from.
TokenTextMap map_tokens_to_text(const std::vector<std::string>& pieces, std::string_view document);

}  // namespace snapdoc
