// Recognised text kept with the document, so opening the same scan again does not OCR it again:
// one small JSON file per PDF content (SHA-256 of its bytes) and OCR language, in
// $XDG_CACHE_HOME/snapdoc/ocr (else ~/.cache/snapdoc/ocr). Written atomically (temporary file,
// then rename), so a full disk or a crash leaves the old state, never a partial file; a file that
// does not parse is ignored (the pages are recognised again and the file replaced).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace snapdoc::documents {

// $XDG_CACHE_HOME/snapdoc/ocr, else $HOME/.cache/snapdoc/ocr; "" when neither is set.
std::filesystem::path default_ocr_cache_dir();

// The cache file for a PDF's bytes read in `language`, inside `dir`.
std::filesystem::path ocr_cache_file(const std::filesystem::path& dir, std::string_view pdf_bytes,
                                     const std::string& language);

// Page index (0-based) -> recognised text, for every page that was OCR'd; nullopt when absent or unusable.
std::optional<std::map<int, std::string>> load_ocr_cache(const std::filesystem::path& file, const std::string& language);

// Writes the pages; a failure (no space, no permission) leaves no file behind and is returned as
// its message ("" on success): the text itself was read, only caching it failed.
std::string store_ocr_cache(const std::filesystem::path& file, const std::string& language,
                            const std::map<int, std::string>& pages);

}  // namespace snapdoc::documents
