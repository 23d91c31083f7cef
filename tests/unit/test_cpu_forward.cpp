// The CPU backend against the plain reference forward pass (tests/support/reference_llama), on
// random-weight models written by the tests in both file formats.
#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "engine/common/error.h"
#include "engine/kv/f16_rows.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/generate.h"
#include "engine/session/prefill.h"
#include "tests/support/engine_logits.h"
#include "tests/support/reference_llama.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

std::vector<int32_t> some_ids(int n, int vocab, int seed = 3) {
    std::vector<int32_t> ids(n);
    uint32_t x = 2463534242u + seed;
    for (auto& id : ids) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        id = static_cast<int32_t>(x % vocab);
    }
    return ids;
}

struct ShapeCase {
    const char* name;
    int n_heads, n_kv_heads;
    bool tied;
    float rope_scale;
};

class CpuForward : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(CpuForward, MatchesReferenceInBothFormats) {
    const ShapeCase c = GetParam();
    TempDir dir;
    TinyModelSpec spec;
    spec.n_heads = c.n_heads;
    spec.n_kv_heads = c.n_kv_heads;
    spec.tied = c.tied;
    spec.rope_linear_scale = c.rope_scale;
    spec.seed = 11;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, DType::F32);
    write_tiny_hf(dir.path() / "hf", w, DType::F32);
    const auto ids = some_ids(70, spec.vocab_size);
    const auto ref = reference_logits(w, ids);
    const auto gguf = engine_logits(load_model(dir.path() / "m.gguf"), ids);
    const auto hf = engine_logits(load_model(dir.path() / "hf"), ids);
    EXPECT_LT(max_rel_diff(gguf, ref), 1e-4) << "GGUF (adjacent-pair RoPE)";
    EXPECT_LT(max_rel_diff(hf, ref), 1e-4) << "HF (rotate-half RoPE)";
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuForward,
                         ::testing::Values(ShapeCase{"gqa", 4, 2, false, 1.0f}, ShapeCase{"mha", 4, 4, false, 1.0f},
                                           ShapeCase{"mqa", 4, 1, true, 1.0f},
                                           ShapeCase{"linear_rope_scaling", 4, 2, false, 4.0f}),
                         [](const auto& info) { return std::string(info.param.name); });

// Sliding-window attention (Mistral 7B v0.1): a query at position p sees keys at positions
// p - W + 1 .. p. The window is read from both formats and applied on the prefill (row blocks) and
// the short-block / decode path alike; without it the logits would differ (checked, so the test can
// fail).
TEST(CpuForwardSlidingWindow, MatchesReferenceWithTheWindowMask) {
    TempDir dir;
    TinyModelSpec spec;
    spec.sliding_window = 24;
    spec.seed = 13;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, DType::F32);
    write_tiny_hf(dir.path() / "hf", w, DType::F32);
    const Model gguf = load_model(dir.path() / "m.gguf");
    const Model hf = load_model(dir.path() / "hf");
    EXPECT_EQ(gguf.config.sliding_window, 24);
    EXPECT_EQ(hf.config.sliding_window, 24);
    const auto ids = some_ids(100, spec.vocab_size);
    const int window = spec.sliding_window;
    const auto ref = reference_logits(w, ids, [&](int, int, int q, int k) { return q - k < window; });
    EXPECT_LT(max_rel_diff(engine_logits(gguf, ids), ref), 1e-4) << "GGUF, one 100-row chunk";
    EXPECT_LT(max_rel_diff(engine_logits(hf, ids), ref), 1e-4) << "HF, one 100-row chunk";
    EXPECT_LT(max_rel_diff(engine_logits(gguf, ids, 2, 7), ref), 1e-4) << "chunks of 7 rows (short-block path)";
    EXPECT_LT(max_rel_diff(engine_logits(gguf, ids, 1, 1), ref), 1e-4) << "one row at a time (decode path)";
    EXPECT_GT(max_rel_diff(engine_logits(gguf, ids), reference_logits(w, ids)), 1e-2)
        << "the window should change the logits of a 100-token prompt";
}

// Low-precision files stay close to the f32 reference in both formats. (They are not compared with
// each other tightly: the GGUF writer keeps norm weights in f32 as llama.cpp does, the HF folder
// stores them in the file's dtype.)
class CpuForwardDtype : public ::testing::TestWithParam<DType> {};

TEST_P(CpuForwardDtype, FormatsAgreeAndStayNearReference) {
    const DType dt = GetParam();
    TempDir dir;
    TinyModelSpec spec;
    spec.seed = 5;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, dt);
    const auto ids = some_ids(40, spec.vocab_size, 9);
    const auto ref = reference_logits(w, ids);
    const auto gguf = engine_logits(load_model(dir.path() / "m.gguf"), ids);
    const double tol = dt == DType::F16 ? 5e-3 : 3e-2;  // f16: 11-bit mantissa; bf16/q8_0: ~8 bits
    EXPECT_LT(max_rel_diff(gguf, ref), tol);
    if (dt != DType::Q8_0) {  // safetensors has no Q8_0
        write_tiny_hf(dir.path() / "hf", w, dt);
        const auto hf = engine_logits(load_model(dir.path() / "hf"), ids);
        EXPECT_LT(max_rel_diff(hf, ref), tol);
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CpuForwardDtype, ::testing::Values(DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Chunking (prefill chunks and the backend's internal blocks) and thread count change nothing
// beyond float rounding.
TEST(CpuForwardChunking, ChunkSizesAndThreadsAgree) {
    TempDir dir;
    TinyModelSpec spec;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, DType::F16);
    const Model m = load_model(dir.path() / "m.gguf");
    const auto ids = some_ids(37, spec.vocab_size);
    const auto base = engine_logits(m, ids, 2, 512, 512);
    std::vector<double> b(base.begin(), base.end());
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 1, 512, 512), b), 1e-5);
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 2, 5, 512), b), 1e-5);
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 2, 512, 3), b), 1e-5);
    EXPECT_LT(max_rel_diff(engine_logits(m, ids, 2, 1, 1), b), 1e-5);
}

// Decoding token by token over the KV cache gives the same logits as one batched prefill.
TEST(CpuForwardDecode, IncrementalEqualsBatched) {
    TempDir dir;
    TinyModelSpec spec;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_hf(dir.path() / "hf", w, DType::F32);
    const Model m = load_model(dir.path() / "hf");
    const auto ids = some_ids(25, spec.vocab_size);
    const auto batched = engine_logits(m, ids);
    auto backend = exact_cpu_backend(m);
    auto kv = make_full_kv_cache(*backend, 25);
    auto act = backend->create_activations(1);
    std::vector<float> row(spec.vocab_size);
    const auto ref = reference_logits(w, ids);
    for (int t = 0; t < 25; ++t) {
        backend->embed(&ids[t], 1, *act, 0);
        for (int l = 0; l < spec.n_layers; ++l) backend->run_layer(l, *act, 0, 1, &t, *kv, nullptr);
        backend->logits(*act, 0, row.data());
        for (int v = 0; v < spec.vocab_size; ++v)
            ASSERT_NEAR(row[v], batched[static_cast<std::size_t>(t) * spec.vocab_size + v], 1e-4) << "t=" << t;
    }
    EXPECT_EQ(kv->length(0, 0), 25);
    // The cache refuses a 26th token instead of writing past its capacity.
    const int32_t pos = 25;
    backend->embed(&ids[0], 1, *act, 0);
    EXPECT_THROW(backend->run_layer(0, *act, 0, 1, &pos, *kv, nullptr), Error);
}

// BackendOptions::kv_f16 (the default): the cache holds K and V rounded to f16 (half the bytes of
// --kv-f32's), read back as those rounded values; prefill and decode over it stay within f16's
// rounding of the exact logits, and differ from the f32 cache's (so the f16 path really ran).
TEST(CpuForwardF16Cache, HalvesTheCacheAndStaysNearTheReference) {
    TempDir dir;
    TinyModelSpec spec;
    spec.n_heads = 4;
    spec.n_kv_heads = 2;
    const TinyWeights w = make_tiny_weights(spec);
    write_tiny_gguf(dir.path() / "m.gguf", w, DType::F32);
    const Model m = load_model(dir.path() / "m.gguf");
    const auto ids = some_ids(300, spec.vocab_size);  // > one 256-key attention tile
    const auto ref = reference_logits(w, ids);
    const auto f32 = engine_logits(m, ids);

    BackendOptions o;
    o.threads = 2;
    o.kv_f16 = true;
    auto backend = make_cpu_backend(m, o);
    const int n = static_cast<int>(ids.size());
    auto kv = make_full_kv_cache(*backend, n);
    BackendOptions o32 = o;
    o32.kv_f16 = false;
    auto kv32 = make_full_kv_cache(*make_cpu_backend(m, o32), n);
    EXPECT_EQ(2 * kv->reserved_bytes(), kv32->reserved_bytes());
    // Prefill all but the last 20 tokens, then decode those one at a time.
    std::vector<float> logits;
    prefill(*backend, std::span(ids).first(n - 20), 0, *kv, PrefillOptions{}, &logits);
    auto act = backend->create_activations(1);
    std::vector<float> row(spec.vocab_size);
    for (int t = n - 20; t < n; ++t) {
        backend->embed(&ids[t], 1, *act, 0);
        for (int l = 0; l < spec.n_layers; ++l) backend->run_layer(l, *act, 0, 1, &t, *kv, nullptr);
        backend->logits(*act, 0, row.data());
        logits.insert(logits.end(), row.begin(), row.end());
    }
    EXPECT_LT(max_rel_diff(logits, ref), 5e-3);
    EXPECT_GT(max_rel_diff(logits, f32), 1e-6) << "the f16 cache gave the f32 cache's logits";

    // read_kv returns f16-representable values.
    std::vector<float> k(spec.dim / spec.n_heads * 3), v(k.size()), k16(k.size());
    backend->read_kv(*kv, 1, 1, 100, 3, k.data(), v.data());
    std::vector<uint16_t> h(k.size());
    f32_to_f16_row(k.data(), h.data(), static_cast<int64_t>(h.size()));
    f16_to_f32_row(h.data(), k16.data(), static_cast<int64_t>(h.size()));
    EXPECT_EQ(k, k16);
    EXPECT_THROW(backend->read_kv(*kv, 1, 1, n - 1, 2, k.data(), v.data()), Error);
}

TEST(CpuForwardErrors, TokenOutsideVocabularyIsAnError) {
    TempDir dir;
    TinyModelSpec spec;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
    const Model m = load_model(dir.path() / "m.gguf");
    auto backend = make_cpu_backend(m);
    auto act = backend->create_activations(1);
    const int32_t bad = spec.vocab_size;
    EXPECT_THROW(backend->embed(&bad, 1, *act, 0), Error);
}

TEST(Generation, GreedyIsDeterministicAndStopsAtLimit) {
    TempDir dir;
    TinyModelSpec spec;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
    const Model m = load_model(dir.path() / "m.gguf");
    auto backend = make_cpu_backend(m);
    GenerationRequest req;
    req.prompt = {1, 50, 60};
    req.max_new_tokens = 12;
    req.sampling.temperature = 0;
    req.stop_at_eos = false;
    const auto a = generate(*backend, req);
    const auto b = generate(*backend, req);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ(a.tokens.size(), 12u);
    EXPECT_EQ(a.stop, StopReason::TokenLimit);
    // Greedy continuation equals the argmax of the reference logits, step by step.
    std::vector<int32_t> seq = req.prompt;
    for (int i = 0; i < 4; ++i) {
        const auto ref = reference_logits(make_tiny_weights(spec), seq);
        const std::size_t off = (seq.size() - 1) * spec.vocab_size;
        int best = 0;
        for (int v = 1; v < spec.vocab_size; ++v)
            if (ref[off + v] > ref[off + best]) best = v;
        EXPECT_EQ(a.tokens[i], best) << "step " << i;
        seq.push_back(best);
    }
}

TEST(Generation, CancellationStopsCleanly) {
    TempDir dir;
    TinyModelSpec spec;
    write_tiny_gguf(dir.path() / "m.gguf", make_tiny_weights(spec), DType::F32);
    const Model m = load_model(dir.path() / "m.gguf");
    auto backend = make_cpu_backend(m);
    std::atomic<bool> cancel{false};
    GenerationRequest req;
    req.prompt = {1, 2, 3};
    req.max_new_tokens = 100;
    req.stop_at_eos = false;
    req.cancel = &cancel;
    int produced = 0;
    req.on_token = [&](int32_t) {
        if (++produced == 5) cancel = true;
    };
    const auto r = generate(*backend, req);
    EXPECT_EQ(r.stop, StopReason::Cancelled);
    EXPECT_EQ(r.tokens.size(), 5u);
}

}  // namespace
}  // namespace snapdoc
