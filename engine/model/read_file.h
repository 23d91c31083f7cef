// Reading small side files of a model (config.json, tokenizer.model, index JSON) in one piece.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace snapdoc {

// Whole contents of `path`. Throws FormatError naming the file when it cannot be read, is not a
// regular file, or is larger than `max_bytes` (side files are small; a huge one is a mistake).
std::string read_small_file(const std::filesystem::path& path, std::size_t max_bytes = std::size_t{64} << 20);

}  // namespace snapdoc
