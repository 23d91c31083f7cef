#include "engine/common/memory_stats.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace snapdoc {

namespace {
int64_t status_field_kb(const char* field) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    int64_t kb = 0;
    const std::size_t len = std::strlen(field);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, field, len) == 0 && line[len] == ':') {
            long long v = 0;
            if (std::sscanf(line + len + 1, "%lld", &v) == 1) kb = v;
            break;
        }
    }
    std::fclose(f);
    return kb;
}
}  // namespace

int64_t current_rss_bytes() { return status_field_kb("VmRSS") * 1024; }
int64_t peak_rss_bytes() { return status_field_kb("VmHWM") * 1024; }

int64_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
}

}  // namespace snapdoc
