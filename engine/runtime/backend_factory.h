// Choosing a backend by name at run time: "cpu", "cuda" or "auto" (the GPU when the CUDA backend is
// available and a device is usable, else the CPU). The CUDA backend is a module loaded on first use
// (libsnapdoc-cuda.so, cuda_module_loader.h), so this compiles and runs the same with and without the
// CUDA toolkit and libraries; without them, "cuda" throws an Error that says why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/runtime/backend.h"

namespace snapdoc {

// Whether the CUDA backend is available to this program: linked in, or its module loaded (a device
// may still be missing: cuda_backend_usable).
bool cuda_backend_built();
// Whether make_backend(..., "cuda") can succeed here (available and a device is usable).
bool cuda_backend_usable();
// The backend "auto" picks here: "cuda" or "cpu".
std::string resolve_device(std::string_view device);

// Device memory of CUDA device 0 as the driver reports it (cudaMemGetInfo: used = total - free, every
// allocation on the device and the CUDA context included), for benchmarks; zeros when the CUDA
// backend is not available or no device is usable. Safe from any thread (a memory sampler).
struct DeviceMemoryUse {
    int64_t used = 0, total = 0;
};
DeviceMemoryUse cuda_memory_use();

// Throws Error for an unknown name, for "cuda" without the CUDA backend or without a usable device.
std::unique_ptr<Backend> make_backend(const Model& model, const BackendOptions& options = {},
                                      std::string_view device = "auto");

}  // namespace snapdoc
