#include "engine/session/compressed_prefill.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/session/prefill.h"

namespace snapdoc {

namespace {

// Kept entries of one (layer, cache head), gathered on the host until the final cache is built.
struct KeptEntries {
    std::vector<int32_t> positions;
    std::vector<float> k, v;
};

}  // namespace

CompressedPrompt prefill_compressed(Backend& backend, std::span<const int32_t> prompt, const SnapKvConfig& config,
                                    int spare_tokens, int chunk_rows, const std::atomic<bool>* cancel) {
    const ModelConfig& cfg = backend.config();
    const int L = static_cast<int>(prompt.size());
    if (L < 1) throw Error("the prompt has no tokens");
    if (config.window < 1) throw Error("SnapKV window must be >= 1");
    const int W = std::min(config.window, L), qd = cfg.q_dim(), hd = cfg.head_dim;
    const int chunk = std::max(1, std::min(chunk_rows, L));

    WindowScores ws;
    ws.prompt_len = L;
    ws.window = W;
    ws.n_layers = cfg.n_layers;
    ws.n_heads = cfg.n_heads;
    ws.n_kv_heads = cfg.n_kv_heads;
    ws.layers.resize(cfg.n_layers);
    auto sel = begin_selection(config, ws);
    const int cache_per_kv = sel->cache_heads / cfg.n_kv_heads;
    std::vector<std::vector<KeptEntries>> kept(cfg.n_layers, std::vector<KeptEntries>(sel->cache_heads));

    auto act = backend.create_activations(L);
    for (int c0 = 0; c0 < L; c0 += chunk) backend.embed(prompt.data() + c0, std::min(chunk, L - c0), *act, c0);
    std::vector<int32_t> positions(L);
    std::iota(positions.begin(), positions.end(), 0);
    std::vector<float> q_chunk(static_cast<std::size_t>(chunk) * qd), q_window(static_cast<std::size_t>(W) * qd);
    std::vector<float> seg_k(static_cast<std::size_t>(L) * hd), seg_v(static_cast<std::size_t>(L) * hd);

    for (int l = 0; l < cfg.n_layers; ++l) {
        auto full = make_layer_kv_cache(backend, l, L);
        for (int c0 = 0; c0 < L; c0 += chunk) {
            if (cancel && cancel->load()) throw Cancelled();
            const int c = std::min(chunk, L - c0);
            const bool in_window = c0 + c > L - W;
            backend.run_layer(l, *act, c0, c, positions.data() + c0, *full, in_window ? q_chunk.data() : nullptr);
            if (in_window) {
                const int from = std::max(c0, L - W);
                std::memcpy(q_window.data() + static_cast<std::size_t>(from - (L - W)) * qd,
                            q_chunk.data() + static_cast<std::size_t>(from - c0) * qd,
                            sizeof(float) * static_cast<std::size_t>(c0 + c - from) * qd);
            }
        }
        ws.layers[l].assign(static_cast<std::size_t>(cfg.n_heads) * (L - W), 0.0f);
        backend.window_scores(*full, l, q_window.data(), positions.data() + (L - W), W, L - W, ws.layers[l].data());
        backend.snapkv_select_layer(ws, l, *sel);
        std::vector<float>().swap(ws.layers[l]);  // raw scores are not needed once pooled

        for (int h = 0; h < cfg.n_kv_heads; ++h) {
            backend.read_kv(*full, l, h, 0, L, seg_k.data(), seg_v.data());
            for (int c = h * cache_per_kv; c < (h + 1) * cache_per_kv; ++c) {
                KeptEntries& e = kept[l][c];
                e.positions = sel->layers[l][c].kept;
                for (int p = L - W; p < L; ++p) e.positions.push_back(p);
                e.k.resize(e.positions.size() * hd);
                e.v.resize(e.positions.size() * hd);
                for (std::size_t i = 0; i < e.positions.size(); ++i) {
                    std::memcpy(e.k.data() + i * hd, seg_k.data() + static_cast<std::size_t>(e.positions[i]) * hd,
                                sizeof(float) * hd);
                    std::memcpy(e.v.data() + i * hd, seg_v.data() + static_cast<std::size_t>(e.positions[i]) * hd,
                                sizeof(float) * hd);
                }
            }
        }
        // `full` goes out of scope here: this layer's full K/V is released before the next layer.
    }

    CompressedPrompt out;
    out.last_logits.resize(cfg.vocab_size);
    backend.logits(*act, L - 1, out.last_logits.data());
    act.reset();
    KvCacheSpec spec;
    spec.n_layers = cfg.n_layers;
    spec.n_heads = sel->cache_heads;
    spec.head_dim = hd;
    spec.group = cfg.n_heads / sel->cache_heads;
    spec.capacity.resize(static_cast<std::size_t>(cfg.n_layers) * sel->cache_heads);
    for (int l = 0; l < cfg.n_layers; ++l)
        for (int c = 0; c < sel->cache_heads; ++c)
            spec.capacity[spec.segment(l, c)] = static_cast<int>(kept[l][c].positions.size()) + std::max(0, spare_tokens);
    out.cache = backend.create_kv_cache(spec);
    for (int l = 0; l < cfg.n_layers; ++l)
        for (int c = 0; c < sel->cache_heads; ++c) {
            KeptEntries& e = kept[l][c];
            backend.append_kv(*out.cache, l, c, e.positions.data(), static_cast<int>(e.positions.size()), e.k.data(),
                              e.v.data());
            e = {};
        }
    out.selection = std::move(sel);
    return out;
}

}  // namespace snapdoc
