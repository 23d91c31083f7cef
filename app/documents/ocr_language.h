// Which Tesseract language OCR uses: the one asked for (checked to be installed, else an error
// that names the Debian package to install), or by default the system locale's language when its
// traineddata is installed, else English.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc::documents {

// Tesseract's code for a POSIX locale name: "de_DE.UTF-8" -> "deu", "fr" -> "fra",
// "zh_TW" -> "chi_tra"; "" for "C", "POSIX" or a language not in the table.
std::string ocr_language_for_locale(const std::string& locale);

// The folder with the *.traineddata files: $TESSDATA_PREFIX (or its tessdata/), else Debian's
// /usr/share/tesseract-ocr/5/tessdata (or 4.00); "" when none exists.
std::filesystem::path tessdata_dir();

// The installed languages (traineddata file names without the suffix, "osd" left out), sorted.
std::vector<std::string> installed_ocr_languages();

// The locale's language (LC_ALL, else LC_MESSAGES, else LANG) if installed, else "eng".
std::string default_ocr_language();

// `requested` ("" = default_ocr_language()) checked: a code of letters, digits and '_', several
// joined by '+', each with its traineddata installed. Throws Error naming the missing package
// (tesseract-ocr-deu) otherwise.
std::string resolve_ocr_language(const std::string& requested);

}  // namespace snapdoc::documents
