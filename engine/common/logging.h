// Process-wide logging setup (spdlog). Logs always go to stderr: stdout carries generated text, so
// `snapdoc-cli generate > out.txt` must capture the answer and nothing else.
#pragma once

#include <spdlog/common.h>

#include <string_view>

namespace snapdoc {

// Sets the default spdlog logger (stderr) and its level. The level comes from `level_flag` when it is
// non-empty (e.g. a --log-level option), else from the SNAPDOC_LOG_LEVEL environment variable, else
// "warn". Valid values: trace, debug, info, warn, error, off (case-insensitive). Throws Error naming
// the source and listing the valid values otherwise. Safe to call more than once (the last call wins);
// call it before starting threads that log.
void init_logging(std::string_view level_flag);

// Parses one level name as above; `source` names where it came from, for the error message.
spdlog::level::level_enum parse_log_level(std::string_view value, std::string_view source);

}  // namespace snapdoc
