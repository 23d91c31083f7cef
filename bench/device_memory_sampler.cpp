#include "bench/device_memory_sampler.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "engine/runtime/backend_factory.h"

namespace snapdoc::bench {

namespace {
int64_t used_now() {
    try {
        return cuda_memory_use().used;
    } catch (const std::exception&) {  // a failing driver call must not end the benchmark
        return 0;
    }
}
}  // namespace

DeviceMemorySampler::DeviceMemorySampler() {
    total_ = cuda_memory_use().total;
    peak_ = used_now();
    if (total_ > 0) thread_ = std::thread([this] { sample(); });
}

DeviceMemorySampler::~DeviceMemorySampler() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

void DeviceMemorySampler::sample() {
    while (!stop_) {
        const int64_t u = used_now();
        int64_t p = peak_.load();
        while (u > p && !peak_.compare_exchange_weak(p, u)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

void DeviceMemorySampler::reset_peak() { peak_ = used_now(); }

int64_t DeviceMemorySampler::peak() const { return std::max(peak_.load(), used_now()); }

}  // namespace snapdoc::bench
