// Batches streamed answer pieces so that the GUI gets at most one text update per interval: a fast
// model produces hundreds of tokens a second, and every update re-lays out the chat list. The first
// piece goes out at once (the answer visibly starts); the rest wait until `interval` has passed
// since the last update; flush() hands over whatever is left when the answer ends.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace snapdoc::ui {

class TextCoalescer {
public:
    using Clock = std::chrono::steady_clock;
    explicit TextCoalescer(std::chrono::milliseconds interval = std::chrono::milliseconds(40))
        : interval_(interval) {}

    // Adds `piece`; returns the text to show now, or nothing if it should wait.
    std::optional<std::string> push(const std::string& piece, Clock::time_point now = Clock::now());
    // The text still waiting (empty if none); the next push after it goes out at once again.
    std::string flush();

private:
    std::chrono::milliseconds interval_;
    std::string pending_;
    std::optional<Clock::time_point> last_sent_;
};

}  // namespace snapdoc::ui
