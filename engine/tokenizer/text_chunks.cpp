#include "engine/tokenizer/text_chunks.h"

namespace snapdoc {

std::vector<std::string_view> split_after_newlines(std::string_view text, std::size_t target_bytes) {
    std::vector<std::string_view> out;
    if (target_bytes == 0) target_bytes = 1;
    std::size_t start = 0;
    while (start < text.size()) {
        if (text.size() - start <= target_bytes) break;
        const std::size_t nl = text.find('\n', start + target_bytes - 1);
        if (nl == std::string_view::npos || nl + 1 == text.size()) break;
        out.push_back(text.substr(start, nl + 1 - start));
        start = nl + 1;
    }
    if (start < text.size() || out.empty()) out.push_back(text.substr(start));
    return out;
}

}  // namespace snapdoc
