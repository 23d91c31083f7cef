// Block-quantized models on the CUDA backend: their tensors stay in GGUF blocks on the device (the
// device holds the file's bytes, not a widened copy), decode chunks multiply from the blocks
// (gemv_quant) and prefill chunks through dequantized tiles; both must compute the quantized model
// itself, checked against the double-precision reference forward pass (tests/support/
// reference_llama.h) run on the same weights as the file decodes them.
#include <gtest/gtest.h>

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
    // What the backends really allocate: the same scratch (512-row chunks), so the difference
    // between a widening backend and this one is exactly the widened weights less the blocks.
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
    // matrix buffers (one dtype per model here: one part per matrix).
    EXPECT_NEAR(static_cast<double>(widened_allocated - allocated),
                static_cast<double>(cuda::device_weight_bytes(model, kernels::Dt::F16, false) - device),
                256.0 * (2 + 4 * spec.n_layers));
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

INSTANTIATE_TEST_SUITE_P(AllBlockTypes, CudaBlockWeights,
                         ::testing::Values(DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL,
                                           DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS),
                         [](const ::testing::TestParamInfo<DType>& i) { return std::string(dtype_name(i.param)); });

}  // namespace
}  // namespace snapdoc
