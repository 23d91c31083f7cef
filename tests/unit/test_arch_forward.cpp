// Every supported family (architecture.h) and rope scaling kind end to end: a random tiny model is
// written as GGUF and as a Hugging Face folder, both load to the same description, the CPU
// backend's logits match the float64 reference (tests/support/reference_llama), GGUF and HF agree,
// and what SnapKV reads (post-RoPE keys in the cache, post-RoPE/q-norm captured queries, window
// scores) matches the reference's attention probabilities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill.h"
#include "tests/support/engine_logits.h"
#include "tests/support/reference_llama.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

struct ArchCase {
    const char* name;
    TinyModelSpec spec;
    int context = 0;  // the backend's context size (0: declared)
};

TinyModelSpec spec_of(const char* arch, uint64_t seed) {
    TinyModelSpec s;
    s.arch = arch;
    s.seed = seed;
    return s;
}

std::vector<ArchCase> arch_cases() {
    std::vector<ArchCase> v;
    {  // Llama 3.1: theta 500000, llama3 factors (rope_freqs.weight / rope_type llama3), tied.
        TinyModelSpec s = spec_of("llama", 31);
        s.rope_theta = 500000.f;
        s.context_length = 131072;
        s.tied = true;
        s.rope = {RopeScalingKind::Llama3, 8.f, 8192, 1.f, 4.f};
        v.push_back({"llama31_llama3_rope", s});
    }
    v.push_back({"mistral", spec_of("mistral", 7)});
    {
        TinyModelSpec s = spec_of("qwen2", 25);
        s.rope_theta = 1e6f;
        s.tied = true;
        s.norm_eps = 1e-6f;
        v.push_back({"qwen2_biases", s});
    }
    {  // Qwen2.5 with YaRN 4x from 32768 (the 128K setting of its model card).
        TinyModelSpec s = spec_of("qwen2", 26);
        s.rope_theta = 1e6f;
        s.context_length = 131072;
        s.rope = {RopeScalingKind::Yarn, 4.f, 32768};
        v.push_back({"qwen25_yarn", s});
    }
    {  // Qwen3: head_dim 32 with dim 64 and 4 heads (not dim / heads), q/k norms.
        TinyModelSpec s = spec_of("qwen3", 3);
        s.head_dim = 32;
        s.rope_theta = 1e6f;
        s.tied = true;
        v.push_back({"qwen3_qk_norm", s});
    }
    {  // Phi-3.5: fused qkv / gate_up, LongRoPE; long factors above the original context 512.
        TinyModelSpec s = spec_of("phi3", 35);
        s.n_kv_heads = 4;
        s.context_length = 4096;
        s.rope = {RopeScalingKind::LongRope, 1.f, 512};
        v.push_back({"phi35_longrope_long", s});
        v.push_back({"phi35_longrope_short", s, 512});
    }
    return v;
}

class ArchForward : public ::testing::TestWithParam<ArchCase> {};

TEST_P(ArchForward, BothFormatsMatchTheReference) {
    const ArchCase& c = GetParam();
    TempDir dir;
    const TinyWeights w = make_tiny_weights(c.spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    write_tiny_hf(dir / "hf", w, DType::F32);
    const Model gguf = load_model(dir / "m.gguf");
    const Model hf = load_model(dir / "hf");
    for (const Model* m : {&gguf, &hf}) {
        EXPECT_EQ(m->config.architecture, c.spec.arch) << m->path;
        EXPECT_EQ(m->config.head_dim, w.head_dim()) << m->path;
        EXPECT_EQ(m->config.rope_scaling.kind, effective_rope(c.spec).kind) << m->path;
        EXPECT_EQ(m->weights.layers[0].bq.valid(), !w.layers[0].bq.empty()) << m->path;
        EXPECT_EQ(m->weights.layers[0].q_norm.valid(), !w.layers[0].q_norm.empty()) << m->path;
    }
    EXPECT_EQ(gguf.parameter_count(), hf.parameter_count());

    const auto ids = random_ids(70, c.spec.vocab_size, 3);
    const auto ref = reference_logits(w, ids, {}, c.context);
    const auto a = engine_logits(gguf, ids, 2, 512, 512, c.context);
    const auto b = engine_logits(hf, ids, 2, 512, 512, c.context);
    EXPECT_LT(max_rel_diff(a, ref), 1e-4) << "GGUF";
    EXPECT_LT(max_rel_diff(b, ref), 1e-4) << "Hugging Face";
    EXPECT_LT(max_rel_diff(a, b), 1e-5) << "GGUF vs Hugging Face";
    EXPECT_LT(max_rel_diff(engine_logits(gguf, ids, 2, 1, 512, c.context), ref), 1e-4)
        << "decode path (one row at a time)";
}

// The family-specific parts change the logits (so the checks above can fail): without them the
// same weights compute something else.
TEST_P(ArchForward, TheFamilysPartsMatter) {
    const ArchCase& c = GetParam();
    TinyModelSpec plain = c.spec;
    plain.rope = {};
    const TinyWeights w = make_tiny_weights(c.spec);
    TinyWeights stripped = w;
    stripped.spec = plain;
    for (auto& L : stripped.layers)
        L.bq.clear(), L.bk.clear(), L.bv.clear(), L.q_norm.clear(), L.k_norm.clear();
    if (c.spec.arch == "mistral") GTEST_SKIP() << "mistral is llama with another name";
    const auto ids = random_ids(40, c.spec.vocab_size, 5);
    EXPECT_GT(max_rel_diff(reference_logits(stripped, ids), reference_logits(w, ids, {}, c.context)), 1e-3);
}

// What SnapKV consumes: the captured window queries and the cached keys give the reference's
// attention probabilities (window_scores = Σ over window queries of softmax rows), per family.
TEST_P(ArchForward, WindowScoresMatchTheReferenceAttention) {
    const ArchCase& c = GetParam();
    TempDir dir;
    const TinyWeights w = make_tiny_weights(c.spec);
    write_tiny_gguf(dir / "m.gguf", w, DType::F32);
    const Model m = load_model(dir / "m.gguf");
    BackendOptions o;
    o.context_length = c.context;
    auto backend = exact_cpu_backend(m, o);
    const int T = 48, W = 8, n_prefix = T - W, H = c.spec.n_heads;
    const auto ids = random_ids(T, c.spec.vocab_size, 11);
    ReferenceTrace trace;
    reference_logits(w, ids, {}, c.context, &trace);

    auto kv = make_full_kv_cache(*backend, T);
    auto act = backend->create_activations(T);
    std::vector<int32_t> pos(T);
    std::iota(pos.begin(), pos.end(), 0);
    std::vector<float> q(static_cast<std::size_t>(T) * m.config.q_dim());
    backend->embed(ids.data(), T, *act, 0);
    for (int l = 0; l < c.spec.n_layers; ++l) {
        backend->run_layer(l, *act, 0, T, pos.data(), *kv, q.data());
        std::vector<float> scores(static_cast<std::size_t>(H) * n_prefix);
        backend->window_scores(*kv, l, q.data() + static_cast<std::size_t>(n_prefix) * m.config.q_dim(),
                               pos.data() + n_prefix, W, n_prefix, scores.data());
        for (int h = 0; h < H; ++h)
            for (int j = 0; j < n_prefix; ++j) {
                double expected = 0;
                for (int i = n_prefix; i < T; ++i)
                    expected += trace.probs[l][h][static_cast<std::size_t>(i) * T + j];
                ASSERT_NEAR(scores[static_cast<std::size_t>(h) * n_prefix + j], expected, 1e-4)
                    << "layer " << l << " head " << h << " key " << j;
            }
    }
}

// A compressed document session decodes exactly as attention restricted to the kept positions
// (keys are cached after RoPE, generated tokens continue at their true positions).
TEST_P(ArchForward, CompressedSessionEqualsRestrictedAttention) {
    const ArchCase& c = GetParam();
    if (c.context != 0) GTEST_SKIP() << "sessions run at the declared context";
    TempDir dir;
    const TinyWeights w = make_tiny_weights(c.spec);
    write_tiny_hf(dir / "hf", w, DType::F32);
    const Model m = load_model(dir / "hf");
    auto backend = exact_cpu_backend(m);
    const auto doc = random_ids(90, c.spec.vocab_size, 1), question = random_ids(10, c.spec.vocab_size, 2);
    DocumentSession s(*backend);
    s.prefill_document(doc);
    s.set_question(question, 8);
    SnapKvConfig cfg;
    cfg.budget = 24;
    cfg.window = 8;
    const auto sel = s.select(cfg);
    ASSERT_TRUE(sel->compressed);
    std::vector<std::vector<float>> steps;
    GenerationRequest r = greedy_request(3);
    r.stop_at_eos = false;
    r.on_logits = [&](std::span<const float> l) { steps.emplace_back(l.begin(), l.end()); };
    const auto ans = s.answer(*sel, r);
    ASSERT_EQ(steps.size(), 3u);
    const int L = s.prompt_tokens(), group = c.spec.n_heads / sel->cache_heads;
    const AttentionFilter filter = [&](int layer, int head, int query, int key) {
        if (query < L || key >= L || key >= L - sel->window) return true;
        const auto& kept = sel->layers[layer][head / group].kept;
        return std::find(kept.begin(), kept.end(), key) != kept.end();
    };
    std::vector<int32_t> seq = doc;
    seq.insert(seq.end(), question.begin(), question.end());
    seq.insert(seq.end(), ans.tokens.begin(), ans.tokens.end() - 1);
    // The session reads the document's K/V from its f16 store: so does the reference, for every
    // row after the document.
    const int D = static_cast<int>(doc.size());
    const auto ref = reference_logits(w, seq, filter, 0, nullptr, [D](int query, int key) { return query >= D && key < D; });
    for (int k = 0; k < 3; ++k) {
        const std::vector<double> row(
            ref.begin() + static_cast<std::ptrdiff_t>(L - 1 + k) * c.spec.vocab_size,
            ref.begin() + static_cast<std::ptrdiff_t>(L + k) * c.spec.vocab_size);
        EXPECT_LT(max_rel_diff(steps[k], row), 1e-4) << "step " << k;
    }
}

INSTANTIATE_TEST_SUITE_P(Families, ArchForward, ::testing::ValuesIn(arch_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace snapdoc
