#include "app/eval/output_paths.h"

#include <algorithm>
#include <cctype>

namespace snapdoc::eval {

std::filesystem::path setting_path(const std::filesystem::path& base, const std::string& tag) {
    std::filesystem::path p = base;
    const std::string ext = p.has_extension() ? p.extension().string() : ".png";
    p.replace_extension();
    p += "-" + tag + ext;
    return p;
}

std::string model_label(const std::filesystem::path& model_path) {
    std::filesystem::path p = model_path;
    if (!p.has_filename()) p = p.parent_path();  // "folder/"
    std::string name = p.extension() == ".gguf" ? p.stem().string() : p.filename().string();
    if (name.empty()) name = "model";
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return name;
}

}  // namespace snapdoc::eval
