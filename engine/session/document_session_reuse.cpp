// DocumentSession's partial prefix reuse: a document that shares its first tokens with a session
// already held (the same pasted text with its end edited, or more text appended) copies those
// rows' f16 K/V and runs only the rest through the layers, layer-major as prefill_document does.
// The rows after the shared part attend over the copied rows as stored (f16), as a question does;
// a fresh prefill attends over the f32 rows of its earlier chunks, so the two agree to f16 rounding.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/session/document_session.h"
#include "engine/session/prefill_estimate.h"

namespace snapdoc {

namespace {
constexpr int kCopyRows = 4096;  // rows converted per call between the f16 store and the backend
}  // namespace

int DocumentSession::reusable_rows(const DocumentSession& base, int common, int new_tokens) const {
    if (!base.store_ || new_tokens < 1) return 0;
    const int reuse = std::clamp(common, 0, std::min(new_tokens, base.doc_len_));
    const int tail_start = new_tokens - std::min(new_tokens, options_.max_window);
    if (reuse <= tail_start) return reuse;  // every tail query is computed here
    // Tail rows inside the shared part: their queries must come from base's kept tail.
    if (tail_start >= base.doc_len_ - base.doc_tail_rows_) return reuse;
    return tail_start;
}

void DocumentSession::prefill_document_from(const DocumentSession& base, int reuse,
                                            std::span<const int32_t> tokens, const Progress& progress,
                                            const std::atomic<bool>* cancel) {
    const int D = static_cast<int>(tokens.size());
    if (D < 1) throw Error("the document has no tokens");
    if (&base == this) throw Error("partial prefix reuse: a session cannot reuse itself");
    if (reuse < 0 || reuse > reusable_rows(base, reuse, D))
        throw Error("partial prefix reuse: " + std::to_string(reuse) + " rows cannot be taken from a " +
                    std::to_string(base.doc_len_) + "-token document for a " + std::to_string(D) +
                    "-token one");
    if (base.cfg_.n_layers != cfg_.n_layers || base.cfg_.n_kv_heads != cfg_.n_kv_heads ||
        base.cfg_.head_dim != cfg_.head_dim || base.cfg_.q_dim() != cfg_.q_dim())
        throw Error("partial prefix reuse: the sessions belong to different models");
    drop_document();
    store_ = std::make_unique<FullKvStore>(cfg_.n_layers, cfg_.n_kv_heads, cfg_.head_dim, D,
                                           options_.kv_ram_cap_bytes, options_.spill_dir);
    store_->copy_leading_rows(*base.store_, reuse);
    const int qd = cfg_.q_dim(), hd = cfg_.head_dim, N = D - reuse;
    doc_tail_rows_ = std::min(D, options_.max_window);
    const int tail_start = D - doc_tail_rows_;
    doc_tail_q_.assign(cfg_.n_layers, std::vector<float>(static_cast<std::size_t>(doc_tail_rows_) * qd));
    // Tail queries of shared rows come from base's tail (reusable_rows checked that it holds them).
    const int base_tail_start = base.doc_len_ - base.doc_tail_rows_;
    for (int l = 0; l < cfg_.n_layers; ++l)
        for (int p = tail_start; p < reuse; ++p)
            std::memcpy(doc_tail_q_[l].data() + static_cast<std::size_t>(p - tail_start) * qd,
                        base.doc_tail_q_[l].data() + static_cast<std::size_t>(p - base_tail_start) * qd,
                        sizeof(float) * qd);

    std::unique_ptr<Activations> act;
    if (N > 0) act = backend_.create_activations(N);
    if (options_.backend_kv_store) {
        try {
            device_kv_ = backend_.attach_full_kv(*store_);
        } catch (...) {
            store_.reset();
            throw;
        }
    }
    const int chunk = std::max(1, std::min(options_.chunk_rows, N));
    for (int c0 = 0; c0 < N; c0 += chunk)
        backend_.embed(tokens.data() + reuse + c0, std::min(chunk, N - c0), *act, c0);
    std::vector<int32_t> positions(D);
    std::iota(positions.begin(), positions.end(), 0);
    std::vector<float> q_chunk(static_cast<std::size_t>(chunk) * qd);
    std::vector<float> copy_k(static_cast<std::size_t>(std::min(kCopyRows, D)) * hd), copy_v(copy_k.size());
    prefill_peak_cache_bytes_ = 0;
    const PrefillCostModel weights = flop_cost_model(cfg_);
    for (int l = 0; l < cfg_.n_layers; ++l) {
        auto cache = layer_cache(l, D);
        prefill_peak_cache_bytes_ = std::max<int64_t>(prefill_peak_cache_bytes_, cache->reserved_bytes());
        // The shared rows first (f16 store -> f32), then the new rows attend over them.
        for (int h = 0; h < cfg_.n_kv_heads; ++h)
            for (int r0 = 0; r0 < reuse; r0 += kCopyRows) {
                const int n = std::min(kCopyRows, reuse - r0);
                store_->load_rows(l, h, r0, n, copy_k.data(), copy_v.data());
                backend_.append_kv(*cache, l, h, positions.data() + r0, n, copy_k.data(), copy_v.data());
            }
        for (int c0 = 0; c0 < N; c0 += chunk) {
            if (cancel && cancel->load()) {
                device_kv_.reset();
                store_.reset();
                throw Cancelled();
            }
            const int c = std::min(chunk, N - c0), p0 = reuse + c0;
            const bool has_tail = p0 + c > tail_start;
            run_layer(l, *act, c0, c, positions.data() + p0, *cache, has_tail ? q_chunk.data() : nullptr);
            if (has_tail) {
                const int from = std::max(p0, tail_start);
                std::memcpy(doc_tail_q_[l].data() + static_cast<std::size_t>(from - tail_start) * qd,
                            q_chunk.data() + static_cast<std::size_t>(from - p0) * qd,
                            sizeof(float) * static_cast<std::size_t>(p0 + c - from) * qd);
            }
        }
        if (device_kv_) {
            device_kv_->store_layer(*cache, l);
        } else {
            for (int h = 0; h < cfg_.n_kv_heads; ++h)
                for (int r0 = reuse; r0 < D; r0 += kCopyRows) {
                    const int n = std::min(kCopyRows, D - r0);
                    backend_.read_kv(*cache, l, h, r0, n, copy_k.data(), copy_v.data());
                    store_->store_rows(l, h, r0, n, copy_k.data(), copy_v.data());
                }
        }
        if (progress)
            progress({l, cfg_.n_layers, l + 1, D, D, weights.fraction_done(D, cfg_.n_layers, l, D)});
    }
    if (device_kv_) device_kv_->finish();
    doc_len_ = D;
}

}  // namespace snapdoc
