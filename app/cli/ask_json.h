// The --json file of `ask` (local and --remote): written whole and atomically, at the end, and also
// when a question fails, so the answers before the failure and the error are kept.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>

#include "app/common/args.h"

namespace snapdoc::cli {

// Writes `out` to --json FILE (nothing without --json); invalid UTF-8 is replaced.
void write_ask_json(const Args& args, const nlohmann::json& out);
// Adds `error`'s text to `out` and writes it; a write that fails too is said on stderr (the
// caller rethrows the first error).
void write_ask_json_after(const std::exception& error, const Args& args, nlohmann::json& out);

}  // namespace snapdoc::cli
