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
#include "engine/session/document_session.h"
#include "engine/session/sampler.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {

struct AskOptions {
    SnapKvConfig snapkv;
    SamplingParams sampling;
    int max_new_tokens = 256;
    std::string system_prompt;
    std::function<void(const std::string& text)> on_text;  // streamed answer text (complete UTF-8)
    std::function<void(std::span<const float> logits)> on_logits;
    const std::atomic<bool>* cancel = nullptr;
};

struct AskResult {
    std::string answer;
    AnswerResult generation;
    std::shared_ptr<const Selection> selection;
    int question_tokens = 0;
    double question_seconds = 0;  // question prefill over the stored document + scoring
    double select_seconds = 0;    // pooling + top-k
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
    int load_document_tokens(std::span<const int32_t> document_part, const DocumentSession::Progress& progress = {},
                             const std::atomic<bool>* cancel = nullptr);
    // Tokens of the prompt for `question` without running anything (for context checks).
    int prompt_tokens_for(std::string_view question) const;

    AskResult ask(std::string_view question, const AskOptions& options);
    // Re-selects for the last question with new settings: no forward pass (a new window re-scores).
    std::shared_ptr<const Selection> reselect(const SnapKvConfig& config);

    DocumentSession& session() { return session_; }
    const DocumentSession& session() const { return session_; }
    ChatTemplateKind template_kind() const { return kind_; }
    double document_seconds() const { return document_seconds_; }

private:
    Backend& backend_;
    const Tokenizer& tokenizer_;
    ChatTemplateKind kind_;
    DocumentSession session_;
    double document_seconds_ = 0;
};

// The template for a model: `name` if given ("plain", "llama2", ...), else detected from the
// model's chat template text.
ChatTemplateKind choose_chat_template(const std::string& model_template_text, const std::string& name);

}  // namespace snapdoc
