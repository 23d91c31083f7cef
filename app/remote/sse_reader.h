// Server-sent events as OpenAI-compatible servers stream them: "data: {json}" lines, an event ending
// at a blank line, "data: [DONE]" at the end, ":" comment lines as keep-alive pings. Bytes arrive
// in arbitrary pieces; each complete event's data (its data lines joined by '\n') is handed on.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace snapdoc::remote {

class SseReader {
public:
    // Calls on_data for every event with data, in order. Lines end in \n, \r\n or \r.
    void feed(std::string_view bytes, const std::function<void(const std::string& data)>& on_data);
    // What an unterminated last event held, for a stream that ended without its blank line.
    void finish(const std::function<void(const std::string& data)>& on_data);

private:
    void line(std::string_view l, const std::function<void(const std::string&)>& on_data);

    std::string partial_;  // an incomplete line
    std::string data_;     // the event's data so far
    bool has_data_ = false;
    bool last_was_cr_ = false;
};

}  // namespace snapdoc::remote
