// The facts `info` and the app's model dialog show: the tensor type mix and the memory plan.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/model/model.h"
#include "engine/model/model_summary.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace testing;

Model tiny(const TempDir& dir, DType dtype) {
    TinyModelSpec spec;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), dtype);
    return load_model(dir.path() / "m.gguf");
}

TEST(ModelSummary, TypeMixAddsUpToTheWeights) {
    TempDir dir;
    const Model m = tiny(dir, DType::Q8_0);
    const ModelSummary s = summarize(m);
    ASSERT_FALSE(s.type_mix.empty());
    EXPECT_EQ(s.type_mix.front().dtype, DType::Q8_0);  // largest share first
    EXPECT_NEAR(s.type_mix.front().bits_per_weight(), 8.5, 1e-9);
    int64_t bytes = 0, params = 0;
    int tensors = 0;
    for (const TensorTypeShare& t : s.type_mix) {
        bytes += t.bytes;
        params += t.parameters;
        tensors += t.tensors;
        EXPECT_GT(t.tensors, 0);
    }
    EXPECT_EQ(bytes, s.weight_bytes);
    EXPECT_EQ(params, s.parameters);
    // Embeddings, the output head unless tied, the final norm, and 9 tensors per layer.
    const int expected = 2 + (m.config.tied_embeddings ? 0 : 1) + 9 * m.config.n_layers;
    EXPECT_EQ(tensors, expected);

    const std::string text = format_type_mix(s.type_mix);
    EXPECT_EQ(text.rfind("Q8_0 ", 0), 0u) << text;
    EXPECT_NE(text.find("8.5 bpw"), std::string::npos) << text;
    EXPECT_NE(text.find("F32"), std::string::npos) << text;  // the norms
    EXPECT_EQ(format_type_mix_short(s.type_mix).rfind("Q8_0\xC3\x97", 0), 0u);
}

TEST(ModelSummary, MemoryPlan) {
    TempDir dir;
    const Model m = tiny(dir, DType::F16);
    const ModelConfig& c = m.config;
    const MemoryPlan p = plan_memory(m, 256, 64);
    const int64_t per_token = int64_t{2} * c.n_layers * c.n_kv_heads * c.head_dim * 2;  // the f16 cache
    EXPECT_EQ(p.weights, m.weight_bytes());
    EXPECT_EQ(p.kv_full_per_1k, per_token * 1024);  // the store is f16 too
    EXPECT_EQ(p.snapkv_budget, 256);
    EXPECT_EQ(p.kv_at_budget, per_token * 256);
    EXPECT_EQ(p.kv_at_budget_query_heads, p.kv_at_budget * c.group_size());
    EXPECT_EQ(p.prefill_chunk_rows, 64);
    EXPECT_EQ(p.scratch, summarize(m).scratch_bytes_per_row * 64 + int64_t{4} * c.vocab_size);
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(1000), "1000 B");
}

}  // namespace
}  // namespace snapdoc
