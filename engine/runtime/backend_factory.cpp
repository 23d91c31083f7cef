#include "engine/runtime/backend_factory.h"

#include <spdlog/spdlog.h>

#include "engine/common/error.h"
#include "engine/runtime/gpu_self_check.h"

#ifdef SNAPDOC_HAVE_CUDA
#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/cuda_gpu_identity.h"
#endif

namespace snapdoc {

bool cuda_backend_built() {
#ifdef SNAPDOC_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

bool cuda_backend_usable() {
#ifdef SNAPDOC_HAVE_CUDA
    return cuda_device_count() > 0;
#else
    return false;
#endif
}

DeviceMemoryUse cuda_memory_use() {
#ifdef SNAPDOC_HAVE_CUDA
    if (cuda_device_count() == 0) return {};
    // The device is per thread: a sampler thread starts on device 0, as the backend's default.
    if (cudaSetDevice(0) != cudaSuccess) return {};
    const cuda::MemoryInfo m = cuda::memory_info();
    return {m.total - m.free, m.total};
#else
    return {};
#endif
}

std::string resolve_device(std::string_view device) {
    if (device == "cpu" || device == "cuda") return std::string(device);
    if (device == "auto") return cuda_backend_usable() ? "cuda" : "cpu";
    throw Error("unknown device '" + std::string(device) + "' (expected cpu, cuda or auto)");
}

std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options, std::string_view device) {
    const std::string chosen = resolve_device(device);
    if (chosen == "cpu") return make_cpu_backend(model, options);
#ifdef SNAPDOC_HAVE_CUDA
    // "auto" runs what the CUDA kernels lack (Qwen2 biases, Qwen3 q/k norms) on the CPU;
    // an explicit "cuda" gets the backend's error naming the feature.
    if (device == "auto") {
        if (const std::string feature = cuda_unsupported_feature(model); !feature.empty()) {
            spdlog::info("device auto: the CUDA backend does not support {} yet; using the CPU", feature);
            return make_cpu_backend(model, options);
        }
    }
    if (cuda_device_count() == 0) throw Error("--device cuda: " + cuda_unavailable_reason());
    // The apps check a device against the CPU before trusting it (engine/runtime/gpu_self_check.h).
    if (gpu_self_check_settings().enabled)
        return gate_gpu_backend(model, options, cuda_self_check_candidate(model, options), device == "auto");
    return make_cuda_backend(model, options);
#else
    throw Error("snapdoc was built without CUDA (configure with the CUDA toolkit and -DSNAPDOC_CUDA=ON to use --device cuda)");
#endif
}

}  // namespace snapdoc
