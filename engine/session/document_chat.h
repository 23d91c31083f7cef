// Questions about one document in plain text: the layer between a user (CLI, app, evaluations) and
// a DocumentSession. It lays out the prompt with the model's chat template (document first,
// question last), prefills the document once, and answers each question by re-snapping.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/kv/selection.h"
#include "engine/session/citations.h"
#include "engine/session/conversation.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/session/document_session.h"
#include "engine/session/kv_cache_key.h"
#include "engine/session/sampler.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {

struct AskOptions {
    SnapKvConfig snapkv;
    SamplingParams sampling;
    int max_new_tokens = 256;
    bool stop_at_eos = true;  // false: generate through end-of-turn ids to max_new_tokens (benchmarks)
    std::string system_prompt;
    std::function<void(const std::string& text)> on_text;  // streamed answer text (complete UTF-8)
    // The selection the answer decodes from, as soon as it is made (before the first token), so a
    // viewer can show what is kept while the answer streams.
    std::function<void(const std::shared_ptr<const Selection>& selection)> on_selection;
    std::function<void(std::span<const float> logits)> on_logits;
    const std::atomic<bool>* cancel = nullptr;
    // Earlier turns of this conversation, oldest first; empty = an independent question (as before
    // conversations existed). Turns already run by an earlier ask are reused, not recomputed.
    std::vector<ChatTurn> history;
    // History budget: the most recent turns that fit this many tokens are kept whole in the
    // compressed cache (on top of the SnapKV budget, like the window); older turns are compressed
    // with the document. -1: every turn kept whole; 0: all history compressed with the document.
    int history_keep_tokens = 2048;
    // Score the answer over the document afterwards (citations + answer_attention).
    bool citations = true;
    CitationOptions citation_options;
    // ask checks document + history + question + max_new_tokens against the model's context before
    // any forward pass (context_check.h); true keeps only the hard bounds (--ignore-context).
    bool ignore_context = false;
};

struct AskResult {
    std::string answer;
    AnswerResult generation;
    std::shared_ptr<const Selection> selection;
    int question_tokens = 0;
    double question_seconds = 0;  // question prefill over the stored document + scoring
    double select_seconds = 0;    // pooling + top-k
    // Conversation bookkeeping (all zero for an independent question except forwarded_tokens).
    int history_tokens = 0;     // tokens of the earlier turns in the prompt
    int reused_tokens = 0;      // tokens after the document whose K/V came from an earlier ask
    int forwarded_tokens = 0;   // tokens after the document that ran through the layers for this prompt
    int history_kept_from = 0;  // prompt position where the history kept whole begins (= prompt end if none)
    // Oldest turns of AskOptions::history left out of the prompt so that it fits the context
    // (DocumentChat::turns_to_drop); 0 when the whole conversation fit.
    int dropped_turns = 0;
    // Sources of the answer (AskOptions::citations): the top passages, and the score of every
    // document token (sums to ~1 over positions >= sink_tokens) for "used by this answer" shading.
    std::vector<Citation> citations;
    std::vector<float> answer_attention;
    double citation_seconds = 0;  // the answer rows' forward + scoring
};

class DocumentChat {
public:
    DocumentChat(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind,
                 DocumentSessionOptions options = {});

    // Tokenizes the document in the template and prefills it (layer-major). Returns its token count.
    int load_document(std::string_view text, const DocumentSession::Progress& progress = {},
                      const std::atomic<bool>* cancel = nullptr, std::string_view system_prompt = {});
    // The same for a document part the caller built itself (build_document_part), e.g. to reuse its
    // token ids for a position -> text map without encoding the document twice.
    // `system_prompt` (already inside the tokens) only names the K/V cache file's key.
    int load_document_tokens(std::span<const int32_t> document_part, const DocumentSession::Progress& progress = {},
                             const std::atomic<bool>* cancel = nullptr, std::string_view system_prompt = {});
    // Partial prefix reuse (document_chat_cache.cpp): loads `document_part`, taking over the K/V of
    // the leading rows it shares with `base`'s document (DocumentSession::reusable_rows of their
    // longest common prefix) and prefilling only the rest; then writes its K/V cache file as a
    // prefill does (`system_prompt`, already inside the tokens, only names the file's key, as for
    // load_document_tokens). Returns the rows taken over (0: a plain prefill).
    int load_document_tokens_from(const DocumentChat& base, std::span<const int32_t> document_part,
                                  const std::atomic<bool>* cancel = nullptr, std::string_view system_prompt = {});
    // Tokens of the prompt for `question` (after `history`) without running anything (for context
    // checks; ask checks document + history + question + max_new_tokens itself, before any forward).
    int prompt_tokens_for(std::string_view question, std::span<const ChatTurn> history = {}) const;

    // A conversation that outgrows the context is never refused for its history: when document +
    // history + question + max_new_tokens do not fit, the oldest turns are left out of the prompt,
    // whole turns, oldest first, until the rest fits (AskResult::dropped_turns). The caller keeps
    // its full history (what the user sees and exports); only the prompt is shortened. With no
    // turn left, a question that still does not fit is refused as before (check_context_room).
    // ignore_context turns the rule off (every turn is sent).
    AskResult ask(std::string_view question, const AskOptions& options);
    // The same for a prompt tail the caller laid out itself (snapdoc-server: everything after the
    // document part, up to the tail that opens the answer): the longest prefix of `tail` already
    // held after the document (the last prompt's tail and kept answer) is reused, the rest runs
    // through the layers. With nothing to reuse it runs as an independent question does, so a tail
    // equal to build_question_part answers exactly as ask. `keep_whole_from`: prompt position from
    // which select keeps every position (recent history), -1 for none. options.history is unused.
    AskResult ask_tokens(std::span<const int32_t> tail, int keep_whole_from, const AskOptions& options);

    // How many of the oldest turns of `history` ask leaves out for this question (the rule above);
    // callers that check the context themselves (the app) drop the same turns first.
    int turns_to_drop(std::string_view question, std::span<const ChatTurn> history, int64_t max_new_tokens) const;
    // Re-selects for the last question with new settings: no forward pass (a new window re-scores).
    std::shared_ptr<const Selection> reselect(const SnapKvConfig& config);

    DocumentSession& session() { return session_; }
    const DocumentSession& session() const { return session_; }
    ChatTemplateKind template_kind() const { return kind_; }
    double document_seconds() const { return document_seconds_; }
    // On-disk K/V cache (document_chat_cache.cpp): with a cache set, loading a document first looks
    // for its file and restores it instead of prefilling, and writes one after a prefill. A file that
    // is unusable is removed and rebuilt; failing to write one is a warning (cache_report().note),
    // never an error. `run_context_length`: the backend's context option (LongRoPE depends on it).
    // nullptr turns the cache off.
    void set_kv_cache(KvStoreCache* cache, const ModelIdentity& model, int run_context_length = 0);
    // How a restored file's K/V is held: Map (the default) uses the file's pages in place, which
    // suits a run that ends soon; Read copies them, for a long-lived holder (snapdoc-server): a
    // mapped file truncated by someone else while held would end the process with SIGBUS.
    void set_kv_load_mode(KvFileLoad mode) { kv_load_mode_ = mode; }
    bool served_from_cache() const { return cache_report_.served; }
    // Whether loading `document_part` now would find a cache file (it may still be rejected on open).
    bool kv_cache_has(std::span<const int32_t> document_part, std::string_view system_prompt = {}) const;
    const KvCacheReport& cache_report() const { return cache_report_; }
    // The document part's token ids as loaded (for excerpts of citations).
    const std::vector<int32_t>& document_ids() const { return document_ids_; }
    // Printable text of document tokens [first, last] (control tokens left out, whitespace collapsed).
    std::string document_excerpt(int first_token, int last_token, std::size_t max_chars = 160) const;

private:
    AskResult ask_turn(std::string_view question, const AskOptions& options);
    void add_citations(const AskOptions& options, AskResult& r);
    void answer_and_cite(const AskOptions& options, AskResult& r);  // decode r.selection, then citations
    // Keeps the document part's ids and sentence ends (citations, excerpts); every way a document
    // gets into the session (prefill, or a K/V cache restore) calls it.
    void remember_document(std::span<const int32_t> document_part);
    void save_kv_cache_file(std::span<const int32_t> part, const KvCacheKey& key, const std::filesystem::path& file);
    void load_or_prefill(std::span<const int32_t> document_part, std::string_view system_prompt,
                         const DocumentSession::Progress& progress, const std::atomic<bool>* cancel);

    Backend& backend_;
    const Tokenizer& tokenizer_;
    ChatTemplateKind kind_;
    DocumentSession session_;
    double document_seconds_ = 0;
    std::vector<int32_t> document_ids_;
    std::vector<uint8_t> sentence_end_;  // per document token: it ends a sentence or a line
    KvStoreCache* kv_cache_ = nullptr;
    KvFileLoad kv_load_mode_ = KvFileLoad::Map;
    ModelIdentity model_identity_;
    uint64_t tokenizer_hash_ = 0, compute_hash_ = 0;
    KvCacheReport cache_report_;
};

// The template for a model: `name` if given ("plain", "llama2", ...), else detected from the
// model's chat template text.
ChatTemplateKind choose_chat_template(const std::string& model_template_text, const std::string& name);

}  // namespace snapdoc
