#include "engine/session/document_chat.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/common/message_text.h"
#include "engine/session/context_check.h"

namespace snapdoc {

ChatTemplateKind choose_chat_template(const std::string& model_template_text, const std::string& name) {
    if (!name.empty()) return parse_chat_template_name(name);
    const DetectedTemplate d = detect_chat_template(model_template_text);
    spdlog::info("chat template: {} ({})", chat_template_name(d.kind), d.reason);
    return d.kind;
}

DocumentChat::DocumentChat(Backend& backend, const Tokenizer& tokenizer, ChatTemplateKind kind,
                           DocumentSessionOptions options)
    : backend_(backend), tokenizer_(tokenizer), kind_(kind), session_(backend, std::move(options)) {}

int DocumentChat::load_document(std::string_view text, const DocumentSession::Progress& progress,
                                const std::atomic<bool>* cancel, std::string_view system_prompt) {
    return load_document_tokens(build_document_part(kind_, tokenizer_, system_prompt, text), progress, cancel,
                                system_prompt);
}

int DocumentChat::load_document_tokens(std::span<const int32_t> document_part, const DocumentSession::Progress& progress,
                                       const std::atomic<bool>* cancel, std::string_view system_prompt) {
    const auto t0 = SteadyClock::now();
    load_or_prefill(document_part, system_prompt, progress, cancel);
    document_seconds_ = seconds_since(t0);
    remember_document(document_part);
    return static_cast<int>(document_part.size());
}

void DocumentChat::remember_document(std::span<const int32_t> document_part) {
    document_ids_.assign(document_part.begin(), document_part.end());
    // Sentence and line ends, for citations that read as whole sentences.
    sentence_end_.assign(document_ids_.size(), 0);
    for (std::size_t i = 0; i < document_ids_.size(); ++i) {
        const std::string p = tokenizer_.piece(document_ids_[i]);
        const auto last = p.find_last_not_of(" \t");
        sentence_end_[i] = p.find('\n') != std::string::npos ||
                           (last != std::string::npos && (p[last] == '.' || p[last] == '!' || p[last] == '?'));
    }
}

int DocumentChat::prompt_tokens_for(std::string_view question, std::span<const ChatTurn> history) const {
    if (history.empty())
        return session_.document_tokens() + static_cast<int>(build_question_part(kind_, tokenizer_, question).size());
    return session_.document_tokens() + static_cast<int>(conversation_part(kind_, tokenizer_, history, question).ids.size());
}

int DocumentChat::turns_to_drop(std::string_view question, std::span<const ChatTurn> history,
                                int64_t max_new_tokens) const {
    const int ctx = backend_.config().context_length;
    if (ctx <= 0 || history.empty()) return 0;
    const int64_t room = int64_t{ctx} - std::max<int64_t>(0, max_new_tokens);
    // Oldest first; each candidate is laid out by the template (a turn's token count depends on it).
    for (std::size_t k = 0; k < history.size(); ++k)
        if (prompt_tokens_for(question, history.subspan(k)) <= room) return static_cast<int>(k);
    return static_cast<int>(history.size());
}

std::string DocumentChat::document_excerpt(int first_token, int last_token, std::size_t max_chars) const {
    const int n = static_cast<int>(document_ids_.size());
    first_token = std::max(0, first_token);
    last_token = std::min(n - 1, last_token);
    if (first_token > last_token) return {};
    const std::vector<int32_t> ids(document_ids_.begin() + first_token, document_ids_.begin() + last_token + 1);
    std::string text = tokenizer_.decode(ids), out;
    // One line: runs of whitespace (newlines included) become one space.
    for (char c : text) {
        const bool ws = c == ' ' || c == '\n' || c == '\t' || c == '\r';
        if (ws) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return printable_excerpt(out, max_chars);
}

AskResult DocumentChat::ask(std::string_view question, const AskOptions& options) {
    if (session_.document_tokens() == 0) throw Error("no document is loaded");
    options.sampling.validate();
    AskResult r = ask_turn(question, options);
    answer_and_cite(options, r);
    return r;
}

AskResult DocumentChat::ask_tokens(std::span<const int32_t> tail, int keep_whole_from, const AskOptions& options) {
    if (session_.document_tokens() == 0) throw Error("no document is loaded");
    if (tail.empty()) throw Error("the prompt has no tokens after the document");
    options.sampling.validate();
    AskResult r;
    const int D = session_.document_tokens();
    const int T = static_cast<int>(tail.size());
    check_context_room(int64_t{D} + T, options.max_new_tokens, backend_.config().context_length,
                       "prompt + answer", options.ignore_context);
    // Nothing held to reuse and no history to keep whole: the independent question's path
    // (set_question), so that a prompt laid out as document + question gives exactly what ask gives.
    const std::vector<int32_t> held = session_.stored_tail();
    const bool reuse = (!held.empty() && held[0] == tail[0]) || keep_whole_from >= 0;
    r.question_tokens = T;
    r.history_kept_from = keep_whole_from >= 0 ? keep_whole_from : D + T;
    const auto t0 = SteadyClock::now();
    if (reuse) {
        r.reused_tokens = session_.set_turns(tail, options.snapkv.window, keep_whole_from, options.cancel);
    } else {
        session_.set_question(tail, options.snapkv.window, options.cancel);
    }
    r.question_seconds = seconds_since(t0);
    r.forwarded_tokens = T - r.reused_tokens;
    const auto t1 = SteadyClock::now();
    r.selection = session_.select(options.snapkv);
    r.select_seconds = seconds_since(t1);
    answer_and_cite(options, r);
    return r;
}

void DocumentChat::answer_and_cite(const AskOptions& options, AskResult& r) {
    if (options.on_selection) options.on_selection(r.selection);  // shown before decoding
    GenerationRequest req;
    req.max_new_tokens = options.max_new_tokens;
    req.sampling = options.sampling;
    req.stop_at_eos = options.stop_at_eos;
    if (options.stop_at_eos) req.stop_tokens = end_of_turn_ids(kind_, tokenizer_);
    req.cancel = options.cancel;
    req.on_logits = options.on_logits;
    StreamDecoder stream(tokenizer_);
    req.on_token = [&](int32_t id) {
        std::string piece = stream.push(id);
        r.answer += piece;
        if (options.on_text && !piece.empty()) options.on_text(piece);
    };
    r.generation = session_.answer(*r.selection, req);
    std::string rest = stream.flush();
    r.answer += rest;
    if (options.on_text && !rest.empty()) options.on_text(rest);
    r.generation.prefill_seconds = r.question_seconds;
    if (options.citations && r.generation.stop != StopReason::Cancelled && !r.generation.tokens.empty())
        add_citations(options, r);
}

AskResult DocumentChat::ask_turn(std::string_view question, const AskOptions& options) {
    AskResult r;
    const int D = session_.document_tokens();
    if (options.history.empty()) {
        // An independent question: exactly the path questions took before conversations.
        const std::vector<int32_t> question_part = build_question_part(kind_, tokenizer_, question);
        r.question_tokens = static_cast<int>(question_part.size());
        r.forwarded_tokens = r.question_tokens;
        r.history_kept_from = D + r.question_tokens;
        auto t0 = SteadyClock::now();
        session_.set_question(question_part, options.snapkv.window, options.cancel);
        r.question_seconds = seconds_since(t0);
    } else {
        std::span<const ChatTurn> history = options.history;
        if (!options.ignore_context) {
            r.dropped_turns = turns_to_drop(question, history, options.max_new_tokens);
            history = history.subspan(static_cast<std::size_t>(r.dropped_turns));
            if (r.dropped_turns > 0)
                spdlog::info("conversation: the oldest {} of {} turns left out of the prompt to fit the context",
                             r.dropped_turns, options.history.size());
        }
        const ConversationPart part = conversation_part(kind_, tokenizer_, history, question);
        const int T = static_cast<int>(part.ids.size());
        r.question_tokens = T - part.question_start;
        r.history_tokens = part.question_start;
        // The whole prompt against the context before anything runs.
        check_context_room(int64_t{D} + T, options.max_new_tokens, backend_.config().context_length,
                           "document + history (" + std::to_string(history.size()) +
                               " turns) + question + answer",
                           options.ignore_context);
        const int keep = history_keep_start(part, options.history_keep_tokens);
        r.history_kept_from = keep < part.question_start ? D + keep : D + T;
        auto t0 = SteadyClock::now();
        r.reused_tokens =
            session_.set_turns(part.ids, options.snapkv.window, keep < part.question_start ? D + keep : -1, options.cancel);
        r.question_seconds = seconds_since(t0);
        r.forwarded_tokens = T - r.reused_tokens;
    }
    const auto t0 = SteadyClock::now();
    r.selection = session_.select(options.snapkv);
    r.select_seconds = seconds_since(t0);
    return r;
}

void DocumentChat::add_citations(const AskOptions& options, AskResult& r) {
    const auto t0 = SteadyClock::now();
    const ModelConfig& cfg = backend_.config();
    const int D = session_.document_tokens();
    std::vector<float> acc(D, 0.0f);
    try {
        session_.score_continuation(
            r.generation.tokens,
            [&](int layer, std::span<const float> s) {
                const auto writes = cfg.head_writes.empty()
                                        ? std::span<const uint8_t>()
                                        : std::span<const uint8_t>(cfg.head_writes)
                                              .subspan(static_cast<std::size_t>(layer) * cfg.n_heads, cfg.n_heads);
                accumulate_answer_attention(s, cfg.n_heads, D, cfg.n_layers, options.citation_options.sink_tokens, acc,
                                            writes);
            },
            options.cancel);
    } catch (const Cancelled&) {
        return;  // stopped while scoring: the answer stands, without sources
    }
    r.citations = find_citations(acc, options.citation_options,
                                 sentence_end_.size() == static_cast<std::size_t>(D) ? std::span<const uint8_t>(sentence_end_)
                                                                                    : std::span<const uint8_t>());
    r.answer_attention = std::move(acc);
    r.citation_seconds = seconds_since(t0);
}

std::shared_ptr<const Selection> DocumentChat::reselect(const SnapKvConfig& config) {
    if (config.window != session_.window_scores().window) session_.set_window(config.window);
    return session_.select(config);
}

}  // namespace snapdoc
