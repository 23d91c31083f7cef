// DocumentSession's partial prefix reuse: a document that shares its first tokens with a session
// already held (the same pasted text with its end edited, or more text appended) copies those
// rows' f16 K/V and runs only the rest through the layers, layer-major as prefill_document does.
// The rows after the shared part attend over the copied rows as stored (f16), as a question does;
// a fresh prefill attends over the f32 rows of its earlier chunks, so the two agree to f16 rounding.
#include <algorithm>
#include <cstring>

#include "engine/common/error.h"
#include "engine/session/document_session.h"

namespace snapdoc {

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
    start_document(D);
    store_->copy_leading_rows(*base.store_, reuse);
    const int qd = cfg_.q_dim(), tail_start = D - doc_tail_rows_;
    // Tail queries of shared rows come from base's tail (reusable_rows checked that it holds them).
    const int base_tail_start = base.doc_len_ - base.doc_tail_rows_;
    for (int l = 0; l < cfg_.n_layers; ++l)
        for (int p = tail_start; p < reuse; ++p)
            std::memcpy(doc_tail_q_[l].data() + static_cast<std::size_t>(p - tail_start) * qd,
                        base.doc_tail_q_[l].data() + static_cast<std::size_t>(p - base_tail_start) * qd,
                        sizeof(float) * qd);

    run_document_rows(tokens, reuse, progress, cancel);
}

}  // namespace snapdoc
