#include "engine/common/process_exit.h"

#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace snapdoc {

void exit_after_flush(int code) {
    spdlog::shutdown();    // flushes every logger's sinks (the app's log file)
    std::fflush(nullptr);  // every C stream: stdout's answer text, stderr's reports
    std::_Exit(code);      // no atexit handlers, no library destructors (see the header)
}

void ignore_file_size_signal() {
    std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace snapdoc
