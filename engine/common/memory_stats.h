// Process memory figures for stats lines and benchmarks (Linux: /proc/self/status).
#pragma once

#include <cstdint>

namespace snapdoc {

int64_t current_rss_bytes();  // VmRSS, 0 if unknown
int64_t peak_rss_bytes();     // VmHWM (high-water mark), 0 if unknown
int64_t physical_memory_bytes();  // installed RAM (sysconf), 0 if unknown

}  // namespace snapdoc
