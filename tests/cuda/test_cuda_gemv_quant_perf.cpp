// Perf mode of the block-quantized GEMV and tile dequantization (kernels/gemv_quant.h) at the
// matrix shapes of Llama-3.1-8B (dim 4096, FFN 14336, 8 KV heads of 128, vocab 128256) in the types
// of its Q4_K_M file (Q4_K, Q6_K) and Q8_0 / Q4_0: achieved GB/s of weight bytes read per decode
// product, for the decode-near-the-bandwidth-floor goal (issue 13). DISABLED_ so ctest never runs
// them (emulated timings mean nothing); scripts/gpu-check.sh's perf step runs them. Numbers only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "kernels/gemv_quant.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/random_blocks.h"

namespace snapdoc {
namespace {

using namespace cudatest;
using kernels::BlockType;

// Device memory holding `rows` x `cols` of type t: copies of 64 random blocks with sane scales.
cuda::DeviceBuffer random_matrix(BlockType t, DType dt, int rows, int cols) {
    const int64_t bytes = kernels::block_row_bytes(t, cols) * rows;
    cuda::DeviceBuffer w(static_cast<std::size_t>(bytes), "perf weights");
    std::mt19937 gen(7);
    const auto blocks = testing::random_blocks(dt, 64, gen, {0.01f, -0.02f, 0.005f});
    // Upload 64 blocks (whole blocks: every row is a multiple of 64 blocks here), then double the
    // filled prefix on the device until the matrix is full.
    int64_t filled = std::min<int64_t>(static_cast<int64_t>(blocks.size()), bytes);
    cuda::check(cudaMemcpy(w.get(), blocks.data(), static_cast<std::size_t>(filled), cudaMemcpyHostToDevice), "fill");
    while (filled < bytes) {
        const int64_t n = std::min(filled, bytes - filled);
        cuda::check(cudaMemcpy(w.as<uint8_t>() + filled, w.get(), static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice),
                    "fill");
        filled += n;
    }
    return w;
}

TEST(CudaGemvQuantPerf, DISABLED_Llama8BShapes) {
    SNAPDOC_REQUIRE_CUDA();
    struct Shape {
        const char* name;
        int rows, cols;
    };
    const Shape shapes[] = {{"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336},
                            {"output", 128256, 4096}};
    const std::pair<BlockType, DType> types[] = {
        {BlockType::Q4_K, DType::Q4_K}, {BlockType::Q6_K, DType::Q6_K}, {BlockType::Q8_0, DType::Q8_0}, {BlockType::Q4_0, DType::Q4_0}};
    for (const auto& [t, dt] : types) {
        for (const Shape& s : shapes) {
            auto w = random_matrix(t, dt, s.rows, s.cols);
            auto x = to_device(random_floats(static_cast<std::size_t>(s.cols) * kernels::kGemvMaxRows, 3));
            cuda::DeviceBuffer y(static_cast<std::size_t>(s.rows) * kernels::kGemvMaxRows * 4, "perf");
            const double bytes = static_cast<double>(kernels::block_row_bytes(t, s.cols)) * s.rows;
            for (int n : {1, kernels::kGemvMaxRows}) {
                const double ms = mean_ms(
                    [&] {
                        cuda::check(kernels::gemv_quant(w.get(), t, s.rows, s.cols, x.as<float>(), s.cols, n, y.as<float>(),
                                                        s.rows, 0.0f, nullptr),
                                    "gemv_quant");
                    },
                    20);
                std::printf("PERF gemv_quant %-6s %-7s %6d x %5d  n=%d  %8.3f ms  %7.1f GB/s of weights\n",
                            std::string(dtype_name(dt)).c_str(), s.name, s.rows, s.cols, n, ms, bytes / ms / 1e6);
            }
            // A prefill tile of 32 MiB of f16 (MatMul's), rows of this matrix.
            const int tile_rows = std::min(s.rows, static_cast<int>((int64_t{32} << 20) / (int64_t{s.cols} * 2)));
            cuda::DeviceBuffer tile(static_cast<std::size_t>(tile_rows) * s.cols * 2, "perf");
            const double ms = mean_ms(
                [&] {
                    cuda::check(kernels::dequantize_rows(w.get(), t, s.cols, 0, nullptr, tile_rows, tile.get(), kernels::Dt::F16,
                                                         s.cols, nullptr),
                                "dequantize_rows");
                },
                20);
            const double moved = static_cast<double>(kernels::block_row_bytes(t, s.cols)) * tile_rows +
                                 2.0 * tile_rows * s.cols;
            std::printf("PERF dequantize_rows %-6s %-7s %6d x %5d -> f16  %8.3f ms  %7.1f GB/s read+written\n",
                        std::string(dtype_name(dt)).c_str(), s.name, tile_rows, s.cols, ms, moved / ms / 1e6);
        }
    }
}

}  // namespace
}  // namespace snapdoc
