#include "engine/common/json_input.h"

#include "engine/common/error.h"
#include "engine/common/message_text.h"

namespace snapdoc {

JsonShape scan_json_shape(std::string_view text, int max_depth, std::size_t* too_deep_at) {
    JsonShape shape;
    shape.values = text.empty() ? 0 : 1;
    int depth = 0;
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
        } else if (c == ',') {
            ++shape.values;
        } else if (c == '[' || c == '{') {
            ++shape.values;
            if (++depth > shape.depth) shape.depth = depth;
            if (depth > max_depth) {
                if (too_deep_at) *too_deep_at = i;
                return shape;
            }
        } else if (c == ']' || c == '}') {
            --depth;  // unbalanced input is the parser's to report
        }
    }
    return shape;
}

nlohmann::json parse_json_input(std::string_view text, const std::string& prefix, JsonLimits limits) {
    std::size_t at = 0;
    const JsonShape shape = scan_json_shape(text, limits.max_depth, &at);
    if (shape.depth > limits.max_depth) {
        throw FormatError(prefix + "not valid JSON: nested deeper than " + std::to_string(limits.max_depth) +
                          " levels (at byte " + std::to_string(at) + ")");
    }
    if (shape.values > limits.max_values) {
        throw FormatError(prefix + "not valid JSON: more than " + std::to_string(limits.max_values) +
                          " values (" + std::to_string(shape.values) +
                          "), far beyond any model file of this kind");
    }
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(prefix +
                          "not valid JSON: " + printable_excerpt(e.what(), 2 * kMessageExcerptBytes));
    }
}

}  // namespace snapdoc
