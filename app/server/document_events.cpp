#include "app/server/document_events.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

namespace snapdoc::server {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(100);

std::string event(const char* name, const nlohmann::json& data) {
    return std::string("event: ") + name + "\ndata: " + data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n\n";
}

struct EventsState {
    std::string status;
    double progress = -1;
    Clock::time_point last_write = Clock::now();
};

}  // namespace

void stream_document_events(httplib::Response& res, const DocumentRegistry& documents, const std::string& id,
                            const std::string& owner, int ping_ms, const std::atomic<bool>& stopping) {
    auto state = std::make_shared<EventsState>();
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [&documents, &stopping, id, owner, ping_ms, state](std::size_t, httplib::DataSink& sink) {
            const auto write = [&](const std::string& s) {
                state->last_write = Clock::now();
                return sink.write(s.data(), s.size());
            };
            const auto doc = documents.get(id, owner);
            if (!doc) {
                nlohmann::json gone = {{"id", id}, {"object", "document"}, {"status", "failed"}, {"error", "deleted"}};
                if (!write(event("failed", gone))) return false;
                sink.done();
                return true;
            }
            if (doc->status == "ready" || doc->status == "failed") {
                if (!write(event(doc->status.c_str(), document_json(*doc)))) return false;
                sink.done();
                return true;
            }
            // A change of a hundredth or more is worth an event; finer steps only cost bytes.
            if (doc->status != state->status || std::abs(doc->progress - state->progress) >= 0.01) {
                state->status = doc->status;
                state->progress = doc->progress;
                return write(event("progress", document_json(*doc)));
            }
            if (stopping.load()) return false;
            if (Clock::now() - state->last_write >= std::chrono::milliseconds(ping_ms)) return write(": ping\n\n");
            std::this_thread::sleep_for(kPoll);
            return true;
        });
}

}  // namespace snapdoc::server
