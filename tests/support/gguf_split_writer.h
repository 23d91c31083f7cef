// Writes a GGUF as a split set the way llama.cpp's gguf-split does (--split-max-tensors): the
// tensors in order over `count` shards `PREFIX-0000i-of-0000N.gguf`, all metadata in the first
// shard with split.no / split.count / split.tensors.count, only the split.* keys in the others.
// Tests compare a model loaded from the shards with the unsplit file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc::testing {

// Returns the shard paths in order. Throws when `count` is more than the tensors.
std::vector<std::filesystem::path> write_gguf_split(const std::filesystem::path& src,
                                                    const std::filesystem::path& dir, const std::string& prefix,
                                                    int count);

}  // namespace snapdoc::testing
