// Finding and loading the CUDA module (libsnapdoc-cuda.so, see cuda_module.h), once per process.
//
// Where it looks, first hit wins:
//   1. the program itself (the test suites and benchmarks link the backend in);
//   2. $SNAPDOC_CUDA_MODULE, a path to the module (then nowhere else);
//   3. <executable dir>/../lib/snapdoc/libsnapdoc-cuda.so: the installed layout (/usr/bin ->
//      /usr/lib/snapdoc) and the build tree's (build/app -> build/lib/snapdoc) alike.
// Nothing here throws: a module that is missing or cannot load (no libcublas, a module from another
// build) leaves `api` null and `error` saying why in words, and the factory turns that into the
// --device cuda error or a CPU choice for "auto".
#pragma once

#include <filesystem>
#include <string>

#include "engine/runtime/cuda_module.h"

namespace snapdoc {

struct CudaModuleStatus {
    const CudaModuleApi* api = nullptr;  // null when not available
    std::string source;                  // the file loaded, or "built in"
    std::string error;                   // why `api` is null
};

// The process-wide result (searched and loaded on the first call; thread-safe). Never unloaded:
// backends it made may live until exit.
const CudaModuleStatus& cuda_module();

// One load attempt of the module at `path`, uncached (cuda_module() uses it; tests call it to check
// the messages). A successful load stays loaded.
CudaModuleStatus load_cuda_module(const std::filesystem::path& path);

// Where step 3 above looks for this program ("" when the executable's folder is unknown).
std::filesystem::path installed_cuda_module_path();

// One line for --version and logs: "loaded from PATH", "built in" or the error.
std::string cuda_module_summary();

}  // namespace snapdoc
