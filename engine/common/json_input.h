// The one bounded way the engine parses JSON from a file (config.json, safetensors headers,
// tokenizer.json, tokenizer_config.json, generation_config.json, index files). Nesting deeper
// than kMaxJsonDepth is refused by a byte pre-scan before nlohmann builds anything: nlohmann's
// dump(), copy and comparison recurse, so a 100,000-deep file would overflow the stack later
// (the crash of issue 14 came from formatting an error message). Parser messages are passed
// through printable_excerpt, so no raw bytes from the file reach the user.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace snapdoc {

// Real model and tokenizer files nest fewer than 10 levels; 128 leaves room and keeps every
// recursive nlohmann operation far from the stack limit.
inline constexpr int kMaxJsonDepth = 128;

// Every value costs nlohmann ~16 bytes plus container overhead, whatever its size in the text: a
// 99 MB safetensors header of "0," items grew to 3 GB, and under a memory limit the bad_alloc hit
// nlohmann's noexcept destructor (abort instead of a message). So the value count is bounded too.
// The largest real inputs (tokenizer.json of a 256K vocabulary with its merges) hold ~2M values.
inline constexpr uint64_t kMaxJsonValues = uint64_t{16} << 20;

struct JsonLimits {
    int max_depth = kMaxJsonDepth;
    uint64_t max_values = kMaxJsonValues;
};

// Parses `text`. On failure throws FormatError(prefix + "not valid JSON: <reason>"); the reason is
// "nested deeper than 128 levels (at byte N)", "more than M values" or nlohmann's (sanitized).
// `prefix` names the source, e.g. "config.json: " or "'dir/tokenizer_config.json' is ".
nlohmann::json parse_json_input(std::string_view text, const std::string& prefix, JsonLimits limits = {});

// One pass over `text` outside strings: the deepest nesting of arrays/objects and a count of the
// values (elements and members: commas + openings + 1). Stops early at the first bracket past
// `max_depth`, whose offset goes to `*too_deep_at`.
struct JsonShape {
    int depth = 0;
    uint64_t values = 0;
};
JsonShape scan_json_shape(std::string_view text, int max_depth, std::size_t* too_deep_at = nullptr);

}  // namespace snapdoc
