#include "engine/session/prefill_time_left.h"

#include <algorithm>

namespace snapdoc {

void PrefillTimeLeft::observe(double fraction, double elapsed) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    // The start (nothing done yet) and repeated updates carry no rate.
    if (fraction <= 0 || (!samples_.empty() && fraction <= samples_.back().fraction)) return;
    samples_.push_back({fraction, std::max(0.0, elapsed)});
}

bool PrefillTimeLeft::corrected() const {
    return static_cast<int>(samples_.size()) >= std::max(2, options_.chunks_before_correction) && measured_rate() > 0;
}

double PrefillTimeLeft::measured_rate() const {
    if (samples_.size() < 2) return 0;
    const Sample& last = samples_.back();
    const Sample& first = samples_.front();  // after the first chunk: start-up costs left out
    const double window = std::max(options_.min_window_seconds, options_.window_fraction * (last.elapsed - first.elapsed));
    // The newest earlier sample at least `window` back; the first one when the run is younger.
    const Sample* base = &first;
    for (auto it = samples_.rbegin() + 1; it != samples_.rend(); ++it) {
        if (last.elapsed - it->elapsed >= window) {
            base = &*it;
            break;
        }
    }
    const double dt = last.elapsed - base->elapsed;
    return dt > 0 ? (last.fraction - base->fraction) / dt : 0;
}

double PrefillTimeLeft::remaining() const {
    const double elapsed = samples_.empty() ? 0 : samples_.back().elapsed;
    if (!samples_.empty() && samples_.back().fraction >= 1) return 0;
    if (corrected()) return (1 - samples_.back().fraction) / measured_rate();
    return probe_ >= 0 ? std::max(0.0, probe_ - elapsed) : -1;
}

double PrefillTimeLeft::total() const {
    const double left = remaining();
    if (left < 0) return -1;
    return left + (samples_.empty() ? 0 : samples_.back().elapsed);
}

}  // namespace snapdoc
