#include "tests/support/demo_model_path.h"

#include <cstdlib>

namespace snapdoc {

std::filesystem::path demo_model_path() {
    if (const char* env = std::getenv("SNAPDOC_DEMO_MODEL")) return env;
    // tests/support/this_file.cpp -> repository root
    return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "resources" / "models" /
           "snapdoc-demo.gguf";
}

}  // namespace snapdoc
