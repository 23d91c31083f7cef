#include "tests/support/repo_paths.h"

#include <cstdlib>

#include "engine/common/executable_path.h"

namespace snapdoc::testing {

std::filesystem::path repo_root() {
    std::filesystem::path self(__FILE__);  // <root>/tests/support/repo_paths.cpp
    if (self.is_relative())
        if (const auto dir = executable_dir(); !dir.empty())  // <build>/tests
            self = dir.parent_path() / self;
    return self.lexically_normal().parent_path().parent_path().parent_path();
}

std::filesystem::path demo_model_path() {
    if (const char* env = std::getenv("SNAPDOC_DEMO_MODEL"); env && *env) return env;
    return repo_root() / "resources" / "models" / "snapdoc-demo.gguf";
}

}  // namespace snapdoc::testing
