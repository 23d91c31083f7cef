#include "engine/session/document_session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/kv/selection_history.h"
#include "engine/session/context_check.h"
#include "engine/session/prefill.h"
#include "engine/session/prefill_estimate.h"

namespace snapdoc {

namespace {
// Rows converted between the f16 store and the backend's f32 cache per call: bounds the scratch
// (4096 rows x head_dim x 2 floats) whatever the document's length.
constexpr int kStoreCopyRows = 4096;
}  // namespace

DocumentSession::DocumentSession(Backend& backend, DocumentSessionOptions options)
    : backend_(backend), cfg_(backend.config()), options_(std::move(options)) {
    if (options_.chunk_rows < 1) throw Error("document session: chunk_rows must be >= 1");
    if (options_.max_window < 1) throw Error("document session: max_window must be >= 1");
}

std::unique_ptr<KvCache> DocumentSession::layer_cache(int layer, int capacity) {
    return make_layer_kv_cache(backend_, layer, capacity);
}

void DocumentSession::run_layer(int layer, Activations& act, int row0, int n, const int32_t* pos, KvCache& kv,
                                float* q_capture) {
    backend_.run_layer(layer, act, row0, n, pos, kv, q_capture);
    counters_.layer_forward_calls++;
    counters_.rows_forwarded += n;
}

void DocumentSession::drop_document() {
    device_kv_.reset();  // it refers to the store
    store_.reset();
    question_.clear();
    continuation_ = {};
    keep_whole_from_ = -1;
    scores_ = {};
    doc_len_ = 0;
}

void DocumentSession::require_document() const {
    if (!store_) throw Error("no document has been prefilled");
}

void DocumentSession::prefill_document(std::span<const int32_t> tokens, const Progress& progress,
                                       const std::atomic<bool>* cancel) {
    const int D = static_cast<int>(tokens.size());
    if (D < 1) throw Error("the document has no tokens");
    start_document(D);
    run_document_rows(tokens, 0, progress, cancel);
}

void DocumentSession::start_document(int D) {
    // Drop any previous document first so its memory is free for this one.
    drop_document();
    store_ = std::make_unique<FullKvStore>(cfg_.n_layers, cfg_.n_kv_heads, cfg_.head_dim, D,
                                           options_.kv_ram_cap_bytes, options_.spill_dir);
    doc_tail_rows_ = std::min(D, options_.max_window);
    doc_tail_q_.assign(cfg_.n_layers, std::vector<float>(static_cast<std::size_t>(doc_tail_rows_) * cfg_.q_dim()));
}

void DocumentSession::run_document_rows(std::span<const int32_t> tokens, int first, const Progress& progress,
                                        const std::atomic<bool>* cancel) {
    const int D = static_cast<int>(tokens.size()), N = D - first;
    const int qd = cfg_.q_dim(), hd = cfg_.head_dim;
    const int tail_start = D - doc_tail_rows_;

    std::unique_ptr<Activations> act;
    if (N > 0) act = backend_.create_activations(N);
    // After the activations, so the backend's choice (device-resident or staged) sees what is left.
    if (options_.backend_kv_store) {
        try {
            device_kv_ = backend_.attach_full_kv(*store_);
        } catch (...) {
            store_.reset();  // refused (e.g. too little device memory, with the numbers): no document
            throw;
        }
    }
    const int chunk = std::max(1, std::min(options_.chunk_rows, N));
    for (int c0 = 0; c0 < N; c0 += chunk)
        backend_.embed(tokens.data() + first + c0, std::min(chunk, N - c0), *act, c0);
    std::vector<int32_t> positions(D);
    std::iota(positions.begin(), positions.end(), 0);
    std::vector<float> q_chunk(static_cast<std::size_t>(chunk) * qd);
    std::vector<float> copy_k(static_cast<std::size_t>(std::min(kStoreCopyRows, D)) * hd), copy_v(copy_k.size());
    prefill_peak_cache_bytes_ = 0;

    // Per-chunk progress, weighted by each chunk's share of the work (FLOPs): a chunk deep in the
    // document attends over more keys, so rows alone would run ahead of the clock.
    const PrefillCostModel weights = flop_cost_model(cfg_);
    const auto report = [&](int layer, int rows_done) {
        const int layers_done = layer + (rows_done == D ? 1 : 0);
        progress({layer, cfg_.n_layers, layers_done, rows_done, D,
                  weights.fraction_done(D, cfg_.n_layers, layer, rows_done)});
    };
    for (int l = 0; l < cfg_.n_layers; ++l) {
        auto cache = layer_cache(l, D);
        prefill_peak_cache_bytes_ = std::max<int64_t>(prefill_peak_cache_bytes_, cache->reserved_bytes());
        // Rows taken over from another session (prefill_document_from) go in first, as stored
        // (not needed when nothing runs over them and the host store holds them already).
        for (int h = 0; (N > 0 || device_kv_) && h < cfg_.n_kv_heads; ++h)
            for (int r0 = 0; r0 < first; r0 += kStoreCopyRows) {
                const int n = std::min(kStoreCopyRows, first - r0);
                store_->load_rows(l, h, r0, n, copy_k.data(), copy_v.data());
                backend_.append_kv(*cache, l, h, positions.data() + r0, n, copy_k.data(), copy_v.data());
            }
        for (int c0 = 0; c0 < N; c0 += chunk) {
            if (cancel && cancel->load()) {
                device_kv_.reset();
                store_.reset();
                throw Cancelled();
            }
            const int c = std::min(chunk, N - c0), p0 = first + c0;
            const bool has_tail = p0 + c > tail_start;
            run_layer(l, *act, c0, c, positions.data() + p0, *cache, has_tail ? q_chunk.data() : nullptr);
            if (has_tail) {
                const int from = std::max(p0, tail_start);
                std::memcpy(doc_tail_q_[l].data() + static_cast<std::size_t>(from - tail_start) * qd,
                            q_chunk.data() + static_cast<std::size_t>(from - p0) * qd,
                            sizeof(float) * static_cast<std::size_t>(p0 + c - from) * qd);
            }
            if (progress && p0 + c < D) report(l, p0 + c);  // the layer's last chunk reports below
        }
        // Layer ℓ is done: its full K/V leave the backend's cache for the store — the backend's own
        // way when it has one (kept on the GPU and/or copied out while the next layer computes),
        // else through the host here (rounded to f16 by the store).
        if (device_kv_) {
            device_kv_->store_layer(*cache, l);
        } else {
            for (int h = 0; h < cfg_.n_kv_heads; ++h)
                for (int r0 = first; r0 < D; r0 += kStoreCopyRows) {
                    const int n = std::min(kStoreCopyRows, D - r0);
                    backend_.read_kv(*cache, l, h, r0, n, copy_k.data(), copy_v.data());
                    store_->store_rows(l, h, r0, n, copy_k.data(), copy_v.data());
                }
        }
        if (progress) report(l, D);
    }
    if (device_kv_) device_kv_->finish();  // the host store is complete from here on
    doc_len_ = D;
}

void DocumentSession::load_layer(int layer, KvCache& cache, bool with_question) {
    const int D = doc_len_, Q = static_cast<int>(question_.size()), hd = cfg_.head_dim;
    std::vector<int32_t> pos(D + Q);
    std::iota(pos.begin(), pos.end(), 0);
    // The backend's own copy when it has one (device to device when resident); else the f16 store
    // goes to the backend in f32, a bounded block of rows at a time.
    if (device_kv_) device_kv_->load_layer(cache, layer);
    std::vector<float> kbuf(device_kv_ ? 0 : static_cast<std::size_t>(std::min(kStoreCopyRows, D)) * hd), vbuf(kbuf.size());
    for (int h = 0; h < cfg_.n_kv_heads; ++h) {
        for (int r0 = 0; !device_kv_ && r0 < D; r0 += kStoreCopyRows) {
            const int n = std::min(kStoreCopyRows, D - r0);
            store_->load_rows(layer, h, r0, n, kbuf.data(), vbuf.data());
            backend_.append_kv(cache, layer, h, pos.data() + r0, n, kbuf.data(), vbuf.data());
        }
        if (with_question && Q > 0)
            backend_.append_kv(cache, layer, h, pos.data() + D, Q,
                               question_k_[layer].data() + static_cast<std::size_t>(h) * Q * hd,
                               question_v_[layer].data() + static_cast<std::size_t>(h) * Q * hd);
    }
}

void DocumentSession::score_layer(int layer, KvCache& cache) {
    // The window's queries: the last W prompt rows, reaching into the document tail when the
    // question is shorter than W.
    const int D = doc_len_, Q = static_cast<int>(question_.size()), L = D + Q, W = scores_.window, qd = cfg_.q_dim();
    std::vector<float> qwin(static_cast<std::size_t>(W) * qd);
    std::vector<int32_t> qpos(W);
    for (int i = 0; i < W; ++i) {
        const int p = L - W + i;
        qpos[i] = p;
        const float* src = p >= D ? question_q_[layer].data() + static_cast<std::size_t>(p - D) * qd
                                  : doc_tail_q_[layer].data() + static_cast<std::size_t>(p - (D - doc_tail_rows_)) * qd;
        std::memcpy(qwin.data() + static_cast<std::size_t>(i) * qd, src, sizeof(float) * qd);
    }
    scores_.layers[layer].assign(static_cast<std::size_t>(cfg_.n_heads) * (L - W), 0.0f);
    backend_.window_scores(cache, layer, qwin.data(), qpos.data(), W, L - W, scores_.layers[layer].data());
    counters_.scoring_passes++;
}

void DocumentSession::set_question(std::span<const int32_t> question_tokens, int window,
                                   const std::atomic<bool>* cancel) {
    require_document();
    const int D = doc_len_, Q = static_cast<int>(question_tokens.size()), L = D + Q;
    if (Q < 1) throw Error("the question has no tokens");
    if (window < 1) throw Error("SnapKV window must be >= 1");
    const int W = std::min(window, L);
    if (W - Q > doc_tail_rows_)
        throw Error("window " + std::to_string(W) + " reaches further back than the question (" + std::to_string(Q) +
                    " tokens) plus the kept document tail (" + std::to_string(doc_tail_rows_) + " tokens)");
    question_.assign(question_tokens.begin(), question_tokens.end());
    if (device_kv_) device_kv_->clear_tail();
    continuation_ = {};
    keep_whole_from_ = -1;
    const int qd = cfg_.q_dim(), hd = cfg_.head_dim;
    question_q_.assign(cfg_.n_layers, std::vector<float>(static_cast<std::size_t>(Q) * qd));
    question_k_.assign(cfg_.n_layers, std::vector<float>(static_cast<std::size_t>(cfg_.n_kv_heads) * Q * hd));
    question_v_.assign(cfg_.n_layers, std::vector<float>(static_cast<std::size_t>(cfg_.n_kv_heads) * Q * hd));
    scores_ = {};
    scores_.prompt_len = L;
    scores_.window = W;
    scores_.n_layers = cfg_.n_layers;
    scores_.n_heads = cfg_.n_heads;
    scores_.n_kv_heads = cfg_.n_kv_heads;
    scores_.layers.resize(cfg_.n_layers);

    auto act = backend_.create_activations(Q);
    backend_.embed(question_.data(), Q, *act, 0);
    std::vector<int32_t> pos(Q);
    std::iota(pos.begin(), pos.end(), D);
    for (int l = 0; l < cfg_.n_layers; ++l) {
        if (cancel && cancel->load()) {
            question_.clear();
            throw Cancelled();
        }
        auto cache = layer_cache(l, L);
        load_layer(l, *cache, /*with_question=*/false);
        run_layer(l, *act, 0, Q, pos.data(), *cache, question_q_[l].data());
        if (device_kv_) device_kv_->store_tail(*cache, l, Q);  // the question's rows, for answer's gather
        for (int h = 0; h < cfg_.n_kv_heads; ++h)
            backend_.read_kv(*cache, l, h, D, Q, question_k_[l].data() + static_cast<std::size_t>(h) * Q * hd,
                             question_v_[l].data() + static_cast<std::size_t>(h) * Q * hd);
        score_layer(l, *cache);
    }
    last_logits_.resize(cfg_.vocab_size);
    backend_.logits(*act, Q - 1, last_logits_.data());
}

void DocumentSession::set_window(int window) {
    require_document();
    if (question_.empty()) throw Error("no question has been set");
    const int Q = static_cast<int>(question_.size()), L = doc_len_ + Q;
    if (window < 1) throw Error("SnapKV window must be >= 1");
    const int W = std::min(window, L);
    if (W - Q > doc_tail_rows_) throw Error("window " + std::to_string(W) + " reaches beyond the kept document tail");
    if (W == scores_.window) return;
    scores_.window = W;
    for (int l = 0; l < cfg_.n_layers; ++l) {
        auto cache = layer_cache(l, L);
        load_layer(l, *cache, /*with_question=*/true);
        score_layer(l, *cache);
    }
}

std::shared_ptr<const Selection> DocumentSession::select(const SnapKvConfig& config) const {
    if (question_.empty()) throw Error("no question has been set");
    if (config.enabled && config.window != scores_.window && config.window < scores_.prompt_len)
        throw Error("the window scores were computed for W=" + std::to_string(scores_.window) +
                    "; call set_window first");
    // Layer by layer through the backend (the CUDA backend selects on the device; same positions);
    // in a conversation the recent turns are kept whole (engine/kv/selection_history.h).
    return select_keeping_whole_from(config, scores_, keep_whole_from_,
                                     [this](const WindowScores& s, int layer, Selection& sel) {
                                         backend_.snapkv_select_layer(s, layer, sel);
                                     });
}

int64_t DocumentSession::compressed_bytes(const Selection& s, int spare) const {
    return (s.kept_entries() + static_cast<int64_t>(spare) * cfg_.n_layers * s.cache_heads) * cfg_.head_dim * 2 *
           backend_.kv_value_bytes();
}

int64_t DocumentSession::full_bytes(int prompt_len) const {
    return int64_t{2} * prompt_len * cfg_.n_layers * cfg_.kv_dim() * backend_.kv_value_bytes();
}

AnswerResult DocumentSession::answer(const Selection& sel, const GenerationRequest& request) {
    require_document();
    if (question_.empty()) throw Error("no question has been set");
    if (sel.prompt_len != prompt_tokens() || sel.window != scores_.window)
        throw Error("the selection was made for a different prompt");
    const int D = doc_len_, Q = question_tokens(), L = D + Q, W = sel.window, hd = cfg_.head_dim;
    // Checked in 64 bits: kept + window + -n must stay an int capacity (-n near 2^31 wrapped here).
    const int spare = checked_token_count(std::max(0, request.max_new_tokens), "answer: the token limit");
    checked_token_count(int64_t{L} + W + spare, "answer: the prompt + the token limit");

    // The ragged cache: per (layer, cache head) exactly the kept positions + window + room to grow.
    KvCacheSpec spec;
    spec.n_layers = cfg_.n_layers;
    spec.n_heads = sel.cache_heads;
    spec.head_dim = hd;
    spec.group = cfg_.n_heads / sel.cache_heads;
    spec.capacity.resize(static_cast<std::size_t>(cfg_.n_layers) * sel.cache_heads);
    for (int l = 0; l < cfg_.n_layers; ++l)
        for (int c = 0; c < sel.cache_heads; ++c)
            spec.capacity[spec.segment(l, c)] = static_cast<int>(sel.layers[l][c].kept.size()) + W + spare;
    auto kv = backend_.create_kv_cache(spec);

    const int cache_per_kv = sel.cache_heads / cfg_.n_kv_heads;
    std::vector<int32_t> positions;
    std::vector<float> kbuf, vbuf;
    for (int l = 0; l < cfg_.n_layers; ++l)
        for (int c = 0; c < sel.cache_heads; ++c) {
            const int kvh = c / cache_per_kv;
            positions = sel.layers[l][c].kept;
            for (int p = L - W; p < L; ++p) positions.push_back(p);
            kbuf.resize(positions.size() * hd);
            vbuf.resize(positions.size() * hd);
            // Positions ascend: the document's come first (from the f16 store), then the question's.
            const auto n_doc = static_cast<std::size_t>(
                std::lower_bound(positions.begin(), positions.end(), D) - positions.begin());
            // The backend's gather when it keeps the store (only the positions travel when it is on
            // the GPU), else rows converted from the f16 host store; then the question's rows.
            // (The CUDA store on the GPU also holds the question's rows: then nothing goes up.)
            std::size_t first = 0;
            if (device_kv_)
                first = static_cast<std::size_t>(
                    device_kv_->gather(*kv, l, c, kvh, positions.data(), static_cast<int>(positions.size())));
            else
                store_->gather_rows(l, kvh, positions.data(), static_cast<int>(n_doc), kbuf.data(), vbuf.data());
            for (std::size_t i = std::max(n_doc, first); i < positions.size(); ++i) {
                const int p = positions[i];
                const std::size_t src = (static_cast<std::size_t>(kvh) * Q + (p - D)) * hd;
                std::memcpy(kbuf.data() + (i - first) * hd, question_k_[l].data() + src, sizeof(float) * hd);
                std::memcpy(vbuf.data() + (i - first) * hd, question_v_[l].data() + src, sizeof(float) * hd);
            }
            if (first < positions.size())
                backend_.append_kv(*kv, l, c, positions.data() + first, static_cast<int>(positions.size() - first),
                                   kbuf.data(), vbuf.data());
        }

    AnswerResult result;
    result.prompt_tokens = L;
    result.kv_bytes = kv->reserved_bytes();
    result.kv_bytes_full = full_bytes(L);
    result.kv_bytes_compressed = compressed_bytes(sel);
    std::vector<int32_t> history(question_.begin(), question_.end());
    const int64_t calls_before = counters_.layer_forward_calls;
    decode_loop(backend_, *kv, last_logits_, L, std::move(history), request, result);
    // decode_loop calls the backend directly; account for its layer calls.
    const int64_t steps = std::max<int64_t>(0, static_cast<int64_t>(result.tokens.size()) -
                                                   (result.stop == StopReason::TokenLimit ? 1 : 0));
    counters_.layer_forward_calls = calls_before + steps * cfg_.n_layers;
    counters_.rows_forwarded += steps * cfg_.n_layers;
    return result;
}

}  // namespace snapdoc
