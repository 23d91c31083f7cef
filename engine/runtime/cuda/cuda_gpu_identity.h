// What the GPU self-check (engine/runtime/gpu_self_check.h) needs from the CUDA side: the device's
// identity (the verdict's key) and how to build the backend it checks.
#pragma once

#include "engine/runtime/backend.h"
#include "engine/runtime/gpu_self_check.h"

namespace snapdoc {

// Name, compute capability and driver of `device` (the NVIDIA kernel module's version from
// /proc/driver/nvidia/version when readable, plus the CUDA version the driver supports), this
// build's version, and the dtype the model's weights take there. Throws Error when the device
// cannot be queried.
GpuIdentity cuda_gpu_identity(const Model& model, int device = 0);

// The candidate gate_gpu_backend checks: that identity and make_cuda_backend(model, options).
GpuCandidate cuda_self_check_candidate(const Model& model, const BackendOptions& options);

}  // namespace snapdoc
