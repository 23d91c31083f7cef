// What `snapdoc-cli --version` and `snapdoc-server --version` print: the version, then where this
// program found its CUDA backend and bundled resources (or why not), so an install can be checked
// at a glance.
#pragma once

#include <string>

namespace snapdoc {

// "PROGRAM 0.1.0\nCUDA backend: ...\nresources: ...\n"
std::string version_text(const std::string& program);

}  // namespace snapdoc
