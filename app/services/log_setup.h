// Logging for the desktop app: the engine's stderr logger plus a rotating file in the app's log
// directory, so a user can attach the log to a bug report after the window is closed.
#pragma once

#include <string>
#include <string_view>

namespace snapdoc::services {

// stderr gets `level_flag` (or SNAPDOC_LOG_LEVEL, else warn, as in the CLI); the file always gets
// info and above. 5 MiB per file, 3 files. Throws Error for a bad level name.
void init_app_logging(const std::string& log_file, std::string_view level_flag);

}  // namespace snapdoc::services
