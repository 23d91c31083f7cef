// The CUDA module's entry point (engine/runtime/cuda_module.h): the table the engine's loader asks
// for, over the functions in cuda_backend.h. The only symbol the module exports
// (cuda_module.map); built into the test suites and benchmarks as well, where the loader finds it
// in the program itself.
#include <cuda_runtime_api.h>

#include "engine/runtime/cuda/cuda_backend.h"
#include "engine/runtime/cuda/cuda_check.h"
#include "engine/runtime/cuda/cuda_gpu_identity.h"
#include "engine/runtime/cuda_module.h"

#ifndef SNAPDOC_BUILD_ID
#error "SNAPDOC_BUILD_ID must be defined (engine/runtime/cuda/CMakeLists.txt)"
#endif

namespace snapdoc {
namespace {

void memory_use(int64_t* used, int64_t* total) {
    *used = *total = 0;
    if (cuda_device_count() == 0) return;
    // The device is per thread: a sampler thread starts on device 0, as the backend's default.
    if (cudaSetDevice(0) != cudaSuccess) return;
    const cuda::MemoryInfo m = cuda::memory_info();
    *used = m.total - m.free;
    *total = m.total;
}

std::unique_ptr<Backend> make(const Model& model, const BackendOptions& options) {
    return make_cuda_backend(model, options);
}

const CudaModuleApi kApi = [] {
    CudaModuleApi api;
    api.build_id = SNAPDOC_BUILD_ID;
    api.device_count = &cuda_device_count;
    api.unavailable_reason = &cuda_unavailable_reason;
    api.unsupported_feature = &cuda_unsupported_feature;
    api.memory_use = &memory_use;
    api.make_backend = &make;
    api.self_check_candidate = &cuda_self_check_candidate;
    return api;
}();

}  // namespace
}  // namespace snapdoc

extern "C" __attribute__((visibility("default"))) const snapdoc::CudaModuleApi* snapdoc_cuda_module_v1() {
    return &snapdoc::kApi;
}
