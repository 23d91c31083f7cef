// File names and labels for evaluation outputs.
#pragma once

#include <filesystem>
#include <string>

namespace snapdoc::eval {

// "docs/niah.png" + "b128" -> "docs/niah-b128.png" (".png" added when `base` has no extension).
std::filesystem::path setting_path(const std::filesystem::path& base, const std::string& tag);
// A model's name for plot titles: the file stem of a .gguf, else the folder name; upper case.
std::string model_label(const std::filesystem::path& model_path);

}  // namespace snapdoc::eval
