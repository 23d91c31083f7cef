// Choosing a backend by name at run time: "cpu", "cuda" or "auto" (the GPU when this build has the
// CUDA backend and a device is usable, else the CPU). Compiles the same with and without the CUDA
// toolkit; without it, "cuda" throws an Error that says so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/runtime/backend.h"

namespace snapdoc {

// Whether this build contains the CUDA backend.
bool cuda_backend_built();
// Whether make_backend(..., "cuda") can succeed here (built and a device is usable).
bool cuda_backend_usable();
// The backend "auto" picks here: "cuda" or "cpu".
std::string resolve_device(std::string_view device);

// Device memory of CUDA device 0 as the driver reports it (cudaMemGetInfo: used = total - free, every
// allocation on the device and the CUDA context included), for benchmarks; zeros when this build has
// no CUDA backend or no usable device. Safe from any thread (a memory sampler).
struct DeviceMemoryUse {
    int64_t used = 0, total = 0;
};
DeviceMemoryUse cuda_memory_use();

// Throws Error for an unknown name, for "cuda" without the CUDA backend or without a usable device.
std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options = {},
                                      std::string_view device = "auto");

}  // namespace snapdoc
