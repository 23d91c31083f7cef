#include "tests/cuda/cuda_test_support.h"

#include <cmath>

#include "engine/model/dtype.h"

namespace snapdoc::cudatest {

double nmse(const std::vector<float>& got, const std::vector<float>& want) {
    EXPECT_EQ(got.size(), want.size());
    double num = 0, den = 0;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        const double d = static_cast<double>(got[i]) - want[i];
        num += d * d;
        den += static_cast<double>(want[i]) * want[i];
    }
    return den > 0 ? num / den : num;
}

double max_abs_diff(const std::vector<float>& got, const std::vector<float>& want) {
    double m = 0;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        m = std::max(m, std::fabs(static_cast<double>(got[i]) - want[i]));
    return m;
}

std::vector<float> random_floats(std::size_t n, uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

cuda::DeviceBuffer to_device(const void* data, std::size_t bytes) {
    cuda::DeviceBuffer b(std::max<std::size_t>(bytes, 4), "test data");
    if (bytes) cuda::check(cudaMemcpy(b.get(), data, bytes, cudaMemcpyHostToDevice), "test upload");
    return b;
}

void sync() { cuda::check(cudaDeviceSynchronize(), "test sync"); }

std::vector<float> round_f16(const std::vector<float>& v) {
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = f16_to_f32(f32_to_f16(v[i]));
    return out;
}

double mean_ms(const std::function<void()>& fn, int reps) {
    fn();
    sync();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    for (int i = 0; i < reps; ++i) fn();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms / reps;
}

}  // namespace snapdoc::cudatest
