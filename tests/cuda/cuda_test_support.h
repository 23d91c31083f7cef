// Helpers for the CUDA tests: skipping cleanly without a GPU, device buffers from host vectors, and
// the normalised error used to compare each op with the CPU reference (ggml test-backend-ops style:
// NMSE = Σ(a − b)² / Σ b², one threshold per op).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_check.h"

// Skips the test, with the reason, when no CUDA device can be used (no GPU, no driver, or a driver
// older than the toolkit). Every test in tests/cuda starts with it, so CI machines pass them as skipped.
#define SNAPDOC_REQUIRE_CUDA()                                                                        \
    do {                                                                                              \
        if (::snapdoc::cuda_device_count() == 0)                                                      \
            GTEST_SKIP() << "no usable CUDA device (" << ::snapdoc::cuda_unavailable_reason() << "); " \
                         << "the cuda tests run on a GPU machine (scripts/gpu-check.sh)";             \
    } while (0)

namespace snapdoc::cudatest {

double nmse(const std::vector<float>& got, const std::vector<float>& want);
double max_abs_diff(const std::vector<float>& got, const std::vector<float>& want);

std::vector<float> random_floats(std::size_t n, uint32_t seed, float scale = 1.0f);

// Host <-> device copies (synchronous).
cuda::DeviceBuffer to_device(const void* data, std::size_t bytes);
template <typename T>
cuda::DeviceBuffer to_device(const std::vector<T>& v) {
    return to_device(v.data(), v.size() * sizeof(T));
}
template <typename T>
std::vector<T> from_device(const void* p, std::size_t count) {
    std::vector<T> out(count);
    cuda::check(cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost), "test download");
    return out;
}
void sync();

// Timing for the perf tests: one warm-up run, then the mean of `reps` runs (ms), by CUDA events on
// the default stream.
double mean_ms(const std::function<void()>& fn, int reps = 10);

// f32 values rounded through f16 (what the device KV cache stores), for CPU references.
std::vector<float> round_f16(const std::vector<float>& v);

}  // namespace snapdoc::cudatest
