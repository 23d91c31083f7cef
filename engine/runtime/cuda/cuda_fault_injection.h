// Test-only faults in the CUDA backend, so the GPU self-check's fallback can be tested on purpose
// (tests/cuda_emu/test_emu_gpu_self_check.cpp): a kernel launch that reports failure, and a layer
// whose output comes out wrong.
//
// Not reachable by accident in production: the functions exist only where SNAPDOC_CUDA_FAULT_INJECTION
// is defined, which only the emulated test build does (tests/cuda_emu/CMakeLists.txt). Everywhere
// else the two hooks below are empty inline functions the compiler removes, and there is no
// environment variable or flag that could arm anything.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace snapdoc::cuda::fault {

#ifdef SNAPDOC_CUDA_FAULT_INJECTION
// Every cuda::check() of the step named `what` ("rms_norm kernel") reports cudaErrorLaunchFailure,
// as a kernel that failed to launch would.
void fail_launch(const std::string& what);
// After run_layer(`layer`) the layer's output rows are overwritten (as a kernel writing garbage would).
void corrupt_layer_output(int layer);
// Disarms both.
void clear();

cudaError_t on_check(cudaError_t e, const char* what);
void after_layer(int layer, void* rows, std::size_t bytes, cudaStream_t stream);
#else
inline cudaError_t on_check(cudaError_t e, const char*) { return e; }
inline void after_layer(int, void*, std::size_t, cudaStream_t) {}
#endif

}  // namespace snapdoc::cuda::fault
