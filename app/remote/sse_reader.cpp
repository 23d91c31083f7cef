#include "app/remote/sse_reader.h"

#include "engine/common/error.h"

namespace snapdoc::remote {

namespace {
constexpr std::size_t kMaxLineBytes = 16u << 20;  // one chunk; a server sending more is broken
}

void SseReader::line(std::string_view l, const std::function<void(const std::string&)>& on_data) {
    if (l.empty()) {  // end of the event
        if (has_data_) on_data(data_);
        data_.clear();
        has_data_ = false;
        return;
    }
    if (l.front() == ':') return;  // a comment (keep-alive)
    const std::size_t colon = l.find(':');
    const std::string_view field = l.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field != "data") return;  // event:, id:, retry: carry nothing we use
    if (has_data_) data_ += '\n';
    data_ += value;
    has_data_ = true;
}

void SseReader::feed(std::string_view bytes, const std::function<void(const std::string&)>& on_data) {
    for (char ch : bytes) {
        if (ch == '\n' && last_was_cr_) {  // the \n of a \r\n
            last_was_cr_ = false;
            continue;
        }
        last_was_cr_ = ch == '\r';
        if (ch == '\n' || ch == '\r') {
            const std::string l = std::move(partial_);
            partial_.clear();
            line(l, on_data);
            continue;
        }
        partial_ += ch;
        if (partial_.size() > kMaxLineBytes)
            throw Error("the server's event stream has a line longer than 16 MiB");
    }
}

void SseReader::finish(const std::function<void(const std::string&)>& on_data) {
    if (!partial_.empty()) {
        const std::string l = std::move(partial_);
        partial_.clear();
        line(l, on_data);
    }
    line({}, on_data);
}

}  // namespace snapdoc::remote
