// Where the running program's executable is, so an installed program can find what was installed
// beside it (<prefix>/share/snapdoc, <prefix>/lib/snapdoc) wherever the prefix is, and a program in
// the build tree finds the build tree's copies the same way.
#pragma once

#include <filesystem>

namespace snapdoc {

// The folder of the running executable (/proc/self/exe, symlinks resolved); empty when the kernel
// does not say (no /proc), so callers fall back to their other places.
std::filesystem::path executable_dir();

}  // namespace snapdoc
