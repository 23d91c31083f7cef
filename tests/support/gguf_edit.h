// Copies a GGUF file while editing it (rename/drop/change metadata, retype/reshape/drop tensors),
// so tests can derive variants of a valid model: a mistral-prefixed copy, a missing key, a Q4_K
// tensor... The copy is written by GgufWriter, so it is itself well-formed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/model/gguf_types.h"

namespace snapdoc::testing {

struct GgufEdit {
    // Called for every metadata pair; may change both; return false to drop it.
    std::function<bool(std::string& key, GgufMetaValue& value)> meta;
    // Called for every tensor (shape outermost first); may change anything; return false to drop it.
    std::function<bool(std::string& name, std::vector<int64_t>& shape, uint32_t& ggml_type, std::vector<uint8_t>& bytes)>
        tensor;
    // Appended after the copied metadata.
    std::vector<std::pair<std::string, GgufMetaValue>> add_meta;
};

void rewrite_gguf(const std::filesystem::path& src, const std::filesystem::path& dst, const GgufEdit& edit);

// The whole file as bytes (for in-memory truncation / corruption tests).
std::string read_file_bytes(const std::filesystem::path& path);

}  // namespace snapdoc::testing
