// The one bounded way the engine parses JSON from a file (config.json, safetensors headers,
// tokenizer.json, tokenizer_config.json, generation_config.json, index files). Nesting deeper
// than kMaxJsonDepth is refused by a byte pre-scan before nlohmann builds anything: nlohmann's
// dump(), copy and comparison recurse, so a 100,000-deep file would overflow the stack later
// (the crash of issue 14 came from formatting an error message). Parser messages are passed
// through printable_excerpt, so no raw bytes from the file reach the user.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace snapdoc {

// Real model and tokenizer files nest fewer than 10 levels; 128 leaves room and keeps every
// recursive nlohmann operation far from the stack limit.
inline constexpr int kMaxJsonDepth = 128;

// Parses `text`. On failure throws FormatError(prefix + "not valid JSON: <reason>") or
// FormatError(prefix + "not valid JSON: nested deeper than 128 levels (at byte N)").
// `prefix` names the source, e.g. "config.json: " or "'dir/tokenizer_config.json' is ".
nlohmann::json parse_json_input(std::string_view text, const std::string& prefix,
                                int max_depth = kMaxJsonDepth);

// The deepest nesting of arrays/objects in `text` (brackets inside strings do not count); stops
// and returns the offset of the first bracket past `max_depth` in `*too_deep_at` when there is one.
int json_nesting_depth(std::string_view text, int max_depth, std::size_t* too_deep_at);

}  // namespace snapdoc
