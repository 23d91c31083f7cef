#include "app/server/stop_matcher.h"

#include <algorithm>

namespace snapdoc::server {

std::string StopMatcher::push(std::string_view text) {
    if (stopped_) return {};
    pending_ += text;
    std::size_t first = std::string::npos;
    for (const std::string& s : stops_) first = std::min(first, pending_.find(s));
    if (first != std::string::npos) {
        stopped_ = true;
        std::string out = pending_.substr(0, first);
        pending_.clear();
        return out;
    }
    // Hold back the longest suffix that is a proper prefix of a stop string.
    std::size_t hold = 0;
    for (const std::string& s : stops_)
        for (std::size_t n = std::min(s.size() - 1, pending_.size()); n > hold; --n)
            if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
                hold = n;
                break;
            }
    std::string out = pending_.substr(0, pending_.size() - hold);
    pending_.erase(0, pending_.size() - hold);
    return out;
}

std::string StopMatcher::flush() {
    std::string out;
    if (!stopped_) out.swap(pending_);
    return out;
}

}  // namespace snapdoc::server
