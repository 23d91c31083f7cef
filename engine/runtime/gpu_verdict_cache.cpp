#include "engine/runtime/gpu_verdict_cache.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <vector>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "snapdoc-gpu-self-check";
constexpr int kVersion = 1;
// A real file holds a handful of entries (a few hundred bytes each); anything far larger is not ours.
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

struct Entry {
    GpuIdentity id;
    GpuVerdict verdict;
};

// Reads one entry; throws std::runtime_error (caught as "corrupt") on a missing or mistyped field.
Entry entry_from_json(const json& j) {
    if (!j.is_object()) throw std::runtime_error("a verdict is not a JSON object");
    auto str = [&](const char* key) -> std::string {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string()) throw std::runtime_error(std::string("field '") + key + "' is missing or not a string");
        return it->get<std::string>();
    };
    auto num = [&](const char* key) -> double {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_number()) throw std::runtime_error(std::string("field '") + key + "' is missing or not a number");
        return it->get<double>();
    };
    const auto passed = j.find("passed");
    if (passed == j.end() || !passed->is_boolean()) throw std::runtime_error("field 'passed' is missing or not true/false");
    Entry e;
    e.id = {str("device"), str("compute_capability"), str("driver"), str("snapdoc"), str("weight_type")};
    e.verdict.passed = passed->get<bool>();
    e.verdict.message = str("message");
    e.verdict.step = str("step");
    e.verdict.model = str("model");
    e.verdict.worst_nmse = num("worst_nmse");
    e.verdict.tolerance = num("tolerance");
    e.verdict.checked_at = str("checked_at");
    return e;
}

json entry_to_json(const Entry& e) {
    return {{"device", e.id.device_name},      {"compute_capability", e.id.compute_capability},
            {"driver", e.id.driver_version},   {"snapdoc", e.id.snapdoc_version},
            {"weight_type", e.id.weight_type}, {"passed", e.verdict.passed},
            {"step", e.verdict.step},          {"message", e.verdict.message},
            {"model", e.verdict.model},        {"worst_nmse", e.verdict.worst_nmse},
            {"tolerance", e.verdict.tolerance}, {"checked_at", e.verdict.checked_at}};
}

// The file's entries. Missing file: none, silently. Unreadable or corrupt: none, with a warning that
// says the check will run again (the caller then overwrites the file with a good one).
std::vector<Entry> load_entries(const fs::path& file) {
    std::error_code ec;
    const auto st = fs::status(file, ec);
    if (ec || st.type() == fs::file_type::not_found) return {};
    auto ignore = [&](const std::string& why) {
        spdlog::warn("ignoring the GPU self-check verdict file {}: {}; the self-check will run again", file.string(), why);
        return std::vector<Entry>{};
    };
    if (st.type() != fs::file_type::regular) return ignore("not a regular file");
    const auto size = fs::file_size(file, ec);
    if (ec) return ignore("cannot read its size (" + ec.message() + ")");
    if (size > kMaxFileBytes) return ignore("it is " + std::to_string(size) + " bytes, far larger than a verdict file");
    std::ifstream in(file, std::ios::binary);
    if (!in) return ignore("cannot open it");
    std::ostringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return ignore("it is not valid JSON");
    try {
        if (!doc.is_object() || doc.value("format", "") != kFormat) throw std::runtime_error("it is not a snapdoc verdict file");
        if (!doc.contains("version") || doc["version"] != kVersion)
            throw std::runtime_error("unknown version (expected " + std::to_string(kVersion) + ")");
        const auto it = doc.find("verdicts");
        if (it == doc.end() || !it->is_array()) throw std::runtime_error("'verdicts' is missing or not a list");
        std::vector<Entry> entries;
        for (const auto& j : *it) entries.push_back(entry_from_json(j));
        return entries;
    } catch (const std::exception& e) {  // nlohmann's type errors too
        return ignore(e.what());
    }
}

}  // namespace

std::string snapdoc_engine_version() {
#ifdef SNAPDOC_ENGINE_VERSION
    return SNAPDOC_ENGINE_VERSION;
#else
    return "unknown";
#endif
}

std::string GpuIdentity::device_text() const {
    return device_name + " (compute " + compute_capability + ", driver " + driver_version + ")";
}

GpuVerdictCache::GpuVerdictCache(fs::path file) : file_(std::move(file)) {}

fs::path GpuVerdictCache::default_file() {
    if (const char* f = std::getenv("SNAPDOC_GPU_VERDICT_FILE"); f && *f) return fs::path(f);
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
        return fs::path(xdg) / "snapdoc" / "gpu-self-check.json";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "snapdoc" / "gpu-self-check.json";
    return fs::temp_directory_path() / "snapdoc-gpu-self-check.json";
}

std::optional<GpuVerdict> GpuVerdictCache::find(const GpuIdentity& id) const {
    for (auto& e : load_entries(file_))
        if (e.id == id) return std::move(e.verdict);
    return std::nullopt;
}

void GpuVerdictCache::store(const GpuIdentity& id, const GpuVerdict& v) const {
    json list = json::array();
    for (const auto& e : load_entries(file_)) {
        if (e.id == id) continue;  // replaced below
        // The same card under another driver or snapdoc version: stale for good, so dropped (the
        // file stays a few entries long however many upgrades it sees).
        const bool same_device = e.id.device_name == id.device_name && e.id.compute_capability == id.compute_capability &&
                                 e.id.weight_type == id.weight_type;
        if (same_device) continue;
        list.push_back(entry_to_json(e));
    }
    list.push_back(entry_to_json({id, v}));
    const json doc = {{"format", kFormat}, {"version", kVersion}, {"verdicts", list}};

    std::error_code ec;
    if (file_.has_parent_path()) fs::create_directories(file_.parent_path(), ec);
    if (ec) throw Error("cannot create the folder for the GPU self-check verdict " + file_.parent_path().string() + ": " + ec.message());
    AtomicFileWriter out(file_);
    out.write(doc.dump(2) + "\n");
    out.commit();
}

}  // namespace snapdoc
