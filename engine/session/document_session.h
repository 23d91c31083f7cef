// A document held open for questions, SnapKV-style.
//
//  prefill_document  layer-major: all document tokens go through layer ℓ (in chunks), layer ℓ's full
//                    K/V moves to the host store, then layer ℓ+1 — only one layer's full K/V sits in
//                    the backend's memory at a time.
//  set_question      runs only the question tokens through the layers, attending over the stored
//                    document K/V (the document is never re-read), and records SnapKV's window scores.
//  select            turns window scores into kept positions (budget, kernel, pooling, GQA mode,
//                    policy) — no forward pass, so UI sliders are instant.
//  answer            builds the ragged compressed cache from the store and decodes.
// The result equals a fresh prefill of document + question with the same settings, because the
// document's K/V do not depend on what follows them.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "engine/kv/full_kv_store.h"
#include "engine/kv/kv_store_file.h"
#include "engine/kv/selection.h"
#include "engine/runtime/backend.h"
#include "engine/session/generate.h"
#include "engine/session/prefill_progress.h"

namespace snapdoc {

// Queries of the last rows of a document kept per layer by default, so a window larger than a short
// question can reach back into the document (the largest usable SnapKV window).
inline constexpr int kDefaultMaxWindow = 256;

struct DocumentSessionOptions {
    int chunk_rows = 512;
    int max_window = kDefaultMaxWindow;
    int64_t kv_ram_cap_bytes = int64_t{8} << 30;  // above this the store spills to a mapped temp file
    std::filesystem::path spill_dir = std::filesystem::temp_directory_path();
    // Let the backend keep the full K/V its own way (Backend::attach_full_kv: the CUDA backend keeps
    // it on the GPU when it fits, so a new question uploads no K/V). false: rows always travel
    // through read_kv / append_kv (the CPU backend's path).
    bool backend_kv_store = true;
};

struct SessionCounters {
    int64_t layer_forward_calls = 0;  // Backend::run_layer calls (prefill chunks + question + decode)
    int64_t rows_forwarded = 0;       // token rows through run_layer, summed over layers
    int64_t scoring_passes = 0;       // window-score computations (one per layer per set_question/window)
};

struct AnswerResult : GenerationResult {
    int64_t kv_bytes_full = 0;        // the uncompressed cache for this prompt
    int64_t kv_bytes_compressed = 0;  // the cache the answer was decoded on (before generated tokens)
};

class DocumentSession {
public:
    // Called after every prefill chunk (PrefillProgress); a (done_layers, total_layers) callback
    // is still accepted and called once per finished layer.
    using Progress = PrefillProgressFn;

    DocumentSession(Backend& backend, DocumentSessionOptions options = {});

    void prefill_document(std::span<const int32_t> tokens, const Progress& progress = {},
                          const std::atomic<bool>* cancel = nullptr);
    // Partial prefix reuse (document_session_reuse.cpp): a new document whose first token ids equal
    // another session's takes over those rows' K/V instead of running them through the layers.
    // reusable_rows: how many leading rows of `base`'s document a new `new_tokens`-token document
    // sharing its first `common` token ids can take over — `common`, unless the new document's
    // last rows (whose queries SnapKV windows need, max_window of them) reach back into the shared
    // part further than `base` holds queries for (only its own last rows'): then up to where they begin.
    int reusable_rows(const DocumentSession& base, int common, int new_tokens) const;
    // Makes `tokens` the document as prefill_document does, but rows [0, reuse) are copied from
    // `base` (the caller checked that its document starts with the same `reuse` token ids; reuse
    // at most reusable_rows) and only rows [reuse, n) run through the layers, over the copied rows.
    void prefill_document_from(const DocumentSession& base, int reuse, std::span<const int32_t> tokens,
                               const Progress& progress = {}, const std::atomic<bool>* cancel = nullptr);
    void set_question(std::span<const int32_t> question_tokens, int window, const std::atomic<bool>* cancel = nullptr);
    // Conversations (document_session_turns.cpp). set_turns: like set_question for everything after
    // the document (earlier turns + the new question), but the longest prefix of `tail` that is
    // already stored after the document (the last prompt's tail, then the answer K/V kept by
    // score_continuation) is reused: only the rest runs through the layers (at least the last token,
    // for the logits). `keep_whole_from`: prompt position from which select keeps every position
    // (the recent history; -1 or >= the window start: none). Returns the number of reused tokens.
    int set_turns(std::span<const int32_t> tail, int window, int keep_whole_from,
                  const std::atomic<bool>* cancel = nullptr);
    // Runs `tokens` (an answer) right after the prompt over the full K/V, calls on_layer with their
    // window scores over the document ([n_heads × document_tokens()], Backend::window_scores), and
    // keeps their K/V so that the next set_turns can reuse them. The prompt state is unchanged.
    void score_continuation(std::span<const int32_t> tokens,
                            const std::function<void(int layer, std::span<const float> scores)>& on_layer,
                            const std::atomic<bool>* cancel = nullptr);
    // Tokens after the document whose K/V are held (prompt tail + kept continuation).
    std::vector<int32_t> stored_tail() const;
    // Forgets them (as a cancelled set_turns does), so the next prompt reuses none: snapdoc-server
    // calls it before another client asks about the same document (reuse is reported to clients).
    void forget_turns() {
        question_.clear();
        continuation_ = {};
    }
    int keep_whole_from() const { return keep_whole_from_; }
    // Recomputes window scores for a new window size from stored queries and keys (no forward pass).
    void set_window(int window);

    std::shared_ptr<const Selection> select(const SnapKvConfig& config) const;
    AnswerResult answer(const Selection& selection, const GenerationRequest& request);

    int document_tokens() const { return doc_len_; }
    // Tokens after the document in the current prompt (earlier turns + question).
    int question_tokens() const { return static_cast<int>(question_.size()); }
    int prompt_tokens() const { return doc_len_ + question_tokens(); }
    const WindowScores& window_scores() const { return scores_; }
    const std::vector<float>& last_logits() const { return last_logits_; }
    const SessionCounters& counters() const { return counters_; }
    int64_t full_store_bytes() const { return store_ ? store_->bytes() : 0; }
    bool store_file_backed() const { return store_ && store_->file_backed(); }
    // The backend's keeping of the full K/V (nullptr: the session's own host path); e.g.
    // backend_kv_store()->resident() says whether a re-snap uploads no K/V.
    const BackendFullKv* backend_kv_store() const { return device_kv_.get(); }
    // Largest backend KV cache alive at once during the last prefill_document (bytes).
    int64_t prefill_peak_cache_bytes() const { return prefill_peak_cache_bytes_; }
    // Bytes of a cache holding `selection` (+ `spare` generated tokens per head).
    int64_t compressed_bytes(const Selection& selection, int spare = 0) const;
    // Bytes of an uncompressed backend cache for a prompt of `prompt_len` tokens (all layers, K and
    // V as the backend keeps them: f16 by default) — what SnapKV's compressed cache is
    // compared with. The host store of the document's full K/V (full_store_bytes()) is f16 too.
    int64_t full_bytes(int prompt_len) const;
    int max_window() const { return options_.max_window; }

    // On-disk K/V cache (document_session_cache.cpp). save_document_cache writes the prefilled
    // document (f16 store, tail queries, its token ids `tokens`) to `file` atomically (Error on a
    // full disk, no file left); restore_document_cache replaces the session's document with a
    // verified cache file, as if `tokens` had been prefilled (FormatError when the file is not
    // usable: truncated, corrupt, other key or shape; the session then holds no document).
    void save_document_cache(const std::filesystem::path& file, const KvCacheKey& key,
                             std::span<const int32_t> tokens) const;
    void restore_document_cache(const std::filesystem::path& file, const KvCacheKey& key,
                                std::span<const int32_t> tokens, KvFileLoad mode = KvFileLoad::Map);
    bool store_mapped_from_cache() const { return store_ && store_->mapped_from_cache(); }

private:
    std::unique_ptr<KvCache> layer_cache(int layer, int capacity);
    void load_layer(int layer, KvCache& cache, bool with_question);
    void run_layer(int layer, Activations& act, int row0, int n, const int32_t* pos, KvCache& kv, float* q_capture);
    void score_layer(int layer, KvCache& cache);
    void require_document() const;
    // The layer-major prefill of rows [first, n) of the document `tokens` into the store made for
    // it (rows [0, first) and their tail queries already there): prefill_document with first = 0,
    // prefill_document_from with the rows it took over.
    void run_document_rows(std::span<const int32_t> tokens, int first, const Progress& progress,
                           const std::atomic<bool>* cancel);
    void drop_document();  // forgets the document and everything after it
    // drop_document, then an empty store and tail-query buffers for a D-token document.
    void start_document(int D);

    Backend& backend_;
    ModelConfig cfg_;
    DocumentSessionOptions options_;
    int doc_len_ = 0;
    std::unique_ptr<FullKvStore> store_;
    std::unique_ptr<BackendFullKv> device_kv_;  // refers to *store_: declared after it, destroyed first
    std::vector<std::vector<float>> doc_tail_q_;  // [layer][tail rows × q_dim]
    int doc_tail_rows_ = 0;
    bool continuation_valid() const;

    std::vector<int32_t> question_;
    std::vector<std::vector<float>> question_q_;  // [layer][Q × q_dim]
    std::vector<std::vector<float>> question_k_, question_v_;  // [layer][kv head][Q × head_dim] flattened
    // Conversations: where the history kept whole begins (select), and the K/V of the tokens run
    // after the prompt by score_continuation (valid while `follows` equals question_).
    int keep_whole_from_ = -1;
    struct Continuation {
        std::vector<int32_t> follows, tokens;
        std::vector<std::vector<float>> q;     // [layer][n × q_dim]
        std::vector<std::vector<float>> k, v;  // [layer][kv head][n × head_dim] flattened
    } continuation_;
    std::vector<float> last_logits_;
    WindowScores scores_;
    SessionCounters counters_;
    int64_t prefill_peak_cache_bytes_ = 0;
};

}  // namespace snapdoc
