// Where the bundled data is: the demo model (models/snapdoc-demo.gguf), the catalogue
// (models/catalogue.json) and the sample reports (samples/). One answer for every program:
//   1. $SNAPDOC_RESOURCES_DIR, when set (then nowhere else);
//   2. <executable dir>/../share/snapdoc: /usr/share/snapdoc for /usr/bin/snapdoc-cli, and in the
//      build tree build/share/snapdoc, a link to the source tree's resources/ (made at configure
//      time, top-level CMakeLists.txt), for build/app/snapdoc-cli and build/ui/snapdoc alike.
// Qt-free: the CLI, the server and the desktop app use it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc {

// The places searched, in order.
std::vector<std::filesystem::path> resource_dir_candidates();

// The first candidate that holds the demo model; throws Error naming every place searched.
std::filesystem::path resource_dir();

// resource_dir()/models/snapdoc-demo.gguf.
std::filesystem::path bundled_demo_model();

// The name that stands for the bundled demo model wherever a model path is asked for
// (snapdoc-cli -m demo, snapdoc-server -m demo, snapdoc --model demo).
inline constexpr const char* kDemoModelName = "demo";

// `spec` itself, or the bundled demo model when spec is "demo" and no file of that name exists here.
std::filesystem::path resolve_model_spec(const std::string& spec);

}  // namespace snapdoc
