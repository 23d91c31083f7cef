// snapdoc-cli ask --remote URL: the same questions, stdout and --json as a local `ask`, answered by
// a remote engine. A snapdoc-server gets the document once (its document sessions) and answers with
// citations; any other OpenAI-compatible server gets the document in each prompt, laid out as the
// local templates lay it out ("{document}\n\nQuestion: {q}"), after a check that it fits the
// model's context (refused with the numbers, never truncated).
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/ask_json.h"
#include "app/cli/document_set_flags.h"
#include "app/cli/model_setup.h"
#include "app/cli/question_flags.h"
#include "app/cli/remote_commands.h"
#include "app/cli/remote_flags.h"
#include "app/documents/document_reader.h"
#include "app/remote/remote_chat.h"
#include "app/remote/remote_documents.h"
#include "app/remote/remote_models.h"
#include "app/remote/remote_tokens.h"
#include "engine/common/error.h"
#include "engine/common/message_text.h"
#include "app/remote/remote_messages.h"
#include "engine/tokenizer/chat_template.h"

namespace snapdoc::cli {

namespace {

using json = nlohmann::json;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Refuses before anything is sent when prompt + answer cannot fit the remote model's context.
void check_fit(const remote::RemoteEndpoint& ep, const remote::RemoteServer& server, const remote::RemoteModel& model,
               const json& messages, int64_t answer_tokens, int64_t* counted) {
    const remote::TokenCount count = remote::count_prompt_tokens(ep, server.kind, model.id, messages);
    *counted = count.tokens;
    const int64_t needed = count.tokens + answer_tokens;
    if (model.context <= 0) {
        std::fprintf(stderr,
                     "note: %s does not say %s's context; the prompt (%s%lld tokens, %s) is sent unchecked\n",
                     std::string(remote::engine_name(server.kind)).c_str(), model.id.c_str(), count.exact ? "" : "about ",
                     static_cast<long long>(count.tokens), count.how.c_str());
        return;
    }
    if (needed > model.context)
        throw Error("the document does not fit " + model.id + "'s context on " + ep.root + ": the prompt is " +
                    (count.exact ? "" : "about ") + std::to_string(count.tokens) + " tokens (" + count.how +
                    ") + " + std::to_string(answer_tokens) + " answer tokens (-n) = " + std::to_string(needed) +
                    ", but the context is " + std::to_string(model.context) + " tokens (" + model.context_source +
                    "); nothing was sent. Use a model with a longer context, a shorter document, or a smaller -n");
}

}  // namespace

int cmd_ask_remote(int argc, char** argv) {
    std::vector<FlagSpec> flags = remote_flags();
    flags.insert(flags.end(), {{{"-m", "--model"}}, {{"--doc"}, true, true}, {{"-q", "--question"}, true, true}, {{"--system"}},
                               {{"-n", "--n-predict"}}, {{"--temp"}}, {{"--top-k"}}, {{"--top-p"}}, {{"--seed"}},
                               {{"--json"}}, {{"--conversation"}, false}, {{"--no-citations"}, false}});
    const Args args(flags, argc, argv, 2);
    const remote::RemoteEndpoint ep = remote_endpoint_from(args);
    const std::vector<std::string> doc_paths = args.all("doc");
    auto questions = questions_from(args);
    const int max_tokens = n_predict_flag(args, 256);
    const std::string system = args.str("system");
    const bool conversation = args.has("conversation");
    const bool want_citations = !args.has("no-citations");
    remote::RemoteChatRequest base;
    base.max_tokens = max_tokens;
    base.temperature = args.real("temp", 0.0f);
    if (args.has("top-p")) base.top_p = args.real("top-p", 0.95f);
    if (args.has("top-k")) base.top_k = args.integer("top-k", 40);
    if (args.has("seed")) base.seed = args.integer64("seed", 0);
    const auto& cancel = install_interrupt_flag();
    // Several --doc: a plain engine gets them laid out as text, each under its title
    // (document_set_text); a snapdoc-server gets each uploaded and asks with "document_ids".
    const std::vector<SetDocument> docs = documents_for_cli(args, &cancel);
    const bool several = docs.size() > 1;
    const std::string document = document_set_text(docs);
    // Laid out once here so an empty document or question is refused before the network.
    for (const auto& q : questions) (void)document_question_text(document, q);

    const remote::RemoteServer server = remote::discover(ep, args.str("model"));
    const remote::RemoteModel& model = remote::choose_model(server, args.str("model"));
    base.model = model.id;
    const bool snapdoc_server = server.kind == remote::EngineKind::SnapdocServer;
    std::fprintf(stderr, "remote: %s at %s, model %s, context %s\n", std::string(remote::engine_name(server.kind)).c_str(),
                 ep.root.c_str(), model.id.c_str(),
                 model.context > 0 ? (std::to_string(model.context) + " tokens (" + model.context_source + ")").c_str()
                                   : "not given by the server");

    // The fit check: the longest question's prompt (a conversation: all of its turns, every answer
    // at -n), before any document is uploaded or prefilled.
    std::size_t longest = 0;
    for (std::size_t i = 1; i < questions.size(); ++i)
        if (questions[i].size() > questions[longest].size()) longest = i;
    int64_t prompt_estimate = 0;
    {
        std::vector<std::pair<std::string, std::string>> turns;
        int64_t answers = max_tokens;
        if (conversation) {
            for (std::size_t i = 0; i + 1 < questions.size(); ++i) turns.push_back({questions[i], ""});
            answers = static_cast<int64_t>(questions.size()) * (max_tokens + remote::kTemplateTokensPerMessage);
        }
        const std::string& last = conversation ? questions.back() : questions[longest];
        const json messages = remote::question_messages(system, &document, turns, last);
        check_fit(ep, server, model, messages, answers, &prompt_estimate);
    }

    const auto t_doc = std::chrono::steady_clock::now();
    remote::RemoteDocument uploaded;
    std::vector<std::string> uploaded_ids;
    int64_t uploaded_tokens = 0;
    bool all_from_kv_cache = true;
    for (std::size_t d = 0; snapdoc_server && d < docs.size(); ++d) {
        uploaded = remote::upload_document(
            ep, docs[d].text, system,
            [](double p) {
                // One line redrawn on a terminal; a line per report into a file or pipe.
                static const bool tty = isatty(STDERR_FILENO) == 1;
                std::fprintf(stderr, "%sdocument: prefilling on the server %3.0f%%%s", tty ? "\r" : "", 100.0 * p,
                             tty && p < 1.0 ? "" : "\n");
            },
            &cancel, several ? docs[d].name : std::string());
        std::fprintf(stderr, "document%s%s: %lld tokens on the server (session %s)%s\n", several ? " " : "",
                     several ? docs[d].name.c_str() : "", static_cast<long long>(uploaded.tokens), uploaded.id.c_str(),
                     uploaded.from_kv_cache ? ", from its K/V cache" : "");
        uploaded_ids.push_back(uploaded.id);
        uploaded_tokens += uploaded.tokens;
        all_from_kv_cache = all_from_kv_cache && uploaded.from_kv_cache;
    }
    const double document_seconds = seconds_since(t_doc);

    json listed = json::array();
    for (std::size_t d = 0; d < docs.size(); ++d) {
        json j = {{"document", docs[d].name}, {"path", doc_paths[d]}};
        if (snapdoc_server) j["document_id"] = uploaded_ids[d];
        listed.push_back(std::move(j));
    }
    json out = {{"document", doc_paths[0]},
                {"documents", listed},
                {"document_tokens", snapdoc_server ? uploaded_tokens : prompt_estimate},
                {"document_seconds", document_seconds},
                {"served_from_kv_cache", snapdoc_server && all_from_kv_cache},
                {"remote",
                 {{"url", ep.root},
                  {"engine", remote::engine_name(server.kind)},
                  {"model", model.id},
                  {"context", model.context},
                  {"context_source", model.context_source}}},
                {"conversation", conversation},
                {"answers", json::array()}};
    if (several) out.erase("document");  // "documents" lists them
    if (snapdoc_server && !several) out["remote"]["document_id"] = uploaded.id;
    if (snapdoc_server && several) out["remote"]["document_ids"] = uploaded_ids;
    else out["remote"]["document_tokens_counted"] = "prompt tokens of the first question, document included";
    bool cancelled = false;
    try {
        std::vector<std::pair<std::string, std::string>> history;
        for (std::size_t i = 0; i < questions.size(); ++i) {
            remote::RemoteChatRequest req = base;
            if (!conversation) history.clear();
            req.messages = remote::question_messages(system, snapdoc_server ? nullptr : &document, history, questions[i]);
            if (snapdoc_server && !several) req.document_id = uploaded.id;
            if (snapdoc_server && several) req.document_ids = uploaded_ids;
            const auto t0 = std::chrono::steady_clock::now();
            const remote::RemoteChatReply r = remote::stream_chat(
                ep, req,
                [](const std::string& t) {
                    std::fwrite(t.data(), 1, t.size(), stdout);
                    std::fflush(stdout);
                },
                &cancel);
            std::fputc('\n', stdout);
            json answer = {{"question", questions[i]},
                           {"answer", r.text},
                           {"stop", r.finish_reason},
                           {"seconds", seconds_since(t0)}};
            if (r.usage.is_object()) {
                answer["prompt_tokens"] = r.usage.value("prompt_tokens", 0);
                answer["generated_tokens"] = r.usage.value("completion_tokens", 0);
                answer["usage"] = r.usage;
            }
            // Citations only where the engine gives them (snapdoc-server), as the local ask prints them.
            if (want_citations && r.citations.is_array()) {
                json citations = json::array();
                for (std::size_t c = 0; c < r.citations.size(); ++c) {
                    const json& cit = r.citations[c];
                    const std::string text = cit.value("text", "");
                    // The server names the document (several) and the page (a PDF upload) where it knows them.
                    std::string where = cit.contains("document") ? cit.value("document", "") + ", " : "";
                    if (cit.value("page", 0) > 0) where += "page " + std::to_string(cit.value("page", 0)) + ", ";
                    std::printf("  [%zu] %stokens %d-%d (%.0f%%): %s\n", c + 1, where.c_str(), cit.value("first_token", 0),
                                cit.value("last_token", 0), 100.0 * cit.value("weight", 0.0),
                                printable_excerpt(text, 160).c_str());
                    citations.push_back(cit);
                }
                answer["citations"] = citations;
            }
            std::fflush(stdout);
            std::fprintf(stderr, "question %zu: %s%s tokens in %.2f s | stop %s\n", i + 1,
                         r.usage.is_object()
                             ? ("prompt " + std::to_string(r.usage.value("prompt_tokens", 0)) + " tokens | ").c_str()
                             : "",
                         r.usage.is_object() ? std::to_string(r.usage.value("completion_tokens", 0)).c_str() : "?",
                         seconds_since(t0), r.finish_reason.c_str());
            out["answers"].push_back(answer);
            history.push_back({questions[i], r.text});
            if (r.finish_reason == "cancelled") {
                cancelled = true;
                break;
            }
        }
    } catch (const std::exception& e) {
        write_ask_json_after(e, args, out);
        throw;
    }
    write_ask_json(args, out);
    return cancelled || cancel.load() ? 130 : 0;
}

}  // namespace snapdoc::cli
