// The generation routes of Server: /v1/chat/completions and /v1/completions (streamed as SSE or
// answered whole), /v1/documents POST, /tokenize and /detokenize.
#include <spdlog/spdlog.h>

#include <random>

#include "app/documents/document_reader.h"
#include "app/server/api_error.h"
#include "app/server/client_connection.h"
#include "app/server/server.h"
#include "engine/common/error.h"
#include "engine/common/stopwatch.h"
#include "engine/session/document_session.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc::server {

namespace {

using nlohmann::json;

ApiError context_error(int prompt_tokens, int max_new, int ctx) {
    return bad_request("the prompt is " + std::to_string(prompt_tokens) + " tokens and " +
                           std::to_string(max_new) +
                           " more are asked for (max_tokens): " + std::to_string(prompt_tokens + max_new) +
                           " exceeds the context of " + std::to_string(ctx) + " tokens",
                       "messages", "exceed_context_size_error");
}

// Refuses bytes that are not well-formed UTF-8, saying where the first bad one is.
void require_utf8(const std::string& text, const char* part) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8::sequence_length(std::string_view(text).substr(i));
        if (n == 0)
            throw bad_request(std::string("'") + part + "' is not valid UTF-8 text (byte " + std::to_string(i) +
                                  " is not part of a well-formed character); upload UTF-8 text",
                              part, "invalid_utf8");
        i += n;
    }
}

// For a completion prompt: the split just after the last newline token near the end, so that a
// script resending document + another question reuses the document part.
MessagePrompt completion_prompt(const Tokenizer& tok, std::vector<int32_t> ids, int max_tail) {
    MessagePrompt p;
    p.turn_starts = {-1};
    p.paragraph_splits = {-1};
    const int n = static_cast<int>(ids.size());
    for (int i = n - 2; i >= std::max(0, n - 1 - max_tail); --i)
        if (tok.piece(ids[i]).find('\n') != std::string::npos) {
            p.paragraph_splits[0] = i + 1;
            break;
        }
    p.ids = std::move(ids);
    return p;
}

// The bytes of the messages' texts (what the template wraps; the template only adds tokens).
// `skip_system`: with a document, whose tokens already hold its system prompt.
std::size_t message_bytes(const std::vector<ChatMessage>& messages, bool skip_system = false) {
    std::size_t n = 0;
    for (const ChatMessage& m : messages)
        if (!skip_system || m.role != MessageRole::System) n += m.content.size();
    return n;
}

}  // namespace

void Server::check_bytes_fit(const GenerationFields& gen, int64_t known_tokens, std::size_t text_bytes,
                             const char* param) const {
    const int64_t least = known_tokens + prompt_bound_.min_tokens(text_bytes);
    const int64_t asked = gen.max_tokens ? *gen.max_tokens : 1;
    const int ctx = model_.context_length;
    if (prompt_bound_.bytes_per_token <= 0 || least + asked <= ctx) return;
    throw bad_request("the prompt's text is " + std::to_string(text_bytes) + " bytes, at least " +
                          std::to_string(least) + " tokens (a token of this tokenizer is at most " +
                          std::to_string(prompt_bound_.bytes_per_token) + " bytes): with " +
                          std::to_string(asked) + " more asked for (max_tokens) it exceeds the context of " +
                          std::to_string(ctx) + " tokens",
                      param, "exceed_context_size_error");
}

void Server::resolve(const GenerationFields& gen, int prompt_tokens, Job& job) const {
    const int ctx = model_.context_length;
    if (gen.max_tokens) {
        job.max_new_tokens = *gen.max_tokens;
        if (int64_t{prompt_tokens} + job.max_new_tokens > ctx)
            throw context_error(prompt_tokens, job.max_new_tokens, ctx);
    } else {
        if (prompt_tokens + 1 > ctx) throw context_error(prompt_tokens, 1, ctx);
        job.max_new_tokens = std::min(config_.default_max_tokens, ctx - prompt_tokens);
    }
    SamplingParams& s = job.sampling;
    s.temperature = gen.temperature.value_or(config_.default_temperature);
    s.top_p = gen.top_p.value_or(0.95f);
    s.top_k = gen.top_k.value_or(40);
    s.seed = gen.seed ? *gen.seed : std::random_device{}();
    try {
        s.validate();
    } catch (const Error& e) {
        throw bad_request(e.what(), "temperature");
    }
    job.stop = gen.stop;
    job.ignore_eos = gen.ignore_eos;

    SnapKvConfig k = config_.snapkv;
    const SnapKvOverrides& o = gen.snapkv;
    try {
        if (o.budget) k.budget = *o.budget;
        if (o.window) k.window = *o.window;
        if (o.kernel) k.kernel = *o.kernel;
        if (o.pool) k.pooling = parse_pooling(*o.pool);
        if (o.policy) k.policy = parse_budget_policy(*o.policy);
        if (o.gqa) k.gqa = parse_gqa_mode(*o.gqa);
        k.validate();
    } catch (const Error& e) {
        throw bad_request(std::string("snapkv: ") + e.what(), "snapkv");
    }
    if (k.window > kDefaultMaxWindow)
        throw bad_request("snapkv.window " + std::to_string(k.window) + " is more than the " +
                              std::to_string(kDefaultMaxWindow) + " the server keeps",
                          "snapkv.window");
    job.snapkv = k;
    if (o.enabled) {
        job.snapkv_enabled = *o.enabled;
        job.snapkv.enabled = *o.enabled;
    }
}

void Server::handle_completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
    require_ready();
    const json body = parse_body(req.body);
    const Tokenizer& tok = *model_.tokenizer;
    auto job = std::make_shared<Job>();
    GenerationFields gen;
    int prompt_tokens = 0;
    if (endpoint == Endpoint::Chat) {
        ChatRequest cr = parse_chat_request(body);
        gen = cr.gen;
        job->kind = Job::Kind::Chat;
        if (!cr.document_id.empty() || !cr.document_ids.empty()) {
            // One document (document_id) or several in order (document_ids: one conversation over
            // all of them, app/common/document_set.h). Each must be the asker's and not failed.
            const std::vector<std::string> ids =
                cr.document_ids.empty() ? std::vector<std::string>{cr.document_id} : cr.document_ids;
            const char* id_field = cr.document_ids.empty() ? "document_id" : "document_ids";
            std::optional<DocumentInfo> doc;
            int document_tokens = 0;
            for (const std::string& id : ids) {
                auto d = documents_.get(id, access_.owner(req));  // another owner's: 404
                if (!d) throw not_found("no document '" + id + "'");
                if (d->status == "failed") throw bad_request("document '" + id + "' failed: " + d->error, id_field);
                if (doc && d->system_prompt != doc->system_prompt)
                    throw bad_request("documents '" + ids[0] + "' and '" + id +
                                          "' have different system prompts; one conversation has one",
                                      id_field);
                // Each later document adds its title ("Document 2: name") to its tokens.
                document_tokens += d->tokens + (doc ? 8 + static_cast<int>(d->name.size()) : 0);
                if (!doc) doc = std::move(d);
            }
            check_bytes_fit(gen, document_tokens, message_bytes(cr.messages, true), "messages");
            // The document part holds the document and its system prompt; the messages give the
            // question (the last user message) and the earlier turns.
            std::vector<const ChatMessage*> turns;
            for (std::size_t i = 0; i < cr.messages.size(); ++i) {
                const ChatMessage& m = cr.messages[i];
                if (m.role == MessageRole::System) {
                    if (m.content != doc->system_prompt)
                        throw bad_request(
                            "messages[" + std::to_string(i) +
                                "]: with document_id the system prompt is the document's (give it "
                                "as \"system\" in POST /v1/documents)",
                            "messages");
                    continue;
                }
                turns.push_back(&m);
            }
            for (std::size_t i = 0; i < turns.size(); ++i) {
                const MessageRole want = i % 2 == 0 ? MessageRole::User : MessageRole::Assistant;
                if (turns[i]->role != want || (i + 1 == turns.size() && want != MessageRole::User))
                    throw bad_request(
                        "messages: user and assistant messages must alternate, starting and ending "
                        "with user",
                        "messages");
            }
            for (std::size_t i = 0; i + 1 < turns.size(); i += 2)
                job->history.push_back({turns[i]->content, turns[i + 1]->content});
            job->question = turns.back()->content;
            job->document_id = ids.size() == 1 ? ids[0] : std::string();
            if (ids.size() > 1) job->document_ids = ids;
            try {
                prompt_tokens =
                    document_tokens +
                    static_cast<int>(
                        conversation_part(model_.kind, tok, job->history, job->question).ids.size());
            } catch (const Error& e) {
                throw bad_request(e.what(), "messages");
            }
        } else {
            check_bytes_fit(gen, 0, message_bytes(cr.messages), "messages");
            try {
                job->prompt = build_message_prompt(model_.kind, tok, cr.messages);
            } catch (const Error& e) {
                throw bad_request(e.what(), "messages");
            }
            prompt_tokens = static_cast<int>(job->prompt.ids.size());
        }
    } else {
        CompletionRequest cr = parse_completion_request(body);
        gen = cr.gen;
        job->kind = Job::Kind::Completion;
        std::vector<int32_t> ids;
        if (!cr.prompt_ids.empty()) {
            for (int32_t id : cr.prompt_ids)
                if (id >= tok.vocab_size())
                    throw bad_request("'prompt' has token id " + std::to_string(id) +
                                          ", outside the vocabulary of " + std::to_string(tok.vocab_size()),
                                      "prompt");
            ids = cr.prompt_ids;
        } else {
            check_bytes_fit(gen, 0, cr.prompt.size(), "prompt");
            if (tok.add_bos() && tok.bos_id() >= 0) ids.push_back(tok.bos_id());
            const std::vector<int32_t> text = tok.encode(cr.prompt);
            ids.insert(ids.end(), text.begin(), text.end());
        }
        if (ids.size() < 2) throw bad_request("'prompt' must be at least 2 tokens", "prompt");
        job->prompt = completion_prompt(tok, std::move(ids), config_.max_tail_tokens);
        prompt_tokens = static_cast<int>(job->prompt.ids.size());
    }
    resolve(gen, prompt_tokens, *job);
    job->return_progress = gen.stream && gen.return_progress;
    job->prompt_total = prompt_tokens;
    job->owner = access_.owner(req);
    job->scope = access_.session_scope(req, &body);
    submit(job, client_key(req, &body));
    respond(req, res, job, new_response_meta(endpoint, gen.model.empty() ? model_.id : gen.model),
            gen.stream, gen.include_usage);
}

void Server::respond(const httplib::Request& req, httplib::Response& res, const std::shared_ptr<Job>& job,
                     const ResponseMeta& meta, bool stream, bool include_usage) {
    using namespace std::chrono_literals;
    if (!stream) {
        // Nothing is written before the answer is complete, so a client that leaves is seen on its
        // socket (client_connection.h), looked at every 100 ms: the engine stops at the next token.
        const ClientConnection connection(req);
        auto next_look = SteadyClock::now();
        std::string text;
        for (;;) {
            auto ev = job->events.pop(100ms);
            if (SteadyClock::now() >= next_look) {
                next_look = SteadyClock::now() + 100ms;
                if (!job->cancel.load() && connection.gone()) job->cancel.store(true);
            }
            if (!ev || ev->kind == JobEvent::Kind::Progress) continue;
            if (ev->kind == JobEvent::Kind::Text) {
                text += ev->text;
            } else if (ev->kind == JobEvent::Kind::Done) {
                return send_json(res, 200, completion_json(meta, text, ev->outcome));
            } else {
                return send_json(res, ev->status, ev->error);
            }
        }
    }
    struct StreamState {
        bool first = true;
        bool finished = false;
    };
    auto state = std::make_shared<StreamState>();
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [job, meta, include_usage, state](std::size_t, httplib::DataSink& sink) {
            const auto write = [&](const std::string& s) {
                if (!sink.write(s.data(), s.size())) {
                    job->cancel.store(true);  // the client is gone: the engine stops at the next token
                    return false;
                }
                return true;
            };
            auto ev = job->events.pop(std::chrono::milliseconds(500));
            if (!ev) {
                // Nothing yet (queued, or a long prefill): a comment line finds a closed connection.
                return write(": keep-alive\n\n");
            }
            if (ev->kind == JobEvent::Kind::Progress) return write(sse_data(progress_chunk(meta, ev->progress)));
            if (ev->kind == JobEvent::Kind::Text) {
                const bool ok = write(sse_data(delta_chunk(meta, ev->text, state->first)));
                state->first = false;
                return ok;
            }
            if (ev->kind == JobEvent::Kind::Done) {
                if (state->first && meta.endpoint == Endpoint::Chat) {
                    // An empty answer still opens the assistant message.
                    if (!write(sse_data(delta_chunk(meta, "", true)))) return false;
                }
                if (!write(sse_data(final_chunk(meta, ev->outcome)))) return false;
                if (include_usage && !write(sse_data(usage_chunk(meta, ev->outcome)))) return false;
                if (!write(kSseDone)) return false;
            } else {
                // Failed after the stream began: OpenAI streams the error object, then ends.
                if (!write(sse_data(ev->error.is_null()
                                        ? ApiError(ev->status, "server_error", "cancelled").body()
                                        : ev->error)))
                    return false;
                if (!write(kSseDone)) return false;
            }
            state->finished = true;
            sink.done();
            return true;
        },
        [job, state](bool) {
            if (!state->finished) job->cancel.store(true);
        });
}

void Server::handle_documents_post(const httplib::Request& req, httplib::Response& res) {
    require_ready();
    DocumentInfo info;
    if (req.is_multipart_form_data()) {
        if (!req.has_file("file")) throw bad_request("multipart upload needs a 'file' part", "file");
        const auto file = req.get_file_value("file");
        // A .pdf/.docx/.odt/.epub/.html part (by its file name) is read as that format, like the CLI and
        // the app read it; anything else is the document's text itself.
        if (const std::string format = documents::structured_format(file.filename); !format.empty()) {
            try {
                // A scan's pages are read by OCR, in the language of the optional "ocr_lang" part
                // (default: the server's locale's if installed, else English).
                documents::OcrOptions ocr;
                if (req.has_file("ocr_lang")) ocr.language = req.get_file_value("ocr_lang").content;
                documents::ExtractedDocument d =
                    documents::extract_document(file.content, format, "the uploaded " + file.filename, ocr);
                info.text = std::move(d.text);
                info.page_starts = std::move(d.page_starts);  // citations name a PDF's pages
            } catch (const Error& e) {
                throw bad_request(e.what(), "file", "unreadable_document");
            }
        } else {
            info.text = file.content;
        }
        if (req.has_file("system")) info.system_prompt = req.get_file_value("system").content;
        info.name = file.filename;
        // A JSON upload cannot carry invalid UTF-8 (the parser refuses it); a multipart part is raw
        // bytes, so it gets the same check here rather than being replaced silently by U+FFFD.
        require_utf8(info.text, "file");
        require_utf8(info.system_prompt, "system");
    } else {
        const json body = parse_body(req.body);
        const auto text = body.find("text");
        if (text == body.end() || !text->is_string())
            throw bad_request("'text' (a string) is required", "text");
        info.text = text->get<std::string>();
        if (const auto sys = body.find("system"); sys != body.end() && !sys->is_null()) {
            if (!sys->is_string()) throw bad_request("'system' must be a string", "system");
            info.system_prompt = sys->get<std::string>();
        }
        if (const auto name = body.find("name"); name != body.end() && !name->is_null()) {
            if (!name->is_string()) throw bad_request("'name' must be a string", "name");
            info.name = name->get<std::string>();
        }
    }
    // Tokenized here, so an empty or too long document is refused before any prefill; one whose
    // bytes alone cannot fit is refused before tokenizing (room for the question: 2 tokens).
    const int64_t least = prompt_bound_.min_tokens(info.text.size() + info.system_prompt.size());
    if (least + 2 > model_.context_length)
        throw bad_request("the document is " + std::to_string(info.text.size()) + " bytes, at least " +
                              std::to_string(least) + " tokens: no room for a question in the " +
                              std::to_string(model_.context_length) + "-token context",
                          "text", "exceed_context_size_error");
    try {
        info.tokens = static_cast<int>(
            build_document_part(model_.kind, *model_.tokenizer, info.system_prompt, info.text).size());
    } catch (const Error& e) {
        throw bad_request(e.what(), "text");
    }
    const int ctx = model_.context_length;
    if (info.tokens + 2 > ctx)
        throw bad_request("the document is " + std::to_string(info.tokens) +
                              " tokens: no room for a question in the " + std::to_string(ctx) +
                              "-token context",
                          "text", "exceed_context_size_error");
    // The title the document has in a conversation over several (and its citations' "document").
    if (info.name.size() > 255) throw bad_request("'name' is longer than 255 bytes", "name");
    require_utf8(info.name, "name");
    info.owner = access_.owner(req);
    const DocumentRegistry::Added added = documents_.add(info, config_.max_documents);
    if (added.id.empty())
        throw ApiError(429, "invalid_request_error",
                       "you hold " + std::to_string(config_.max_documents) +
                           " documents already (--max-documents): delete one (DELETE /v1/documents/{id}) first",
                       "too_many_documents");
    const std::string& id = added.id;
    if (added.existing) {
        const auto d = documents_.get(id, info.owner);
        if (!d) throw not_found("no document '" + id + "'");  // deleted in between
        return send_json(res, 202, document_json(*d));
    }
    auto job = std::make_shared<Job>();
    job->kind = Job::Kind::Document;
    job->document_id = id;
    job->owner = info.owner;
    job->scope = access_.session_scope(req, nullptr);
    try {
        submit(job, client_key(req, nullptr));
    } catch (...) {
        documents_.erase(id, info.owner);
        throw;
    }
    send_json(res, 202, document_json(*documents_.get(id)));
}

void Server::handle_tokenize(const httplib::Request& req, httplib::Response& res) {
    require_ready();
    const json body = parse_body(req.body);
    const auto content = body.find("content");
    if (content == body.end() || !content->is_string())
        throw bad_request("'content' (a string) is required", "content");
    bool add_special = false;
    if (const auto a = body.find("add_special"); a != body.end() && !a->is_null()) {
        if (!a->is_boolean()) throw bad_request("'add_special' must be a boolean", "add_special");
        add_special = a->get<bool>();
    }
    // Nothing this server takes is longer than the context; a text that cannot fit is not worth
    // the seconds and gigabytes that tokenizing tens of megabytes costs an HTTP thread.
    GenerationFields none;
    none.max_tokens = 0;
    check_bytes_fit(none, 0, content->get_ref<const std::string&>().size(), "content");
    const Tokenizer& tok = *model_.tokenizer;
    std::vector<int32_t> ids;
    if (add_special && tok.bos_id() >= 0) ids.push_back(tok.bos_id());
    const std::vector<int32_t> text = tok.encode(content->get<std::string>());
    ids.insert(ids.end(), text.begin(), text.end());
    send_json(res, 200, {{"tokens", ids}});
}

void Server::handle_detokenize(const httplib::Request& req, httplib::Response& res) {
    require_ready();
    const json body = parse_body(req.body);
    const auto tokens = body.find("tokens");
    if (tokens == body.end() || !tokens->is_array())
        throw bad_request("'tokens' (an array of ids) is required", "tokens");
    const Tokenizer& tok = *model_.tokenizer;
    std::vector<int32_t> ids;
    for (std::size_t i = 0; i < tokens->size(); ++i) {
        const json& v = (*tokens)[i];
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= tok.vocab_size())
            throw bad_request("'tokens[" + std::to_string(i) + "]' is not a token id of this vocabulary",
                              "tokens");
        ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
    }
    send_json(res, 200, {{"content", tok.decode(ids)}});
}

}  // namespace snapdoc::server
