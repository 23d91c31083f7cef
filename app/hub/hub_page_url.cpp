#include "app/hub/hub_page_url.h"

#include <array>
#include <string>
#include <vector>

#include "app/hub/hub_endpoint.h"
#include "engine/common/error.h"

namespace snapdoc::hub {

namespace {

// The address without its scheme and host, if the host is the hub's; npos otherwise.
std::size_t path_start(std::string_view text) {
    for (const std::string_view scheme : {"https://", "http://"}) {
        if (text.rfind(scheme, 0) != 0) continue;
        std::string_view rest = text.substr(scheme.size());
        if (rest.rfind("www.", 0) == 0) rest.remove_prefix(4);
        for (const std::string_view host : {"huggingface.co", "hf.co"})
            if (rest.rfind(host, 0) == 0 && (rest.size() == host.size() || rest[host.size()] == '/'))
                return text.size() - rest.size() + host.size();
    }
    return std::string_view::npos;
}

// "%20" and the like in a file name as the browser shows it.
std::string percent_decoded(std::string_view s) {
    std::string out;
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::vector<std::string> segments(std::string_view path) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < path.size()) {
        const std::size_t j = std::min(path.find('/', i), path.size());
        if (j > i) out.push_back(percent_decoded(path.substr(i, j - i)));
        i = j + 1;
    }
    return out;
}

}  // namespace

bool is_hub_page_url(std::string_view text) {
    return path_start(text) != std::string_view::npos;
}

ModelRef parse_hub_page_url(std::string_view url) {
    const std::size_t start = path_start(url);
    if (start == std::string_view::npos) throw Error("'" + std::string(url) + "' is not a Hugging Face address");
    std::string_view path = url.substr(start);
    path = path.substr(0, std::min(path.find('?'), path.find('#')));
    const std::vector<std::string> seg = segments(path);
    const std::string shown = std::string(url);
    if (seg.size() < 2)
        throw Error("'" + shown + "' names no model: paste the model's page, https://huggingface.co/OWNER/NAME");
    ModelRef ref;
    ref.repo = seg[0] + "/" + seg[1];
    check_repo_id(ref.repo);
    if (seg.size() == 2) return ref;
    const std::string& kind = seg[2];
    const bool file_page = kind == "blob" || kind == "resolve";
    if ((kind != "tree" && !file_page) || seg.size() < 4 || (file_page && seg.size() < 5))
        throw Error("'" + shown + "' is a page of " + ref.repo + ", not a model or a file in it: paste https://huggingface.co/" +
                    ref.repo + " (or a file's page in it)");
    if (seg[3] != "main") ref.revision = seg[3];
    if (!ref.revision.empty()) check_repo_file_path(ref.revision);
    if (file_page) {
        for (std::size_t i = 4; i < seg.size(); ++i) ref.file += (i > 4 ? "/" : "") + seg[i];
        check_repo_file_path(ref.file);
    }
    return ref;
}

}  // namespace snapdoc::hub
