#include "engine/runtime/backend_factory.h"

#include <spdlog/spdlog.h>

#include "engine/common/error.h"
#include "engine/runtime/cuda_module_loader.h"
#include "engine/runtime/gpu_self_check.h"

namespace snapdoc {

namespace {

// The CUDA module's table, or null; the first call loads the module (cuda_module_loader.h) and says
// in the log why it is not there: at info when it is simply not installed (a CPU-only install),
// as a warning when it is installed but cannot load (e.g. libcublas is missing).
const CudaModuleApi* cuda_api() {
    static const CudaModuleApi* api = [] {
        const CudaModuleStatus& s = cuda_module();
        if (s.api)
            spdlog::info("CUDA backend: {}", cuda_module_summary());
        else if (s.source.empty())
            spdlog::info("CUDA backend unavailable: {}", s.error);
        else
            spdlog::warn("CUDA backend unavailable: {}", s.error);
        return s.api;
    }();
    return api;
}

}  // namespace

bool cuda_backend_built() { return cuda_api() != nullptr; }

bool cuda_backend_usable() {
    const CudaModuleApi* api = cuda_api();
    return api && api->device_count() > 0;
}

DeviceMemoryUse cuda_memory_use() {
    const CudaModuleApi* api = cuda_api();
    if (!api) return {};
    DeviceMemoryUse m;
    api->memory_use(&m.used, &m.total);
    return m;
}

std::string resolve_device(std::string_view device) {
    if (device == "cpu" || device == "cuda") return std::string(device);
    if (device == "auto") return cuda_backend_usable() ? "cuda" : "cpu";
    throw Error("unknown device '" + std::string(device) + "' (expected cpu, cuda or auto)");
}

std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options, std::string_view device) {
    const std::string chosen = resolve_device(device);
    if (chosen == "cpu") return make_cpu_backend(model, options);
    const CudaModuleApi* api = cuda_api();
    if (!api) throw Error("--device cuda: " + cuda_module().error);
    // "auto" runs what the CUDA kernels lack (Qwen2 biases, Qwen3 q/k norms) on the CPU;
    // an explicit "cuda" gets the backend's error naming the feature.
    if (device == "auto") {
        if (const std::string feature = api->unsupported_feature(model); !feature.empty()) {
            spdlog::info("device auto: the CUDA backend does not support {} yet; using the CPU", feature);
            return make_cpu_backend(model, options);
        }
    }
    if (api->device_count() == 0) throw Error("--device cuda: " + api->unavailable_reason());
    // The apps check a device against the CPU before trusting it (engine/runtime/gpu_self_check.h).
    if (gpu_self_check_settings().enabled)
        return gate_gpu_backend(model, options, api->self_check_candidate(model, options), device == "auto");
    return api->make_backend(model, options);
}

}  // namespace snapdoc
