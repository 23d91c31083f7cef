#include "app/common/document_pages.h"

#include <algorithm>
#include <limits>
#include <string>

namespace snapdoc {

namespace {

template <typename T>
bool increasing_from_zero(std::span<const T> starts, int64_t text_size) {
    if (starts.empty() || starts.front() != 0) return false;
    for (std::size_t i = 1; i < starts.size(); ++i)
        if (starts[i] <= starts[i - 1]) return false;
    return static_cast<int64_t>(starts.back()) <= text_size;
}

// UTF-16 code units of the UTF-8 byte `b` as the lead of a character: a 4-byte sequence is a
// surrogate pair; continuation bytes add nothing (an invalid byte counts as one unit, as QString's
// replacement character would).
int utf16_units(unsigned char b) {
    if ((b & 0xC0) == 0x80) return 0;
    return b >= 0xF0 ? 2 : 1;
}

}  // namespace

bool usable_page_starts(std::span<const int> starts, int64_t text_size) {
    return increasing_from_zero(starts, text_size);
}

int page_at(std::span<const int> starts, int64_t offset) {
    if (starts.empty() || offset < 0) return 0;
    const auto it = std::upper_bound(starts.begin(), starts.end(), offset,
                                     [](int64_t o, int start) { return o < start; });
    return std::max(1, static_cast<int>(it - starts.begin()));
}

std::vector<int> page_starts_utf16(std::string_view text, std::span<const std::size_t> byte_starts) {
    if (!increasing_from_zero(byte_starts, static_cast<int64_t>(text.size()))) return {};
    if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return {};
    std::vector<int> out;
    out.reserve(byte_starts.size());
    std::size_t byte = 0;
    int units = 0;
    for (std::size_t i = 0; i < byte_starts.size(); ++i) {
        // Back over the separator (blank lines, trailing spaces) to the end of the page before.
        std::size_t start = byte_starts[i];
        if (i > 0)
            while (start > byte_starts[i - 1] && (text[start - 1] == '\n' || text[start - 1] == ' ')) --start;
        for (; byte < start; ++byte) units += utf16_units(static_cast<unsigned char>(text[byte]));
        // A page whose text is all separator would share its start with the one before; keep the
        // list increasing (that page then holds no offset, which is what it holds).
        out.push_back(out.empty() ? 0 : std::max(units, out.back() + 1));
    }
    return out;
}

CitationPages::CitationPages(const Tokenizer& tokenizer, std::span<const int32_t> document_part,
                             std::string_view text, std::span<const std::size_t> byte_starts)
    : starts_(page_starts_utf16(text, byte_starts)) {
    if (starts_.empty()) return;
    std::vector<std::string> pieces;
    pieces.reserve(document_part.size());
    for (int32_t id : document_part) pieces.push_back(tokenizer.piece(id));
    map_ = map_tokens_to_text(pieces, text);
}

int CitationPages::page_of(const Citation& citation) const {
    if (starts_.empty()) return 0;
    const auto [begin, end] = map_.text_range(citation.first_token, citation.last_token + 1);
    if (begin < 0) return 0;
    return page_at(starts_, begin);
}

}  // namespace snapdoc
