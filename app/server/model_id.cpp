#include "app/server/model_id.h"

namespace snapdoc::server {

namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::string listed_model_id(const std::string& alias, const std::string& model_name,
                            const std::filesystem::path& model_path) {
    if (!alias.empty()) return alias;
    if (std::string name = trimmed(model_name); !name.empty()) return name;
    // A folder path may end in a separator: its last named component is the model's name. Only a
    // ".gguf" extension is taken off ("Qwen2.5-0.5B" is a folder's whole name).
    const std::filesystem::path p = model_path.has_filename() ? model_path : model_path.parent_path();
    std::string name = p.filename().string();
    if (p.extension() == ".gguf" || p.extension() == ".GGUF") name = p.stem().string();
    return name.empty() ? "model" : name;
}

}  // namespace snapdoc::server
