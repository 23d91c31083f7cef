#include "app/common/resource_paths.h"

#include <cstdlib>
#include <system_error>

#include "engine/common/error.h"
#include "engine/common/executable_path.h"

namespace snapdoc {

namespace {
const std::filesystem::path kDemoModel = std::filesystem::path("models") / "snapdoc-demo.gguf";
}

std::vector<std::filesystem::path> resource_dir_candidates() {
    if (const char* env = std::getenv("SNAPDOC_RESOURCES_DIR"); env && *env) return {env};
    std::vector<std::filesystem::path> dirs;
    if (const std::filesystem::path exe = executable_dir(); !exe.empty())
        dirs.push_back((exe / ".." / "share" / "snapdoc").lexically_normal());
    return dirs;
}

std::filesystem::path resource_dir() {
    const std::vector<std::filesystem::path> dirs = resource_dir_candidates();
    std::string searched;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir / kDemoModel, ec)) return dir;
        searched += (searched.empty() ? "" : ", ") + dir.string();
    }
    if (searched.empty()) searched = "none (the executable's folder is unknown and SNAPDOC_RESOURCES_DIR is unset)";
    throw Error("snapdoc's bundled resources (" + kDemoModel.string() + ", samples/) were not found; searched: " +
                searched + ". Set SNAPDOC_RESOURCES_DIR to the folder that holds them (resources/ in the source tree)");
}

std::filesystem::path bundled_demo_model() { return resource_dir() / kDemoModel; }

std::filesystem::path resolve_model_spec(const std::string& spec) {
    std::error_code ec;
    if (spec == kDemoModelName && !std::filesystem::exists(spec, ec)) return bundled_demo_model();
    return spec;
}

}  // namespace snapdoc
