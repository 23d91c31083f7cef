#include "app/common/version_text.h"

#include "app/common/resource_paths.h"
#include "engine/common/error.h"
#include "engine/runtime/cuda_module_loader.h"

#ifndef SNAPDOC_VERSION
#error "SNAPDOC_VERSION must be defined (app/CMakeLists.txt)"
#endif

namespace snapdoc {

std::string version_text(const std::string& program) {
    std::string resources;
    try {
        resources = resource_dir().string();
    } catch (const Error& e) {
        resources = e.what();
    }
    return program + " " + SNAPDOC_VERSION + "\nCUDA backend: " + cuda_module_summary() + "\nresources: " + resources +
           "\n";
}

}  // namespace snapdoc
