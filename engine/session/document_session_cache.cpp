// DocumentSession's side of the on-disk K/V cache: what a prefill leaves behind (the f16 store and
// the document tail's queries) goes to a cache file, and comes back from one instead of a prefill.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/session/document_session.h"

namespace snapdoc {

void DocumentSession::save_document_cache(const std::filesystem::path& file, const KvCacheKey& key,
                                          std::span<const int32_t> tokens) const {
    require_document();
    if (static_cast<int>(tokens.size()) != doc_len_)
        throw Error("K/V cache: " + std::to_string(tokens.size()) + " token ids given for a " +
                    std::to_string(doc_len_) + "-token document");
    KvFileContents c;
    c.shape = {cfg_.n_layers, cfg_.n_kv_heads, cfg_.head_dim, cfg_.q_dim(), doc_len_, doc_tail_rows_};
    c.store = store_.get();
    c.tail_q = &doc_tail_q_;
    c.tokens = tokens;
    write_kv_store_file(file, key, c);
}

void DocumentSession::restore_document_cache(const std::filesystem::path& file, const KvCacheKey& key,
                                             std::span<const int32_t> tokens, KvFileLoad mode) {
    const int D = static_cast<int>(tokens.size());
    if (D < 1) throw Error("the document has no tokens");
    drop_document();
    KvFileExpectation expect;
    expect.key = key;
    expect.shape = {
        cfg_.n_layers, cfg_.n_kv_heads, cfg_.head_dim, cfg_.q_dim(), D, std::min(D, options_.max_window)};
    expect.tokens = tokens;
    LoadedKvStore loaded =
        read_kv_store_file(file, expect, mode, options_.kv_ram_cap_bytes, options_.spill_dir);
    store_ = std::move(loaded.store);
    // The backend's own keeping, as after a prefill (the CUDA backend: on the GPU when it fits).
    // Where it cannot take the store (too little device memory), the host path still works.
    if (options_.backend_kv_store) {
        try {
            device_kv_ = backend_.attach_full_kv(*store_);
            if (device_kv_) device_kv_->adopt_host();
        } catch (const Error&) {
            device_kv_.reset();
        }
    }
    doc_tail_q_ = std::move(loaded.tail_q);
    doc_tail_rows_ = loaded.tail_rows;
    prefill_peak_cache_bytes_ = 0;
    doc_len_ = D;
}

}  // namespace snapdoc
