// Block-quantized models on the CUDA backend: their tensors stay in GGUF blocks on the device (the
// device holds the file's bytes, not a widened copy), decode chunks multiply from the blocks
// (gemv_quant) and prefill chunks through dequantized tiles; both must compute the quantized model
// itself, checked against the double-precision reference forward pass (tests/support/
// reference_llama.h) run on the same weights as the file decodes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/runtime/cuda/device_weights.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/reference_llama.h"
#ifdef SNAPDOC_CUDA_EMU
#include "cuda_emu/control.h"
#endif

namespace snapdoc {
namespace {

using namespace cudatest;
using testing::TinyModelSpec;
using testing::TinyWeights;

// Each matrix row through the file's block type and back: what the model file holds. Rows are
// quantized independently, so this commutes with the GGUF writer's Q/K row permutation.
void round_trip(std::vector<float>& m, int cols, DType t) {
    std::vector<uint8_t> row(dtype_row_bytes(t, cols));
    for (std::size_t r = 0; r * cols < m.size(); ++r) {
        quantize_row(t, m.data() + r * cols, row.data(), cols);
        dequantize_row(t, row.data(), m.data() + r * cols, cols);
    }
}

TinyWeights as_stored(TinyWeights w, DType t) {
    const TinyModelSpec& s = w.spec;
    const int q = s.n_heads * w.head_dim();
    round_trip(w.tok_embeddings, s.dim, t);
    if (!w.output.empty()) round_trip(w.output, s.dim, t);
    for (auto& l : w.layers) {
        for (auto* m : {&l.wq, &l.wk, &l.wv, &l.w_gate, &l.w_up}) round_trip(*m, s.dim, t);
        round_trip(l.wo, q, t);
        round_trip(l.w_down, s.ffn_dim, t);
    }
    return w;
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

class CudaBlockWeights : public ::testing::TestWithParam<DType> {
protected:
    void SetUp() override { SNAPDOC_REQUIRE_CUDA(); }
};

TEST_P(CudaBlockWeights, KeptAsBlocksAndComputeTheQuantizedModel) {
    const DType t = GetParam();
    TinyModelSpec spec;  // dims in whole 256-value super-blocks, GQA 2
    spec.n_layers = 2;
    spec.dim = 256;
    spec.n_heads = 4;
    spec.n_kv_heads = 2;
    spec.ffn_dim = 512;
    spec.vocab_size = 300;
    spec.seed = 40 + static_cast<int>(t);
    auto tiny = load_tiny(spec, t);
    const Model& model = *tiny->model;

    // The device holds the file's bytes: blocks as they are, norms f32.
    const int64_t device = cuda::device_weight_bytes(model, kernels::Dt::F16);
    EXPECT_EQ(device, model.weight_bytes());
    EXPECT_LT(device, cuda::device_weight_bytes(model, kernels::Dt::F16, /*keep_blocks=*/false));
    EXPECT_NE(cuda::device_weight_formats(model, kernels::Dt::F16).find(std::string(dtype_name(t)) + " blocks"),
              std::string::npos);
#ifdef SNAPDOC_CUDA_EMU
    // What the backends really allocate: the same chunk scratch (512-row chunks) and, here only, the
    // block products' scratch (MatMul::reserve), so the difference between a widening backend and
    // this one is exactly the widened weights less the blocks less that scratch.
    int64_t widened_allocated = 0;
    {
        const int64_t before = cuda_emu::memory_stats().allocated;
        CudaBackendOptions o;
        o.weight_dtype = DType::F16;
        auto widened = make_cuda_backend(model, {}, o);
        widened_allocated = cuda_emu::memory_stats().allocated - before;
    }
    const int64_t before = cuda_emu::memory_stats().allocated;
#endif
    auto gpu = make_cuda_backend(model);
#ifdef SNAPDOC_CUDA_EMU
    const int64_t allocated = cuda_emu::memory_stats().allocated - before;
    // Up to the emulator's 256-byte rounding (cudaMalloc's granularity) of each of the 2 + 4 * layers
    // matrix buffers (one dtype per model here: one part per matrix) and the 2 scratch buffers.
    EXPECT_NEAR(static_cast<double>(widened_allocated - allocated),
                static_cast<double>(cuda::device_weight_bytes(model, kernels::Dt::F16, false) - device -
                                    cuda::MatMul::scratch_bytes(spec.ffn_dim, kernels::kGemvMaxRows, kernels::Dt::F16)),
                256.0 * (2 + 4 * spec.n_layers + 2));
#endif

    const auto ids = random_ids(12, spec.vocab_size, 5);
    const auto want = to_float(testing::reference_logits(as_stored(tiny->weights, t), ids));
    // Chunks of 1 row: every product a GEMV from the blocks (f32 inputs); chunks of 6: dequantized
    // f16 tiles on cuBLAS, f16 inputs. The device rounds K/V (and tiles, tile inputs) to f16, about
    // (2^-11)^2 of NMSE per rounding, compounded over 2 layers: 1e-5 leaves a wide margin and is still
    // far below what quantizing these weights costs at all (even Q8_0: ~2e-4 from the unquantized
    // model's logits), so decoding the blocks wrongly or as another type cannot pass.
    for (int chunk : {1, 6}) {
        const auto got = prefill_logits(*gpu, ids, chunk);
        const double e = nmse(got, want);
        EXPECT_LT(e, 1e-5) << dtype_name(t) << " chunk " << chunk;
        char text[32];
        std::snprintf(text, sizeof text, "%.3g", e);
        RecordProperty("nmse_chunk" + std::to_string(chunk), text);
    }
}

// A forced weight dtype widens the blocks on upload (the former path), and computes the same model.
TEST(CudaBlockWeightsWidened, ForcedDtypeWidensAndAgrees) {
    SNAPDOC_REQUIRE_CUDA();
    TinyModelSpec spec;
    spec.dim = 256;
    spec.ffn_dim = 256;
    spec.seed = 77;
    auto tiny = load_tiny(spec, DType::Q4_K);
    CudaBackendOptions o;
    o.weight_dtype = DType::F16;
    auto widened = make_cuda_backend(*tiny->model, {}, o);
    auto blocks = make_cuda_backend(*tiny->model);
    const auto ids = random_ids(5, spec.vocab_size, 9);
    EXPECT_LT(nmse(prefill_logits(*blocks, ids, 1), prefill_logits(*widened, ids, 1)), 1e-4);  // the F16 budget
}

// A fused matrix whose tensors differ in type, as in Q4_K_M files (Q|K in Q4_K, V in Q6_K) plus a
// dense F16 part: each part lands in its own rows of y, with beta, on the GEMV path (1 and 3 input
// rows) and the tile path (7 rows; tiles of 3 rows, so parts span several tiles and end mid-tile).
TEST(CudaBlockWeightsMatMul, MixedPartsGemvAndTiles) {
    SNAPDOC_REQUIRE_CUDA();
    const int cols = 512;
    struct PartSpec {
        DType dtype;
        int rows;
    };
    const PartSpec specs[] = {{DType::Q4_K, 5}, {DType::F16, 4}, {DType::Q6_K, 7}};
    cuda::DeviceMatrix w;
    w.cols = cols;
    w.dt = kernels::Dt::F16;
    std::vector<float> values;  // the matrix as the device stores it, decoded on the CPU
    for (const PartSpec& ps : specs) {
        const auto f = random_floats(static_cast<std::size_t>(ps.rows) * cols, 50 + w.rows, 0.5f);
        std::vector<uint8_t> bytes(static_cast<std::size_t>(ps.rows) * dtype_row_bytes(ps.dtype, cols));
        quantize_row(ps.dtype, f.data(), bytes.data(), static_cast<int64_t>(f.size()));
        std::vector<float> decoded(f.size());
        dequantize_row(ps.dtype, bytes.data(), decoded.data(), static_cast<int64_t>(f.size()));
        values.insert(values.end(), decoded.begin(), decoded.end());
        cuda::DeviceMatrixPart part;
        part.data = to_device(bytes);
        part.blocks = cuda::to_block_type(ps.dtype);
        part.row0 = w.rows;
        part.rows = ps.rows;
        w.parts.push_back(std::move(part));
        w.rows += ps.rows;
    }
    ASSERT_TRUE(w.has_blocks());
    cuda::Gemm gemm(nullptr);
    cuda::MatMul matmul(gemm, nullptr, /*tile_bytes=*/3 * cols * 2);
    const double u = std::ldexp(1.0, -24);
    for (int n : {1, 3, 7}) {
        for (float beta : {0.0f, 1.0f}) {
            const bool gemv = n <= kernels::kGemvMaxRows;
            auto x = random_floats(static_cast<std::size_t>(n) * cols, 90 + n, 1.0f);
            if (!gemv) x = round_f16(x);  // tile products take f16 inputs: give exactly representable ones
            const auto y0 = random_floats(static_cast<std::size_t>(n) * w.rows, 70 + n, 1.0f);
            auto dy = to_device(y0);
            if (gemv) {
                auto dx = to_device(x);
                matmul(w, dx.get(), kernels::Dt::F32, n, dy.as<float>(), beta);
            } else {
                std::vector<uint16_t> xh(x.size());
                for (std::size_t i = 0; i < x.size(); ++i) xh[i] = f32_to_f16(x[i]);
                auto dx = to_device(xh);
                matmul(w, dx.get(), kernels::Dt::F16, n, dy.as<float>(), beta);
            }
            const auto y = from_device<float>(dy.get(), y0.size());
            const auto x16 = round_f16(x);
            for (int j = 0; j < n; ++j)
                for (int r = 0; r < w.rows; ++r) {
                    // The GEMV reads blocks and f32 inputs unrounded; cuBLAS (tiles and the dense F16
                    // part, rows 5..8) takes the values and inputs rounded to f16.
                    const bool f16_product = !gemv || (r >= 5 && r < 9);
                    double want = beta * y0[j * w.rows + r], mag = std::fabs(want);
                    for (int k = 0; k < cols; ++k) {
                        const float v = values[r * cols + k];
                        const double wv = f16_product ? f16_to_f32(f32_to_f16(v)) : v;
                        const double xv = f16_product ? x16[j * cols + k] : x[j * cols + k];
                        want += wv * xv;
                        mag += std::fabs(wv * xv);
                    }
                    // f32 accumulation: at most `cols` + a few roundings per term (any summation order).
                    EXPECT_NEAR(y[j * w.rows + r], want, (cols + 8) * u * mag) << "n " << n << " beta " << beta << " row " << r;
                }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, CudaBlockWeights,
                         ::testing::Values(DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL,
                                           DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS),
                         [](const ::testing::TestParamInfo<DType>& i) { return std::string(dtype_name(i.param)); });

}  // namespace
}  // namespace snapdoc
