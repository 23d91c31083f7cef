#include "engine/tokenizer/utf8.h"

#include <cstdint>

namespace snapdoc::utf8 {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// Sequence length announced by a lead byte's bit pattern (0 for a continuation or 0xF8..0xFF).
std::size_t announced_length(uint8_t b) {
    if (b < 0x80) return 1;
    if ((b & 0xE0) == 0xC0) return 2;
    if ((b & 0xF0) == 0xE0) return 3;
    if ((b & 0xF8) == 0xF0) return 4;
    return 0;
}

}  // namespace

std::size_t sequence_length(std::string_view s) {
    if (s.empty()) return 0;
    const auto b0 = static_cast<uint8_t>(s[0]);
    if (b0 < 0x80) return 1;
    // Second-byte ranges from Unicode Table 3-7 (well-formed byte sequences): they exclude
    // overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and > U+10FFFF.
    std::size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (s.size() < len) return 0;
    const auto b1 = static_cast<uint8_t>(s[1]);
    if (b1 < lo || b1 > hi) return 0;
    for (std::size_t i = 2; i < len; ++i)
        if (!is_continuation(static_cast<uint8_t>(s[i]))) return 0;
    return len;
}

bool is_valid(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        if (static_cast<uint8_t>(s[i]) < 0x80) {  // ASCII fast path: most documents are mostly ASCII
            ++i;
            continue;
        }
        const std::size_t len = sequence_length(s.substr(i));
        if (len == 0) return false;
        i += len;
    }
    return true;
}

std::string sanitize(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 16);
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t len = sequence_length(s.substr(i));
        if (len == 0) {
            out += kReplacement;
            ++i;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
    return out;
}

std::size_t incomplete_tail(std::string_view s) {
    const std::size_t n = s.size();
    for (std::size_t k = 1; k <= 3 && k <= n; ++k) {
        const auto b = static_cast<uint8_t>(s[n - k]);
        if (is_continuation(b)) continue;
        // The last non-continuation byte decides: it is pending if it announces more bytes than follow.
        return announced_length(b) > k ? k : 0;
    }
    return 0;
}

}  // namespace snapdoc::utf8
