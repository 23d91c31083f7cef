// EngineWorker on a remote engine (Settings > Connections): the same signals as a local model, so
// the controllers and the chat do not need to know where the answer comes from. A snapdoc-server
// gets the document once (its document session) and answers with citations; any other
// OpenAI-compatible server gets the document in each prompt, as snapdoc-cli ask --remote lays it
// out, after a check that it fits the model's context (refused with the numbers, never truncated).
// Everything here runs on the engine thread; the network waits are bounded by the endpoint's
// timeouts and stop at the request's cancel token.
#include <spdlog/spdlog.h>

#include <QElapsedTimer>
#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "app/remote/remote_chat.h"
#include "app/remote/remote_documents.h"
#include "app/remote/remote_messages.h"
#include "app/remote/remote_tokens.h"
#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"
#include "ui/widgets/number_format.h"
#include "ui/worker/engine_worker.h"
#include "ui/worker/remote_connection.h"
#include "ui/worker/remote_state.h"

namespace snapdoc::ui {

namespace {

using json = nlohmann::json;

QString qstr(const std::string& s) {
    return QString::fromStdString(s);
}

QString engine_words(const RemoteState& r) {
    const std::string_view n = remote::engine_name(r.server.kind);
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

// The chat messages of a question: the document in the prompt for any engine but a snapdoc-server
// (whose document session lays it out itself).
json question_messages(const RemoteState& r, const std::string& system, const std::vector<HistoryTurn>& history,
                       const std::string& question) {
    std::vector<std::pair<std::string, std::string>> turns;
    for (const HistoryTurn& t : history) turns.emplace_back(t.question.toStdString(), t.answer.toStdString());
    return remote::question_messages(system, r.snapdoc_server() ? nullptr : r.text.get(), turns, question);
}

// Refuses, with the numbers and where they came from, a prompt that with `answer_tokens` does not
// fit the remote model's context. Returns the prompt's token count.
int64_t check_fit(const RemoteState& r, const json& messages, int64_t answer_tokens, const QString& what) {
    const remote::TokenCount count = remote::count_prompt_tokens(r.endpoint, r.server.kind, r.model.id, messages);
    const int64_t needed = count.tokens + answer_tokens;
    if (r.model.context > 0 && needed > r.model.context)
        throw Error(QObject::tr("%1 does not fit %2's context on %3: the prompt is %4%5 tokens (%6) + %7 answer "
                                "tokens = %8, but the context is %9 tokens (%10). Nothing was sent. Use a model "
                                "with a longer context, a shorter document, or a shorter answer length in Settings.")
                        .arg(what, qstr(r.model.id), qstr(r.endpoint.root), count.exact ? QString() : QObject::tr("about "),
                             with_commas(count.tokens), qstr(count.how), with_commas(answer_tokens), with_commas(needed))
                        .arg(with_commas(r.model.context), qstr(r.model.context_source))
                        .toStdString());
    return count.tokens;
}

QString stop_reason_of(const std::string& finish) {
    if (finish == "stop") return QStringLiteral("eos");
    if (finish == "length") return QStringLiteral("limit");
    return qstr(finish);  // "cancelled", or the engine's own word
}

}  // namespace

void EngineWorker::useRemote(const services::ConnectionSettings& connection) {
    const QString path = QStringLiteral("remote://%1/%2").arg(qstr(connection.name), qstr(connection.model));
    // Like loadModel: the local model goes first (the remote engine replaces it).
    drop_local_model();
    remote_.reset();
    try {
        auto r = std::make_unique<RemoteState>();
        r->name = qstr(connection.name);
        r->endpoint = endpoint_of(connection);
        r->server = remote::discover(r->endpoint, connection.model);
        r->model = remote::choose_model(r->server, connection.model);
        ModelInfo info;
        info.path = QStringLiteral("remote://%1/%2").arg(r->name, qstr(r->model.id));
        info.name = qstr(r->model.id);
        info.format = tr("Remote");
        info.remote_engine = engine_words(*r);
        info.remote_url = qstr(r->endpoint.root);
        info.architecture = info.remote_engine;
        info.backend = tr("%1 at %2").arg(info.remote_engine, info.remote_url);
        info.chat_template = tr("the server's");
        info.context_length = static_cast<int>(std::min<int64_t>(r->model.context, std::numeric_limits<int>::max()));
        spdlog::info("remote engine: {} at {}, model {}, context {}", info.remote_engine.toStdString(),
                     r->endpoint.root, r->model.id, r->model.context);
        remote_ = std::move(r);
        emit modelLoaded(info);
    } catch (const std::exception& e) {
        emit modelFailed(path, qstr(e.what()));
    }
}

void EngineWorker::load_remote_document(qint64 document_id, std::shared_ptr<const std::string> text,
                                        int reserve_tokens, CancelToken cancel) {
    RemoteState& r = *remote_;
    r.document_id = -1;
    r.server_document_id.clear();
    QElapsedTimer timer;
    timer.start();
    try {
        const std::string system = next_system_prompt();
        r.text = text;
        DocumentReady ready;
        ready.document_id = document_id;
        emit documentEstimated(document_id, 0, -1.0);
        if (r.snapdoc_server()) {
            // Uploaded once; the server prefills it, and each question is a request on its session.
            emit documentProgress(document_id, 0, 0, 0.0, 0.0);
            const remote::RemoteDocument doc = remote::upload_document(
                r.endpoint, *text, system,
                [&](double p) { emit documentProgress(document_id, 0, 0, p, timer.elapsed() / 1000.0); },
                cancel.get());
            r.server_document_id = doc.id;
            ready.document_tokens = static_cast<int>(doc.tokens);
            ready.from_kv_cache = doc.from_kv_cache;
        } else {
            // Checked against the context before any question: the document, a one-word question
            // and an answer of the Settings' length.
            const json messages = question_messages(r, system, {}, "?");
            ready.document_tokens = static_cast<int>(check_fit(r, messages, reserve_tokens, tr("The document")));
        }
        ready.text_tokens = std::max(1, ready.document_tokens);
        ready.seconds = timer.elapsed() / 1000.0;
        r.document_id = document_id;
        r.system_prompt = system;
        emit documentLoaded(ready);
    } catch (const Cancelled&) {
        emit documentFailed(document_id,
                            tr("Sending the document was stopped. Click it in the library to send it again."), true);
    } catch (const std::exception& e) {
        emit documentFailed(document_id, qstr(e.what()), false);
    }
}

void EngineWorker::ask_remote(const AskRequest& request) {
    RemoteState& r = *remote_;
    try {
        if (r.document_id < 0 || !r.text) throw Error(tr("Open a document first.").toStdString());
        const std::string system = request.system_prompt.toStdString();
        if (system != r.system_prompt) {
            // The system prompt is part of the document session (snapdoc-server) or of the prompt's
            // layout: the document is given again with it.
            setSystemPrompt(system);
            const qint64 id = r.document_id;
            load_remote_document(id, r.text, request.generation.max_new_tokens, request.cancel);
            if (request.cancel && request.cancel->load()) throw Cancelled();
            if (r.document_id != id)
                throw Error(tr("The document could not be sent again with the new system prompt.").toStdString());
        }
        const std::string question = request.question.toStdString();
        remote::RemoteChatRequest req;
        req.model = r.model.id;
        req.max_tokens = request.generation.max_new_tokens;
        const SamplingParams& sp = request.generation.sampling;
        req.temperature = sp.temperature;
        if (sp.temperature > 0) {
            req.top_p = sp.top_p;
            if (sp.top_k > 0) req.top_k = sp.top_k;
            req.seed = static_cast<int64_t>(sp.seed);
        }
        req.messages = question_messages(r, system, request.history, question);
        if (r.snapdoc_server())
            req.document_id = r.server_document_id;
        else
            check_fit(r, req.messages, req.max_tokens, tr("The document with this question"));
        QElapsedTimer timer;
        timer.start();
        double first_text = -1;
        const remote::RemoteChatReply reply = remote::stream_chat(
            r.endpoint, req,
            [&](const std::string& piece) {
                if (first_text < 0) first_text = timer.elapsed() / 1000.0;
                emit answerText(request.id, qstr(piece));
            },
            request.cancel.get());
        const double total = timer.elapsed() / 1000.0;
        AnswerStats st;
        st.request_id = request.id;
        st.answer = qstr(reply.text);
        st.stop_reason = stop_reason_of(reply.finish_reason);
        if (reply.usage.is_object()) {
            st.prompt_tokens = reply.usage.value("prompt_tokens", 0);
            st.generated_tokens = reply.usage.value("completion_tokens", 0);
        }
        st.question_seconds = first_text >= 0 ? first_text : total;
        st.decode_seconds = first_text >= 0 ? total - first_text : 0;
        st.history_turns = static_cast<int>(request.history.size());
        if (reply.citations.is_array()) {
            for (const json& c : reply.citations) {
                if (!c.is_object()) continue;
                CitationInfo ci;
                ci.first_token = c.value("first_token", 0);
                ci.last_token = c.value("last_token", 0);
                ci.weight = c.value("weight", 0.0);
                ci.text = qstr(c.value("text", std::string()));
                ci.page = c.value("page", 0);
                st.citations.push_back(std::move(ci));
            }
        }
        emit answerFinished(st, SelectionSnapshot{});  // no kept positions from a remote engine
    } catch (const Cancelled&) {
        emit answerFailed(request.id, tr("Stopped before the answer started."));
    } catch (const std::exception& e) {
        emit answerFailed(request.id, qstr(e.what()));
    }
}

}  // namespace snapdoc::ui
