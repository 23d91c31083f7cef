#include "app/remote/remote_chat.h"

#include "app/remote/remote_http.h"
#include "app/remote/sse_reader.h"
#include "engine/common/error.h"
#include "engine/common/message_text.h"

namespace snapdoc::remote {

namespace {

using json = nlohmann::json;

json request_body(const RemoteChatRequest& req) {
    json body = {{"model", req.model},
                 {"messages", req.messages},
                 {"max_tokens", req.max_tokens},
                 {"stream", true},
                 {"stream_options", {{"include_usage", true}}}};
    if (req.temperature) body["temperature"] = *req.temperature;
    if (req.top_p) body["top_p"] = *req.top_p;
    if (req.top_k) body["top_k"] = *req.top_k;
    if (req.seed) body["seed"] = *req.seed;
    if (!req.document_id.empty()) body["document_id"] = req.document_id;
    if (!req.document_ids.empty()) body["document_ids"] = req.document_ids;
    return body;
}

}  // namespace

RemoteChatReply stream_chat(const RemoteEndpoint& ep, const RemoteChatRequest& req,
                            const std::function<void(const std::string&)>& on_text,
                            const std::atomic<bool>* cancel) {
    const std::string url = ep.v1("/chat/completions");
    RemoteChatReply out;
    bool done = false;
    SseReader sse;
    const auto on_event = [&](const std::string& data) {
        if (done) return;
        if (data == "[DONE]") {
            done = true;
            return;
        }
        const json chunk = json::parse(data, nullptr, false);
        if (!chunk.is_object())
            throw Error(url + ": the server streamed something that is not JSON: " + printable_excerpt(data));
        // vLLM and llama-server report a failure during generation as a chunk with an error object.
        if (chunk.contains("error") || (chunk.value("object", "") == "error"))
            throw Error(url + ": the server stopped with an error: " + server_error_text(data));
        if (const auto c = chunk.find("citations"); c != chunk.end() && c->is_array()) out.citations = *c;
        if (const auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) out.usage = *u;
        const auto choices = chunk.find("choices");
        if (choices == chunk.end() || !choices->is_array() || choices->empty()) return;
        const json& choice = (*choices)[0];
        if (const auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
            if (const auto t = d->find("content"); t != d->end() && t->is_string() && !t->get_ref<const std::string&>().empty()) {
                out.text += t->get_ref<const std::string&>();
                if (on_text) on_text(t->get_ref<const std::string&>());
            }
        }
        if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
            out.finish_reason = f->get<std::string>();
    };
    HttpReply reply;
    try {
        reply = http_post_stream(
            ep, url, request_body(req),
            [&](std::string_view bytes) {
                sse.feed(bytes, on_event);
                return !done;
            },
            cancel);
    } catch (const Cancelled&) {
        // Ctrl-C: the answer so far is kept, as a local ask keeps it.
        out.finish_reason = "cancelled";
        return out;
    }
    if (!reply.ok()) throw_http_error(url, reply, !ep.api_key.empty());
    if (!done) sse.finish(on_event);
    // Some engines end without [DONE]; the final chunk's finish_reason says the answer is whole.
    if (!done && out.finish_reason.empty())
        throw Error(url + ": the server closed the stream before the answer ended (" +
                    std::to_string(out.text.size()) + " bytes of answer received)");
    return out;
}

}  // namespace snapdoc::remote
