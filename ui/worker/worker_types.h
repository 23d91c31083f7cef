// The values the engine worker and the GUI exchange through queued signals. Everything here is
// either a plain value or a shared_ptr to const data that nobody mutates after it is published, so
// crossing threads needs no locks.
#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/services/app_settings.h"
#include "app/common/token_text_map.h"
#include "engine/kv/selection.h"

namespace snapdoc::ui {

// Set from the GUI thread, read by the engine per token and per prefill chunk.
using CancelToken = std::shared_ptr<std::atomic<bool>>;
inline CancelToken make_cancel_token() {
    return std::make_shared<std::atomic<bool>>(false);
}

struct ModelInfo {
    QString path;
    QString name;
    QString format;  // "GGUF" or "Hugging Face"
    QString architecture;
    QString dtype;
    QString chat_template;    // detected template family
    QString tokenizer_error;  // why the model cannot be used for chat ("" when it can)
    QString backend;          // where it runs once loaded: "cpu" or "cuda" (empty before)
    // The GPU self-check's sentence when this load ran or consulted it (engine/runtime/gpu_self_check.h),
    // and whether it sent the model to the CPU instead of the GPU.
    QString gpu_check;
    bool gpu_fell_back = false;
    int n_layers = 0, dim = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, vocab_size = 0, context_length = 0;
    int ffn_dim = 0;
    int64_t parameters = 0;
    int64_t weight_bytes = 0;
    int64_t kv_bytes_per_token = 0;        // an uncompressed backend cache (f16 by default)
    int64_t kv_store_bytes_per_token = 0;  // f16, the document's full-KV store
    int64_t run_bytes_at_context = 0;      // weights + full KV + activations for a full context
    QString type_mix;                      // "Q4_K 145 tensors 3.9 GiB (4.5 bpw), Q6_K 18 tensors ..."
    QString type_mix_short;                // "Q4_K×145 Q6_K×18 F32×65"
    int snapkv_budget = 0;
    int64_t kv_bytes_at_budget = 0;  // the compressed cache at that budget, whatever the document length
    int64_t scratch_bytes = 0;       // compute scratch for one prefill chunk
    // What each query head attends to, layer-major (n_layers × n_heads, "" where unnamed), from the
    // GGUF's snapdoc.attention.head_roles; empty when the model names none (Model::head_roles).
    QStringList head_roles;
    // A remote engine (Settings > Connections): its kind in words ("snapdoc-server", "vLLM", ...)
    // and base URL; empty for a local model. path is then "remote://<connection name>".
    QString remote_engine;
    QString remote_url;
    bool remote() const { return !remote_engine.isEmpty(); }
    bool remote_snapdoc_server() const { return remote_engine == QLatin1String("snapdoc-server"); }
};

// How to load a model: the settings that only take effect at load time.
struct ModelLoadOptions {
    int threads = 0;          // CPU threads, 0 = all cores
    QString device = "auto";  // "auto" (CUDA when usable, else CPU), "cpu", "cuda"
    QString chat_template;    // "" = detect
};

struct DocumentReady {
    int64_t document_id = 0;
    int document_tokens = 0;  // prompt tokens of the document part (template opening included)
    int text_tokens = 0;      // of those, the document text's own (no template, no system prompt)
    double seconds = 0;       // tokenize + layer-major prefill
    int64_t full_store_bytes = 0;
    std::shared_ptr<const TokenTextMap> token_map;
    bool from_kv_cache = false;   // restored from the on-disk K/V cache: no prefill ran
    double kv_cache_seconds = 0;  // restoring (from_kv_cache) or writing the cache file
    QString kv_cache_note;        // why the cache could not be used or written ("" when fine)
    // The context the document runs with (engine/session/run_context.h): the original context for a
    // LongRoPE model whose chat fits it (short factors), 0 = the model's own context.
    int run_context = 0;
};

// One earlier turn of a conversation, sent with the next question (oldest first).
struct HistoryTurn {
    QString question, answer;
};

struct AskRequest {
    uint64_t id = 0;
    QString question;
    SnapKvConfig snapkv;
    services::GenerationSettings generation;  // sampling.seed: a fresh one per request (see ChatController)
    CancelToken cancel;
    std::vector<HistoryTurn> history = {};  // the conversation's previous turns
    QString system_prompt = {};             // the conversation's effective system prompt ("" = none)
};

// A document span an answer drew on, in document token positions [first_token, last_token]
// (inclusive, as the engine's Citation), with its share of the answer's attention.
struct CitationInfo {
    int first_token = 0, last_token = 0;
    double weight = 0;
    bool weak = false;  // no passage stood out; this, the strongest, is shown alone (Citation::weak)
    // A remote snapdoc-server's citation: its excerpt (whitespace runs as one space), found in the
    // document's text to place it, since its token positions are the server's tokenizer's.
    QString text;
    int page = 0;  // 1-based page the server gives for a PDF; 0: none
};

struct AnswerStats {
    uint64_t request_id = 0;
    QString answer;
    QString stop_reason;  // "eos", "limit", "cancelled" (engine names)
    int prompt_tokens = 0;
    int question_tokens = 0;
    int generated_tokens = 0;
    double question_seconds = 0;  // question prefill over the stored document + scoring
    double select_seconds = 0;
    double decode_seconds = 0;
    int64_t kv_bytes_full = 0;
    int64_t kv_bytes_compressed = 0;
    int history_turns = 0;                // earlier turns sent with the question
    double system_prompt_seconds = 0;     // > 0: the document was read again for a new system prompt
    std::vector<CitationInfo> citations;  // strongest first

    double prefill_tokens_per_s() const {
        return question_seconds > 0 ? question_tokens / question_seconds : 0;
    }
    double decode_tokens_per_s() const {
        return decode_seconds > 0 && generated_tokens > 1 ? (generated_tokens - 1) / decode_seconds : 0;
    }
};

// What the inspector draws: one selection plus the facts needed to read it.
struct SelectionSnapshot {
    std::shared_ptr<const Selection> selection;
    uint64_t question_serial = 0;  // which question the scores belong to (stability across questions)
    int document_tokens = 0;
    int n_layers = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
    int64_t kv_bytes_full = 0;
    int64_t kv_bytes_compressed = 0;
    int64_t layer_forward_calls = 0;  // engine counter when the snapshot was taken (no-forward-pass check)
    double select_seconds = 0;
    // The window scores the selection came from (one copy per question, shared by its snapshots)
    // and the question's text: the inspector re-selects the previous question at the current
    // settings (question stability, difference view) and knows a regenerated question as the same.
    std::shared_ptr<const WindowScores> scores;
    QString question;
    // Prompt position from which the selection keeps every position (a conversation's recent turns,
    // DocumentSession::keep_whole_from); -1: none. A re-selection from `scores` keeps them too.
    int keep_whole_from = -1;
    // Per document position, the attention the answer's tokens paid to it (empty when the engine
    // gave none, e.g. after a reselect): the document view's "used by this answer" shading.
    std::shared_ptr<const std::vector<float>> answer_attention;

    bool valid() const { return selection != nullptr; }
};

struct CompareResult {
    uint64_t request_id = 0;
    QString question;
    AnswerStats full;
    AnswerStats snapkv;
    double kept_fraction = 1.0;  // KV entries kept by SnapKV / full
};

void register_worker_types();

}  // namespace snapdoc::ui

Q_DECLARE_METATYPE(snapdoc::ui::ModelInfo)
Q_DECLARE_METATYPE(snapdoc::ui::DocumentReady)
Q_DECLARE_METATYPE(snapdoc::ui::AnswerStats)
Q_DECLARE_METATYPE(snapdoc::ui::SelectionSnapshot)
Q_DECLARE_METATYPE(snapdoc::ui::CompareResult)
