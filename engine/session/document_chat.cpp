#include "engine/session/document_chat.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "engine/common/error.h"

namespace snapdoc {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

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
    return load_document_tokens(build_document_part(kind_, tokenizer_, system_prompt, text), progress, cancel);
}

int DocumentChat::load_document_tokens(std::span<const int32_t> document_part, const DocumentSession::Progress& progress,
                                       const std::atomic<bool>* cancel) {
    const auto t0 = Clock::now();
    session_.prefill_document(document_part, progress, cancel);
    document_seconds_ = since(t0);
    return static_cast<int>(document_part.size());
}

int DocumentChat::prompt_tokens_for(std::string_view question) const {
    return session_.document_tokens() + static_cast<int>(build_question_part(kind_, tokenizer_, question).size());
}

AskResult DocumentChat::ask(std::string_view question, const AskOptions& options) {
    if (session_.document_tokens() == 0) throw Error("no document is loaded");
    options.sampling.validate();
    AskResult r;
    const std::vector<int32_t> question_part = build_question_part(kind_, tokenizer_, question);
    r.question_tokens = static_cast<int>(question_part.size());

    auto t0 = Clock::now();
    session_.set_question(question_part, options.snapkv.window, options.cancel);
    r.question_seconds = since(t0);
    t0 = Clock::now();
    r.selection = session_.select(options.snapkv);
    r.select_seconds = since(t0);

    GenerationRequest req;
    req.max_new_tokens = options.max_new_tokens;
    req.sampling = options.sampling;
    req.stop_tokens = end_of_turn_ids(kind_, tokenizer_);
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
    return r;
}

std::shared_ptr<const Selection> DocumentChat::reselect(const SnapKvConfig& config) {
    if (config.window != session_.window_scores().window) session_.set_window(config.window);
    return session_.select(config);
}

}  // namespace snapdoc
