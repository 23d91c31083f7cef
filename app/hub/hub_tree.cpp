#include "app/hub/hub_tree.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "app/hub/http_request.h"
#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/model/gguf_split.h"

namespace snapdoc::hub {

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
    return out;
}

std::string_view base_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool ends_with_gguf(std::string_view name) {
    return name.size() > 5 && upper(name.substr(name.size() - 5)) == ".GGUF";
}

// Quantization names as llama.cpp's quantize tool and the usual GGUF publishers spell them.
bool is_quant_token(const std::string& t) {
    static const char* kExact[] = {"F32", "F16", "BF16", "FP16", "FP32"};
    for (const char* q : kExact)
        if (t == q) return true;
    // Q2_K, Q3_K_S, Q4_K_M, Q4_0, Q5_1, Q8_0, Q6_K, IQ2_XXS, IQ4_NL, IQ4_XS, TQ1_0, Q4_0_4_4 ...
    std::size_t i = 0;
    if (t.rfind("IQ", 0) == 0 || t.rfind("TQ", 0) == 0)
        i = 2;
    else if (t.rfind("Q", 0) == 0)
        i = 1;
    else
        return false;
    if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i]))) return false;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    return i == t.size() || t[i] == '_';
}

}  // namespace

std::optional<ShardName> parse_shard_name(std::string_view file_name) {
    // The loader's own rule (5-digit fields, as llama.cpp's gguf-split writes them), so every set
    // offered here is one the loader can open; only a repository path's directory joins the prefix.
    const std::string_view name = base_name(file_name);
    auto shard = parse_gguf_shard_name(name);
    if (!shard) return std::nullopt;
    shard->prefix = std::string(file_name.substr(0, file_name.size() - name.size())) + shard->prefix;
    return shard;
}

std::string quant_from_file_name(std::string_view file_name) {
    std::string name = upper(base_name(file_name));
    if (ends_with_gguf(name)) name.resize(name.size() - 5);
    if (const auto shard = parse_shard_name(std::string(file_name))) {
        name = upper(base_name(shard->prefix));
    }
    // Tokens split on '-' and '.', from the last: the quant is usually the final one. Inside a
    // token, a suffix starting after '_' counts too ("MODEL_Q4_K_M"); the longest wins.
    std::vector<std::string> tokens;
    std::string cur;
    for (char c : name) {
        if (c == '-' || c == '.') {
            tokens.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    tokens.push_back(cur);
    for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
        const std::string& t = *it;
        for (std::size_t start = 0; start < t.size(); start = t.find('_', start) + 1) {
            if (is_quant_token(t.substr(start))) return t.substr(start);
            if (t.find('_', start) == std::string::npos) break;
        }
    }
    return "";
}

int64_t GgufChoice::total_bytes() const {
    int64_t n = 0;
    for (const auto& f : files) n += f.size_bytes;
    return n;
}

std::vector<GgufChoice> gguf_choices(const std::vector<RemoteFile>& files) {
    std::vector<GgufChoice> out;
    std::map<std::string, std::vector<std::pair<ShardName, RemoteFile>>> sets;
    for (const auto& f : files) {
        if (!ends_with_gguf(f.path)) continue;
        std::string lower(f.path);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        if (lower.find("mmproj") != std::string::npos) continue;
        if (auto shard = parse_shard_name(f.path)) {
            const std::string key = shard->prefix + "/" + std::to_string(shard->count);
            sets[key].push_back({*shard, f});
            continue;
        }
        out.push_back(GgufChoice{quant_from_file_name(f.path), {f}, true});
    }
    for (auto& [key, shards] : sets) {
        std::sort(shards.begin(), shards.end(),
                  [](const auto& a, const auto& b) { return a.first.index < b.first.index; });
        GgufChoice c;
        c.quant = quant_from_file_name(shards.front().second.path);
        int expect = 1;
        for (auto& [s, f] : shards) {
            if (s.index != expect) c.complete = false;
            expect = s.index + 1;
            c.files.push_back(f);
        }
        if (static_cast<int>(shards.size()) != shards.front().first.count || shards.front().first.index != 1)
            c.complete = false;
        out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(), [](const GgufChoice& a, const GgufChoice& b) {
        return a.total_bytes() != b.total_bytes() ? a.total_bytes() < b.total_bytes()
                                                  : a.first_path() < b.first_path();
    });
    return out;
}

namespace {

bool low_bit(const std::string& q) {
    if (q.empty()) return false;
    if (q.rfind("IQ", 0) == 0 || q.rfind("TQ", 0) == 0) return true;
    return q[0] == 'Q' && q.size() > 1 && q[1] >= '1' && q[1] <= '8';
}

std::string available_quants(const std::vector<GgufChoice>& choices) {
    std::string list;
    for (const auto& c : choices) {
        if (!list.empty()) list += ", ";
        list += c.quant.empty() ? c.first_path() : c.quant;
    }
    return list.empty() ? "none" : list;
}

}  // namespace

const GgufChoice& pick_choice(const std::vector<GgufChoice>& choices, std::string_view quant,
                              std::string_view repo) {
    if (choices.empty()) throw Error(std::string(repo) + " has no .gguf files");
    if (!quant.empty()) {
        const std::string want = upper(quant);
        for (const auto& c : choices)
            if (c.quant == want && c.complete) return c;
        throw Error(std::string(repo) + " has no complete " + want +
                    " GGUF; it has: " + available_quants(choices));
    }
    for (const char* pref : {"Q4_K_M", "Q4_0"})
        for (const auto& c : choices)
            if (c.quant == pref && c.complete) return c;
    for (const auto& c : choices)  // sorted smallest first
        if (c.complete && low_bit(c.quant)) return c;
    for (const auto& c : choices)
        if (c.complete) return c;
    throw Error(std::string(repo) + " has only incomplete shard sets: " + available_quants(choices));
}

const GgufChoice& choice_for_file(const std::vector<GgufChoice>& choices, std::string_view file_path,
                                  std::string_view repo) {
    for (const auto& c : choices)
        for (const auto& f : c.files)
            if (f.path == file_path) return c;
    throw Error(std::string(repo) + " has no GGUF file '" + std::string(file_path) + "'");
}

std::vector<RemoteFile> parse_tree_json(std::string_view body, std::string_view repo) {
    const std::string where = "hub tree listing for " + std::string(repo) + ": ";
    const nlohmann::json j = parse_json_input(body, where);
    if (!j.is_array()) throw FormatError(where + "expected a JSON array of entries");
    std::vector<RemoteFile> out;
    for (const auto& e : j) {
        if (!e.is_object() || !e.contains("type") || !e["type"].is_string() || !e.contains("path") ||
            !e["path"].is_string())
            throw FormatError(where + "an entry lacks a string 'type' or 'path'");
        if (e["type"] != "file") continue;
        RemoteFile f;
        f.path = e["path"].get<std::string>();
        try {
            check_repo_file_path(f.path);
        } catch (const Error& err) {
            throw FormatError(where + err.what());
        }
        const nlohmann::json* size = e.contains("size") ? &e["size"] : nullptr;
        if (e.contains("lfs") && e["lfs"].is_object()) {
            const auto& lfs = e["lfs"];
            if (lfs.contains("size")) size = &lfs["size"];
            if (lfs.contains("oid") && lfs["oid"].is_string()) f.sha256 = lfs["oid"].get<std::string>();
            const bool hex64 =
                f.sha256.size() == 64 && std::all_of(f.sha256.begin(), f.sha256.end(), [](char c) {
                    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                });
            if (!hex64) throw FormatError(where + f.path + ": lfs.oid is not a lowercase sha256 hex");
        }
        if (!size || !size->is_number_integer() || size->get<int64_t>() < 0)
            throw FormatError(where + f.path + ": missing or invalid 'size'");
        f.size_bytes = size->get<int64_t>();
        out.push_back(std::move(f));
    }
    return out;
}

namespace {

// `Link: <https://huggingface.co/api/models/x/y/tree/main?cursor=...>; rel="next"`
std::string next_page_url(const std::string& link) {
    const auto rel = link.find("rel=\"next\"");
    if (rel == std::string::npos) return "";
    const auto close = link.rfind('>', rel);
    const auto open = close == std::string::npos ? std::string::npos : link.rfind('<', close);
    return open == std::string::npos ? "" : link.substr(open + 1, close - open - 1);
}

}  // namespace

std::vector<RemoteFile> fetch_repo_tree(const HubEndpoint& ep, std::string_view repo,
                                        std::string_view revision, const std::atomic<bool>* cancel) {
    check_repo_id(repo);
    const std::string what = "listing " + std::string(repo) + " at " + std::string(revision);
    std::vector<RemoteFile> all;
    std::string url = tree_url(ep, repo, revision);
    // Bounded: the hub pages 1,000 entries at a time; 100 pages is far beyond any model repo.
    for (int page = 0; !url.empty(); ++page) {
        if (page == 100) throw Error(what + ": more than 100 pages of files");
        // A next page on another origin (a listing can name any host) is still read, but without
        // the token: apply_common_options sends it only to the endpoint's own origin.
        const HttpResponse r = http_get(url, ep, what, int64_t{64} << 20, cancel);
        if (r.status != 200) throw Error(http_status_message(r.status, ep, repo, what));
        auto files = parse_tree_json(r.body, repo);
        all.insert(all.end(), std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
        url = next_page_url(r.headers.get("link"));
    }
    return all;
}

}  // namespace snapdoc::hub
