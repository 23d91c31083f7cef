// The CUDA backend lives in a module of its own, libsnapdoc-cuda.so (engine/runtime/cuda/ and
// kernels/), so the programs start and run on the CPU on machines without NVIDIA's libraries: only
// the module links libcublas and the CUDA runtime. This header is the table of entry points the
// module hands to the engine (cuda_module_loader.h finds and loads it; backend_factory.cpp calls
// it). Both sides are built from the same tree by the same compiler, so the table passes C++ types;
// a module from another build is refused by its build id, never called.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/runtime/backend.h"
#include "engine/runtime/gpu_self_check.h"

namespace snapdoc {

// Bumped whenever the table below changes shape.
inline constexpr int kCudaModuleAbi = 2;

struct CudaModuleApi {
    int abi = kCudaModuleAbi;
    // The snapdoc version and compiler the module was built with (SNAPDOC_BUILD_ID); the loader
    // accepts only its own.
    const char* build_id = "";
    // Devices the CUDA runtime sees; 0 without a device or a usable driver.
    int (*device_count)() = nullptr;
    // Why no device can be used ("" when one can).
    std::string (*unavailable_reason)() = nullptr;
    // The first part of `model` the kernels lack ("" when the backend can run it).
    std::string (*unsupported_feature)(const Model& model) = nullptr;
    // Device 0's used and total memory in bytes (zeros without a device).
    void (*memory_use)(int64_t* used, int64_t* total) = nullptr;
    // make_cuda_backend(model, options): throws Error with the reason when it cannot.
    std::unique_ptr<Backend> (*make_backend)(const Model& model, const BackendOptions& options) = nullptr;
    // What the GPU self-check (gpu_self_check.h) checks: the device's identity and how to build the
    // backend (cuda_gpu_identity.h). Throws Error when the device cannot be queried.
    GpuCandidate (*self_check_candidate)(const Model& model, const BackendOptions& options) = nullptr;
};

}  // namespace snapdoc

// The module's one exported symbol (engine/runtime/cuda/cuda_module_entry.cpp). Programs that link
// the CUDA backend in directly (the CUDA test suites, the benchmarks) have it too; the loader then
// uses theirs and loads nothing.
extern "C" const snapdoc::CudaModuleApi* snapdoc_cuda_module_v1();
