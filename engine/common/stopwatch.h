// Elapsed wall time, for the seconds the engine reports (prefill, decode, probes, cache loads) and
// the benchmarks print.
#pragma once

#include <chrono>

namespace snapdoc {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point t0) {
    return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

}  // namespace snapdoc
