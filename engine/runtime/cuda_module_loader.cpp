#include "engine/runtime/cuda_module_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <system_error>

#include "engine/common/executable_path.h"

// Set by engine/CMakeLists.txt for this file: the build id the module must match, whether this
// build made a module at all, and the CUDA libraries it needs (for the message when they are missing).
#ifndef SNAPDOC_BUILD_ID
#error "SNAPDOC_BUILD_ID must be defined (engine/CMakeLists.txt)"
#endif
#ifndef SNAPDOC_CUDA_MODULE_BUILT
#define SNAPDOC_CUDA_MODULE_BUILT 0
#endif
#ifndef SNAPDOC_CUDA_LIBRARIES
#define SNAPDOC_CUDA_LIBRARIES "NVIDIA's CUDA libraries"
#endif

// Weak: null unless the program links the backend in (the CUDA test suites, the benchmarks). A weak
// reference does not pull the entry out of an archive, so ordinary programs stay CUDA-free.
extern "C" const snapdoc::CudaModuleApi* snapdoc_cuda_module_v1() __attribute__((weak));

namespace snapdoc {

namespace {

constexpr const char* kModuleFile = "libsnapdoc-cuda.so";
constexpr const char* kEntrySymbol = "snapdoc_cuda_module_v1";

// The table's own checks, the same for a built-in and a loaded module.
std::string check_api(const CudaModuleApi* api) {
    if (!api) return "its entry point returned no table";
    if (api->abi != kCudaModuleAbi)
        return "its interface version is " + std::to_string(api->abi) + ", this program needs " +
               std::to_string(kCudaModuleAbi);
    if (std::string(api->build_id) != SNAPDOC_BUILD_ID)
        return std::string("it was built for snapdoc ") + api->build_id + ", this program is " + SNAPDOC_BUILD_ID +
               " (install the matching snapdoc-cuda package)";
    return "";
}

CudaModuleStatus search() {
    if (snapdoc_cuda_module_v1) {
        CudaModuleStatus s{snapdoc_cuda_module_v1(), "built in", ""};
        if (std::string why = check_api(s.api); !why.empty()) return {nullptr, s.source, "the built-in CUDA backend: " + why};
        return s;
    }
    if (const char* env = std::getenv("SNAPDOC_CUDA_MODULE"); env && *env) return load_cuda_module(env);
    if (!SNAPDOC_CUDA_MODULE_BUILT)
        return {nullptr, "",
                "snapdoc was built without CUDA (configure with the CUDA toolkit and -DSNAPDOC_CUDA=ON to use "
                "--device cuda)"};
    const std::filesystem::path path = installed_cuda_module_path();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
        return {nullptr, "",
                "the CUDA backend is not installed: no " + std::string(kModuleFile) + " at " +
                    (path.empty() ? std::string("<executable dir>/../lib/snapdoc (the executable's folder is unknown)")
                                  : path.string()) +
                    " (install the snapdoc-cuda package, or set SNAPDOC_CUDA_MODULE to the module's path)"};
    return load_cuda_module(path);
}

}  // namespace

std::filesystem::path installed_cuda_module_path() {
    const std::filesystem::path dir = executable_dir();
    if (dir.empty()) return {};
    return (dir / ".." / "lib" / "snapdoc" / kModuleFile).lexically_normal();
}

CudaModuleStatus load_cuda_module(const std::filesystem::path& path) {
    CudaModuleStatus s;
    s.source = path.string();
    // RTLD_LOCAL: the module's copies of engine code stay its own; RTLD_NOW: a missing symbol or
    // library is reported here, not as a crash on first use.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        s.error = "cannot load the CUDA module " + path.string() + ": " + (why ? why : "unknown error") +
                  " (it needs " SNAPDOC_CUDA_LIBRARIES " and the NVIDIA driver)";
        return s;
    }
    using Entry = const CudaModuleApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kEntrySymbol));
    if (!entry) {
        s.error = "cannot use " + path.string() + ": it has no " + kEntrySymbol + " (not a snapdoc CUDA module)";
        dlclose(handle);
        return s;
    }
    const CudaModuleApi* api = entry();
    if (std::string why = check_api(api); !why.empty()) {
        s.error = "cannot use the CUDA module " + path.string() + ": " + why;
        dlclose(handle);
        return s;
    }
    s.api = api;  // the handle stays open for the life of the process
    return s;
}

const CudaModuleStatus& cuda_module() {
    static const CudaModuleStatus status = search();
    return status;
}

std::string cuda_module_summary() {
    const CudaModuleStatus& s = cuda_module();
    if (!s.api) return s.error;
    return s.source == "built in" ? "built in" : "loaded from " + s.source;
}

}  // namespace snapdoc
