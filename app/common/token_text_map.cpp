#include "app/common/token_text_map.h"

#include <algorithm>

namespace snapdoc {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool is_continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

// Converts byte offsets of `text` to UTF-16 offsets for a non-decreasing sequence of queries in one
// pass. A byte inside a character maps to the character's start (floor) or end (ceil).
class Utf16Cursor {
public:
    explicit Utf16Cursor(std::string_view text) : text_(text) {}
    int32_t at(std::size_t byte, bool ceil) {
        byte = std::min(byte, text_.size());
        while (pos_ < byte) step();
        // Now pos_ >= byte and pos_ is a character start; if byte was mid-character, pos_ is past it.
        if (pos_ == byte || ceil) return u16_;
        return prev_u16_;
    }

private:
    void step() {
        const unsigned char c = static_cast<unsigned char>(text_[pos_]);
        std::size_t n = 1;
        while (pos_ + n < text_.size() && is_continuation(static_cast<unsigned char>(text_[pos_ + n]))) ++n;
        prev_u16_ = u16_;
        u16_ += (c >= 0xF0 && n >= 4) ? 2 : 1;  // 4-byte sequences are surrogate pairs in UTF-16
        pos_ += n;
    }
    std::string_view text_;
    std::size_t pos_ = 0;
    int32_t u16_ = 0, prev_u16_ = 0;
};

// For each byte of the concatenated pieces S, the byte of the document it shows (-1: template).
// Returns false when the texts disagree too much for the alignment to mean anything.
bool align_backwards(std::string_view s, std::string_view doc, std::vector<int64_t>& s_to_doc) {
    s_to_doc.assign(s.size(), -1);
    const auto first = doc.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) return false;
    const std::size_t t0 = first, t1 = doc.find_last_not_of(" \t\r\n\f\v") + 1;
    std::size_t i = s.size(), j = t1;
    while (i > 0 && is_space(s[i - 1])) --i;  // the template's "\n\n" after the document
    std::size_t mismatches = 0;
    const std::size_t allowed = std::max<std::size_t>(16, (t1 - t0) / 50);
    while (i > 0 && j > t0) {
        if (s[i - 1] == doc[j - 1]) {
            s_to_doc[--i] = static_cast<int64_t>(--j);
        } else if (is_space(doc[j - 1])) {
            --j;  // whitespace the normalizer removed
        } else if (s[i - 1] == ' ') {
            s_to_doc[--i] = static_cast<int64_t>(j);  // a space the tokenizer added (dummy prefix)
        } else {
            if (++mismatches > allowed) return false;
            s_to_doc[--i] = static_cast<int64_t>(--j);  // substituted (unknown-character piece)
        }
    }
    // The dummy-prefix space in front of the first document token belongs to it.
    if (i > 0 && s[i - 1] == ' ' && j == t0) s_to_doc[--i] = static_cast<int64_t>(t0);
    return j == t0;
}

}  // namespace

std::pair<int, int> TokenTextMap::text_range(int p0, int p1) const {
    if (first_text < 0) return {-1, -1};
    p0 = std::max(p0, first_text);
    p1 = std::min(p1, last_text + 1);
    if (p0 >= p1) return {-1, -1};
    return {begin[p0], end[p1 - 1]};
}

int TokenTextMap::position_at(int offset) const {
    if (first_text < 0) return -1;
    // Text positions are contiguous in [first_text, last_text] and their ends never decrease.
    const auto first = end.begin() + first_text, last = end.begin() + last_text + 1;
    const auto it = std::upper_bound(first, last, offset);
    return it == last ? last_text : static_cast<int>(it - end.begin());
}

TokenTextMap map_tokens_to_text(const std::vector<std::string>& pieces, std::string_view document) {
    TokenTextMap map;
    const std::size_t n = pieces.size();
    map.begin.assign(n, -1);
    map.end.assign(n, -1);
    std::string s;
    std::vector<std::size_t> start(n + 1, 0);
    for (std::size_t k = 0; k < n; ++k) {
        start[k] = s.size();
        s += pieces[k];
    }
    start[n] = s.size();
    if (n == 0 || document.empty()) return map;

    // Per token, the document bytes [b0, b1) its pieces show.
    std::vector<int64_t> b0(n, -1), b1(n, -1);
    std::vector<int64_t> s_to_doc;
    if (align_backwards(s, document, s_to_doc)) {
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t b = start[k]; b < start[k + 1]; ++b) {
                if (s_to_doc[b] < 0) continue;
                if (b0[k] < 0) b0[k] = s_to_doc[b];
                b1[k] = std::max(b1[k], s_to_doc[b] + 1);
            }
    } else {
        map.exact = false;
        const double scale =
            static_cast<double>(document.size()) / static_cast<double>(std::max<std::size_t>(1, s.size()));
        for (std::size_t k = 0; k < n; ++k)
            if (start[k + 1] > start[k]) {
                b0[k] = static_cast<int64_t>(start[k] * scale);
                b1[k] = std::max(b0[k] + 1, static_cast<int64_t>(start[k + 1] * scale));
            }
    }
    // Keep ranges monotonic (a dropped-whitespace token could otherwise end before its neighbour).
    int64_t last_end = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (b0[k] < 0) continue;
        b0[k] = std::max(b0[k], last_end);
        b1[k] = std::max(b1[k], b0[k]);
        last_end = b1[k];
    }
    Utf16Cursor begins(document), ends(document);
    for (std::size_t k = 0; k < n; ++k) {
        if (b0[k] < 0) continue;
        map.begin[k] = begins.at(static_cast<std::size_t>(b0[k]), false);
        map.end[k] = ends.at(static_cast<std::size_t>(b1[k]), true);
        if (map.first_text < 0) map.first_text = static_cast<int>(k);
        map.last_text = static_cast<int>(k);
    }
    // Template tokens between document tokens (none in practice) get their neighbour's end, so the
    // text range stays contiguous for position_at.
    for (int k = map.first_text + 1; k >= 1 && k <= map.last_text; ++k)
        if (map.begin[k] < 0) map.begin[k] = map.end[k] = map.end[k - 1];
    return map;
}

}  // namespace snapdoc
