// The --question flags of `ask` (local and --remote): at least one, each made valid UTF-8.
#pragma once

#include <string>
#include <vector>

#include "app/common/args.h"

namespace snapdoc::cli {

// Every -q/--question in order. Questions are text like the document: invalid bytes are replaced
// by U+FFFD (said on stderr) rather than refused, so a stray byte from a terminal costs nothing and
// --json can always be written. Throws Error when there is none.
std::vector<std::string> questions_from(const Args& args);

}  // namespace snapdoc::cli
