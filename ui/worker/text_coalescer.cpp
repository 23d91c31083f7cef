#include "ui/worker/text_coalescer.h"

namespace snapdoc::ui {

std::optional<std::string> TextCoalescer::push(const std::string& piece, Clock::time_point now) {
    pending_ += piece;
    if (pending_.empty()) return std::nullopt;
    if (last_sent_ && now - *last_sent_ < interval_) return std::nullopt;
    last_sent_ = now;
    std::string out;
    out.swap(pending_);
    return out;
}

std::string TextCoalescer::flush() {
    last_sent_.reset();
    std::string out;
    out.swap(pending_);
    return out;
}

}  // namespace snapdoc::ui
