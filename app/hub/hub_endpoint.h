// Where the Hugging Face hub is and who we are to it: the endpoint URL (a mirror, or the local test
// hub) and the access token for gated repositories, plus the URLs built from them. Qt-free; shared
// by snapdoc-cli and the app.
#pragma once

#include <string>
#include <string_view>

namespace snapdoc::hub {

inline constexpr std::string_view kDefaultEndpoint = "https://huggingface.co";
inline constexpr std::string_view kDefaultRevision = "main";

struct HubEndpoint {
    std::string base_url = std::string(kDefaultEndpoint);  // scheme://host[:port][/prefix], no trailing '/'
    std::string token;                                     // empty: anonymous requests
};

// The endpoint: `endpoint_flag` if not empty, else $HF_ENDPOINT, else https://huggingface.co.
// The token: `token_flag` if not empty (the app passes its Settings value), else $HF_TOKEN.
// A trailing '/' is dropped; an endpoint that is not http:// or https:// throws Error.
HubEndpoint resolve_endpoint(std::string_view endpoint_flag = {}, std::string_view token_flag = {});

// "owner/name" (letters, digits, '-', '_', '.'; no "..", no leading/trailing '.' or '-'); else
// throws Error naming the text. Repository ids end up in paths under the models folder.
void check_repo_id(std::string_view repo);
// A file path inside a repository ("a.gguf", "sub/b.gguf"): relative, no "." or ".." parts, no
// backslash or NUL; else throws Error. Also guards the models folder against "../" from a server.
void check_repo_file_path(std::string_view path);

// {base}/{repo}/resolve/{revision}/{file} (file path segments percent-encoded).
std::string resolve_url(const HubEndpoint& ep, std::string_view repo, std::string_view revision,
                        std::string_view file);
// {base}/api/models/{repo}/tree/{revision}?recursive=true
std::string tree_url(const HubEndpoint& ep, std::string_view repo, std::string_view revision);
// {base}/{repo}: the model page, named in "needs a token / accept the licence" messages.
std::string repo_page_url(const HubEndpoint& ep, std::string_view repo);

}  // namespace snapdoc::hub
