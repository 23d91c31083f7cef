// A repository's file listing from the hub's tree API (/api/models/{repo}/tree/{revision}): paths,
// sizes and LFS sha256, and the GGUF view of it that people choose from: one entry per
// quantization, with sharded files (name-00001-of-00003.gguf) grouped into one set. Parsing is
// pure (tested on its own); fetch_repo_tree does the HTTP request.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/hub/hub_endpoint.h"
#include "engine/model/gguf_split.h"

namespace snapdoc::hub {

struct RemoteFile {
    std::string path;        // inside the repository, e.g. "qwen2.5-0.5b-instruct-q4_k_m.gguf"
    int64_t size_bytes = 0;  // the real file's size (the LFS object's size for LFS files)
    std::string sha256;      // lowercase hex of the LFS object; empty for small non-LFS files
};

// "dir/model-Q4_K_M-00002-of-00005.gguf" -> {prefix "dir/model-Q4_K_M", index 2, count 5}: the
// engine's shard-name rule (engine/model/gguf_split.h) applied to a repository path.
using ShardName = GgufShardName;
std::optional<ShardName> parse_shard_name(std::string_view file_name);

// The quantization named in a GGUF file name, upper-case: "Q4_K_M", "Q8_0", "IQ4_XS", "F16",
// "BF16", "Q4_0_4_4"...; "" when the name carries none. Matched case-insensitively as a token
// separated by '-', '_' or '.' (so "qwen2.5-0.5b-instruct-q4_k_m.gguf" -> "Q4_K_M").
std::string quant_from_file_name(std::string_view file_name);

// One choice in a repository: a single .gguf, or a complete shard set (in index order).
struct GgufChoice {
    std::string quant;              // from the (first) file name; "" if unknown
    std::vector<RemoteFile> files;  // 1 file, or shards 1..N
    bool complete = true;           // false when some shards of the set are missing from the listing
    int64_t total_bytes() const;
    const std::string& first_path() const { return files.front().path; }  // what the loader opens
};

// The .gguf files of a listing as choices (sorted by total size, smallest first). Files under
// paths containing "mmproj" (vision projectors) are left out: they are not chat models.
std::vector<GgufChoice> gguf_choices(const std::vector<RemoteFile>& files);

// The choice for `quant` (case-insensitive; "" = the default: Q4_K_M, else Q4_0, else the smallest
// file of 8 bits or fewer, else the smallest). Throws Error naming the repo and the quants it has.
const GgufChoice& pick_choice(const std::vector<GgufChoice>& choices, std::string_view quant,
                              std::string_view repo);
// The choice containing `file_path` (a single file or any shard of a set); throws Error if absent.
const GgufChoice& choice_for_file(const std::vector<GgufChoice>& choices, std::string_view file_path,
                                  std::string_view repo);

// Parses one page of the tree API's JSON array (entries of type "file"; "directory" entries are
// skipped). Throws FormatError("hub tree listing for REPO: ...") on anything malformed.
std::vector<RemoteFile> parse_tree_json(std::string_view body, std::string_view repo);

// GET the listing (recursive, following the `Link: <...>; rel="next"` pages the hub sends for big
// repos). Blocking; call it from a worker thread in a GUI. Throws Error in words: 401/403 (needs a
// token or accepting the licence on the model page, with its URL), 404 (no such repo or revision),
// network failures. `cancel` (optional) aborts within ~100 ms and throws Cancelled.
std::vector<RemoteFile> fetch_repo_tree(const HubEndpoint& ep, std::string_view repo,
                                        std::string_view revision = kDefaultRevision,
                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace snapdoc::hub
