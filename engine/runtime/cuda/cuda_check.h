// Turning CUDA and cuBLAS failures into snapdoc::Error with a message that says what failed, and
// device memory checks that say how much was needed and how much was free.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace snapdoc::cuda {

// Throws Error("CUDA <what>: <error name>: <description>") unless e is cudaSuccess.
void check(cudaError_t e, const char* what);
void check(cublasStatus_t s, const char* what);

std::string mib(int64_t bytes);  // "1234.5 MiB"

struct MemoryInfo {
    int64_t free = 0, total = 0;
};
MemoryInfo memory_info();

// Throws a clear out-of-GPU-memory Error if `bytes` more will not fit (free memory less a reserve
// for the CUDA context and cuBLAS workspaces), naming `what` and the numbers. Called before
// allocations that can be predicted, so nothing is half built when it fails.
void require_free(int64_t bytes, const std::string& what);

// Owned device memory (cudaMalloc). Move-only; freed on destruction.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t bytes, const std::string& what);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& o) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* get() const { return p_; }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p_);
    }
    std::size_t bytes() const { return bytes_; }
    // Reallocates (contents lost) when smaller than `bytes`; scratch that grows with the request.
    void ensure(std::size_t bytes, const std::string& what);

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace snapdoc::cuda
