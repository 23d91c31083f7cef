// The OpenAI response bodies: chat.completion / text_completion objects, their streamed chunks,
// usage (with the snapkv extension: reused, compressed and kept counts) and the SSE framing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/server/job.h"

namespace snapdoc::server {

enum class Endpoint { Chat, Completion };

// Identity of one response: every chunk of a stream carries the same id, created and model.
struct ResponseMeta {
    Endpoint endpoint = Endpoint::Chat;
    std::string id;
    int64_t created = 0;
    std::string model;
};
ResponseMeta new_response_meta(Endpoint endpoint, std::string model);

nlohmann::json usage_json(const Outcome& o);
// The whole answer (stream: false).
nlohmann::json completion_json(const ResponseMeta& meta, const std::string& text, const Outcome& o);
// A streamed chunk: the first of a chat carries the role; `finish_reason` null until the last.
nlohmann::json delta_chunk(const ResponseMeta& meta, const std::string& text, bool first);
nlohmann::json final_chunk(const ResponseMeta& meta, const Outcome& o);
// return_progress (llama-server's extension): a chunk with an empty delta and `prompt_progress`.
nlohmann::json progress_chunk(const ResponseMeta& meta, const nlohmann::json& prompt_progress);
// stream_options.include_usage: the last chunk before [DONE], with empty choices.
nlohmann::json usage_chunk(const ResponseMeta& meta, const Outcome& o);

// "data: {json}\n\n"
std::string sse_data(const nlohmann::json& j);
inline constexpr const char* kSseDone = "data: [DONE]\n\n";

}  // namespace snapdoc::server
