#include "engine/common/mapped_regions.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

namespace snapdoc {

namespace {

struct Region {
    std::atomic<bool> claimed{false};
    std::atomic<uintptr_t> begin{0};  // 0: free (published last, after length and label)
    std::atomic<std::size_t> length{0};
    char label[480] = {};
};
Region g_regions[kMaxMappedRegions];
const char* g_program = "snapdoc";
std::atomic<bool> g_sigbus_seen{false};

void write_str(const char* s) {
    (void)!::write(STDERR_FILENO, s, std::strlen(s));
}

void on_sigbus(int, siginfo_t* info, void*) {
    // Every worker thread touching the file faults at once: one reports, the others wait for its _exit.
    if (g_sigbus_seen.exchange(true))
        for (;;) ::pause();
    const char* label = mapped_region_label(info ? info->si_addr : nullptr);
    write_str(g_program);
    write_str(": error: a memory-mapped file (");
    write_str(label ? label : "the model or a K/V cache file");
    write_str(") was truncated or removed while in use (SIGBUS)\n");
    ::_exit(1);
}

}  // namespace

void register_mapped_region(const void* addr, std::size_t length, const std::string& label) {
    if (!addr || length == 0) return;
    for (Region& r : g_regions) {
        bool expected = false;
        if (!r.claimed.compare_exchange_strong(expected, true)) continue;
        const std::size_t n = std::min(label.size(), sizeof r.label - 1);
        std::memcpy(r.label, label.data(), n);
        r.label[n] = '\0';
        r.length.store(length);
        r.begin.store(reinterpret_cast<uintptr_t>(addr), std::memory_order_release);
        return;
    }
}

void unregister_mapped_region(const void* addr) {
    if (!addr) return;
    for (Region& r : g_regions) {
        if (r.begin.load(std::memory_order_acquire) != reinterpret_cast<uintptr_t>(addr)) continue;
        r.begin.store(0);
        r.claimed.store(false, std::memory_order_release);
        return;
    }
}

const char* mapped_region_label(const void* addr) {
    const auto a = reinterpret_cast<uintptr_t>(addr);
    for (const Region& r : g_regions) {
        const uintptr_t b = r.begin.load(std::memory_order_acquire);
        if (b != 0 && a >= b && a - b < r.length.load()) return r.label;
    }
    return nullptr;
}

void install_sigbus_report(const char* program) {
    g_program = program;
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace snapdoc
