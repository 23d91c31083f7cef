#include "engine/common/message_text.h"

#include <cstdint>

namespace snapdoc {

namespace {

void append_hex(std::string& out, unsigned char b) {
    static const char* hex = "0123456789abcdef";
    out += "\\x";
    out += hex[b >> 4];
    out += hex[b & 15];
}

// Length of the valid UTF-8 sequence at the start of `s` (1..4), or 0 when it is not one.
// Overlongs and surrogates count as invalid, as in the tokenizer's utf8 helpers.
std::size_t utf8_length(std::string_view s) {
    const auto b0 = static_cast<unsigned char>(s[0]);
    std::size_t n = 0;
    uint32_t cp = 0;
    if (b0 < 0x80) return 1;
    if ((b0 & 0xE0) == 0xC0)
        n = 2, cp = b0 & 0x1F;
    else if ((b0 & 0xF0) == 0xE0)
        n = 3, cp = b0 & 0x0F;
    else if ((b0 & 0xF8) == 0xF0)
        n = 4, cp = b0 & 0x07;
    else
        return 0;
    if (s.size() < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        const auto b = static_cast<unsigned char>(s[i]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

}  // namespace

std::string printable_excerpt(std::string_view bytes, std::size_t max_bytes) {
    std::string out;
    std::size_t i = 0;
    while (i < bytes.size() && out.size() < max_bytes) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        if (b < 0x20 || b == 0x7F) {
            append_hex(out, b);
            ++i;
            continue;
        }
        const std::size_t n = utf8_length(bytes.substr(i));
        // U+0080..U+009F (C1 controls: 0x9B starts a terminal escape sequence) are escaped too.
        const bool c1 = n == 2 && b == 0xC2 && static_cast<unsigned char>(bytes[i + 1]) < 0xA0;
        if (n == 0 || c1) {
            append_hex(out, b);
            ++i;
            continue;
        }
        out.append(bytes.substr(i, n));
        i += n;
    }
    if (i < bytes.size()) out += "... (" + std::to_string(bytes.size()) + " bytes)";
    return out;
}

std::string with_commas(int64_t n) {
    std::string s = std::to_string(n);
    const int first = n < 0 ? 1 : 0;
    for (int i = static_cast<int>(s.size()) - 3; i > first; i -= 3)
        s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

}  // namespace snapdoc
