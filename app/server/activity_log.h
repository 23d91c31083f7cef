// The server's activity as log lines a front end can read (the app's "Server log" and status bar,
// issue 37): one line per finished request, prefill progress at most once a second, and when the
// engine starts answering or goes idle. The words after the spdlog prefix are a small fixed format,
// parsed by ui/main/server_log_line.h; change both together.
//   request: POST /v1/chat/completions 200 1532 ms
//   prefill: 34% of 93210 tokens
//   answering
//   idle
#pragma once

#include <string_view>

#include "engine/common/stopwatch.h"
#include "engine/session/prefill_progress.h"

namespace snapdoc::server {

void log_request(std::string_view method, std::string_view path, int status, double milliseconds);
void log_answering();
void log_idle();

// A prefill's progress callback that logs at most once a second (and never per chunk: a long
// document has thousands); its first and last chunks are always logged.
class PrefillLog {
public:
    void operator()(const PrefillProgress& p);

private:
    SteadyClock::time_point last_{};
};

}  // namespace snapdoc::server
