#include "engine/tokenizer/bpe_byte_map.h"

#include <array>

#include "engine/tokenizer/utf8.h"

namespace snapdoc::byte_level {
namespace {

bool maps_to_itself(int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
    std::array<uint32_t, 256> to_cp{};
    std::array<int16_t, 324> from_cp{};  // code points 0..323 cover the whole image
    Tables() {
        from_cp.fill(-1);
        uint32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            to_cp[b] = maps_to_itself(b) ? static_cast<uint32_t>(b) : next++;
            from_cp[to_cp[b]] = static_cast<int16_t>(b);
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else {  // the image is below U+0800: two bytes at most
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

uint32_t byte_to_code_point(uint8_t b) {
    return tables().to_cp[b];
}

std::string encode(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes) append_utf8(out, tables().to_cp[static_cast<uint8_t>(c)]);
    return out;
}

std::optional<std::string> decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const Tables& t = tables();
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t len = utf8::sequence_length(text.substr(i));
        if (len == 0 || len > 2) return std::nullopt;
        const auto b0 = static_cast<uint8_t>(text[i]);
        const uint32_t cp = len == 1 ? b0 : ((b0 & 0x1Fu) << 6) | (static_cast<uint8_t>(text[i + 1]) & 0x3Fu);
        if (cp >= t.from_cp.size() || t.from_cp[cp] < 0) return std::nullopt;
        out += static_cast<char>(t.from_cp[cp]);
        i += len;
    }
    return out;
}

}  // namespace snapdoc::byte_level
