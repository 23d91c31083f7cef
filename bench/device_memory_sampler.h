// Peak device memory over a stretch of a benchmark: a background thread reads the driver's figure
// (cuda_memory_use(): every allocation on the device plus the CUDA context) every 2 ms. Allocations
// in this engine live as long as the buffers that grow on demand, so a short peak is not missed.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace snapdoc::bench {

class DeviceMemorySampler {
public:
    DeviceMemorySampler();
    ~DeviceMemorySampler();
    DeviceMemorySampler(const DeviceMemorySampler&) = delete;
    DeviceMemorySampler& operator=(const DeviceMemorySampler&) = delete;

    void reset_peak();      // the peak restarts from what is in use now
    int64_t peak() const;   // bytes in use at most since the last reset (0 without a device)
    int64_t total() const { return total_; }

private:
    void sample();
    std::atomic<bool> stop_{false};
    std::atomic<int64_t> peak_{0};
    int64_t total_ = 0;
    std::thread thread_;
};

}  // namespace snapdoc::bench
