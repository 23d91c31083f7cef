#include "engine/common/json_input.h"

#include "engine/common/error.h"
#include "engine/common/message_text.h"

namespace snapdoc {

int json_nesting_depth(std::string_view text, int max_depth, std::size_t* too_deep_at) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) deepest = depth;
            if (depth > max_depth) {
                if (too_deep_at) *too_deep_at = i;
                return depth;
            }
        } else if (c == ']' || c == '}') {
            --depth;  // unbalanced input is the parser's to report
        }
    }
    return deepest;
}

nlohmann::json parse_json_input(std::string_view text, const std::string& prefix, int max_depth) {
    std::size_t at = 0;
    if (json_nesting_depth(text, max_depth, &at) > max_depth) {
        throw FormatError(prefix + "not valid JSON: nested deeper than " + std::to_string(max_depth) +
                          " levels (at byte " + std::to_string(at) + ")");
    }
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(prefix +
                          "not valid JSON: " + printable_excerpt(e.what(), 2 * kMessageExcerptBytes));
    }
}

}  // namespace snapdoc
