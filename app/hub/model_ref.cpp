#include "app/hub/model_ref.h"

#include "app/hub/hub_endpoint.h"
#include "app/hub/hub_page_url.h"
#include "engine/common/error.h"

namespace snapdoc::hub {

bool is_hf_uri(std::string_view text) {
    return text.rfind(kHfScheme, 0) == 0;
}

std::string ModelRef::to_string() const {
    std::string s = repo;
    if (!revision.empty()) s += "@" + revision;
    if (!file.empty()) return s + " " + file;
    if (!quant.empty()) s += ":" + quant;
    return s;
}

ModelRef parse_model_ref(std::string_view text) {
    if (is_hub_page_url(text)) return parse_hub_page_url(text);  // pasted from the browser
    if (is_hf_uri(text)) text.remove_prefix(kHfScheme.size());
    ModelRef ref;
    // The quant follows the last ':' (repo ids never contain one).
    if (const auto colon = text.find(':'); colon != std::string_view::npos) {
        ref.quant = std::string(text.substr(colon + 1));
        text = text.substr(0, colon);
        if (ref.quant.empty()) throw Error("'" + std::string(text) + ":' names no quantization after ':'");
    }
    if (const auto at = text.find('@'); at != std::string_view::npos) {
        ref.revision = std::string(text.substr(at + 1));
        text = text.substr(0, at);
        if (ref.revision.empty()) throw Error("'" + std::string(text) + "@' names no revision after '@'");
        check_repo_file_path(ref.revision);  // "refs/pr/1" is fine, ".." is not
    }
    check_repo_id(text);
    ref.repo = std::string(text);
    return ref;
}

ModelRef parse_model_ref(std::string_view repo, std::string_view file) {
    ModelRef ref = parse_model_ref(repo);
    if (!ref.file.empty()) throw Error("'" + std::string(repo) + "' names a file already; give it alone");
    if (!ref.quant.empty())
        throw Error("give either REPO:QUANT or REPO FILE, not both ('" + std::string(repo) + "')");
    check_repo_file_path(file);
    ref.file = std::string(file);
    return ref;
}

}  // namespace snapdoc::hub
