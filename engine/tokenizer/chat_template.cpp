#include "engine/tokenizer/chat_template.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "engine/common/error.h"
#include "engine/common/trim.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {
namespace {

constexpr std::array<std::pair<ChatTemplateKind, std::string_view>, 11> kNames{{
    {ChatTemplateKind::Plain, "plain"},
    {ChatTemplateKind::Llama2, "llama2"},
    {ChatTemplateKind::Mistral, "mistral"},
    {ChatTemplateKind::ChatML, "chatml"},
    {ChatTemplateKind::Zephyr, "zephyr"},
    {ChatTemplateKind::Llama3, "llama3"},
    {ChatTemplateKind::Llama31, "llama3.1"},
    {ChatTemplateKind::Qwen25, "qwen2.5"},
    {ChatTemplateKind::Qwen3, "qwen3"},
    {ChatTemplateKind::Phi3, "phi3"},
    {ChatTemplateKind::MistralV7, "mistral-v7"},
}};

// Text the real templates put in by themselves (see chat_template.h for when).
constexpr std::string_view kLlama31Preamble =
    "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
constexpr std::string_view kQwen25DefaultSystem =
    "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

// The user message is "{document}{kDocumentEnd}{kQuestionLead}{question}" in every template; the
// prompt is split between kDocumentEnd and kQuestionLead. The split relies on kDocumentEnd ending
// in a newline (see encode_after_newline), so change these together.
constexpr std::string_view kDocumentEnd = "\n\n";
constexpr std::string_view kQuestionLead = "Question: ";
constexpr std::string_view kPlainAnswerLead = "\nAnswer:";

// Concatenation without `const char* + std::string`, which GCC 12 flags with a false -Wrestrict.
std::string cat(std::initializer_list<std::string_view> parts) {
    std::string out;
    for (std::string_view p : parts) out += p;
    return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

// A prompt as control tokens (id >= 0) and runs of text (id < 0); adjacent text is merged so that
// each run is encoded in one piece, as the model's own tokenizer would see it.
struct Item {
    int32_t id = -1;
    std::string text;
};
// Non-token items of message layouts (build_message_prompt): a split point inside a run of text
// (the rest is encoded as a continuation after a newline) and a position marker.
constexpr int32_t kTextItem = -1;
constexpr int32_t kSplitItem = -2;
constexpr int32_t kMarkItem = -3;

class Layout {
public:
    void special(int32_t id) { items_.push_back({id, {}}); }
    void text(std::string_view t) {
        if (items_.empty() || items_.back().id != kTextItem) items_.push_back({kTextItem, {}});
        items_.back().text += t;
    }
    void split() { items_.push_back({kSplitItem, {}}); }
    void mark() { items_.push_back({kMarkItem, {}}); }
    void append(const Layout& other) {
        for (const Item& item : other.items_) {
            if (item.id == kTextItem)
                text(item.text);
            else
                items_.push_back(item);
        }
    }
    const std::vector<Item>& items() const { return items_; }

private:
    std::vector<Item> items_;
};

// The ids of `text` as they read right after a newline in a longer text: without the dummy prefix
// that tok.encode would put in front of a text of its own. Encoding "\n" + text and dropping the
// ids of "\n" gives exactly that, because no piece of the vocabulary crosses the newline (checked
// by document_split_is_exact). Where one does, no split can be exact; text is encoded on its own.
std::vector<int32_t> encode_after_newline(const Tokenizer& tok, std::string_view text) {
    const std::vector<int32_t> anchor = tok.encode("\n");
    std::vector<int32_t> ids = tok.encode(cat({"\n", text}));
    if (ids.size() >= anchor.size() && std::equal(anchor.begin(), anchor.end(), ids.begin())) {
        ids.erase(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(anchor.size()));
        return ids;
    }
    return tok.encode(text);
}

// `continues_text`: the first run continues a run that ended in a newline (the question part).
std::vector<int32_t> encode_layout(const Tokenizer& tok, const Layout& layout, bool continues_text) {
    std::vector<int32_t> out;
    bool first = true;
    for (const Item& item : layout.items()) {
        if (item.id >= 0) {
            out.push_back(item.id);
        } else {
            const std::vector<int32_t> ids =
                first && continues_text ? encode_after_newline(tok, item.text) : tok.encode(item.text);
            out.insert(out.end(), ids.begin(), ids.end());
        }
        first = false;
    }
    return out;
}

// Looks up the control pieces a template uses, with errors that name the template.
class Vocab {
public:
    Vocab(ChatTemplateKind kind, const Tokenizer& tok) : kind_(kind), tok_(tok) {}

    int32_t required(std::string_view piece) const {
        const int32_t id = tok_.piece_to_id(piece);
        if (id < 0 || id == tok_.unk_id())
            throw Error(std::string(chat_template_name(kind_)) + " template needs the special token " +
                        std::string(piece) + ", which the model's vocabulary lacks");
        return id;
    }
    int32_t eos() const {
        if (tok_.eos_id() < 0)
            throw Error(
                std::string(chat_template_name(kind_)) +
                " template needs an end-of-sequence token (</s>), which the model's vocabulary lacks");
        return tok_.eos_id();
    }
    // The id of `piece` if the vocabulary has it as a control token, else -1 (it is text there).
    int32_t control(std::string_view piece) const {
        const int32_t id = tok_.piece_to_id(piece);
        return id >= 0 && tok_.is_control(id) ? id : -1;
    }
    // `piece` by id where it is a control token, else as its text.
    void marker(Layout& layout, std::string_view piece) const {
        const int32_t id = control(piece);
        if (id >= 0)
            layout.special(id);
        else
            layout.text(piece);
    }
    // BOS where the real template writes bos_token itself.
    void bos(Layout& layout) const {
        if (tok_.bos_id() >= 0) layout.special(tok_.bos_id());
    }
    // BOS where the template has none and the tokenizer adds it (add_bos_token), as llama.cpp and
    // HF's tokenizer() do; never twice when the BOS is the template's own opening token.
    void tokenizer_bos(Layout& layout, int32_t opening = -1) const {
        if (tok_.add_bos() && tok_.bos_id() != opening) bos(layout);
    }
    // Opens a ChatML turn: <|im_start|>{role}\n (the newline and what follows are one text run).
    void chatml_turn(Layout& layout, std::string_view role) const {
        layout.special(required("<|im_start|>"));
        layout.text(cat({role, "\n"}));
    }
    // Llama 3's turn header: <|start_header_id|>{role}<|end_header_id|>\n\n.
    void llama3_header(Layout& layout, std::string_view role) const {
        layout.special(required("<|start_header_id|>"));
        layout.text(role);
        layout.special(required("<|end_header_id|>"));
        layout.text("\n\n");
    }

private:
    ChatTemplateKind kind_;
    const Tokenizer& tok_;
};

// [INST] ... [/INST] for Llama 2 and Mistral: text in their original vocabularies ("[INST] " and
// " [/INST]" around the message), control tokens in Mistral's v3 vocabulary (no spaces: the dummy
// prefix of the message text stands for the first one, as in mistral-common).
struct InstTokens {
    int32_t open = -1;
    int32_t close = -1;
};
InstTokens inst_tokens(const Vocab& vocab) {
    InstTokens t;
    t.open = vocab.control("[INST]");
    if (t.open >= 0) t.close = vocab.required("[/INST]");
    return t;
}

// One prompt being laid out: the document part goes to `head`, the question part to `tail`.
struct PromptLayout {
    ChatTemplateKind kind;
    const Vocab& vocab;
    std::string_view sys;
    std::string document_text;  // "{doc}\n\n"
    std::string question_text;  // "Question: {q}"
    Layout& head;
    Layout& tail;
};

void lay_out_plain(PromptLayout& p) {
    p.vocab.tokenizer_bos(p.head);
    p.head.text(p.document_text);
    p.tail.text(cat({p.question_text, kPlainAnswerLead}));
}

void lay_out_inst(PromptLayout& p) {  // Llama 2, Mistral v1 / v3 / v3-tekken
    const InstTokens inst = inst_tokens(p.vocab);
    p.vocab.bos(p.head);
    if (inst.open >= 0)
        p.head.special(inst.open);
    else
        p.head.text("[INST] ");
    if (!p.sys.empty()) {
        if (p.kind == ChatTemplateKind::Llama2)
            p.head.text(cat({"<<SYS>>\n", p.sys, "\n<</SYS>>\n\n"}));
        else
            p.head.text(cat({p.sys, "\n\n"}));
    }
    p.head.text(p.document_text);
    p.tail.text(p.question_text);
    if (inst.close >= 0)
        p.tail.special(inst.close);
    else
        p.tail.text(" [/INST]");
}

void lay_out_chatml(PromptLayout& p) {  // ChatML, Qwen2.5, Qwen3
    const int32_t start = p.vocab.required("<|im_start|>");
    const int32_t end = p.vocab.required("<|im_end|>");
    // Llama/Mistral-based ChatML models keep their <s> (their tokenizers add it). Qwen's
    // templates write no BOS and its tokenizer adds none (its converter still names
    // <|endoftext|> as BOS): never for the Qwen kinds, whatever the vocabulary says.
    if (p.kind == ChatTemplateKind::ChatML) p.vocab.tokenizer_bos(p.head, start);
    const std::string_view system =
        p.sys.empty() && p.kind == ChatTemplateKind::Qwen25 ? kQwen25DefaultSystem : p.sys;
    if (!system.empty()) {
        p.vocab.chatml_turn(p.head, "system");
        p.head.text(system);
        p.head.special(end);
        p.head.text("\n");
    }
    p.vocab.chatml_turn(p.head, "user");
    p.head.text(p.document_text);
    p.tail.text(p.question_text);
    p.tail.special(end);
    p.tail.text("\n");
    p.vocab.chatml_turn(p.tail, "assistant");
    if (p.kind == ChatTemplateKind::Qwen3) {
        p.tail.special(p.vocab.required("<think>"));
        p.tail.text("\n\n");
        p.tail.special(p.vocab.required("</think>"));
        p.tail.text("\n\n");
    }
}

void lay_out_llama3(PromptLayout& p) {  // Llama 3.0, 3.1 / 3.2 / 3.3
    const int32_t eot = p.vocab.required("<|eot_id|>");
    const bool llama31 = p.kind == ChatTemplateKind::Llama31;
    p.vocab.bos(p.head);
    if (llama31 || !p.sys.empty()) {
        p.vocab.llama3_header(p.head, "system");
        if (llama31) p.head.text(kLlama31Preamble);
        p.head.text(p.sys);
        p.head.special(eot);
    }
    p.vocab.llama3_header(p.head, "user");
    p.head.text(p.document_text);
    p.tail.text(p.question_text);
    p.tail.special(eot);
    p.vocab.llama3_header(p.tail, "assistant");
}

void lay_out_phi3(PromptLayout& p) {
    // The template writes "\n" after every marker, but Phi-3's tokenizer strips whitespace to the
    // right of its added tokens (rstrip in tokenizer.json; llama.cpp sets the same attribute for
    // phi3), so the real prompt has no newline tokens there.
    const int32_t end = p.vocab.required("<|end|>");
    p.vocab.tokenizer_bos(p.head);
    if (!p.sys.empty()) {
        p.head.special(p.vocab.required("<|system|>"));
        p.head.text(p.sys);
        p.head.special(end);
    }
    p.head.special(p.vocab.required("<|user|>"));
    p.head.text(p.document_text);
    p.tail.text(p.question_text);
    p.tail.special(end);
    p.tail.special(p.vocab.required("<|assistant|>"));
}

void lay_out_mistral_v7(PromptLayout& p) {
    p.vocab.bos(p.head);
    if (!p.sys.empty()) {
        p.head.special(p.vocab.required("[SYSTEM_PROMPT]"));
        p.head.text(p.sys);
        p.head.special(p.vocab.required("[/SYSTEM_PROMPT]"));
    }
    p.head.special(p.vocab.required("[INST]"));
    p.head.text(p.document_text);
    p.tail.text(p.question_text);
    p.tail.special(p.vocab.required("[/INST]"));
}

void lay_out_zephyr(PromptLayout& p) {
    const int32_t eos = p.vocab.eos();
    p.vocab.tokenizer_bos(p.head);
    if (!p.sys.empty()) {
        p.vocab.marker(p.head, "<|system|>");
        p.head.text(cat({"\n", p.sys}));
        p.head.special(eos);
        p.head.text("\n");
    }
    p.vocab.marker(p.head, "<|user|>");
    p.head.text(cat({"\n", p.document_text}));
    p.tail.text(p.question_text);
    p.tail.special(eos);
    p.tail.text("\n");
    p.vocab.marker(p.tail, "<|assistant|>");
    p.tail.text("\n");
}

// `document_text` and `question_text` as they go into the user message (the decorations included).
void build_layouts_raw(ChatTemplateKind kind, const Tokenizer& tok, std::string_view sys, std::string document_text,
                       std::string question_text, Layout& head, Layout& tail) {
    const Vocab vocab(kind, tok);
    PromptLayout p{kind, vocab, sys, std::move(document_text), std::move(question_text), head, tail};
    switch (kind) {
        case ChatTemplateKind::Plain:
            return lay_out_plain(p);
        case ChatTemplateKind::Llama2:
        case ChatTemplateKind::Mistral:
            return lay_out_inst(p);
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            return lay_out_chatml(p);
        case ChatTemplateKind::Llama3:
        case ChatTemplateKind::Llama31:
            return lay_out_llama3(p);
        case ChatTemplateKind::Phi3:
            return lay_out_phi3(p);
        case ChatTemplateKind::MistralV7:
            return lay_out_mistral_v7(p);
        case ChatTemplateKind::Zephyr:
            return lay_out_zephyr(p);
    }
    throw Error("unknown chat template kind");
}

void build_layouts(ChatTemplateKind kind, const Tokenizer& tok, std::string_view sys, std::string_view doc,
                   std::string_view question, Layout& head, Layout& tail) {
    build_layouts_raw(kind, tok, sys, cat({doc, kDocumentEnd}), cat({kQuestionLead, question}), head, tail);
}

// Conversations (build_conversation_part): what opens a user turn after the first one (the first
// is opened by the document part), and an answer with the end of its turn.
void lay_out_followup_open(ChatTemplateKind kind, const Vocab& vocab, Layout& out) {
    switch (kind) {
        case ChatTemplateKind::Plain:
            return;
        case ChatTemplateKind::Llama2:
        case ChatTemplateKind::Mistral: {
            if (kind == ChatTemplateKind::Llama2) vocab.bos(out);  // Llama 2 opens every turn with <s>
            const InstTokens inst = inst_tokens(vocab);
            if (inst.open >= 0)
                out.special(inst.open);
            else
                out.text("[INST] ");
            return;
        }
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            return vocab.chatml_turn(out, "user");
        case ChatTemplateKind::Zephyr:
            vocab.marker(out, "<|user|>");
            return out.text("\n");
        case ChatTemplateKind::Llama3:
        case ChatTemplateKind::Llama31:
            return vocab.llama3_header(out, "user");
        case ChatTemplateKind::Phi3:
            return out.special(vocab.required("<|user|>"));
        case ChatTemplateKind::MistralV7:
            return out.special(vocab.required("[INST]"));
    }
    throw Error("unknown chat template kind");
}

void lay_out_answer_end(ChatTemplateKind kind, const Vocab& vocab, std::string_view answer, Layout& out) {
    switch (kind) {
        case ChatTemplateKind::Plain:
            return out.text(cat({" ", answer, "\n\n"}));
        case ChatTemplateKind::Llama2:
        case ChatTemplateKind::Mistral: {
            // Text [/INST]: " {a} </s>" (Llama 2's template) / " {a}</s>" (Mistral's); a control
            // [/INST]: "{a}</s>", the dummy prefix standing for the space (mistral-common).
            const bool control = inst_tokens(vocab).close >= 0;
            const bool llama2 = kind == ChatTemplateKind::Llama2;
            out.text(control ? std::string(answer) : cat({" ", answer, llama2 ? " " : ""}));
            return out.special(vocab.eos());
        }
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            out.text(answer);
            out.special(vocab.required("<|im_end|>"));
            return out.text("\n");
        case ChatTemplateKind::Zephyr:
            out.text(answer);
            out.special(vocab.eos());
            return out.text("\n");
        case ChatTemplateKind::Llama3:
        case ChatTemplateKind::Llama31:
            out.text(answer);
            return out.special(vocab.required("<|eot_id|>"));
        case ChatTemplateKind::Phi3:
            out.text(answer);
            return out.special(vocab.required("<|end|>"));
        case ChatTemplateKind::MistralV7:
            out.text(answer);
            return out.special(vocab.eos());
    }
    throw Error("unknown chat template kind");
}

}  // namespace

std::string_view chat_template_name(ChatTemplateKind kind) {
    for (const auto& [k, name] : kNames)
        if (k == kind) return name;
    return "unknown";
}

std::vector<std::string_view> chat_template_names() {
    std::vector<std::string_view> names;
    for (const auto& [kind, name] : kNames) names.push_back(name);
    return names;
}

ChatTemplateKind parse_chat_template_name(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string valid;
    for (const auto& [kind, n] : kNames) {
        if (lower == n) return kind;
        valid += (valid.empty() ? "" : ", ") + std::string(n);
    }
    throw Error("unknown chat template '" + std::string(name) + "' (valid: " + valid + ")");
}

DetectedTemplate detect_chat_template(std::string_view jinja) {
    using K = ChatTemplateKind;
    if (trim_whitespace(jinja).empty()) return {K::Plain, "the model has no chat template; using plain"};
    // Order matters: ChatML first (its templates may mention other roles), <<SYS>> before [INST]
    // (Llama 2's template has both), [SYSTEM_PROMPT] before [INST] (v7 has both), and Phi-3's
    // <|end|> before Zephyr (both have <|user|>).
    if (contains(jinja, "<|im_start|>")) {
        if (contains(jinja, "enable_thinking"))
            return {K::Qwen3, "chat template has <|im_start|> and enable_thinking: qwen3 (thinking off)"};
        if (contains(jinja, kQwen25DefaultSystem))
            return {K::Qwen25, "chat template has <|im_start|> and Qwen2.5's default system prompt: qwen2.5"};
        return {K::ChatML, "chat template has <|im_start|>: chatml"};
    }
    if (contains(jinja, "<|start_header_id|>")) {
        if (contains(jinja, "Cutting Knowledge Date"))
            return {K::Llama31,
                    "chat template has <|start_header_id|> and the knowledge-date preamble: llama3.1"};
        return {K::Llama3, "chat template has <|start_header_id|>: llama3"};
    }
    if (contains(jinja, "<start_of_turn>"))
        return {K::Plain,
                "chat template looks like Gemma (<start_of_turn>), which is not supported; using plain"};
    if (contains(jinja, "[SYSTEM_PROMPT]"))
        return {K::MistralV7, "chat template has [SYSTEM_PROMPT]: mistral-v7"};
    if (contains(jinja, "<<SYS>>")) return {K::Llama2, "chat template has <<SYS>>: llama2"};
    if (contains(jinja, "[INST]")) return {K::Mistral, "chat template has [INST] without <<SYS>>: mistral"};
    if (contains(jinja, "<|user|>") && contains(jinja, "<|assistant|>")) {
        if (contains(jinja, "<|end|>"))
            return {K::Phi3, "chat template has <|user|>, <|assistant|> and <|end|>: phi3"};
        return {K::Zephyr, "chat template has <|user|> and <|assistant|>: zephyr"};
    }
    return {K::Plain,
            "chat template not recognised (" + std::to_string(jinja.size()) + " chars); using plain"};
}

std::vector<int32_t> build_document_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view system_prompt, std::string_view document) {
    const std::string_view doc = trim_whitespace(document);
    if (doc.empty()) throw Error("the document is empty");
    // Both halves are laid out every time so that a missing piece is reported by either call.
    Layout head, tail;
    build_layouts(kind, tok, trim_whitespace(system_prompt), doc, {}, head, tail);
    return encode_layout(tok, head, false);
}

std::vector<int32_t> encode_text_after_newline(const Tokenizer& tok, std::string_view text) {
    return encode_after_newline(tok, text);
}

std::vector<int32_t> build_question_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         std::string_view question) {
    const std::string_view q = trim_whitespace(question);
    if (q.empty()) throw Error("the question is empty");
    Layout head, tail;
    build_layouts(kind, tok, {}, {}, q, head, tail);
    return encode_layout(tok, tail, true);
}

std::string document_question_text(std::string_view document, std::string_view question) {
    const std::string_view doc = trim_whitespace(document);
    if (doc.empty()) throw Error("the document is empty");
    return cat({doc, kDocumentEnd, followup_question_text(question)});
}

std::string followup_question_text(std::string_view question) {
    const std::string_view q = trim_whitespace(question);
    if (q.empty()) throw Error("the question is empty");
    return cat({kQuestionLead, q});
}

DocumentPrompt build_document_prompt(ChatTemplateKind kind, const Tokenizer& tok,
                                     std::string_view system_prompt, std::string_view document,
                                     std::string_view question) {
    DocumentPrompt prompt;
    prompt.question_part = build_question_part(kind, tok, question);  // first: it fails fast
    prompt.document_part = build_document_part(kind, tok, system_prompt, document);
    return prompt;
}

ConversationPart build_conversation_part(ChatTemplateKind kind, const Tokenizer& tok,
                                         const std::vector<TemplateTurn>& turns, std::string_view question) {
    const std::string_view q = trim_whitespace(question);
    if (q.empty()) throw Error("the question is empty");
    const Vocab vocab(kind, tok);
    ConversationPart part;
    // A turn that starts with text follows either the document ("\n\n") or a turn that ended in a
    // newline (see lay_out_answer_end), so it is encoded as a continuation; after a control token
    // its first run stands alone, as in the one-piece encoding.
    bool after_text = true;
    const auto append = [&](const Layout& layout) {
        const std::vector<int32_t> ids = encode_layout(tok, layout, after_text);
        part.ids.insert(part.ids.end(), ids.begin(), ids.end());
        after_text = !layout.items().empty() && layout.items().back().id < 0;
    };
    // The new question is laid out first so that a missing piece is reported for `kind` itself.
    Layout last, unused_head;
    if (!turns.empty()) lay_out_followup_open(kind, vocab, last);
    build_layouts(kind, tok, {}, {}, q, unused_head, last);
    // Earlier turns: Qwen3's template writes the think block only for the turn being generated.
    const ChatTemplateKind history_kind = kind == ChatTemplateKind::Qwen3 ? ChatTemplateKind::ChatML : kind;
    for (std::size_t i = 0; i < turns.size(); ++i) {
        const std::string_view tq = trim_whitespace(turns[i].question);
        if (tq.empty()) throw Error("turn " + std::to_string(i + 1) + " of the history has an empty question");
        Layout turn, unused;
        if (i > 0) lay_out_followup_open(kind, vocab, turn);
        build_layouts(history_kind, tok, {}, {}, tq, unused, turn);
        lay_out_answer_end(kind, vocab, trim_whitespace(turns[i].answer), turn);
        part.turn_starts.push_back(static_cast<int>(part.ids.size()));
        append(turn);
    }
    part.question_start = static_cast<int>(part.ids.size());
    append(last);
    return part;
}

std::vector<int32_t> end_of_turn_ids(ChatTemplateKind kind, const Tokenizer& tok) {
    const Vocab vocab(kind, tok);
    switch (kind) {
        case ChatTemplateKind::Plain:
            if (tok.eos_id() < 0) return {};
            return {tok.eos_id()};
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            return {vocab.required("<|im_end|>")};
        case ChatTemplateKind::Llama3:
        case ChatTemplateKind::Llama31:
            return {vocab.required("<|eot_id|>")};
        case ChatTemplateKind::Phi3:
            return {vocab.required("<|end|>")};
        case ChatTemplateKind::Llama2:
        case ChatTemplateKind::Mistral:
        case ChatTemplateKind::Zephyr:
        case ChatTemplateKind::MistralV7:
            return {vocab.eos()};
    }
    throw Error("unknown chat template kind");
}

bool document_split_is_exact(const Tokenizer& tok) {
    // A piece containing "\nQ" could merge the end of the document with the question.
    for (int32_t id = 0; id < tok.vocab_size(); ++id)
        if (!tok.is_control(id) && contains(tok.raw_piece(id), cat({"\n", kQuestionLead.substr(0, 1)})))
            return false;
    // A normalizer that rewrites newlines changes where pieces may break; compare on samples.
    for (std::string_view doc : {"The end.", "x"}) {
        const std::string head = cat({doc, kDocumentEnd});
        const std::string tail = cat({kQuestionLead, "Why?"});
        std::vector<int32_t> joined = tok.encode(head);
        const std::vector<int32_t> rest = encode_after_newline(tok, tail);
        joined.insert(joined.end(), rest.begin(), rest.end());
        if (joined != tok.encode(head + tail)) return false;
    }
    return true;
}

// ---- OpenAI-style messages (build_message_prompt) ----

namespace {

// Records the token index where the next item starts. After text ending in a newline the text that
// follows is encoded as a continuation (as the engine's turns are), so the mark is exact; after
// other text a mark would split a run the tokenizer sees in one piece, so there is none (-1).
void mark_turn(Layout& layout, std::vector<int*>& marks, int* where) {
    const auto& items = layout.items();
    if (!items.empty() && items.back().id == kTextItem) {
        if (items.back().text.empty() || items.back().text.back() != '\n') return;
        layout.split();
    }
    layout.mark();
    marks.push_back(where);
}

std::string_view role_name(MessageRole role) {
    switch (role) {
        case MessageRole::System:
            return "system";
        case MessageRole::User:
            return "user";
        case MessageRole::Assistant:
            return "assistant";
    }
    return "unknown";
}

}  // namespace

MessagePrompt build_message_prompt(ChatTemplateKind kind, const Tokenizer& tok, std::span<const ChatMessage> messages) {
    std::string sys;
    MessageRole expected = MessageRole::User;
    int conversational = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const ChatMessage& m = messages[i];
        const std::string_view text = trim_whitespace(m.content);
        if (m.role == MessageRole::System) {
            if (!text.empty()) sys += cat({sys.empty() ? "" : "\n\n", text});
            continue;
        }
        if (m.role != expected)
            throw Error("messages[" + std::to_string(i) + "]: expected a " + std::string(role_name(expected)) +
                        " message here (user and assistant messages alternate, starting and ending with user)");
        if (m.role == MessageRole::User && text.empty())
            throw Error("messages[" + std::to_string(i) + "]: the user message is empty");
        expected = m.role == MessageRole::User ? MessageRole::Assistant : MessageRole::User;
        ++conversational;
    }
    if (conversational == 0) throw Error("messages: there is no user message");
    if (expected == MessageRole::User) throw Error("messages: the last message must be a user message");

    const Vocab vocab(kind, tok);
    // Qwen3's template writes the empty think block only for the turn being generated.
    const ChatTemplateKind history_kind = kind == ChatTemplateKind::Qwen3 ? ChatTemplateKind::ChatML : kind;
    MessagePrompt prompt;
    prompt.turn_starts.assign(messages.size(), -1);
    prompt.paragraph_splits.assign(messages.size(), -1);
    std::vector<int*> marks;  // in layout order, one per kMarkItem
    Layout layout;
    bool first_user = true;
    int seen = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const ChatMessage& m = messages[i];
        if (m.role == MessageRole::System) continue;
        const bool last = ++seen == conversational;
        const std::string_view text = trim_whitespace(m.content);
        if (m.role == MessageRole::Assistant) {
            mark_turn(layout, marks, &prompt.turn_starts[i]);
            lay_out_answer_end(kind, vocab, text, layout);
            continue;
        }
        // The opening is always the template's own (BOS, default system prompt); the tail after an
        // earlier user message is the history's (no think block).
        Layout head, tail, unused_head, unused_tail;
        if (first_user) build_layouts_raw(kind, tok, sys, {}, {}, head, unused_tail);
        build_layouts_raw(last ? kind : history_kind, tok, {}, {}, {}, unused_head, tail);
        if (first_user) {
            layout.append(head);
            mark_turn(layout, marks, &prompt.turn_starts[i]);
        } else {
            mark_turn(layout, marks, &prompt.turn_starts[i]);
            lay_out_followup_open(kind, vocab, layout);
        }
        // Split after the last paragraph break, so that the text before it (a pasted document)
        // has the same ids whatever question follows it in the same message. The whitespace
        // around that break is laid out as exactly kDocumentEnd, the document trimmed as
        // build_document_part trims it: a document pasted with its file's trailing newline
        // ("{doc}\n\n\nQuestion: q", as open().read() gives) or trailing spaces has the same
        // document part, so it finds the same held session and the app's K/V cache file.
        const std::size_t brk = text.rfind("\n\n");
        if (brk != std::string_view::npos && brk > 0) {
            layout.text(cat({trim_whitespace(text.substr(0, brk)), kDocumentEnd}));
            layout.split();
            layout.mark();
            marks.push_back(&prompt.paragraph_splits[i]);
            layout.text(trim_whitespace(text.substr(brk + 2)));
        } else {
            layout.text(text);
        }
        layout.append(tail);
        first_user = false;
    }

    bool continuation = false;
    std::size_t next_mark = 0;
    for (const Item& item : layout.items()) {
        if (item.id >= 0) {
            prompt.ids.push_back(item.id);
            continuation = false;
        } else if (item.id == kSplitItem) {
            continuation = true;
        } else if (item.id == kMarkItem) {
            *marks[next_mark++] = static_cast<int>(prompt.ids.size());
        } else {
            const std::vector<int32_t> ids = continuation ? encode_after_newline(tok, item.text) : tok.encode(item.text);
            prompt.ids.insert(prompt.ids.end(), ids.begin(), ids.end());
            continuation = false;
        }
    }
    return prompt;
}

}  // namespace snapdoc
