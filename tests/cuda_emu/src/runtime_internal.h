// CUDA emulation: what the executor and cuBLAS parts need from the runtime part.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace cuda_emu::runtime {

void set_last_error(cudaError_t e);
bool stream_valid(cudaStream_t s);
// Whether [p, p + bytes) lies inside one live device allocation.
bool device_range(const void* p, std::size_t bytes);

// Stream capture (CUDA graphs): record(s, op) returns true when `s` is capturing and `op` was
// recorded instead of run.
bool record(cudaStream_t s, std::function<cudaError_t()> op);

}  // namespace cuda_emu::runtime
