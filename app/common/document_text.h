// Reading a plain-text document from disk with clear refusals: missing, a directory, empty, binary
// (NUL bytes), not UTF-8 (with the offset of the first bad byte), or larger than the limit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace snapdoc {

inline constexpr int64_t kMaxDocumentBytes = int64_t{64} << 20;

std::string read_document_text(const std::filesystem::path& path, int64_t max_bytes = kMaxDocumentBytes);

// Throws Error naming `what` when `text` is empty, contains NUL bytes or is not valid UTF-8.
void check_document_text(const std::string& text, const std::string& what);

}  // namespace snapdoc
