// Trimming ASCII white space off both ends of a piece of text (a line of a keys file, a list item,
// a paragraph, a model id): one definition for every reader that takes hand-typed text.
#pragma once

#include <string_view>

namespace snapdoc {

inline constexpr std::string_view kAsciiWhitespace = " \t\r\n\f\v";

constexpr std::string_view trim_whitespace(std::string_view s) {
    const auto first = s.find_first_not_of(kAsciiWhitespace);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(kAsciiWhitespace) - first + 1);
}

}  // namespace snapdoc
