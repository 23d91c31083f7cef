// OpenAI `stop` strings over streamed text: text that might be the start of a stop string is held
// back until it is known not to be, so a client never sees any part of the stop string.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace snapdoc::server {

class StopMatcher {
public:
    explicit StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {}

    // Feeds generated text; returns what may be sent now. Once a stop string is seen, stopped()
    // is true and the text from the stop string on is dropped.
    std::string push(std::string_view text);
    // The held-back text at the end of generation (no stop string came).
    std::string flush();
    bool stopped() const { return stopped_; }

private:
    std::vector<std::string> stops_;
    std::string pending_;
    bool stopped_ = false;
};

}  // namespace snapdoc::server
