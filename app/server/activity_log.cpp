#include "app/server/activity_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace snapdoc::server {

void log_request(std::string_view method, std::string_view path, int status, double milliseconds) {
    spdlog::info("request: {} {} {} {} ms", method, path, status, std::lround(milliseconds));
}

void log_answering() {
    spdlog::info("answering");
}

void log_idle() {
    spdlog::info("idle");
}

void PrefillLog::operator()(const PrefillProgress& p) {
    const auto now = SteadyClock::now();
    const bool first = last_ == SteadyClock::time_point{};
    const bool done = p.fraction >= 1.0;
    if (!first && !done && now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    // Floor, not round: "100%" only when it is finished.
    const int percent = static_cast<int>(std::floor(std::clamp(p.fraction, 0.0, 1.0) * 100.0));
    spdlog::info("prefill: {}% of {} tokens", percent, p.rows_total);
}

}  // namespace snapdoc::server
