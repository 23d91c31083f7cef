// Chat templates: how one question about a document is laid out for an instruct model.
//
// snapdoc does not run Jinja. It recognises the template families of the models it runs (Llama 2
// and 3.x, Mistral v1/v3/v7, ChatML incl. Qwen2.5 and Qwen3, Phi-3, Zephyr) and builds their prompts
// directly as token ids, so that control tokens (BOS, <|im_start|>, <|eot_id|>, a special [INST])
// are only ever inserted by id and the document and question are only ever encoded as text: a
// document that literally contains "</s>", "<|eot_id|>" or "[INST]" stays text. Each layout is
// what the model's own Jinja template renders for [system,] user (document + question) and
// add_generation_prompt=true; the decisions where a template leaves a choice are listed below.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

class Tokenizer;

enum class ChatTemplateKind {
    Plain,
    Llama2,
    Mistral,
    ChatML,
    Zephyr,
    Llama3,     // Llama 3.0: header blocks, no system block unless a system prompt is given
    Llama31,    // Llama 3.1 / 3.2 / 3.3: always a system block with the knowledge-date preamble
    Qwen25,     // ChatML with Qwen2.5's default system prompt, no BOS
    Qwen3,      // ChatML, no BOS, thinking switched off (an empty <think></think> opens the answer)
    Phi3,       // Phi-3 / Phi-3.5: <|user|>...<|end|><|assistant|> (markers strip the newline after them)
    MistralV7,  // Mistral v7 / v7-tekken: [SYSTEM_PROMPT]...[/SYSTEM_PROMPT][INST]...[/INST]
};

// "plain", "llama2", "mistral", "chatml", "zephyr", "llama3", "llama3.1", "qwen2.5", "qwen3",
// "phi3", "mistral-v7".
std::string_view chat_template_name(ChatTemplateKind kind);
// Every name, in enum order (for menus and help texts).
std::vector<std::string_view> chat_template_names();
// Inverse of chat_template_name (ASCII case-insensitive); throws Error listing the valid names.
ChatTemplateKind parse_chat_template_name(std::string_view name);

struct DetectedTemplate {
    ChatTemplateKind kind = ChatTemplateKind::Plain;
    std::string reason;  // one line for the log: which marker decided, or why Plain was chosen
};
// Recognises a template family from the model's Jinja text by its markers (first match wins):
//   "<|im_start|>"        -> Qwen3 if it also has "enable_thinking", Qwen25 if it has Qwen2.5's
//                            default system prompt, else ChatML
//   "<|start_header_id|>" -> Llama31 if it has "Cutting Knowledge Date", else Llama3
//   "<start_of_turn>"     -> Plain (Gemma is not supported; the reason says so)
//   "[SYSTEM_PROMPT]"     -> MistralV7;  "<<SYS>>" -> Llama2;  other "[INST]" -> Mistral
//   "<|user|>" + "<|assistant|>" -> Phi3 if it has "<|end|>", else Zephyr
// Empty or unknown text gives Plain, with the reason saying so.
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
// prompt is empty unless noted; document, question and system prompt are trimmed of surrounding
// whitespace; {user} is "{doc}\n\nQuestion: {q}"):
//   plain      (BOS) {doc}\n\nQuestion: {q}\nAnswer:
//   llama2     [BOS] [INST] <<SYS>>\n{sys}\n<</SYS>>\n\n{user} [/INST]
//   mistral    [BOS] [INST] {sys}\n\n{user} [/INST]
//   chatml     (BOS) [<|im_start|>]system\n{sys}[<|im_end|>]\n[<|im_start|>]user\n{user}
//              [<|im_end|>]\n[<|im_start|>]assistant\n        (BOS left out if it is <|im_start|>)
//   zephyr     (BOS) <|system|>\n{sys}[</s>]\n<|user|>\n{user}[</s>]\n<|assistant|>\n
//   llama3     [BOS] [<|start_header_id|>]system[<|end_header_id|>]\n\n{sys}[<|eot_id|>]
//              [<|start_header_id|>]user[<|end_header_id|>]\n\n{user}[<|eot_id|>]
//              [<|start_header_id|>]assistant[<|end_header_id|>]\n\n
//   llama3.1   as llama3, but the system block is always there and reads
//              "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n{sys}": the
//              templates' own fallback date (3.2 would use today's date), so that a document's
//              prompt, and a cache of it, do not change from one day to the next
//   qwen2.5    chatml without BOS; an empty system prompt becomes the template's default
//              "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
//   qwen3      chatml without BOS, then [<think>]\n\n[</think>]\n\n after "assistant\n": the
//              template's enable_thinking=false, so the answer starts at once instead of after a
//              reasoning block (streamed as answer text, and long)
//   phi3       (BOS) [<|system|>]{sys}[<|end|>][<|user|>]{user}[<|end|>][<|assistant|>]
//              (the template's "\n" after each marker is stripped by Phi-3's tokenizer: its added
//              tokens have rstrip, in Hugging Face and llama.cpp alike; Phi-3.5's template writes no
//              BOS and its tokenizer adds none)
//   mistral-v7 [BOS] [[SYSTEM_PROMPT]]{sys}[[/SYSTEM_PROMPT]][[INST]]{user}[[/INST]] (v7's spaces
//              after the markers are the SentencePiece dummy prefix; v7-tekken has none; the
//              templates' long default system prompts are not reproduced)
// "[INST]"/"[/INST]" and Zephyr's "<|system|>", "<|user|>", "<|assistant|>" are text in the
// vocabularies those templates were made for; where the vocabulary has them as control pieces
// they are inserted by id instead (a control [INST] then takes no spaces around it, as Mistral's
// v3 tokenizer does). Llama 3, Qwen, Phi-3 and Mistral v7 markers are always inserted by id (a
// vocabulary that lacks one is an error), also where the vocabulary types them as user-defined
// rather than control (Qwen3's <think>), as Hugging Face and llama.cpp match added tokens in
// template text. "[BOS]": the real template writes bos_token, so BOS is added whenever the
// vocabulary has one. "(BOS)": the template has none, and BOS is added when the tokenizer adds it
// to every encoding (Tokenizer::add_bos, from add_bos_token), as llama.cpp and Hugging Face's
// tokenizer() do. The Qwen kinds never get one.
//
// Tokenization (SentencePiece's dummy prefix): every run of text that starts the prompt or follows
// a control token is encoded on its own with tok.encode, so it gets the model's leading "▁" as
// llama.cpp and Hugging Face's (legacy) Llama tokenizer do. The one split inside a run, between
// "{doc}\n\n" and "Question:", is encoded as a continuation after a newline (no dummy prefix), so
// document_part + question_part equal the ids of encoding that run in one piece. That holds unless
// the vocabulary has a piece spanning that newline and the "Q" after it (checked by
// document_split_is_exact; no Llama/Mistral vocabulary has one).
//
// Byte-level BPE vocabularies (Llama 3, Qwen) add no dummy prefix, so each run is simply its text;
// their pre-tokenizers split "\n\n" from the letters after it, so the split is exact there too.
//
// Throws Error if the document or the question is empty (after trimming), or if the template needs
// a piece the vocabulary lacks (ChatML's <|im_start|>/<|im_end|>, Zephyr's </s>, a [/INST] to close
// a control [INST], Llama 3's header and <|eot_id|> tokens, Phi-3's <|user|>/<|end|>/...).
DocumentPrompt build_document_prompt(ChatTemplateKind kind, const Tokenizer& tok,
                                     std::string_view system_prompt, std::string_view document,
                                     std::string_view question);
// The same layout as text, for an engine that applies its own chat template (a remote server):
// the first user message "{document}\n\nQuestion: {question}" (both trimmed), and a later turn's
// user message "Question: {question}". Throws Error for an empty document or question.
std::string document_question_text(std::string_view document, std::string_view question);
std::string followup_question_text(std::string_view question);
// The two halves on their own (build_document_prompt is exactly these two): a session that keeps
// the document's KV asks a new question with build_question_part alone, without encoding the
// document again. Same errors as build_document_prompt (each checks every piece the template needs).
std::vector<int32_t> build_document_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view system_prompt, std::string_view document);
std::vector<int32_t> build_question_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view question);

// `text` encoded as it reads right after a newline inside a longer run of text (no SentencePiece
// dummy prefix): how the question part continues the document part. A caller that appends text to a
// document part (several documents in one conversation, app/common/document_set.h) uses it so that
// the ids before the appended text never change.
std::vector<int32_t> encode_text_after_newline(const Tokenizer& tok, std::string_view text);

// A conversation after its document part: every earlier turn (question, answer, end of the answer
// turn) and then the new question with the tail that opens its answer. Turn i > 0 and the new
// question (after earlier turns) open a user turn of their own; the user text of every turn is
// "Question: {q}", as in the first one. Per template (on top of the layouts above):
//   plain      earlier turn: Question: {q}\nAnswer: {a}\n\n
//   llama2     ... [/INST] {a} [EOS] then [BOS] [INST] ... (control [INST]: [/INST]{a}[EOS][BOS][INST])
//   mistral    ... [/INST] {a}[EOS] then [INST] ... (no BOS between turns; control [INST] as above)
//   chatml     ...assistant\n{a}[<|im_end|>]\n[<|im_start|>]user\n...; qwen3 writes its empty think
//              block only after the new question (its template drops it from earlier turns)
//   zephyr     ...<|assistant|>\n{a}[</s>]\n<|user|>\n...
//   llama3     ...assistant[<|end_header_id|>]\n\n{a}[<|eot_id|>][<|start_header_id|>]user...
//   phi3       ...[<|assistant|>]{a}[<|end|>][<|user|>]...
//   mistral-v7 ...[[/INST]]{a}[EOS][[INST]]...
// The system prompt stays where the document part puts it (with the first user message), so the
// document part never depends on the turns. Answers are trimmed; an empty answer is allowed.
// Each turn is encoded on its own: a turn that follows text (ending in a newline) as a
// continuation, as the question part is (see above), so ids equal the one-piece encoding.
struct TemplateTurn {
    std::string_view question;
    std::string_view answer;
};
struct ConversationPart {
    std::vector<int32_t> ids;      // the earlier turns, then the new question part
    std::vector<int> turn_starts;  // index in ids where earlier turn i begins
    int question_start = 0;        // index in ids where the new question's part begins
};
// With no turns, ids == build_question_part(kind, tok, question) and question_start == 0.
// Throws Error for an empty question (the new one or an earlier one, naming the turn).
ConversationPart build_conversation_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         const std::vector<TemplateTurn>& turns, std::string_view question);

// The ids that end an assistant answer in this template, so generation can stop on them:
// <|im_end|> for ChatML and Qwen, <|eot_id|> for Llama 3, <|end|> for Phi-3, EOS for the others
// (Plain: empty if the vocabulary has no EOS). Throws Error if a template that needs one lacks it.
// Callers stop on the model's end-of-generation ids as well (ModelConfig::end_of_generation_ids).
std::vector<int32_t> end_of_turn_ids(ChatTemplateKind kind, const Tokenizer& tok);

// Whether document_part + question_part are exactly the one-piece encoding for this vocabulary
// (see build_document_prompt). For a log line or a test; building works either way.
bool document_split_is_exact(const Tokenizer& tok);

// OpenAI-style chat messages (snapdoc-server): system messages (joined by a blank line) become the
// template's system prompt; user and assistant messages alternate, starting and ending with user.
// Each user message is laid out as the question's user message above with its own text in place of
// "{doc}\n\nQuestion: {q}", each assistant message as an earlier turn's answer, and the last user
// message is followed by the tail that opens the answer. Text is only ever encoded as text.
// Every user message with a paragraph break is split after its last "\n\n" exactly as the
// document part is split from the question part: so [user "{doc}\n\nQuestion: {q}"] gives
// document_part + question_part of build_document_prompt, and the ids before the split do not
// depend on what follows in that message. The whitespace around that break is read as exactly
// "\n\n" (the text before it trimmed, as a document is): "{doc}\n\n\nQuestion: {q}" and
// "{doc} \n\nQuestion: {q}" give the same ids as "{doc}\n\nQuestion: {q}".
enum class MessageRole { System, User, Assistant };
struct ChatMessage {
    MessageRole role = MessageRole::User;
    std::string content;
};
struct MessagePrompt {
    std::vector<int32_t> ids;
    // Per message (-1 for system messages and where unknown): the index in ids where its turn
    // begins (the first user message: where its text begins, after the template's opening), and
    // for a user message with a paragraph break, the index just after its last one.
    std::vector<int> turn_starts;
    std::vector<int> paragraph_splits;
};
// Throws Error naming the message (messages[i]) for an order the templates cannot lay out, an
// empty user message, or a template piece the vocabulary lacks.
MessagePrompt build_message_prompt(ChatTemplateKind kind, const Tokenizer& tok, std::span<const ChatMessage> messages);

}  // namespace snapdoc
