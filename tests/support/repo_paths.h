// The source tree's root, for tests that use files checked into the repository (the bundled demo
// model, resources/samples). Found from this file's own path; with a relative __FILE__ (ccache's
// base_dir rewrites paths relative to the build folder) it is resolved against the build folder,
// the test binary's parent's parent, so it holds whatever folder ctest runs a test in.
#pragma once

#include <filesystem>

namespace snapdoc::testing {

std::filesystem::path repo_root();
// resources/models/snapdoc-demo.gguf, or $SNAPDOC_DEMO_MODEL when set.
std::filesystem::path demo_model_path();

}  // namespace snapdoc::testing
