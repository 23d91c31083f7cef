#include "app/documents/ocr_cache.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace fs = std::filesystem;

namespace {

constexpr int kCacheFormat = 1;
constexpr std::uintmax_t kMaxCacheFileBytes = std::uintmax_t{64} << 20;

std::string sha256_hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr) != 1)
        throw Error("SHA-256 of the PDF failed (OpenSSL)");
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

}  // namespace

fs::path default_ocr_cache_dir() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/') return fs::path(xdg) / "snapdoc" / "ocr";
    const char* home = std::getenv("HOME");
    if (home && *home) return fs::path(home) / ".cache" / "snapdoc" / "ocr";
    return {};
}

fs::path ocr_cache_file(const fs::path& dir, std::string_view pdf_bytes, const std::string& language) {
    return dir / (sha256_hex(pdf_bytes) + "-" + language + ".json");
}

std::optional<std::map<int, std::string>> load_ocr_cache(const fs::path& file, const std::string& language) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > kMaxCacheFileBytes) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", 0) != kCacheFormat || j.value("language", "") != language ||
        !j.contains("pages") || !j["pages"].is_array())
        return std::nullopt;
    std::map<int, std::string> pages;
    for (const auto& p : j["pages"]) {
        if (!p.is_object() || !p.contains("page") || !p["page"].is_number_integer() || !p.contains("text") ||
            !p["text"].is_string())
            return std::nullopt;
        pages[p["page"].get<int>()] = p["text"].get<std::string>();
    }
    return pages;
}

std::string store_ocr_cache(const fs::path& file, const std::string& language, const std::map<int, std::string>& pages) {
    try {
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
        if (ec) return "cannot create " + file.parent_path().string() + ": " + ec.message();
        nlohmann::json j{{"format", kCacheFormat}, {"language", language}, {"pages", nlohmann::json::array()}};
        for (const auto& [page, text] : pages) j["pages"].push_back({{"page", page}, {"text", text}});
        AtomicFileWriter out(file);
        out.write(j.dump());
        out.commit();
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace snapdoc::documents
