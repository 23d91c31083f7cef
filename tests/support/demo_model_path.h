// Where the golden tests find the bundled demo model: $SNAPDOC_DEMO_MODEL when set, else
// resources/models/snapdoc-demo.gguf of this checkout (tests skip with a message when it is absent).
#pragma once

#include <filesystem>

namespace snapdoc {

std::filesystem::path demo_model_path();

}  // namespace snapdoc
