// See cuda_fault_injection.h: compiled to nothing unless SNAPDOC_CUDA_FAULT_INJECTION is defined.
#include "engine/runtime/cuda/cuda_fault_injection.h"

#ifdef SNAPDOC_CUDA_FAULT_INJECTION

#include <mutex>

namespace snapdoc::cuda::fault {

namespace {
std::mutex g_mutex;
std::string g_failing_step;
int g_corrupt_layer = -1;
}  // namespace

void fail_launch(const std::string& what) {
    std::lock_guard lock(g_mutex);
    g_failing_step = what;
}

void corrupt_layer_output(int layer) {
    std::lock_guard lock(g_mutex);
    g_corrupt_layer = layer;
}

void clear() {
    std::lock_guard lock(g_mutex);
    g_failing_step.clear();
    g_corrupt_layer = -1;
}

cudaError_t on_check(cudaError_t e, const char* what) {
    std::lock_guard lock(g_mutex);
    if (e == cudaSuccess && !g_failing_step.empty() && g_failing_step == what) return cudaErrorLaunchFailure;
    return e;
}

void after_layer(int layer, void* rows, std::size_t bytes, cudaStream_t stream) {
    {
        std::lock_guard lock(g_mutex);
        if (layer != g_corrupt_layer) return;
    }
    // 0x41 bytes read as floats are 12.07 each: finite, so the check must catch them by value.
    cudaMemsetAsync(rows, 0x41, bytes, stream);
}

}  // namespace snapdoc::cuda::fault

#endif
