#include "app/documents/ocr_language.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "engine/common/error.h"

namespace snapdoc::documents {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool valid_code(const std::string& code) {
    return !code.empty() && std::all_of(code.begin(), code.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

bool installed(const fs::path& dir, const std::string& code) {
    std::error_code ec;
    return !dir.empty() && fs::is_regular_file(dir / (code + ".traineddata"), ec);
}

// Debian names the data packages after the code with '-' for '_' (chi_sim -> tesseract-ocr-chi-sim).
std::string package_for(std::string code) {
    std::replace(code.begin(), code.end(), '_', '-');
    std::transform(code.begin(), code.end(), code.begin(), [](unsigned char c) { return std::tolower(c); });
    return "tesseract-ocr-" + code;
}

}  // namespace

std::string ocr_language_for_locale(const std::string& locale) {
    // "ll_CC.codeset@modifier": the language, and the country where it decides the script.
    std::string name = locale.substr(0, locale.find_first_of(".@"));
    const std::string lang = name.substr(0, name.find('_'));
    if (lang == "zh") return (name == "zh_TW" || name == "zh_HK" || name == "zh_MO") ? "chi_tra" : "chi_sim";
    static const std::map<std::string, std::string> iso639_1{
        {"af", "afr"}, {"ar", "ara"}, {"be", "bel"}, {"bg", "bul"}, {"bn", "ben"}, {"ca", "cat"},
        {"cs", "ces"}, {"cy", "cym"}, {"da", "dan"}, {"de", "deu"}, {"el", "ell"}, {"en", "eng"},
        {"eo", "epo"}, {"es", "spa"}, {"et", "est"}, {"eu", "eus"}, {"fa", "fas"}, {"fi", "fin"},
        {"fr", "fra"}, {"ga", "gle"}, {"gl", "glg"}, {"he", "heb"}, {"hi", "hin"}, {"hr", "hrv"},
        {"hu", "hun"}, {"id", "ind"}, {"is", "isl"}, {"it", "ita"}, {"ja", "jpn"}, {"ko", "kor"},
        {"lt", "lit"}, {"lv", "lav"}, {"mk", "mkd"}, {"ms", "msa"}, {"mt", "mlt"}, {"nb", "nor"},
        {"nl", "nld"}, {"nn", "nor"}, {"no", "nor"}, {"pl", "pol"}, {"pt", "por"}, {"ro", "ron"},
        {"ru", "rus"}, {"sk", "slk"}, {"sl", "slv"}, {"sq", "sqi"}, {"sr", "srp"}, {"sv", "swe"},
        {"ta", "tam"}, {"th", "tha"}, {"tr", "tur"}, {"uk", "ukr"}, {"vi", "vie"}};
    const auto it = iso639_1.find(lang);
    return it == iso639_1.end() ? std::string() : it->second;
}

fs::path tessdata_dir() {
    std::vector<fs::path> candidates;
    if (const std::string prefix = env("TESSDATA_PREFIX"); !prefix.empty()) {
        candidates.emplace_back(prefix);
        candidates.emplace_back(fs::path(prefix) / "tessdata");
    }
    candidates.emplace_back("/usr/share/tesseract-ocr/5/tessdata");
    candidates.emplace_back("/usr/share/tesseract-ocr/4.00/tessdata");
    candidates.emplace_back("/usr/share/tessdata");
    for (const fs::path& dir : candidates) {
        std::error_code ec;
        if (fs::is_directory(dir, ec)) return dir;
    }
    return {};
}

std::vector<std::string> installed_ocr_languages() {
    std::vector<std::string> out;
    const fs::path dir = tessdata_dir();
    std::error_code ec;
    if (dir.empty()) return out;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() != ".traineddata") continue;
        const std::string code = entry.path().stem().string();
        if (code != "osd" && valid_code(code)) out.push_back(code);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string default_ocr_language() {
    std::string locale = env("LC_ALL");
    if (locale.empty()) locale = env("LC_MESSAGES");
    if (locale.empty()) locale = env("LANG");
    const std::string code = ocr_language_for_locale(locale);
    return !code.empty() && installed(tessdata_dir(), code) ? code : "eng";
}

std::string resolve_ocr_language(const std::string& requested) {
    const std::string language = requested.empty() ? default_ocr_language() : requested;
    const fs::path dir = tessdata_dir();
    std::size_t start = 0;
    while (true) {
        const std::size_t plus = language.find('+', start);
        const std::string code = language.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        if (!valid_code(code))
            throw Error("OCR language '" + language +
                        "' is not a Tesseract language code (such as eng, deu, fra; several joined by '+')");
        if (dir.empty())
            throw Error("OCR needs Tesseract's language data, and none is installed; install the package " +
                        package_for(code));
        if (!installed(dir, code))
            throw Error("OCR language '" + code + "' is not installed (no " + (dir / (code + ".traineddata")).string() +
                        "); install the package " + package_for(code));
        if (plus == std::string::npos) break;
        start = plus + 1;
    }
    return language;
}

}  // namespace snapdoc::documents
