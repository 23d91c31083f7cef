// The CUDA emulation's runtime and cuBLAS: bounds-checked copies, the emulated memory size and
// out-of-memory, NaN-filled fresh allocations, streams/events, and GemmEx against plain loops.
#include <gtest/gtest.h>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <vector>

#include "cuda_emu/control.h"

namespace {

TEST(CudaEmuRuntime, CopiesAreCheckedAgainstTheirAllocation) {
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 16 * sizeof(float)), cudaSuccess);
    std::vector<float> h(32, 1.0f);
    EXPECT_EQ(cudaMemcpy(d, h.data(), 16 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, h.data(), 17 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(h.data(), d + 8, 9 * sizeof(float), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(h.data(), h.data() + 16, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // not device memory
    EXPECT_EQ(cudaMemcpy(d, d + 1, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // device memory as the host side
    EXPECT_EQ(cudaMemset(d + 4, 0, 13 * sizeof(float)), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // reading the error clears it
    EXPECT_EQ(cudaFree(d + 1), cudaErrorInvalidValue);
    EXPECT_EQ(cudaFree(d), cudaSuccess);
    cudaGetLastError();
}

TEST(CudaEmuRuntime, FreshAllocationsReadAsNaN) {
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 8 * sizeof(float)), cudaSuccess);
    std::vector<float> h(8, 0.0f);
    ASSERT_EQ(cudaMemcpy(h.data(), d, 8 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (float v : h) EXPECT_TRUE(std::isnan(v));
    cudaFree(d);
}

TEST(CudaEmuRuntime, EmulatedMemorySizeAndOutOfMemory) {
    const cuda_emu::DeviceConfig saved = cuda_emu::device_config();
    cuda_emu::DeviceConfig small = saved;
    small.memory_bytes = cuda_emu::memory_stats().allocated + (int64_t{64} << 20);
    ASSERT_TRUE(cuda_emu::set_device_config(small));
    std::size_t free = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    EXPECT_EQ(total, static_cast<std::size_t>(small.memory_bytes));
    EXPECT_EQ(free, std::size_t{64} << 20);
    void* a = nullptr;
    void* b = nullptr;
    EXPECT_EQ(cudaMalloc(&a, std::size_t{40} << 20), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, std::size_t{40} << 20), cudaErrorMemoryAllocation);
    EXPECT_EQ(b, nullptr);
    EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_FALSE(cuda_emu::set_device_config(cuda_emu::DeviceConfig{1, 1 << 20, 16}));  // below what is allocated
    cudaFree(a);
    ASSERT_TRUE(cuda_emu::set_device_config(saved));
}

TEST(CudaEmuRuntime, StreamsEventsAndProperties) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(a, s), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(b, s), cudaSuccess);
    float ms = -1;
    EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    EXPECT_GE(ms, 0.0f);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaDeviceProp p;
    ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    EXPECT_EQ(p.warpSize, 32);
    EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
    cudaGetLastError();
}

// y = op(A)·op(B) with column-major operands, every transpose combination and input type.
TEST(CudaEmuCublas, GemmExMatchesLoops) {
    const int m = 7, n = 5, k = 9;
    std::mt19937 rng(3);
    std::normal_distribution<float> dist;
    cublasHandle_t h;
    ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    for (cudaDataType_t t : {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF})
        for (auto ta : {CUBLAS_OP_N, CUBLAS_OP_T})
            for (auto tb : {CUBLAS_OP_N, CUBLAS_OP_T}) {
                const int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
                const int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
                const int lda = ar + 2, ldb = br + 1;
                std::vector<float> A(static_cast<std::size_t>(lda) * ac), B(static_cast<std::size_t>(ldb) * bc), C(m * n);
                for (auto& x : A) x = dist(rng);
                for (auto& x : B) x = dist(rng);
                for (auto& x : C) x = dist(rng);
                // Round the inputs to the type, store them in it.
                auto store = [&](std::vector<float>& v) {
                    std::vector<uint16_t> raw(v.size());
                    for (std::size_t i = 0; i < v.size(); ++i) {
                        if (t == CUDA_R_16F) {
                            const __half x = __float2half_rn(v[i]);
                            raw[i] = __half_as_ushort(x);
                            v[i] = __half2float(x);
                        } else if (t == CUDA_R_16BF) {
                            const __nv_bfloat16 x = __float2bfloat16_rn(v[i]);
                            raw[i] = __bfloat16_as_ushort(x);
                            v[i] = __bfloat162float(x);
                        }
                    }
                    void* d = nullptr;
                    const std::size_t bytes = v.size() * (t == CUDA_R_32F ? 4 : 2);
                    EXPECT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
                    cudaMemcpy(d, t == CUDA_R_32F ? static_cast<const void*>(v.data()) : raw.data(), bytes, cudaMemcpyHostToDevice);
                    return d;
                };
                void* dA = store(A);
                void* dB = store(B);
                float* dC = nullptr;
                cudaMalloc(&dC, C.size() * 4);
                cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice);
                const float alpha = 1.5f, beta = 0.5f;
                ASSERT_EQ(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA, t, lda, dB, t, ldb, &beta, dC, CUDA_R_32F, m,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                          CUBLAS_STATUS_SUCCESS);
                std::vector<float> got(C.size());
                cudaMemcpy(got.data(), dC, got.size() * 4, cudaMemcpyDeviceToHost);
                for (int i = 0; i < m; ++i)
                    for (int j = 0; j < n; ++j) {
                        double s = 0;
                        for (int p = 0; p < k; ++p) {
                            const double a = ta == CUBLAS_OP_N ? A[p * lda + i] : A[i * lda + p];
                            const double b = tb == CUBLAS_OP_N ? B[j * ldb + p] : B[p * ldb + j];
                            s += a * b;
                        }
                        EXPECT_NEAR(got[j * m + i], alpha * s + beta * C[j * m + i], 1e-4);
                    }
                // An operand that does not fit its allocation is refused.
                EXPECT_EQ(cublasGemmEx(h, ta, tb, m, n, k + 40, &alpha, dA, t, lda, dB, t, ldb + 40, &beta, dC, CUDA_R_32F, m,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                          CUBLAS_STATUS_INVALID_VALUE);
                cudaFree(dA);
                cudaFree(dB);
                cudaFree(dC);
            }
    cublasDestroy(h);
}

}  // namespace
