// Issue 14, non-finite weights: a NaN/Inf norm or bias is refused at load naming the tensor; one in
// a matrix is named by the opt-in full scan and stops the first forward instead of giving finite,
// silently wrong logits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/common/error.h"
#include "engine/model/finite_weights.h"
#include "engine/model/model.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/cpu/attention_vec.h"
#include "engine/session/prefill.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace testing;

TEST(NonFiniteWeights, NormOrBiasIsRefusedAtLoadNamingTheTensor) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[1].ffn_norm[3] = std::numeric_limits<float>::quiet_NaN();
    write_tiny_gguf(dir / "nan.gguf", w, DType::F16);
    EXPECT_FORMAT_ERROR(load_model(dir / "nan.gguf"),
                        "tensor blk.1.ffn_norm.weight holds NaN or Inf (element 3)");

    TinyModelSpec qwen;
    qwen.arch = "qwen2";
    TinyWeights q = make_tiny_weights(qwen);
    q.layers[0].bk[1] = std::numeric_limits<float>::infinity();
    write_tiny_gguf(dir / "inf.gguf", q, DType::F32);
    EXPECT_FORMAT_ERROR(load_model(dir / "inf.gguf"), "blk.0.attn_k.bias holds NaN or Inf (element 1)");
}

TEST(NonFiniteWeights, MatrixIsNamedByTheFullScanAndStopsTheFirstForward) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[0].w_down[10] = std::numeric_limits<float>::infinity();
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    const Model m = load_model(dir / "m.gguf");  // matrices are not scanned at load (that pages in the model)
    EXPECT_FORMAT_ERROR(check_finite_weights(m, /*include_matrices=*/true),
                        "tensor blk.0.ffn_down.weight holds NaN");

    auto backend = make_backend(m, {}, "cpu");
    auto kv = make_full_kv_cache(*backend, 8);
    const std::vector<int32_t> ids = {1, 5, 9, 12};
    try {
        prefill(*backend, ids, 0, *kv, {});
        ADD_FAILURE() << "expected an error for non-finite logits";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("NaN or Inf logits"), std::string::npos) << e.what();
    }
}

// The softmax kernel itself, on every instruction set this machine has: a NaN score yields a NaN
// sum (it was exp'd to 0, i.e. masked, by the AVX2/AVX-512 kernels); -inf still means masked.
TEST(NonFiniteWeights, SoftmaxKernelsPropagateNanScores) {
    const std::string before = cpu::attention_vector_isa();
    for (const std::string& isa : cpu::attention_vector_isas()) {
        ASSERT_TRUE(cpu::use_attention_vector_isa(isa));
        std::vector<float> x(37, 0.5f);
        x[3] = std::numeric_limits<float>::quiet_NaN();
        EXPECT_TRUE(std::isnan(cpu::exp_shift_sum(x.data(), 37, 1.0f))) << isa;
        std::vector<float> masked(37, 0.5f);
        masked[3] = -std::numeric_limits<float>::infinity();
        const float s = cpu::exp_shift_sum(masked.data(), 37, 1.0f);
        EXPECT_NEAR(s, 36 * std::exp(-0.5f), 1e-4f) << isa;
        EXPECT_EQ(masked[3], 0.0f) << isa;
    }
    cpu::use_attention_vector_isa(before);
}

// NaN in a K projection gives NaN attention scores; the vectorised softmax used to turn them into
// masked ones (finite, silently different logits). Now the NaN reaches the logits and is reported.
TEST(NonFiniteWeights, NanAttentionScoresAreNotTreatedAsMasked) {
    TempDir dir;
    TinyWeights w = make_tiny_weights(TinyModelSpec{});
    w.layers[0].wk[5] = std::numeric_limits<float>::quiet_NaN();
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    const Model m = load_model(dir / "m.gguf");
    auto backend = make_backend(m, {}, "cpu");
    auto kv = make_full_kv_cache(*backend, 64);
    std::vector<int32_t> ids(40);
    for (int i = 0; i < 40; ++i) ids[i] = 1 + (i * 7) % 300;
    EXPECT_THROW(prefill(*backend, ids, 0, *kv, {}), Error);
}

}  // namespace
}  // namespace snapdoc
