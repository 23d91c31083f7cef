// Progress for long prefills (issue 40 item 2): GET /v1/documents/{id}/events streams a document's
// prefill as server-sent events (progress, ": ping" comments whenever nothing else was written for
// --sse-ping-ms, then ready), only to the document's own key; a streamed chat with
// "return_progress": true carries llama-server's prompt_progress {total, cache, processed,
// time_ms} chunks before its first token. Loopback only; every read bounded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <sstream>

#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> bearer(const std::string& key) {
    return {{"Authorization", "Bearer " + key}};
}

class ServerProgress : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

// An event stream read to its end (bounded by the client's read timeout): its text and the
// longest time between two pieces of it.
struct EventStream {
    int status = 0;
    std::string text;
    double longest_gap_s = 0;
};

EventStream read_events(int port, const std::string& path, const std::string& key) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(60, 0);
    EventStream out;
    auto last = Clock::now();
    auto r = c.Get(path, {{"Authorization", "Bearer " + key}}, [&](const char* data, std::size_t n) {
        const auto now = Clock::now();
        out.longest_gap_s = std::max(out.longest_gap_s, std::chrono::duration<double>(now - last).count());
        last = now;
        out.text.append(data, n);
        return out.text.size() < (4u << 20);
    });
    out.status = r ? r->status : 0;
    return out;
}

// The SSE "data:" payloads of a stream that are JSON objects.
std::vector<json> data_objects(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("data: {", 0) == 0) out.push_back(json::parse(line.substr(6), nullptr, false));
    return out;
}

TEST_F(ServerProgress, DocumentEventsStreamTheDocumentsPrefillToItsOwnKeyOnly) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--sse-ping-ms", "100", "--api-key", "key-a",
                     "--api-key", "key-b"});
    std::string text;
    for (int i = 0; i < 3; ++i) text += demo_report() + "\n\n";
    const Reply up = http_post(s.port(), "/v1/documents", json{{"text", text}}.dump(), bearer("key-a"));
    ASSERT_EQ(up.status, 202) << up.body;
    const std::string id = up.json()["id"];

    EXPECT_EQ(read_events(s.port(), "/v1/documents/" + id + "/events", "key-b").status, 404);
    EXPECT_EQ(read_events(s.port(), "/v1/documents/no-such-doc/events", "key-a").status, 404);

    const EventStream ev = read_events(s.port(), "/v1/documents/" + id + "/events", "key-a");
    ASSERT_EQ(ev.status, 200) << ev.text;
    // It ends with the ready document, and nothing after it.
    const auto ready = ev.text.rfind("event: ready\n");
    ASSERT_NE(ready, std::string::npos) << ev.text;
    const std::vector<json> objects = data_objects(ev.text.substr(ready));
    ASSERT_EQ(objects.size(), 1u) << ev.text;
    EXPECT_EQ(objects[0]["status"], "ready");
    EXPECT_EQ(objects[0]["id"], id);
    EXPECT_GT(objects[0]["tokens"].get<int>(), 1000);
    // Before it, progress events (queued or prefilling, progress non-decreasing) and pings: the
    // connection was never silent for much longer than --sse-ping-ms (slack for a loaded machine).
    double last_progress = -1;
    for (const json& o : data_objects(ev.text.substr(0, ready))) {
        EXPECT_TRUE(o["status"] == "queued" || o["status"] == "prefilling") << o;
        EXPECT_GE(o["progress"].get<double>(), last_progress) << ev.text;
        last_progress = o["progress"].get<double>();
    }
    EXPECT_LT(ev.longest_gap_s, 2.0) << ev.text;
    // A document already ready answers at once with its one event.
    const EventStream again = read_events(s.port(), "/v1/documents/" + id + "/events", "key-a");
    EXPECT_EQ(again.text.rfind("event: ready\n", 0), 0u) << again.text;
}

TEST_F(ServerProgress, DocumentEventsPingWhileTheDocumentWaits) {
    // The document waits behind a long answer (one engine): its status stays "queued", so after
    // the first progress event only pings are written until the prefill starts.
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--sse-ping-ms", "100"});
    json busy = chat_body("Tell a long story.", 1500);
    busy["ignore_eos"] = true;
    std::thread hold([&] { (void)post_json(s.port(), "/v1/chat/completions", busy); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the story has started
    const Reply up = post_json(s.port(), "/v1/documents", {{"text", demo_report()}});
    ASSERT_EQ(up.status, 202) << up.body;
    const EventStream ev = read_events(s.port(), "/v1/documents/" + up.json()["id"].get<std::string>() + "/events", "");
    hold.join();
    ASSERT_EQ(ev.status, 200);
    EXPECT_NE(ev.text.find("\"status\":\"queued\""), std::string::npos) << ev.text;
    EXPECT_NE(ev.text.find(": ping\n\n"), std::string::npos) << ev.text;
    EXPECT_NE(ev.text.find("event: ready\n"), std::string::npos) << ev.text;
}

TEST_F(ServerProgress, StreamedChatWithReturnProgressCarriesPromptProgressBeforeItsFirstToken) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    json body = chat_body(demo_report() + "\n\nQuestion: What was the total revenue?", 4, /*stream=*/true);
    body["return_progress"] = true;
    body["stream_options"] = {{"include_usage", true}};
    for (int round = 0; round < 2; ++round) {
        const Reply r = post_json(s.port(), "/v1/chat/completions", body);
        ASSERT_EQ(r.status, 200) << r.body;
        const std::vector<json> chunks = data_objects(r.body);
        std::vector<json> progress;
        bool text_seen = false;
        int prompt_tokens = -1;
        for (const json& c : chunks) {
            if (c.contains("prompt_progress")) {
                EXPECT_FALSE(text_seen) << "progress after the first token: " << c;
                EXPECT_EQ(c["object"], "chat.completion.chunk");
                EXPECT_EQ(c["choices"][0]["delta"], json::object());
                progress.push_back(c["prompt_progress"]);
            } else if (!c["choices"].empty() && c["choices"][0]["delta"].contains("content")) {
                text_seen = true;
            }
            if (c.contains("usage") && c["usage"].is_object()) prompt_tokens = c["usage"]["prompt_tokens"];
        }
        ASSERT_GE(progress.size(), 2u) << r.body;
        EXPECT_EQ(progress.front()["processed"], 0);
        int last = -1;
        for (const json& p : progress) {
            for (const char* k : {"total", "cache", "processed", "time_ms"}) ASSERT_TRUE(p.contains(k)) << p;
            EXPECT_GE(p["processed"].get<int>(), last);
            EXPECT_LE(p["processed"].get<int>(), p["total"].get<int>());
            last = p["processed"];
        }
        EXPECT_EQ(progress.back()["processed"], progress.back()["total"]);
        EXPECT_EQ(progress.back()["total"].get<int>(), prompt_tokens) << r.body;
        // The second time the held document part is reused: llama-server's "cache".
        if (round == 0) EXPECT_EQ(progress.back()["cache"], 0) << r.body;
        if (round == 1) EXPECT_GT(progress.back()["cache"].get<int>(), 100) << r.body;
    }
    // Without return_progress (or without stream) nothing changes.
    body.erase("return_progress");
    EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", body).body.find("prompt_progress"), std::string::npos);
}

}  // namespace
}  // namespace snapdoc::test
