// Chat templates: how one question about a document is laid out for an instruct model.
//
// snapdoc does not run Jinja. It recognises the few template families that Llama/Mistral-style
// models use and builds their prompts directly as token ids, so that control tokens (BOS,
// <|im_start|>, </s>, a special [INST]) are only ever inserted by id and the document and question
// are only ever encoded as text: a document that literally contains "</s>" or "[INST]" stays text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

class Tokenizer;

enum class ChatTemplateKind { Plain, Llama2, Mistral, ChatML, Zephyr };

// "plain", "llama2", "mistral", "chatml", "zephyr".
std::string_view chat_template_name(ChatTemplateKind kind);
// Inverse of chat_template_name (ASCII case-insensitive); throws Error listing the valid names.
ChatTemplateKind parse_chat_template_name(std::string_view name);

struct DetectedTemplate {
    ChatTemplateKind kind = ChatTemplateKind::Plain;
    std::string reason;  // one line for the log: which marker decided, or why Plain was chosen
};
// Recognises a template family from the model's Jinja text by its markers: "<|im_start|>" ->
// ChatML; "<<SYS>>" -> Llama2; "[INST]" without "<<SYS>>" -> Mistral; "<|user|>" and
// "<|assistant|>" -> Zephyr. Families that merely look alike (Phi-3's "<|end|>", Llama 3, Gemma)
// and empty or unknown text give Plain, with the reason saying so.
DetectedTemplate detect_chat_template(std::string_view jinja);

// One question about a document, split just after the document so that the engine can prefill
// the document once and append other questions later (document_part does not depend on the
// question). The document comes first and the question last, so SnapKV's observation window (the
// last prompt tokens) covers the question.
struct DocumentPrompt {
    std::vector<int32_t> document_part;  // BOS, template opening, system prompt, document, "\n\n"
    std::vector<int32_t> question_part;  // "Question: ...", then the tail that opens the answer
};

// Layouts ("[S]" is a control token inserted by id; system blocks are left out when the system
// prompt is empty; document, question and system prompt are trimmed of surrounding whitespace):
//   plain    [BOS] {doc}\n\nQuestion: {q}\nAnswer:
//   llama2   [BOS] [INST] <<SYS>>\n{sys}\n<</SYS>>\n\n{doc}\n\nQuestion: {q} [/INST]
//   mistral  [BOS] [INST] {sys}\n\n{doc}\n\nQuestion: {q} [/INST]
//   chatml   [BOS] [<|im_start|>]system\n{sys}[<|im_end|>]\n[<|im_start|>]user\n{doc}\n\nQuestion: {q}
//            [<|im_end|>]\n[<|im_start|>]assistant\n        (BOS left out if it is <|im_start|>)
//   zephyr   [BOS] <|system|>\n{sys}[</s>]\n<|user|>\n{doc}\n\nQuestion: {q}[</s>]\n<|assistant|>\n
// "[INST]"/"[/INST]" and Zephyr's "<|system|>", "<|user|>", "<|assistant|>" are text in the
// vocabularies those templates were made for; where the vocabulary has them as control pieces
// they are inserted by id instead (a control [INST] then takes no spaces around it, as Mistral's
// v3 tokenizer does). BOS is added when the vocabulary has one.
//
// Tokenization (SentencePiece's dummy prefix): every run of text that starts the prompt or follows
// a control token is encoded on its own with tok.encode, so it gets the model's leading "▁" as
// llama.cpp and Hugging Face's (legacy) Llama tokenizer do. The one split inside a run, between
// "{doc}\n\n" and "Question:", is encoded as a continuation after a newline (no dummy prefix), so
// document_part + question_part equal the ids of encoding that run in one piece. That holds unless
// the vocabulary has a piece spanning that newline and the "Q" after it (checked by
// document_split_is_exact; no Llama/Mistral vocabulary has one).
//
// Throws Error if the document or the question is empty (after trimming), or if the template needs
// a piece the vocabulary lacks (ChatML's <|im_start|>/<|im_end|>, Zephyr's </s>, a [/INST] to close
// a control [INST]).
DocumentPrompt build_document_prompt(ChatTemplateKind kind, const Tokenizer& tok,
                                     std::string_view system_prompt, std::string_view document,
                                     std::string_view question);
// The two halves on their own (build_document_prompt is exactly these two): a session that keeps
// the document's KV asks a new question with build_question_part alone, without encoding the
// document again. Same errors as build_document_prompt (each checks every piece the template needs).
std::vector<int32_t> build_document_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view system_prompt, std::string_view document);
std::vector<int32_t> build_question_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view question);

// The ids that end an assistant answer in this template, so generation can stop on them:
// <|im_end|> for ChatML, EOS for the others (Plain: empty if the vocabulary has no EOS). Throws Error
// if a template that needs one lacks it. Callers may stop on EOS as well.
std::vector<int32_t> end_of_turn_ids(ChatTemplateKind kind, const Tokenizer& tok);

// Whether document_part + question_part are exactly the one-piece encoding for this vocabulary
// (see build_document_prompt). For a log line or a test; building works either way.
bool document_split_is_exact(const Tokenizer& tok);

}  // namespace snapdoc
