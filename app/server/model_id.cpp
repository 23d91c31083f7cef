#include "app/server/model_id.h"

#include "engine/common/trim.h"

namespace snapdoc::server {

std::string listed_model_id(const std::string& alias, const std::string& model_name,
                            const std::filesystem::path& model_path) {
    if (!alias.empty()) return alias;
    if (std::string name(trim_whitespace(model_name)); !name.empty()) return name;
    // A folder path may end in a separator: its last named component is the model's name. Only a
    // ".gguf" extension is taken off ("Qwen2.5-0.5B" is a folder's whole name).
    const std::filesystem::path p = model_path.has_filename() ? model_path : model_path.parent_path();
    std::string name = p.filename().string();
    if (p.extension() == ".gguf" || p.extension() == ".GGUF") name = p.stem().string();
    return name.empty() ? "model" : name;
}

}  // namespace snapdoc::server
