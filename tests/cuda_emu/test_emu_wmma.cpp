// The CUDA emulation's WMMA fragment API (include/mma.h): a tensor-core style GEMM kernel, one warp
// per 16x16 output tile, 4 warps a block, f16 and bf16 inputs, against a double-precision loop;
// divergent and misaligned fragment operations fail the launch.
#include <gtest/gtest.h>

#include <mma.h>

#include <cmath>
#include <random>
#include <vector>

#include "cuda_emu/device.h"

namespace {

using namespace nvcuda;

// C [m, n] f32 row-major = A [m, k] row-major · B [k, n] stored column-major (ld k).
template <typename T>
__global__ void wmma_gemm(const T* a, const T* b, float* c, int m, int n, int k) {
    const int warp = threadIdx.x / 32;
    const int tile_m = (blockIdx.y * 4 + warp) * 16, tile_n = blockIdx.x * 16;
    if (tile_m >= m) return;  // whole warps only
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < k; k0 += 16) {
        wmma::load_matrix_sync(fa, a + tile_m * k + k0, k);
        wmma::load_matrix_sync(fb, b + tile_n * k + k0, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 0.5f;  // element-wise, as portable code may
    wmma::store_matrix_sync(c + tile_m * n + tile_n, acc, n, wmma::mem_row_major);
}

template <typename T>
void run_case() {
    const int m = 80, n = 48, k = 64;
    std::mt19937 rng(5);
    std::normal_distribution<float> dist;
    std::vector<T> a(m * k), b(k * n);
    for (auto& x : a) x = T(dist(rng));
    for (auto& x : b) x = T(dist(rng));
    T *da, *db;
    float* dc;
    ASSERT_EQ(cudaMalloc(&da, a.size() * sizeof(T)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, b.size() * sizeof(T)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dc, m * n * sizeof(float)), cudaSuccess);
    cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice);
    CUDA_EMU_LAUNCH(dim3(n / 16, (m / 16 + 3) / 4), 128, 0, nullptr, wmma_gemm<T>)(da, db, dc, m, n, k);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << cuda_emu::last_launch_diagnostic();
    std::vector<float> c(m * n);
    cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int p = 0; p < k; ++p) s += static_cast<double>(float(a[i * k + p])) * float(b[j * k + p]);
            ASSERT_NEAR(c[i * n + j], 0.5 * s, 1e-4) << i << "," << j;
        }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
}

TEST(CudaEmuWmma, GemmTilesMatchLoopsF16) { run_case<__half>(); }
TEST(CudaEmuWmma, GemmTilesMatchLoopsBf16) { run_case<__nv_bfloat16>(); }

// Half a warp at a fragment op is divergent code: the launch fails instead of computing garbage.
__global__ void wmma_divergent(float* c) {
    if ((threadIdx.x & 31) >= 16) return;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 1.0f);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

TEST(CudaEmuWmma, PartOfAWarpAtAFragmentOpFailsTheLaunch) {
    float* dc;
    ASSERT_EQ(cudaMalloc(&dc, 256 * sizeof(float)), cudaSuccess);
    CUDA_EMU_LAUNCH(1, 32, 0, nullptr, wmma_divergent)(dc);
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_emu::last_launch_diagnostic().find("wmma::fill_fragment"), std::string::npos)
        << cuda_emu::last_launch_diagnostic();
    cudaFree(dc);
}

// WMMA operands must be 256-bit aligned with a leading dimension of a multiple of 16 bytes; a GPU
// computes garbage otherwise, the emulation fails the launch and names the call.
__global__ void wmma_load_at(const __half* a, unsigned ldm, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, ldm);
    wmma::load_matrix_sync(fb, a, ldm);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

TEST(CudaEmuWmma, MisalignedOperandOrLeadingDimensionFailsTheLaunch) {
    __half* da;
    float* dc;
    ASSERT_EQ(cudaMalloc(&da, 64 * 64 * sizeof(__half)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dc, 256 * sizeof(float)), cudaSuccess);
    cudaMemset(da, 0, 64 * 64 * sizeof(__half));
    CUDA_EMU_LAUNCH(1, 32, 0, nullptr, wmma_load_at)(da + 16, 24, dc);  // aligned, ld 48 bytes: fine
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << cuda_emu::last_launch_diagnostic();
    CUDA_EMU_LAUNCH(1, 32, 0, nullptr, wmma_load_at)(da + 8, 24, dc);  // 16-byte aligned only
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_emu::last_launch_diagnostic().find("wmma::load_matrix_sync: pointer not 256-bit aligned"), std::string::npos)
        << cuda_emu::last_launch_diagnostic();
    CUDA_EMU_LAUNCH(1, 32, 0, nullptr, wmma_load_at)(da, 20, dc);  // ld 40 bytes
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_emu::last_launch_diagnostic().find("ldm 20 is not a multiple of 16 bytes"), std::string::npos)
        << cuda_emu::last_launch_diagnostic();
    cudaFree(da);
    cudaFree(dc);
}

}  // namespace
