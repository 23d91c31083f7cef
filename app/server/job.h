// One unit of engine work (a chat or completion request, or an explicit document's prefill), the
// settings resolved for it on the HTTP thread, and the channel its results travel back on. The
// engine worker is the only thread that runs a job; the HTTP thread that queued it reads events.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/kv/snapkv_config.h"
#include "engine/session/conversation.h"
#include "engine/session/sampler.h"
#include "engine/tokenizer/chat_template.h"

namespace snapdoc::server {

// What the answer's usage and extensions report.
struct Outcome {
    std::string finish_reason = "stop";  // "stop" | "length"
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int reused_tokens = 0;      // prompt tokens whose K/V were held already (RAM or the K/V cache file)
    int document_tokens = 0;    // the prompt's document part (held as a document session)
    int compressed_tokens = 0;  // prompt tokens SnapKV chose from (0 when the answer used full attention)
    int64_t kept_entries = 0, full_entries = 0;
    int64_t kv_bytes_full = 0, kv_bytes_compressed = 0;
    std::string session;  // "new", "ram", "kv-cache"
    nlohmann::json citations = nlohmann::json::array();
    double prompt_seconds = 0;  // from start of work to the first token (document load + tail + select)
};

struct JobEvent {
    enum class Kind { Text, Done, Failed, Progress };
    Kind kind = Kind::Text;
    std::string text;
    nlohmann::json progress;  // Progress: llama-server's prompt_progress {total, cache, processed, time_ms}
    Outcome outcome;
    int status = 500;  // Failed: the HTTP status and OpenAI error body
    nlohmann::json error;

    static JobEvent text_event(std::string t) {
        JobEvent e;
        e.text = std::move(t);
        return e;
    }
    static JobEvent done_event(Outcome o = {}) {
        JobEvent e;
        e.kind = Kind::Done;
        e.outcome = std::move(o);
        return e;
    }
    static JobEvent progress_event(nlohmann::json p) {
        JobEvent e;
        e.kind = Kind::Progress;
        e.progress = std::move(p);
        return e;
    }
    static JobEvent failed_event(int status, nlohmann::json error) {
        JobEvent e;
        e.kind = Kind::Failed;
        e.status = status;
        e.error = std::move(error);
        return e;
    }
};

class EventChannel {
public:
    void push(JobEvent e) {
        {
            std::lock_guard lock(mu_);
            events_.push_back(std::move(e));
        }
        cv_.notify_all();
    }
    // The next event, or nothing after `timeout`.
    std::optional<JobEvent> pop(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mu_);
        if (!cv_.wait_for(lock, timeout, [&] { return !events_.empty(); })) return std::nullopt;
        JobEvent e = std::move(events_.front());
        events_.pop_front();
        return e;
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<JobEvent> events_;
};

struct Job {
    enum class Kind { Chat, Completion, Document };
    Kind kind = Kind::Chat;

    // Chat / completion over an automatic document session: the rendered prompt and where its
    // turns begin (MessagePrompt; for a completion only ids and candidate split points).
    MessagePrompt prompt;
    // Chat over an explicit document (document_id): the question and earlier turns.
    std::string document_id;
    std::vector<std::string> document_ids;  // or several, in order ("document_ids"; then document_id is "")
    std::string question;
    std::vector<ChatTurn> history;

    int max_new_tokens = 256;
    bool ignore_eos = false;
    SamplingParams sampling;
    SnapKvConfig snapkv;
    std::optional<bool> snapkv_enabled;  // the request's choice; else by --snapkv-min-tokens
    std::vector<std::string> stop;

    // Who sent it (access_control.h): the owner of its key (documents and K/V cache files), and
    // the client whose held sessions it may reuse.
    std::string owner, scope;

    // Whom the fair queue counts it against (JobQueue): the request's "user" field, else its
    // Authorization header, else its remote address. Never logged.
    std::string client;

    // Streamed with return_progress: Progress events while the prompt is read, out of
    // `prompt_total` tokens (the whole prompt, document included).
    bool return_progress = false;
    int prompt_total = 0;

    std::atomic<bool> cancel{false};  // the client went away (or a stop string ended the answer)
    std::chrono::steady_clock::time_point started;  // when the worker took it (time to first token)
    EventChannel events;
};

}  // namespace snapdoc::server
