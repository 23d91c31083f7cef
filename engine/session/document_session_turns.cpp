// DocumentSession for conversations: the tokens after the document (earlier turns + question) with
// reuse of what an earlier ask already ran, the answer rows as an observation window over the
// document (citations), and the selection that keeps the recent history whole.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/common/error.h"
#include "engine/session/document_session.h"

namespace snapdoc {

namespace {

// Row r of a [kv head][n × hd] block with head stride n.
inline std::size_t row_offset(int head, int n, int r, int hd) {
    return (static_cast<std::size_t>(head) * n + r) * hd;
}

}  // namespace

bool DocumentSession::continuation_valid() const {
    return !question_.empty() && !continuation_.tokens.empty() && continuation_.follows == question_;
}

std::vector<int32_t> DocumentSession::stored_tail() const {
    std::vector<int32_t> t = question_;
    if (continuation_valid()) t.insert(t.end(), continuation_.tokens.begin(), continuation_.tokens.end());
    return t;
}

int DocumentSession::set_turns(std::span<const int32_t> tail, int window, int keep_whole_from,
                               const std::atomic<bool>* cancel) {
    require_document();
    const int D = doc_len_, T = static_cast<int>(tail.size()), L = D + T;
    if (T < 1) throw Error("the question has no tokens");
    if (window < 1) throw Error("SnapKV window must be >= 1");
    const int W = std::min(window, L);
    if (W - T > doc_tail_rows_)
        throw Error("window " + std::to_string(W) + " reaches further back than the turns and question (" +
                    std::to_string(T) + " tokens) plus the kept document tail (" + std::to_string(doc_tail_rows_) +
                    " tokens)");
    const int qd = cfg_.q_dim(), hd = cfg_.head_dim, nkv = cfg_.n_kv_heads, NL = cfg_.n_layers;

    // What is held after the document: the last prompt's tail (Q rows), then a continuation.
    const int Q0 = static_cast<int>(question_.size());
    const bool cont = continuation_valid();
    const int C0 = cont ? static_cast<int>(continuation_.tokens.size()) : 0;
    int common = 0;
    while (common < T && common < Q0 + C0 &&
           tail[common] == (common < Q0 ? question_[common] : continuation_.tokens[common - Q0]))
        ++common;
    common = std::min(common, T - 1);  // the last token always runs: its logits start the answer

    // The new tail's arrays, the reused rows copied in from where they are held.
    std::vector<std::vector<float>> nq(NL, std::vector<float>(static_cast<std::size_t>(T) * qd));
    std::vector<std::vector<float>> nk(NL, std::vector<float>(static_cast<std::size_t>(nkv) * T * hd));
    std::vector<std::vector<float>> nv(NL, std::vector<float>(nk[0].size()));
    const int C = static_cast<int>(continuation_.tokens.size());
    for (int l = 0; l < NL; ++l)
        for (int r = 0; r < common; ++r) {
            const bool from_q = r < Q0;
            const float* qs = from_q ? question_q_[l].data() + static_cast<std::size_t>(r) * qd
                                     : continuation_.q[l].data() + static_cast<std::size_t>(r - Q0) * qd;
            std::memcpy(nq[l].data() + static_cast<std::size_t>(r) * qd, qs, sizeof(float) * qd);
            for (int h = 0; h < nkv; ++h) {
                const std::size_t src = from_q ? row_offset(h, Q0, r, hd) : row_offset(h, C, r - Q0, hd);
                const auto& ks = from_q ? question_k_[l] : continuation_.k[l];
                const auto& vs = from_q ? question_v_[l] : continuation_.v[l];
                std::memcpy(nk[l].data() + row_offset(h, T, r, hd), ks.data() + src, sizeof(float) * hd);
                std::memcpy(nv[l].data() + row_offset(h, T, r, hd), vs.data() + src, sizeof(float) * hd);
            }
        }

    question_.assign(tail.begin(), tail.end());
    if (device_kv_) device_kv_->clear_tail();  // the backend's copy of the old prompt's tail is stale
    question_q_ = std::move(nq);
    question_k_ = std::move(nk);
    question_v_ = std::move(nv);
    continuation_ = {};
    keep_whole_from_ = keep_whole_from;
    scores_ = {};
    scores_.prompt_len = L;
    scores_.window = W;
    scores_.n_layers = NL;
    scores_.n_heads = cfg_.n_heads;
    scores_.n_kv_heads = nkv;
    scores_.layers.resize(NL);

    const int n = T - common;
    auto act = backend_.create_activations(n);
    backend_.embed(question_.data() + common, n, *act, 0);
    std::vector<int32_t> pos(T);
    std::iota(pos.begin(), pos.end(), D);
    std::vector<float> qcap(static_cast<std::size_t>(n) * qd), kbuf(static_cast<std::size_t>(n) * hd),
        vbuf(kbuf.size());
    for (int l = 0; l < NL; ++l) {
        if (cancel && cancel->load()) {
            question_.clear();
            throw Cancelled();
        }
        auto cache = layer_cache(l, L);
        load_layer(l, *cache, /*with_question=*/false);
        if (common > 0)
            for (int h = 0; h < nkv; ++h)
                backend_.append_kv(*cache, l, h, pos.data(), common, question_k_[l].data() + row_offset(h, T, 0, hd),
                                   question_v_[l].data() + row_offset(h, T, 0, hd));
        run_layer(l, *act, 0, n, pos.data() + common, *cache, qcap.data());
        if (device_kv_) device_kv_->store_tail(*cache, l, T);  // the whole tail, for answer's gather
        std::memcpy(question_q_[l].data() + static_cast<std::size_t>(common) * qd, qcap.data(), sizeof(float) * qcap.size());
        for (int h = 0; h < nkv; ++h) {
            backend_.read_kv(*cache, l, h, D + common, n, kbuf.data(), vbuf.data());
            std::memcpy(question_k_[l].data() + row_offset(h, T, common, hd), kbuf.data(), sizeof(float) * kbuf.size());
            std::memcpy(question_v_[l].data() + row_offset(h, T, common, hd), vbuf.data(), sizeof(float) * vbuf.size());
        }
        score_layer(l, *cache);
    }
    last_logits_.resize(cfg_.vocab_size);
    backend_.logits(*act, n - 1, last_logits_.data());
    return common;
}

void DocumentSession::score_continuation(std::span<const int32_t> tokens,
                                         const std::function<void(int, std::span<const float>)>& on_layer,
                                         const std::atomic<bool>* cancel) {
    require_document();
    if (question_.empty()) throw Error("no question has been set");
    const int D = doc_len_, Q = question_tokens(), L = D + Q, A = static_cast<int>(tokens.size());
    continuation_ = {};
    if (A < 1) return;
    const int qd = cfg_.q_dim(), hd = cfg_.head_dim, nkv = cfg_.n_kv_heads, NL = cfg_.n_layers;
    Continuation c;
    c.follows = question_;
    c.tokens.assign(tokens.begin(), tokens.end());
    c.q.assign(NL, std::vector<float>(static_cast<std::size_t>(A) * qd));
    c.k.assign(NL, std::vector<float>(static_cast<std::size_t>(nkv) * A * hd));
    c.v.assign(NL, std::vector<float>(c.k[0].size()));

    auto act = backend_.create_activations(A);
    backend_.embed(c.tokens.data(), A, *act, 0);
    std::vector<int32_t> pos(A);
    std::iota(pos.begin(), pos.end(), L);
    std::vector<float> scores(static_cast<std::size_t>(cfg_.n_heads) * D);
    for (int l = 0; l < NL; ++l) {
        if (cancel && cancel->load()) throw Cancelled();
        auto cache = layer_cache(l, L + A);
        load_layer(l, *cache, /*with_question=*/true);
        run_layer(l, *act, 0, A, pos.data(), *cache, c.q[l].data());
        for (int h = 0; h < nkv; ++h)
            backend_.read_kv(*cache, l, h, L, A, c.k[l].data() + row_offset(h, A, 0, hd),
                             c.v[l].data() + row_offset(h, A, 0, hd));
        // The answer rows as the observation window, the document as the prefix.
        backend_.window_scores(*cache, l, c.q[l].data(), pos.data(), A, D, scores.data());
        counters_.scoring_passes++;
        if (on_layer) on_layer(l, scores);
    }
    continuation_ = std::move(c);
}

}  // namespace snapdoc
