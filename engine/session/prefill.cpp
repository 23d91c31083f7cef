#include "engine/session/prefill.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "engine/common/error.h"

namespace snapdoc {

std::vector<float> prefill(Backend& backend, std::span<const int32_t> tokens, int start_pos, KvCache& kv,
                           const PrefillOptions& options, std::vector<float>* all_logits) {
    const ModelConfig& cfg = backend.config();
    const int n = static_cast<int>(tokens.size());
    if (n == 0) throw Error("prefill: no tokens");
    const int chunk = std::max(1, std::min(options.chunk_rows, n));
    auto act = backend.create_activations(chunk);
    std::vector<int32_t> positions(chunk);
    std::vector<float> last(cfg.vocab_size);
    const std::vector<int>& wanted = options.logits_positions;
    for (int p : wanted)
        if (p < 0 || p >= n) throw Error("prefill: logits position " + std::to_string(p) + " is outside the prompt");
    const std::size_t out_rows = wanted.empty() ? static_cast<std::size_t>(n) : wanted.size();
    if (all_logits) all_logits->assign(out_rows * cfg.vocab_size, 0.0f);

    for (int c0 = 0; c0 < n; c0 += chunk) {
        if (options.cancel && options.cancel->load()) throw Cancelled();
        const int c = std::min(chunk, n - c0);
        std::iota(positions.begin(), positions.begin() + c, start_pos + c0);
        backend.embed(tokens.data() + c0, c, *act, 0);
        for (int l = 0; l < cfg.n_layers; ++l) backend.run_layer(l, *act, 0, c, positions.data(), kv, nullptr);
        if (all_logits && wanted.empty())
            for (int i = 0; i < c; ++i)
                backend.logits(*act, i, all_logits->data() + static_cast<std::size_t>(c0 + i) * cfg.vocab_size);
        for (std::size_t k = 0; all_logits && k < wanted.size(); ++k)
            if (wanted[k] >= c0 && wanted[k] < c0 + c)
                backend.logits(*act, wanted[k] - c0, all_logits->data() + k * cfg.vocab_size);
        if (c0 + c == n) backend.logits(*act, c - 1, last.data());
        if (options.progress) options.progress(c0 + c, n);
    }
    // NaN/Inf weights in a matrix (the load pass checks only norms and biases) surface here.
    if (!std::all_of(last.begin(), last.end(), [](float x) { return std::isfinite(x); }))
        throw Error("the model produced NaN or Inf logits: a weight tensor likely holds non-finite values");
    return last;
}

std::unique_ptr<KvCache> make_layer_kv_cache(Backend& backend, int layer, int max_tokens) {
    const ModelConfig& cfg = backend.config();
    KvCacheSpec spec = KvCacheSpec::uniform(cfg.n_layers, cfg.n_kv_heads, cfg.head_dim, cfg.group_size(), 0);
    for (int h = 0; h < cfg.n_kv_heads; ++h) spec.capacity[spec.segment(layer, h)] = max_tokens;
    return backend.create_kv_cache(spec);
}

std::unique_ptr<KvCache> make_full_kv_cache(Backend& backend, int max_tokens) {
    const ModelConfig& cfg = backend.config();
    return backend.create_kv_cache(
        KvCacheSpec::uniform(cfg.n_layers, cfg.n_kv_heads, cfg.head_dim, cfg.group_size(), max_tokens));
}

}  // namespace snapdoc
