// Split GGUF sets as llama.cpp's gguf-split writes them: `PREFIX-00001-of-00003.gguf`, ...; every
// shard carries `split.no` (0-based) and `split.count`, the first also `split.tensors.count` and
// all of the model's metadata; the tensors are spread over the shards. A GgufSet is one file, or
// the whole set of the shard it was opened from (its siblings are found by name beside it), with
// one tensor index over all shards, so the loader reads a split model as one.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/model/gguf_file.h"

namespace snapdoc {

// "model-00002-of-00003.gguf" -> {prefix "model", index 2, count 3}; nullopt for other names.
struct GgufShardName {
    std::string prefix;
    int index = 0;  // 1-based, as in the name
    int count = 0;
};
std::optional<GgufShardName> parse_gguf_shard_name(std::string_view file_name);
// llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf".
std::string gguf_shard_file_name(std::string_view prefix, int index, int count);

class GgufSet {
public:
    // A plain GGUF (no split.count, or 1) is a set of one. A shard opens its whole set, from the
    // first shard whichever one was named. Throws FormatError naming the set and the shard for a
    // missing shard, a shard of another set (split.count / split.no disagree with its name), a
    // tensor count that differs from split.tensors.count, or a tensor in two shards.
    static GgufSet open(std::shared_ptr<const MappedFile> file);
    // Move-only: the tensor index points into the shards.
    GgufSet(GgufSet&&) = default;
    GgufSet& operator=(GgufSet&&) = default;
    GgufSet(const GgufSet&) = delete;
    GgufSet& operator=(const GgufSet&) = delete;

    const GgufFile& metadata() const { return shards_.front(); }  // the first shard
    const std::vector<GgufFile>& shards() const { return shards_; }
    bool is_split() const { return shards_.size() > 1; }

    struct Tensor {
        const GgufFile* file = nullptr;
        const GgufFile::TensorInfo* info = nullptr;
        TensorView view() const { return file->tensor_view(*info); }
    };
    const Tensor* find_tensor(std::string_view name) const;  // null if absent
    std::vector<std::string> tensor_names() const;           // shard by shard, in file order

private:
    GgufSet() = default;
    void index_tensors();

    std::vector<GgufFile> shards_;
    std::unordered_map<std::string, Tensor> tensors_;
};

// Every file of the model at `path`: the path itself, or all shards of its split set (by name; for
// identities and sizes, not a check of the set).
std::vector<std::filesystem::path> gguf_model_files(const std::filesystem::path& path);

}  // namespace snapdoc
